package config

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var noEnv = LoadOptions{Environ: []string{}}

func ptr[T any](v T) *T { return &v }

// TestLoadSeedFormat loads a fixture written for the TypeScript MCP Tool
// Check, unchanged, and compares everything, positions included.
func TestLoadSeedFormat(t *testing.T) {
	const file = "testdata/valid/seed001.json"
	p := func(line, col int) Pos { return Pos{File: file, Line: line, Col: col} }
	want := &Suite{
		File:               file,
		Name:               "Approval applies once",
		Endpoint:           "http://127.0.0.1:5191/mcp",
		HeadersFromEnv:     map[string]string{"Authorization": "MCP_AUTHORIZATION", "X-API-Key": "MCP_API_KEY"},
		ProtocolVersion:    DefaultProtocolVersion,
		AllowTools:         []string{"propose_task", "commit_task"},
		TimeoutMs:          5000,
		InitTimeoutMs:      DefaultInitTimeoutMs,
		DiscoveryTimeoutMs: DefaultDiscoveryTimeoutMs,
		Concurrency:        1,
		MaxMessageBytes:    DefaultMaxMessageBytes,
		Isolation:          IsolationShared,
		Scenarios: []Scenario{{
			Name: "One approved task",
			Pos:  p(11, 17),
			Steps: []Step{
				{
					ID:        "proposal",
					Kind:      KindTool,
					Tool:      "propose_task",
					Arguments: map[string]any{"text": "Collect the library books"},
					Expect: Expect{
						StructuredIncludes: &Value{V: map[string]any{"revision": json.Number("0")}, Pos: p(18, 42)},
						Pos:                p(18, 19),
					},
					Origin: OriginFixture,
					Pos:    p(14, 7),
				},
				{
					ID:   "commit",
					Kind: KindTool,
					Tool: "commit_task",
					Arguments: map[string]any{
						"proposalId":       map[string]any{"$ref": "proposal#/structuredContent/proposalId"},
						"expectedRevision": json.Number("0"),
						"idempotencyKey":   "fixture-approval-1",
					},
					Expect: Expect{
						StructuredEquals: &Value{V: map[string]any{"revision": json.Number("1"), "replayed": false}, Pos: p(28, 40)},
						Pos:              p(28, 19),
					},
					Origin: OriginFixture,
					Pos:    p(20, 7),
				},
			},
		}},
		Pos: p(1, 1),
		FieldPos: map[string]Pos{
			"name": p(2, 3), "endpoint": p(3, 3), "allowTools": p(4, 3), "timeoutMs": p(5, 3),
			"concurrency": p(6, 3), "headersFromEnv": p(7, 3), "scenarios": p(11, 3),
		},
	}
	got, err := Load(file, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Load(%s) mismatch (-want +got):\n%s", file, diff)
	}
}

// withoutPos returns a copy of s with every position cleared, for tests that
// compare values and check positions separately.
func withoutPos(s *Suite) *Suite {
	c := *s
	c.Pos, c.FieldPos = Pos{}, nil
	c.Scenarios = nil
	for _, sc := range s.Scenarios {
		sc.Pos = Pos{}
		steps := sc.Steps
		sc.Steps = nil
		for _, st := range steps {
			st.Pos = Pos{}
			st.Expect.Pos = Pos{}
			if v := st.Expect.StructuredEquals; v != nil {
				st.Expect.StructuredEquals = &Value{V: v.V}
			}
			if v := st.Expect.StructuredIncludes; v != nil {
				st.Expect.StructuredIncludes = &Value{V: v.V}
			}
			sc.Steps = append(sc.Steps, st)
		}
		c.Scenarios = append(c.Scenarios, sc)
	}
	return &c
}

func TestLoadYAML(t *testing.T) {
	const file = "testdata/valid/household.yaml"
	cwd, err := filepath.Abs("testdata/valid/server")
	if err != nil {
		t.Fatal(err)
	}
	want := &Suite{
		File:               file,
		Name:               "Household revision and idempotency regression",
		Command:            []string{"mcpcheck", "demo"},
		Env:                map[string]string{"DEMO_SEED": "1"},
		EnvFromEnv:         map[string]string{"API_KEY": "MY_API_KEY"},
		Cwd:                cwd,
		ProtocolVersion:    "2026-07-28",
		AllowTools:         []string{"get_household", "propose_task", "commit_task"},
		TimeoutMs:          5000,
		InitTimeoutMs:      7000,
		DiscoveryTimeoutMs: 9000,
		MaxMessageBytes:    DefaultMaxMessageBytes,
		Concurrency:        2,
		Isolation:          IsolationScenario,
		Scenarios: []Scenario{
			{
				Name:      "One approved task",
				Reconnect: true,
				Protocols: []string{"2025-11-25", "2026-07-28"},
				Steps: []Step{
					{
						ID: "proposal", Kind: KindTool, Tool: "propose_task", Origin: OriginFixture,
						Arguments: map[string]any{"text": "Collect the library books"},
						Expect:    Expect{StructuredIncludes: &Value{V: map[string]any{"revision": json.Number("0")}}},
					},
					{
						ID: "commit", Kind: KindTool, Tool: "commit_task", Origin: OriginFixture,
						Arguments: map[string]any{
							"proposalId":       map[string]any{"$ref": "proposal#/structuredContent/proposalId"},
							"expectedRevision": json.Number("0"),
							"idempotencyKey":   "fixture-approval-1",
						},
						Expect: Expect{StructuredEquals: &Value{V: map[string]any{"revision": json.Number("1"), "replayed": false}}},
					},
				},
			},
			{
				Name: "Defaults and data",
				Steps: []Step{
					{ID: "step-1", Kind: KindTool, Tool: "get_household", Origin: OriginFixture},
					{
						ID: "step-2", Kind: KindTool, Tool: "get_household", Origin: OriginFixture,
						ValidateArguments: ptr(false),
						TimeoutMs:         100,
						Protocols:         []string{"2026-07-28"},
						Arguments: map[string]any{
							"a.b":        "dotted",
							"x/y":        "slashed",
							"CamelCase":  "capital",
							"~tilde":     "tilde",
							"big":        json.Number("9007199254740993"),
							"neg":        json.Number("-12.50"),
							"hex":        json.Number("31"),
							"under":      json.Number("1000"),
							"half":       json.Number("0.5"),
							"one":        json.Number("1.0"),
							"no":         "no",
							"nothing":    nil,
							"list":       []any{json.Number("1"), "two", true},
							"notAMarker": map[string]any{"$ref": "x#/y", "other": json.Number("1")},
							"nested":     []any{map[string]any{"m": map[string]any{"$ref": "step-1#/structuredContent/a~1b~0c"}}},
						},
						Expect: Expect{IsError: ptr(true), Outcome: "tool_error", MaxDurationMs: 250},
					},
					{
						ID: "step-3", Kind: KindTool, Tool: "get_household", Origin: OriginFixture,
						Expect: Expect{Outcome: "protocol_error", ErrorCode: ptr(int64(-32602))},
					},
				},
			},
		},
	}
	got, err := Load(file, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, withoutPos(got)); diff != "" {
		t.Errorf("Load(%s) mismatch (-want +got):\n%s", file, diff)
	}

	p := func(line, col int) Pos { return Pos{File: file, Line: line, Col: col} }
	sc0, sc1 := got.Scenarios[0], got.Scenarios[1]
	for _, c := range []struct {
		what      string
		got, want Pos
	}{
		{"suite", got.Pos, p(2, 1)},
		{"FieldPos[$schema]", got.FieldPos["$schema"], p(2, 1)},
		{"FieldPos[protocolVersion]", got.FieldPos["protocolVersion"], p(9, 1)},
		{"FieldPos[scenarios]", got.FieldPos["scenarios"], p(16, 1)},
		{"scenarios[0]", sc0.Pos, p(17, 5)},
		{"scenarios[0].steps[0]", sc0.Steps[0].Pos, p(21, 9)},
		{"scenarios[0].steps[0].expect", sc0.Steps[0].Expect.Pos, p(24, 17)},
		{"scenarios[0].steps[0].expect value", sc0.Steps[0].Expect.StructuredIncludes.Pos, p(24, 38)},
		{"scenarios[0].steps[1]", sc0.Steps[1].Pos, p(25, 9)},
		{"scenarios[1]", sc1.Pos, p(32, 5)},
		{"scenarios[1].steps[0] (no expect: at the step)", sc1.Steps[0].Expect.Pos, p(34, 9)},
		{"scenarios[1].steps[1].expect", sc1.Steps[1].Expect.Pos, p(56, 11)},
	} {
		if c.got != c.want {
			t.Errorf("%s: position %v, want %v", c.what, c.got, c.want)
		}
	}
	if n := len(got.FieldPos); n != 15 {
		t.Errorf("FieldPos has %d keys, want 15 (one per top-level key)", n)
	}
}

// TestLoadArgumentsVerbatim checks that argument keys and numbers reach the
// Suite exactly as written, in JSON.
func TestLoadArgumentsVerbatim(t *testing.T) {
	got, err := Load("testdata/valid/args.json", noEnv)
	if err != nil {
		t.Fatal(err)
	}
	steps := got.Scenarios[0].Steps
	want := map[string]any{
		"a.b":     json.Number("1"),
		"a/b":     json.Number("2"),
		"A":       json.Number("3"),
		"~0~1":    json.Number("4"),
		"$ref":    "not a marker: a string with siblings",
		"n":       json.Number("9007199254740993"),
		"f":       json.Number("1.000000000000000000001"),
		"e":       json.Number("1E+400"),
		"unicode": "héllo é 😀",
		"empty":   map[string]any{},
		"list":    []any{},
	}
	if diff := cmp.Diff(want, steps[0].Arguments); diff != "" {
		t.Errorf("arguments mismatch (-want +got):\n%s", diff)
	}
	if e := steps[0].Expect; e.StructuredEquals == nil || e.StructuredEquals.V != nil || e.IsError == nil || *e.IsError {
		t.Errorf("expect = %+v, want structuredEquals null and isError false", e)
	}
	if steps[1].ID != "step-2" {
		t.Errorf("second step id = %q, want step-2", steps[1].ID)
	}
	if ref, ok := RefMarker(steps[1].Arguments["again"]); !ok || ref != "first.call#" {
		t.Errorf("marker = %q, %v", ref, ok)
	}
	if want := []string{"./server", "--stdio"}; !cmp.Equal(got.Command, want) {
		t.Errorf("command = %q, want %q", got.Command, want)
	}
}

// TestFormats checks that the same fixture reads the same in both formats,
// whatever the file is called.
func TestFormats(t *testing.T) {
	const yamlSrc = "name: n\ncommand: [srv]\nallowTools: [t]\nscenarios:\n  - name: s\n    steps:\n      - tool: t\n        arguments: {n: 12345678901234567890}\n"
	const jsonSrc = `{"name": "n", "command": ["srv"], "allowTools": ["t"], "scenarios": [{"name": "s", "steps": [{"tool": "t", "arguments": {"n": 12345678901234567890}}]}]}`
	for _, c := range []struct{ file, src string }{
		{"a.yaml", yamlSrc}, {"a.yml", yamlSrc}, {"a.YAML", yamlSrc}, {"fixture", yamlSrc}, {"a.txt", yamlSrc},
		{"a.json", jsonSrc}, {"a.JSON", jsonSrc}, {"fixture", jsonSrc}, {"a.conf", "\n\t " + jsonSrc},
		{"a.yaml", jsonSrc}, // JSON is YAML too
		{"a.json", "\xef\xbb\xbf" + jsonSrc},
	} {
		s, err := Parse(c.file, []byte(c.src), noEnv)
		if err != nil {
			t.Errorf("Parse(%s, %.20q...): %v", c.file, c.src, err)
			continue
		}
		if got := s.Scenarios[0].Steps[0].Arguments["n"]; got != json.Number("12345678901234567890") {
			t.Errorf("Parse(%s): n = %#v", c.file, got)
		}
	}
}

func TestPositionsCountRunes(t *testing.T) {
	// "é" is two bytes but one column; a tab is one column.
	src := "{\"name\": \"é\", \"command\": [\"x\"], \"allowTools\": [\"t\"], \"scenarios\": [{\"name\": \"s\",\t\"steps\": [{\"tool\": \"é\"}]}]}"
	_, err := Parse("f.json", []byte(src), noEnv)
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("want an *Error, got %v", err)
	}
	if want := (Pos{File: "f.json", Line: 1, Col: 101}); e.Pos != want {
		t.Errorf("pos = %v, want %v (%v)", e.Pos, want, err)
	}
}

func TestFileErrors(t *testing.T) {
	_, err := Load("testdata/does-not-exist.yaml", noEnv)
	if !errors.Is(err, ErrFile) || !errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrInvalid) {
		t.Errorf("missing file: %v", err)
	}
	if want := "loading testdata/does-not-exist.yaml: open testdata/does-not-exist.yaml: no such file or directory"; err == nil || err.Error() != want {
		t.Errorf("missing file: %q, want %q", err, want)
	}
	_, err = Load("testdata", noEnv)
	if !errors.Is(err, ErrFile) || !strings.HasPrefix(err.Error(), "loading testdata: ") {
		t.Errorf("directory: %v", err)
	}
}

func TestTooLarge(t *testing.T) {
	big := make([]byte, MaxFileSize+1)
	for i := range big {
		big[i] = ' '
	}
	_, err := Parse("big.yaml", big, noEnv)
	if !errors.Is(err, ErrInvalid) || err.Error() != "big.yaml:1:1: file is larger than 16 MiB" {
		t.Errorf("Parse: %v", err)
	}
	path := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(path, big, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path, noEnv); !errors.Is(err, ErrInvalid) || !strings.HasSuffix(err.Error(), "file is larger than 16 MiB") {
		t.Errorf("Load: %v", err)
	}
}

// TestDepthLimit checks the nesting limit exactly at the boundary.
func TestDepthLimit(t *testing.T) {
	// The root object and scenarios, a scenario, steps, a step and arguments
	// take 6 levels; the value of "x" adds the rest.
	wrap := func(levels int) string {
		return `{"name": "n", "command": ["x"], "allowTools": ["t"], "scenarios": [{"name": "s", "steps": [{"tool": "t", "arguments": {"x": ` +
			strings.Repeat("[", levels) + strings.Repeat("]", levels) + `}}]}]}`
	}
	for _, format := range []string{"f.json", "f.yaml"} {
		if _, err := Parse(format, []byte(wrap(MaxDepth-6)), noEnv); err != nil {
			t.Errorf("%s at %d levels: %v", format, MaxDepth, err)
		}
		_, err := Parse(format, []byte(wrap(MaxDepth-5)), noEnv)
		if err == nil || !strings.Contains(err.Error(), "nesting is deeper than 1000 levels") {
			t.Errorf("%s at %d levels: %v", format, MaxDepth+1, err)
		}
	}
}

func TestErrorsType(t *testing.T) {
	_, err := Parse("f.yaml", []byte("name: 1\n"), noEnv)
	var es Errors
	if !errors.As(err, &es) || len(es) != 2 {
		t.Fatalf("want 2 Errors, got %v", err)
	}
	var e *Error
	if !errors.As(err, &e) || e != es[0] || !errors.Is(err, ErrInvalid) || errors.Is(err, ErrFile) {
		t.Errorf("unwrapping %v", err)
	}
	if want := "f.yaml:1:1: missing required key \"scenarios\"\nf.yaml:1:7: name must be a string, got number 1"; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
	if got := (&Error{Msg: "--concurrency: must be 1..16, got 40"}).Error(); got != "--concurrency: must be 1..16, got 40" {
		t.Errorf("unpositioned Error() = %q", got)
	}
}

func TestYAMLUnderscoreStrings(t *testing.T) {
	s, err := Parse("u.yaml", []byte("name: t\ncommand: [x]\nallowTools: [a]\nscenarios: [{name: s, steps: [{tool: a, arguments: {code: _0, under: _1_2, big: 1e400, n: 1_000}}]}]\n"), LoadOptions{Environ: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	args := s.Scenarios[0].Steps[0].Arguments
	if args["code"] != "_0" || args["under"] != "_1_2" {
		t.Errorf("underscore-led plain scalars became %#v, %#v; yaml.v3 reads them as strings", args["code"], args["under"])
	}
	if args["big"] != json.Number("1e400") || args["n"] != json.Number("1000") {
		t.Errorf("numbers: big %#v n %#v", args["big"], args["n"])
	}
}

// TestParseRef pins ParseRef's results and messages: the step id before the
// first '#', the pointer's tokens unescaped (~1 is '/', ~0 is '~'), and a
// '~' followed by anything but 0 or 1 refused.
func TestParseRef(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Ref
		err  string
	}{
		{in: "a#", want: Ref{Step: "a"}},
		{in: "a#/", want: Ref{Step: "a", Pointer: "/", Tokens: []string{""}}},
		{in: "a#/structuredContent/id", want: Ref{Step: "a", Pointer: "/structuredContent/id", Tokens: []string{"structuredContent", "id"}}},
		{in: "a#/x~1y/~0z//~01", want: Ref{Step: "a", Pointer: "/x~1y/~0z//~01", Tokens: []string{"x/y", "~z", "", "~1"}}},
		{in: "a.b#/c#d", want: Ref{Step: "a.b", Pointer: "/c#d", Tokens: []string{"c#d"}}},
		{in: "nohash", err: `$ref "nohash": want stepId#/pointer`},
		{in: "#/x", err: `$ref "#/x": missing step id before '#'`},
		{in: "a#x", err: `$ref "a#x": pointer must start with '/'`},
		{in: "a#/x~2", err: `$ref "a#/x~2": '~' must be followed by 0 or 1`},
		{in: "a#/x~", err: `$ref "a#/x~": '~' must be followed by 0 or 1`},
		{in: "a#/~~0", err: `$ref "a#/~~0": '~' must be followed by 0 or 1`},
	} {
		got, err := ParseRef(c.in)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("ParseRef(%q) = %+v, %v; want error %q", c.in, got, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseRef(%q): %v", c.in, err)
		} else if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("ParseRef(%q) (-want +got):\n%s", c.in, diff)
		}
	}
}

// TestValid loads every fixture of testdata/valid and examples, and the
// benchmark fixture: each must load without a problem.
func TestValid(t *testing.T) {
	paths, _ := filepath.Glob("testdata/valid/*")
	examples, _ := filepath.Glob("../examples/*.y*ml")
	paths = append(paths, examples...)
	if len(paths) < 2 {
		t.Fatalf("found only %q", paths)
	}
	for _, p := range paths {
		if _, err := Load(p, noEnv); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	if _, err := Parse("bench.yaml", benchFixture(300), noEnv); err != nil {
		t.Errorf("benchmark fixture: %v", err)
	}
}
