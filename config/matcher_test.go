package config

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestLoadMatchers: matchers are decoded once, into *Matcher values with
// their regular expressions compiled, inside the expected values where
// they were written; $$ keys lose a $; $ref stays data.
func TestLoadMatchers(t *testing.T) {
	const file = "testdata/valid/matchers.yaml"
	s, err := Load(file, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	steps := s.Scenarios[0].Steps
	inc, ok := steps[0].Expect.StructuredIncludes.V.(map[string]any)
	if !ok {
		t.Fatalf("structuredIncludes decoded as %T", steps[0].Expect.StructuredIncludes.V)
	}
	matcher := func(key string, op MatcherOp) *Matcher {
		t.Helper()
		m, ok := inc[key].(*Matcher)
		if !ok || m.Op != op {
			t.Fatalf("%s = %#v, want a %s matcher", key, inc[key], op)
		}
		return m
	}
	if m := matcher("revision", MatchGTE); m.Bound != "0" {
		t.Errorf("revision bound %q", m.Bound)
	}
	contains := matcher("tasks", MatchContains)
	inner, _ := contains.Contains.(map[string]any)
	if re, ok := inner["id"].(*Matcher); !ok || re.Op != MatchRegexp || !re.Pattern.MatchString("task-12") || re.Pattern.MatchString("task-x") {
		t.Errorf("$contains operand %#v", contains.Contains)
	}
	matcher("owner", MatchAbsent)
	if m := matcher("name", MatchOneOf); len(m.OneOf) != 2 || m.OneOf[1] != nil {
		t.Errorf("$oneOf %#v", m.OneOf)
	} else if typ, ok := m.OneOf[0].(*Matcher); !ok || typ.Type != TypeString {
		t.Errorf("$oneOf[0] %#v", m.OneOf[0])
	}
	if m := matcher("tags", MatchLen); !isMatcher(m.Len, MatchLTE) {
		t.Errorf("$len operand %#v", m.Len)
	}
	if inc["$ref"] != "literal key $ref" || inc["$$money"] != "literal key $$money" {
		t.Errorf("$$ keys: %#v", inc)
	}
	if link, _ := inc["link"].(map[string]any); link["$ref"] != "not#/resolved" {
		t.Errorf("a $ref marker in an expectation is data: %#v", inc["link"])
	}
	if doc, _ := inc["doc"].(map[string]any); len(doc) != 2 || doc["$id"] != "x" {
		t.Errorf("$ keys beside others are data: %#v", inc["doc"])
	}
	paths := steps[0].Expect.StructuredPaths
	if !isMatcher(paths["tasks.#"].V, MatchGT) || paths["tasks.#"].V.(*Matcher).Bound != "9007199254740992" || !isMatcher(paths["tasks.0.id"].V, MatchAny) {
		t.Errorf("structuredPaths %#v", paths)
	}

	// Written the same, a matcher is decoded once, like any value.
	again := steps[1].Expect.StructuredIncludes.V.(map[string]any)
	if again["revision"] != inc["revision"] {
		t.Errorf("equal matchers are not shared")
	}

	e := steps[0].Expect
	if sch := e.StructuredSchema; sch == nil || sch.Validate(map[string]any{"revision": json.Number("1")}) != nil || sch.Validate(map[string]any{"revision": json.Number("-1")}) == nil {
		t.Errorf("structuredSchema does not validate: %#v", sch)
	}
	if sch := e.StructuredSchema; sch.Validate(map[string]any{"revision": json.Number("1"), "$ref": json.Number("2")}) == nil {
		t.Errorf("an inline schema's $ref property is the schema's own, not a marker")
	}
	if tx := e.Text; tx == nil || !slices.Equal(tx.Contains, []string{"task-1", "task-2"}) || !slices.Equal(tx.NotContains, []string{"error"}) || tx.Matches == nil || !tx.Matches.MatchString("x\nHousehold") || tx.Equals != nil {
		t.Errorf("text %#v", e.Text)
	}
	if j := e.TextJSON; j == nil || j.Includes == nil || j.Equals != nil || len(j.Paths) != 1 || j.Schema != nil {
		t.Errorf("textJSON %#v", e.TextJSON)
	}
	if r := e.Result; r == nil || r.Includes == nil || r.Paths["content.0.type"].V != "text" || r.Schema == nil || r.Schema.Validate(map[string]any{}) == nil {
		t.Errorf("result %#v", e.Result)
	}

	tidy := steps[2].Expect
	if tidy.Text == nil || tidy.Text.Equals == nil || *tidy.Text.Equals != "Tidied." {
		t.Errorf("text: STRING is equals: %#v", tidy.Text)
	}
	ns := tidy.Notifications
	if len(ns) != 3 || ns[0].Method != "notifications/progress" || ns[0].Count.V != json.Number("3") || !isMatcher(ns[1].Count.V, MatchLTE) || ns[1].Params != nil || ns[2].Count.V != json.Number("0") {
		t.Fatalf("notifications %#v", ns)
	}
	if p, _ := ns[0].Params.V.(map[string]any); !isMatcher(p["progress"], MatchGT) || p["total"] != json.Number("3") {
		t.Errorf("notification params %#v", ns[0].Params.V)
	}
	if ns[0].Pos.Line != 48 || ns[0].Params.Pos.Line != 49 {
		t.Errorf("notification positions %v %v", ns[0].Pos, ns[0].Params.Pos)
	}

	await := s.Scenarios[1].Steps[4].Await
	if p, _ := await.Params.V.(map[string]any); !isMatcher(p["uri"], MatchRegexp) || !isMatcher(p["$meta"], MatchAny) {
		t.Errorf("await params %#v", await.Params.V)
	}
}

func isMatcher(v any, op MatcherOp) bool {
	m, ok := v.(*Matcher)
	return ok && m.Op == op
}

// TestMatchersAreNotArguments: the same object is a matcher in an
// expectation and data in arguments, and the two are not shared.
func TestMatchersAreNotArguments(t *testing.T) {
	src := `name: n
command: [srv]
allowTools: [t]
scenarios:
  - name: s
    steps:
      - tool: t
        arguments: {a: {$type: string}, b: {$$x: 1}}
        expect: {structuredEquals: {a: {$type: string}, b: {$$x: 1}}, absent: {$$x: 1}}
`
	s, err := Parse("f.yaml", []byte(src), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	st := s.Scenarios[0].Steps[0]
	if a, _ := st.Arguments["a"].(map[string]any); a["$type"] != "string" {
		t.Errorf("arguments a = %#v, want data", st.Arguments["a"])
	}
	if b, _ := st.Arguments["b"].(map[string]any); b["$$x"] != json.Number("1") {
		t.Errorf("arguments b = %#v, want the key as written", st.Arguments["b"])
	}
	want := st.Expect.StructuredEquals.V.(map[string]any)
	if !isMatcher(want["a"], MatchType) {
		t.Errorf("expected a = %#v, want a matcher", want["a"])
	}
	if b, _ := want["b"].(map[string]any); b["$x"] != json.Number("1") || reflect.ValueOf(b).UnsafePointer() == reflect.ValueOf(st.Arguments["b"]).UnsafePointer() {
		t.Errorf("expected b = %#v, want the escaped key, not the arguments' map", want["b"])
	}
	// absent is compared with the answer as written, $refs aside.
	if a, _ := st.Expect.Absent.V.(map[string]any); a["$$x"] != json.Number("1") {
		t.Errorf("absent = %#v", st.Expect.Absent.V)
	}
}

// TestMatcherVocabularies keeps config.MatcherOps and JSONTypes in step
// with the fixture schema's $defs/matcher.
func TestMatcherVocabularies(t *testing.T) {
	_, tree, err := compiledSchema()
	if err != nil {
		t.Fatal(err)
	}
	m := tree.value("$defs").value("matcher")
	if got := allowedKeys(m); !slices.Equal(got, stringsOf(MatcherOps)) {
		t.Errorf("schema matchers %q, Go %q", got, MatcherOps)
	}
	if got := schemaStrings(t, m, "properties", "$type", "enum"); !slices.Equal(got, stringsOf(JSONTypes)) {
		t.Errorf("schema $type enum %q, Go %q", got, JSONTypes)
	}
	// The matchers that may not stand beside other keys are the matchers.
	var refused []string
	for _, f := range tree.value("$defs").value("expected").value("else").value("properties").fieldsOrNil() {
		refused = append(refused, f.key)
	}
	if !slices.Equal(refused, stringsOf(MatcherOps)) {
		t.Errorf("schema refuses beside other keys %q, Go matchers %q", refused, MatcherOps)
	}
}

// expectedPlaces are the places of a fixture where an expected value is
// written; FuzzExpected puts its value in one of them (%s), in YAML or in
// JSON.
var expectedPlaces = []struct{ yaml, json string }{
	{`{tool: t, expect: {structuredIncludes: %s}}`, `{"tool": "t", "expect": {"structuredIncludes": %s}}`},
	{`{tool: t, expect: {structuredEquals: {a: [%s]}}}`, `{"tool": "t", "expect": {"structuredEquals": {"a": [%s]}}}`},
	{`{tool: t, expect: {structuredPaths: {"a.#": %s}}}`, `{"tool": "t", "expect": {"structuredPaths": {"a.#": %s}}}`},
	{`{tool: t, expect: {result: {includes: %s, paths: {x: %s}}}}`, `{"tool": "t", "expect": {"result": {"includes": %s, "paths": {"x": %s}}}}`},
	{`{tool: t, expect: {textJSON: {equals: {$len: %s}}}}`, `{"tool": "t", "expect": {"textJSON": {"equals": {"$len": %s}}}}`},
	{`{tool: t, expect: {notifications: [{method: m, params: %s, count: %s}]}}`, `{"tool": "t", "expect": {"notifications": [{"method": "m", "params": %s, "count": %s}]}}`},
	{`{await: {method: m, params: {p: %s}}}`, `{"await": {"method": "m", "params": {"p": %s}}}`},
	{`{tool: t, expect: {text: %s, structuredSchema: %s}}`, `{"tool": "t", "expect": {"text": %s, "structuredSchema": %s}}`},
}

// FuzzExpected feeds arbitrary expected values to the loader in every
// place one is written. Whatever the value, Parse must not panic, every
// problem must have a position, and a fixture that loads must hold only
// well-formed matchers.
func FuzzExpected(f *testing.F) {
	for _, v := range []string{
		`{$match: "^a"}`, `{"$type": "integer"}`, `{$gt: 9007199254740993}`, `{$len: {$gte: 1}}`,
		`{$contains: {id: {$oneOf: [1, {$absent: true}]}}}`, `{$any: true}`, `{$$ref: x, $ref: y}`,
		`{$tpye: x}`, `{$match: "("}`, `{$gte: 1, $lte: 2}`, `{$len: -1}`, `{"$": 1}`, `[{$oneOf: []}]`,
		`{type: object, properties: {a: {$ref: "#/x"}}}`, `3`, `"s"`, `null`, `{}`, `{$len: {$len: {$len: 0}}}`,
	} {
		for mode := range 2 * len(expectedPlaces) {
			f.Add(v, uint8(mode))
		}
	}
	f.Fuzz(func(t *testing.T, value string, mode uint8) {
		place := expectedPlaces[int(mode/2)%len(expectedPlaces)]
		name, doc := "fuzz.yaml", "name: n\ncommand: [srv]\nallowTools: [t]\nscenarios:\n  - name: s\n    steps:\n      - "+place.yaml+"\n"
		if mode%2 == 1 {
			name, doc = "fuzz.json", `{"name": "n", "command": ["srv"], "allowTools": ["t"], "scenarios": [{"name": "s", "steps": [`+place.json+`]}]}`
		}
		doc = strings.ReplaceAll(doc, "%s", value)
		s, err := Parse(name, []byte(doc), noEnv)
		if err != nil {
			var es Errors
			if !errors.As(err, &es) || len(es) == 0 {
				t.Fatalf("error is not a list of problems: %v", err)
			}
			for _, e := range es {
				checkPositioned(t, name, e.Error())
			}
			return
		}
		st := s.Scenarios[0].Steps[0]
		walk := func(v *Value) {
			if v != nil {
				checkMatchers(t, v.V)
			}
		}
		e := st.Expect
		walk(e.StructuredIncludes)
		walk(e.StructuredEquals)
		for _, v := range e.StructuredPaths {
			walk(v)
		}
		for _, j := range []*JSONExpect{e.Result, e.TextJSON} {
			if j != nil {
				walk(j.Equals)
				walk(j.Includes)
				for _, v := range j.Paths {
					walk(v)
				}
			}
		}
		for _, n := range e.Notifications {
			walk(n.Params)
			walk(n.Count)
			if n.Count != nil {
				if c, ok := n.Count.V.(json.Number); ok && !strings.HasPrefix(string(c), "-") {
					continue
				}
				if _, ok := n.Count.V.(*Matcher); !ok {
					t.Fatalf("count %#v is neither a non-negative number nor a matcher", n.Count.V)
				}
			}
		}
		if st.Await != nil {
			walk(st.Await.Params)
		}
		for _, sch := range []*JSONSchema{e.StructuredSchema} {
			if sch != nil && (sch.compiled == nil || sch.compiled.err != nil) {
				t.Fatalf("a schema that does not compile loaded: %v", sch.compiled)
			}
		}
		if e.Text != nil && e.Text.Matches == matchNothing {
			t.Fatalf("text.matches that does not compile loaded")
		}
	})
}

// checkMatchers asserts that every matcher in v is well formed.
func checkMatchers(t *testing.T, v any) {
	t.Helper()
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			checkMatchers(t, e)
		}
	case []any:
		for _, e := range x {
			checkMatchers(t, e)
		}
	case *Matcher:
		switch x.Op {
		case MatchRegexp:
			if x.Pattern == nil || x.Pattern == matchNothing {
				t.Fatalf("$match without a compiled pattern loaded")
			}
		case MatchType:
			if !slices.Contains(JSONTypes, x.Type) {
				t.Fatalf("$type %q loaded", x.Type)
			}
		case MatchGT, MatchGTE, MatchLT, MatchLTE:
			if !jsonNumber.MatchString(string(x.Bound)) {
				t.Fatalf("%s bound %q loaded", x.Op, x.Bound)
			}
		case MatchLen:
			switch l := x.Len.(type) {
			case json.Number:
				if n, ok := intValue(&node{kind: numberNode, str: string(l)}); !ok || n < 0 {
					t.Fatalf("$len %q loaded", l)
				}
			case *Matcher:
				checkMatchers(t, l)
			default:
				t.Fatalf("$len %#v loaded", x.Len)
			}
		case MatchContains:
			checkMatchers(t, x.Contains)
		case MatchOneOf:
			if len(x.OneOf) == 0 {
				t.Fatalf("empty $oneOf loaded")
			}
			checkMatchers(t, x.OneOf)
		case MatchAny, MatchAbsent:
		default:
			t.Fatalf("matcher %q loaded", x.Op)
		}
	}
}
