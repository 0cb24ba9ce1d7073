package config

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestSharedValues: values written the same way are decoded once and
// shared; values that differ in any way are not.
func TestSharedValues(t *testing.T) {
	src := `name: n
command: [srv]
allowTools: [t]
scenarios:
  - name: s
    steps:
      - {id: a, tool: t, arguments: {q: x, n: 1}, expect: {structuredIncludes: {}}}
      - {id: b, tool: t, arguments: {q: x, n: 1}, expect: {structuredIncludes: {}}}
      - {id: c, tool: t, arguments: {q: x, n: 1.0}, expect: {structuredIncludes: {}}}
      - {id: d, tool: t, arguments: {n: 1, q: x}, expect: {structuredEquals: {n: 1, q: x}}}
      - {id: e, tool: t, arguments: {q: [x], n: 1}, expect: {structuredEquals: {}}}
`
	s, err := Parse("f.yaml", []byte(src), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	st := s.Scenarios[0].Steps
	same := func(a, b any) bool { return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer() }
	if !same(st[0].Arguments, st[1].Arguments) {
		t.Errorf("equal arguments are not shared")
	}
	for _, j := range []int{2, 3, 4} {
		if same(st[0].Arguments, st[j].Arguments) {
			t.Errorf("steps[0] and steps[%d] share arguments that differ: %v, %v", j, st[0].Arguments, st[j].Arguments)
		}
	}
	if !same(st[3].Arguments, st[3].Expect.StructuredEquals.V) {
		t.Errorf("an expectation written like the arguments is not shared")
	}
	if !same(st[0].Expect.StructuredIncludes.V, st[4].Expect.StructuredEquals.V) {
		t.Errorf("{} is not shared")
	}
	if got := st[2].Arguments["n"]; got != json.Number("1.0") {
		t.Errorf("steps[2] n = %#v", got)
	}
	if got, ok := st[4].Expect.StructuredEquals.V.(map[string]any); !ok || got == nil || len(got) != 0 {
		t.Errorf("{} decoded as %#v", st[4].Expect.StructuredEquals.V)
	}
	if st[0].Expect.StructuredIncludes.Pos == st[1].Expect.StructuredIncludes.Pos {
		t.Errorf("shared values must keep their own positions")
	}
}
