package schemacheck

import (
	"errors"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestCompileLoadsNothing: a reference outside the document is an error,
// never a fetch.
func TestCompileLoadsNothing(t *testing.T) {
	doc := map[string]any{"$ref": "https://example.invalid/other.json"}
	if _, err := Compile("mcpcheck://test/schema.json", doc, false); err == nil {
		t.Fatal("a remote $ref compiled")
	}
}

// TestLeaves: a value's broken rules, in words that do not quote it, at
// their JSON Pointers; the first leaf is the same every time.
func TestLeaves(t *testing.T) {
	doc := map[string]any{
		"type":       "object",
		"properties": map[string]any{"a/b": map[string]any{"type": "string"}, "n": map[string]any{"maximum": 3.0}},
		"required":   []any{"id"},
	}
	sch, err := Compile("mcpcheck://test/schema.json", doc, true)
	if err != nil {
		t.Fatal(err)
	}
	err = Validate(sch, map[string]any{"a/b": 1.0, "n": 4.0})
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("not a violation: %v", err)
	}
	got := map[string]string{}
	for _, l := range Leaves(ve, false) {
		got[Pointer(l.InstanceLocation)] = Message(l.ErrorKind)
	}
	want := map[string]string{"": `missing required key "id"`, "/a~1b": "expected string, got number", "/n": "greater than maximum 3"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("at %q: %q, want %q (all: %q)", k, got[k], v, got)
		}
	}
	for range 20 {
		if l := FirstLeaf(ve); len(l.InstanceLocation) != 0 {
			t.Fatalf("first leaf at %q, want the root's missing key", l.InstanceLocation)
		}
	}
}
