package config

import (
	"bytes"
	"path/filepath"

	"go.yaml.in/yaml/v3"

	"github.com/mcpcheck/mcpcheck/internal/fileio"
)

// ExpectedFailure is one entry of a baseline of known failures
// (schemas/expected-failures.schema.json): a scenario, and optionally one
// of its steps, whose failure is known and does not fail the run.
type ExpectedFailure struct {
	Scenario string
	// Step is a step id; "" means any failure of the scenario.
	Step   string
	Reason string
	// Pos is where the entry is written.
	Pos Pos
}

// LoadExpectedFailures reads a baseline file (YAML, or JSON by extension)
// and checks it against its schema and against suite: every entry must
// name a scenario of the fixture and, when it has a step, one of that
// scenario's steps, once. Problems are [Errors] at the entries' lines; a
// file that cannot be read matches [ErrFile]. An empty file is an empty
// baseline.
func LoadExpectedFailures(path string, suite *Suite) ([]ExpectedFailure, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, err
	}
	errs := errList{file: path}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	root := parseDoc(path, data, &errs)
	if root == nil {
		return nil, errs.err()
	}
	if err := baselineSchema.validate(root, &errs); err != nil {
		return nil, err
	}
	if !errs.empty() {
		return nil, errs.err()
	}
	// Looked up by name: a baseline may list thousands of entries of a
	// fixture of as many scenarios, and the check stays linear.
	byName := make(map[string]int, len(suite.Scenarios))
	for i := range suite.Scenarios {
		if _, dup := byName[suite.Scenarios[i].Name]; !dup {
			byName[suite.Scenarios[i].Name] = i
		}
	}
	stepIDs := map[int]map[string]bool{} // of the scenarios entries name
	hasStep := func(i int, id string) bool {
		ids := stepIDs[i]
		if ids == nil {
			ids = make(map[string]bool, len(suite.Scenarios[i].Steps))
			for _, st := range suite.Scenarios[i].Steps {
				ids[st.ID] = true
			}
			stepIDs[i] = ids
		}
		return ids[id]
	}
	type key struct{ scenario, step string }
	listed := make(map[key]bool, len(root.items))
	var out []ExpectedFailure
	for _, n := range root.items {
		e := ExpectedFailure{
			Scenario: strValue(n.value("scenario")),
			Step:     strValue(n.value("step")),
			Reason:   strValue(n.value("reason")),
			Pos:      n.pos.in(path),
		}
		i, named := byName[e.Scenario]
		switch {
		case !named:
			msg := "names no scenario of " + suite.File + ": " + quote(e.Scenario)
			if s := Suggest(e.Scenario, scenarioNames(suite)); s != "" {
				msg += "; did you mean " + quote(s) + "?"
			}
			errs.at(n.value("scenario").pos, "%s", msg)
		case e.Step != "" && !hasStep(i, e.Step):
			errs.at(n.value("step").pos, "scenario %s has no step %s", quote(e.Scenario), quote(e.Step))
		case listed[key{e.Scenario, e.Step}]:
			errs.at(n.pos, "scenario %s, step %s is listed twice", quote(e.Scenario), quote(e.Step))
		}
		listed[key{e.Scenario, e.Step}] = true
		out = append(out, e)
	}
	if !errs.empty() {
		return nil, errs.err()
	}
	return out, nil
}

func scenarioNames(s *Suite) []string {
	out := make([]string, len(s.Scenarios))
	for i, sc := range s.Scenarios {
		out[i] = sc.Name
	}
	return out
}

// WriteExpectedFailures writes a baseline file (--update-expected-failures)
// as YAML: one entry a line's block, in the order given. The file is
// replaced whole (internal/fileio): on an error it is left as it was.
func WriteExpectedFailures(path string, entries []ExpectedFailure) error {
	type entry struct {
		Scenario string `yaml:"scenario"`
		Step     string `yaml:"step,omitempty"`
		Reason   string `yaml:"reason,omitempty"`
	}
	list := make([]entry, len(entries))
	for i, e := range entries {
		list[i] = entry{e.Scenario, e.Step, e.Reason}
	}
	var b bytes.Buffer
	b.WriteString("# Known failures (mcpcheck --expected-failures); rewritten by --update-expected-failures.\n")
	if len(list) == 0 {
		b.WriteString("[]\n")
	} else {
		enc := yaml.NewEncoder(&b)
		enc.SetIndent(2)
		if err := enc.Encode(list); err != nil {
			return err
		}
		if err := enc.Close(); err != nil {
			return err
		}
	}
	return fileio.WriteFile(path, b.Bytes(), 0o644)
}

// ExpectedFailuresFile resolves the fixture's expectedFailures path
// against the fixture's directory ("" when it names none).
func (s *Suite) ExpectedFailuresFile() string {
	if s.ExpectedFailuresPath == "" || filepath.IsAbs(s.ExpectedFailuresPath) || s.File == "" {
		return s.ExpectedFailuresPath
	}
	return filepath.Join(filepath.Dir(s.File), s.ExpectedFailuresPath)
}
