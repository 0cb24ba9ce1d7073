// Package gen derives checks from a server's own tool contracts: the
// deterministic part of mcpcheck's generated cases. It has no network or
// MCP code. The runner calls it after discovery and compiles what it
// returns into ordinary steps, so generated and hand-written cases share
// one engine and one report.
//
// Schemas arrive compiled by package schema (runner/internal/schema): the
// very [schema.Schema] the runner validates a tool's arguments with, so a
// malformed schema, a remote `$ref` or one nested hundreds deep was
// refused before it got here, and a tool without a usable schema comes as
// nil. Every function is total: nil, and compiled schemas nobody can
// satisfy (cyclic `$ref`, impossible bounds or patterns), never panic;
// they yield a placeholder or no case, and a note saying what was skipped
// and why. Values are the runner's generic JSON (map[string]any, []any,
// string, bool, nil) with [encoding/json.Number] for numbers, never
// float64, so large integers and decimals keep their exact value.
//
// The main entry points:
//
//   - [Values.Valid] builds one realistic argument object for a tool, and
//     [Values.Distinct] several different ones (for a crossed-responses
//     check). Every candidate value is checked by the validator, at its
//     place in the schema document, before it is used. Hence the key
//     guarantee: empty notes mean, and only mean, that the arguments
//     validate against the tool's inputSchema, as compiled and with
//     formats asserted. Tests hold it for every tool of the recorded
//     captures in testdata, hostile schemas, thousands of random schemas
//     of every draft, and fuzzing.
//   - [FuzzCases] adds mcp-fuzz's missing-required and wrong-type calls to
//     the valid one.
//   - [Groups] finds create → read/delete tool groups by name, [Links]
//     parent/child pairs among them, and [ExtractID] the id a create call
//     returned, as a JSON Pointer a later step can reference.
//   - [Hint] reads one boolean tool annotation, telling absent from false.
//
// Output is deterministic: it depends only on the seed given to
// [NewValues], the tool name, the schema document and the variant, never
// on map order or earlier calls.
//
// How a value is chosen is documented where it is chosen: the order of
// preference at produce (produce.go) and typeChoices (values.go), the
// property-name hints at the hints table (hints.go), the format values at
// formatValues (format.go), patterns at patternWriter (pattern.go) and the
// limits in schema.go.
//
// The runnable examples are in example_test.go. In short:
//
//	input, err := schema.Compile("get_weather", "input", tool.InputSchema) // nil if refused; err says why
//	args, notes := gen.NewValues(1).Valid("get_weather", input)
//	// args: {"city": "Chicago", "days": 3, "units": "metric"}; notes: none
package gen
