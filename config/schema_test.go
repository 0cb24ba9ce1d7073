package config

import (
	"slices"
	"testing"
)

// schemaStrings returns the string items of the array at path in the schema.
func schemaStrings(t *testing.T, tree *node, path ...string) []string {
	t.Helper()
	n := tree
	for _, k := range path {
		n = n.value(k)
		if n == nil {
			t.Fatalf("schema has no %v", path)
		}
	}
	return strList(n)
}

// TestSchemaMatchesGo keeps the schema's enums and the Go constants in step.
func TestSchemaMatchesGo(t *testing.T) {
	_, tree, err := compiledSchema()
	if err != nil {
		t.Fatal(err)
	}
	if got := schemaStrings(t, tree, "$defs", "protocolVersion", "enum"); !slices.Equal(got, SupportedProtocolVersions) {
		t.Errorf("schema protocol versions %q, Go %q", got, SupportedProtocolVersions)
	}
	if got := schemaStrings(t, tree, "$defs", "outcome", "enum"); !slices.Equal(got, stringsOf(Outcomes)) {
		t.Errorf("schema outcomes %q, Go %q", got, Outcomes)
	}
	var scores []string
	for _, f := range tree.value("$defs").value("generate").value("properties").value("failUnder").value("properties").fieldsOrNil() {
		scores = append(scores, f.key)
	}
	if !slices.Equal(scores, stringsOf(ScoreNames)) {
		t.Errorf("schema failUnder scores %q, Go %q", scores, ScoreNames)
	}
	if got := schemaStrings(t, tree, "properties", "isolation", "enum"); !slices.Equal(got, stringsOf([]Isolation{IsolationShared, IsolationScenario})) {
		t.Errorf("schema isolation %q", got)
	}
	if got := schemaStrings(t, tree, "$defs", "scenario", "properties", "isolation", "enum"); !slices.Equal(got, stringsOf([]Isolation{IsolationShared, IsolationScenario, IsolationStep})) {
		t.Errorf("schema scenario isolation %q", got)
	}
	if got := schemaStrings(t, tree, "properties", "transport", "enum"); !slices.Equal(got, stringsOf(Transports)) {
		t.Errorf("schema transport %q, Go %q", got, Transports)
	}
	if got := tree.value("properties").value("concurrency").value("maximum"); got == nil || got.str != "16" || MaxConcurrency != 16 {
		t.Errorf("schema concurrency maximum %v, Go %d", got, MaxConcurrency)
	}
	if got := tree.value("$defs").value("generate").value("properties").value("concurrency").value("maximum"); got == nil || got.str != "16" {
		t.Errorf("schema generate.concurrency maximum %v, Go %d", got, MaxConcurrency)
	}
	if got := tree.value("$defs").value("milliseconds").value("maximum"); got == nil || got.str != "86400000" || MaxTimeoutMs != 86400000 {
		t.Errorf("schema milliseconds maximum %v, Go %d", got, MaxTimeoutMs)
	}
	for _, key := range []string{"endpoint", "protocolVersion", "timeoutMs", "initTimeoutMs", "discoveryTimeoutMs", "concurrency", "isolation"} {
		if !slices.ContainsFunc(settings, func(s setting) bool { return s.key == key }) || tree.value("properties").get(key) == nil {
			t.Errorf("setting %s is missing from the settings table or the schema", key)
		}
	}
}

// TestSchemaDescriptions: the schema doubles as editor help, so every
// property says what it is for, and every object is closed except where
// data goes.
func TestSchemaDescriptions(t *testing.T) {
	_, tree, err := compiledSchema()
	if err != nil {
		t.Fatal(err)
	}
	var walk func(n *node, path string)
	walk = func(n *node, path string) {
		if n == nil || n.kind != objectNode {
			return
		}
		if props := n.value("properties"); props != nil {
			if ap := n.value("additionalProperties"); ap == nil || ap.kind != boolNode || ap.b {
				t.Errorf("%s: additionalProperties is not false", path)
			}
			for _, f := range props.fields {
				if d := f.val.value("description"); d == nil || d.str == "" {
					t.Errorf("%s.%s has no description", path, f.key)
				}
				walk(f.val, path+"."+f.key)
			}
		}
		for _, k := range []string{"items", "additionalProperties"} {
			walk(n.value(k), path+"."+k)
		}
		for _, f := range n.value("$defs").fieldsOrNil() {
			walk(f.val, "$defs."+f.key)
		}
	}
	walk(tree, "fixture")
}

func stringsOf[T ~string](list []T) []string {
	out := make([]string, len(list))
	for i, v := range list {
		out[i] = string(v)
	}
	return out
}
