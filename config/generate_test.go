package config

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestLoadGenerateYAML loads a fixture with every key of generated checks
// and of the scenario, step and expect keys that came with them, and
// compares everything but positions, which are checked apart.
func TestLoadGenerateYAML(t *testing.T) {
	const file = "testdata/valid/generate.yaml"
	got, err := Load(file, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	p := func(line, col int) Pos { return Pos{File: file, Line: line, Col: col} }
	wantGen := &Generate{
		Fuzz:   true,
		Probes: true,
		LifecycleGroups: []LifecycleGroup{
			{
				Name:      "entities",
				Create:    Call{Tool: "create_entity", Arguments: map[string]any{"name": "mcpcheck-probe", "tags": []any{"a", "b"}}, Pos: p(11, 15)},
				Read:      Call{Tool: "read_entity", Arguments: map[string]any{"names": []any{map[string]any{"$ref": "create#/structuredContent/entities/0/name"}}}, Pos: p(13, 9)},
				Delete:    Call{Tool: "delete_entity", Arguments: map[string]any{"name": map[string]any{"$ref": "create#/mcpcheck:id"}}, Pos: p(16, 9)},
				IDPointer: "/structuredContent/entities/0/name",
				Pos:       p(10, 7),
			},
			{
				Create: Call{Tool: "propose_task", Pos: p(19, 15)},
				Read:   Call{Tool: "get_household", Pos: p(20, 13)},
				Delete: Call{Tool: "commit_task", Arguments: map[string]any{
					"proposalId":       map[string]any{"$ref": "create#/structuredContent/proposalId"},
					"expectedRevision": json.Number("0"),
				}, Pos: p(21, 15)},
				IDPointer: "/structuredContent/a~1b~0c",
				Pos:       p(19, 7),
			},
		},
		Concurrency:         4,
		IncludeDestructive:  true,
		NoOfferedInputs:     true,
		Seed:                -42,
		SlowThresholdMs:     250,
		FuzzCases:           DefaultFuzzCases,
		BloatThresholdChars: 1000,
		PriceModel:          "claude-sonnet-4-5",
		FailUnder: map[ScoreName]float64{
			ScoreCrashResilience: 90, ScoreResponseFidelity: 99.5, ScoreLatency: 0,
			ScoreResponseSize: 100, ScoreConcurrency: 100, ScoreLifecycle: 50,
		},
		Pos: p(7, 3),
	}
	if diff := cmp.Diff(wantGen, got.Generate); diff != "" {
		t.Errorf("generate mismatch (-want +got):\n%s", diff)
	}

	wantScenarios := []Scenario{
		{
			Name: "Independent probes", ContinueOnFailure: true, Parallel: true, Isolation: IsolationStep,
			Steps: []Step{
				{ID: "one", Kind: KindTool, Tool: "get_household", Origin: OriginFixture, Advisory: true,
					Expect: Expect{Fidelity: true, OutcomeAny: []Outcome{"ok", "output_invalid"}}},
				{ID: "two", Kind: KindTool, Tool: "get_household", Origin: OriginFixture,
					Expect: Expect{OutcomeAny: []Outcome{"protocol_error"}, ErrorCode: ptr(int64(-32602))}},
			},
		},
		{
			Name: "Delete and look again", Isolation: IsolationScenario,
			Steps: []Step{
				{ID: "proposal", Kind: KindTool, Tool: "propose_task", Origin: OriginFixture, Arguments: map[string]any{"text": "Collect the library books"}},
				{ID: "gone", Kind: KindTool, Tool: "get_household", Origin: OriginFixture, Expect: Expect{
					OutcomeAny: []Outcome{"ok", "tool_error", "protocol_error"},
					Absent:     &Value{V: map[string]any{"$ref": "proposal#/structuredContent/proposalId"}},
				}},
				{ID: "list", Kind: KindTool, Tool: "get_household", Origin: OriginFixture, Expect: Expect{
					Absent:             &Value{V: []any{map[string]any{"id": map[string]any{"$ref": "gone#/structuredContent/tasks/0/id"}}, json.Number("7"), nil}},
					StructuredIncludes: &Value{V: map[string]any{"$ref": "proposal#/not/a/marker/here"}},
				}},
			},
		},
		{
			Name: "Shared", Isolation: IsolationShared,
			Steps: []Step{
				{ID: "step-1", Kind: KindTool, Tool: "get_household", Origin: OriginFixture, Expect: Expect{Outcome: "tool_error", IsError: ptr(true)}},
				{ID: "step-2", Kind: KindTool, Tool: "get_household", Origin: OriginFixture, Expect: Expect{
					OutcomeAny: []Outcome{"tool_error", "timeout"}, IsError: ptr(true),
					StructuredPaths: map[string]*Value{"tasks.#": {V: json.Number("0")}},
				}},
			},
		},
	}
	if diff := cmp.Diff(wantScenarios, withoutPos(got).Scenarios, cmp.Transformer("valuePos", func(v *Value) *Value {
		if v == nil {
			return nil
		}
		return &Value{V: v.V}
	})); diff != "" {
		t.Errorf("scenarios mismatch (-want +got):\n%s", diff)
	}
	if got, want := got.Scenarios[1].Steps[1].Expect.Absent.Pos, p(63, 19); got != want {
		t.Errorf("absent at %v, want %v", got, want)
	}
	if got, want := got.FieldPos["generate"], p(6, 1); got != want {
		t.Errorf("FieldPos[generate] = %v, want %v", got, want)
	}
}

// TestGenerateFormatsAgree: generate_all.json is generate.yaml written in
// JSON, and loads to the same suite but for positions.
func TestGenerateFormatsAgree(t *testing.T) {
	y, err := Load("testdata/valid/generate.yaml", noEnv)
	if err != nil {
		t.Fatal(err)
	}
	j, err := Load("testdata/valid/generate_all.json", noEnv)
	if err != nil {
		t.Fatal(err)
	}
	// Warnings name their file and place.
	if len(y.Warnings) != len(j.Warnings) {
		t.Errorf("warnings: YAML %q, JSON %q", y.Warnings, j.Warnings)
	}
	if diff := cmp.Diff(y, j, cmpopts.IgnoreTypes(Pos{}), cmpopts.IgnoreFields(Suite{}, "File", "FieldPos", "Warnings")); diff != "" {
		t.Errorf("YAML and JSON differ (-yaml +json):\n%s", diff)
	}
}

// TestLoadGenerateJSON: a suite of generated checks only, in JSON; explicit
// lifecycle groups turn the other generators off.
func TestLoadGenerateJSON(t *testing.T) {
	const file = "testdata/valid/generate.json"
	got, err := Load(file, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	p := func(line, col int) Pos { return Pos{File: file, Line: line, Col: col} }
	want := &Generate{
		LifecycleGroups: []LifecycleGroup{{
			Name:      "entities",
			Create:    Call{Tool: "create_entity", Arguments: map[string]any{"name": "probe", "a.b": json.Number("9007199254740993")}, Pos: p(9, 19)},
			Read:      Call{Tool: "read_entity", Arguments: map[string]any{"name": map[string]any{"$ref": "create#/structuredContent/name"}}, Pos: p(10, 17)},
			Delete:    Call{Tool: "delete_entity", Arguments: map[string]any{"$ref": "create#/structuredContent"}, Pos: p(11, 19)},
			IDPointer: "/structuredContent/name",
			Pos:       p(7, 7),
		}},
		SlowThresholdMs:     defaultSlowThresholdMs,
		FuzzCases:           DefaultFuzzCases,
		BloatThresholdChars: defaultBloatThresholdChars,
		FailUnder:           map[ScoreName]float64{ScoreLifecycle: 100},
		Pos:                 p(5, 15),
	}
	if diff := cmp.Diff(want, got.Generate); diff != "" {
		t.Errorf("generate mismatch (-want +got):\n%s", diff)
	}
	if got.Scenarios != nil {
		t.Errorf("scenarios = %v, want none", got.Scenarios)
	}
}

// TestGenerateDefaults: an empty block turns on fuzz, fidelity and probes;
// writing any of fuzz, fidelity, probes or lifecycle turns the unwritten
// ones off. The same in both formats, with or without scenarios.
func TestGenerateDefaults(t *testing.T) {
	base := func(gen string) string {
		return "name: n\ncommand: [x]\nallowTools: [t, c, r, d]\ngenerate: " + gen + "\n"
	}
	group := `[{create: {tool: c}, read: {tool: r}, delete: {tool: d}, idPointer: /id}]`
	type flags struct{ Fuzz, Fidelity, Probes, Lifecycle, Groups bool }
	for _, c := range []struct {
		gen  string
		want flags
	}{
		{`{}`, flags{Fuzz: true, Fidelity: true, Probes: true}},
		{`{concurrency: 2, seed: 1, includeDestructive: true}`, flags{Fuzz: true, Fidelity: true, Probes: true}},
		{`{fuzz: true}`, flags{Fuzz: true}},
		{`{fuzz: false}`, flags{}},
		{`{fidelity: true, probes: true}`, flags{Fidelity: true, Probes: true}},
		{`{probes: false, fuzz: true}`, flags{Fuzz: true}},
		{`{lifecycle: true}`, flags{Lifecycle: true}},
		{`{lifecycle: false, concurrency: 3}`, flags{}},
		{`{lifecycle: ` + group + `}`, flags{Groups: true}},
		{`{lifecycle: ` + group + `, fuzz: true}`, flags{Fuzz: true, Groups: true}},
	} {
		for _, doc := range []struct{ name, text string }{
			{"g.yaml", base(c.gen)},
			{"g.yaml", base(c.gen) + "scenarios: []\n"},
			{"g.yaml", base(c.gen) + "scenarios: [{name: s, steps: [{tool: t}]}]\n"},
		} {
			s, err := Parse(doc.name, []byte(doc.text), noEnv)
			if err != nil {
				if c.want == (flags{}) && strings.Contains(err.Error(), "nothing would run") && !strings.Contains(doc.text, "steps") {
					continue // every check off and no scenario
				}
				t.Errorf("%s: %v", doc.text, err)
				continue
			}
			g := s.Generate
			got := flags{g.Fuzz, g.Fidelity, g.Probes, g.Lifecycle, len(g.LifecycleGroups) > 0}
			if got != c.want {
				t.Errorf("generate: %s: got %+v, want %+v", c.gen, got, c.want)
			}
			if g.SlowThresholdMs != 5000 || g.BloatThresholdChars != 20000 {
				t.Errorf("generate: %s: thresholds %d, %d", c.gen, g.SlowThresholdMs, g.BloatThresholdChars)
			}
		}
	}
	// JSON reads the same.
	s, err := Parse("g.json", []byte(`{"name": "n", "command": ["x"], "allowTools": ["t"], "generate": {"probes": true, "concurrency": 0}}`), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if g := s.Generate; g.Fuzz || g.Fidelity || !g.Probes || g.Concurrency != 0 || g.FailUnder != nil || g.LifecycleGroups != nil {
		t.Errorf("JSON generate = %+v", g)
	}
	// Without generate, nothing is generated.
	s, err = Parse("g.yaml", []byte(base("")[:strings.Index(base(""), "generate")]+"scenarios: [{name: s, steps: [{tool: t}]}]\n"), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if s.Generate != nil {
		t.Errorf("Generate = %+v without a generate block", s.Generate)
	}
}

// TestOutcomeForms: outcome as a string fills Outcome; as a list, any
// length from one, it fills OutcomeAny and leaves Outcome empty.
func TestOutcomeForms(t *testing.T) {
	for _, c := range []struct {
		outcome string
		one     Outcome
		any     []Outcome
	}{
		{`ok`, OutcomeOK, nil},
		{`[ok]`, "", []Outcome{OutcomeOK}},
		{`[timeout, transport_closed, session_lost]`, "", []Outcome{OutcomeTimeout, OutcomeTransportClosed, OutcomeSessionLost}},
		{`["tool_error"]`, "", []Outcome{OutcomeToolError}},
	} {
		doc := "name: n\ncommand: [x]\nallowTools: [t]\nscenarios:\n  - name: s\n    steps:\n      - tool: t\n        expect: {outcome: " + c.outcome + "}\n"
		s, err := Parse("o.yaml", []byte(doc), noEnv)
		if err != nil {
			t.Errorf("%s: %v", c.outcome, err)
			continue
		}
		e := s.Scenarios[0].Steps[0].Expect
		if e.Outcome != c.one || !cmp.Equal(e.OutcomeAny, c.any) {
			t.Errorf("outcome: %s: Outcome %q, OutcomeAny %q", c.outcome, e.Outcome, e.OutcomeAny)
		}
	}
}
