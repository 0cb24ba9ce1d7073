// Package config reads mcpcheck fixtures: what an MCP server must do, written
// as YAML or JSON, checked strictly and turned into a [Suite] for the runner.
// It describes what the user wrote and nothing else; it knows no runtime.
//
// schemas/fixture.schema.json is the definition of the format, with a
// description of every key. In short, a fixture names the suite, one target
// (command for a stdio server, or endpoint for Streamable HTTP), the tools
// that may be called (allowTools), a few settings, the scenarios and,
// optionally, checks to generate from the server's contracts (generate). A
// scenario is an ordered list of steps; a step is one call with its
// arguments and what must hold of its answer (expect). Files written for the
// TypeScript "MCP Tool Check" load unchanged.
//
// The main types and functions:
//
//   - [Load] and [Parse] read a fixture; [Quick] builds the suite of a run
//     without one (a command or URL and the generated checks).
//   - [Suite], [Scenario], [Step], [Expect], [Value], [Generate] hold what
//     was written, each with its [Pos] (file:line:col).
//   - [LoadOptions] are the layers above the file, merged with koanf: the
//     defaults < the fixture (or quick mode's defaults) < MCPCHECK_*
//     variables < flags, keyed by the fixture key they set.
//   - [Errors] is every problem of one load, each an [*Error] at its
//     file:line:col, or naming the setting and variable it came from;
//     all match [ErrInvalid]. An unreadable file matches [ErrFile].
//   - [Outcome], [Origin] and [ScoreName] are the vocabularies expectations
//     and reports share, each with one list ([Outcomes], [Origins],
//     [ScoreNames]) that tests hold to the schemas.
//
// Two things users rely on are decided here. Numbers keep their exact text
// ([encoding/json.Number]), so 9007199254740993 keeps its last digit. Tool
// arguments and expected values are data, decoded as written and never
// through koanf's dotted paths, so keys with dots, slashes or capitals arrive
// untouched; in expected values an object whose only key is a matcher
// ($match, $type, $gte, ...) is decoded once into a [Matcher]. The other rules sit where they are enforced: the YAML reader's
// refusals in yaml.go, the limits in node.go, the checks beyond the schema in
// check.go and generate.go, the settings in settings.go.
//
// # Example
//
//	suite, err := config.Load("fixtures.yaml", config.LoadOptions{
//		Flags: map[string]any{"concurrency": 4}, // from --jobs 4
//	})
//	if errors.Is(err, config.ErrInvalid) {
//		fmt.Fprintln(os.Stderr, err) // one file:line:col: message per line
//		return 2
//	}
package config
