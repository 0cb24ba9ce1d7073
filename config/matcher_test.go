package config

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
)

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
