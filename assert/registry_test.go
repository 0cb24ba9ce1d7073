package assert

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/schemas"
)

// TestRegistryMatchesSchema keeps the checker registry and the fixture
// schema in step: every `expect` key has a checker and every checker an
// `expect` key. (config's TestSchemaMatchesGo holds the outcome enum to
// config.Outcomes.)
func TestRegistryMatchesSchema(t *testing.T) {
	var doc struct {
		Defs map[string]struct {
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(schemas.Fixture, &doc); err != nil {
		t.Fatal(err)
	}
	expect, ok := doc.Defs["expect"]
	if !ok {
		t.Fatal(`schemas/fixture.schema.json has no $defs/expect`)
	}
	var inSchema, inRegistry []string
	for k := range expect.Properties {
		inSchema = append(inSchema, k)
	}
	for _, k := range Kinds {
		inRegistry = append(inRegistry, string(k.Name))
	}
	slices.Sort(inSchema)
	slices.Sort(inRegistry)
	if !slices.Equal(inSchema, inRegistry) {
		t.Errorf("expect keys in the schema %v != checkers in the registry %v", inSchema, inRegistry)
	}
}

// TestMatchersMatchSchema: every matcher of the fixture schema is one this
// package evaluates, and the reverse.
func TestMatchersMatchSchema(t *testing.T) {
	var doc struct {
		Defs struct {
			Matcher struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"matcher"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(schemas.Fixture, &doc); err != nil {
		t.Fatal(err)
	}
	var inSchema, inGo []string
	for k := range doc.Defs.Matcher.Properties {
		inSchema = append(inSchema, k)
	}
	for _, op := range config.MatcherOps {
		inGo = append(inGo, string(op))
		// Each is evaluated, not failed as unknown.
		m := &config.Matcher{Op: op, Len: json.Number("0"), OneOf: []any{}}
		var d differ
		if why := d.mismatch(m, nil, true, "missing"); strings.Contains(why, "does not know") {
			t.Errorf("matcher %s is not evaluated", op)
		}
	}
	slices.Sort(inSchema)
	slices.Sort(inGo)
	if !slices.Equal(inSchema, inGo) {
		t.Errorf("matchers in the schema %v != config.MatcherOps %v", inSchema, inGo)
	}
	var d differ
	if why := d.mismatch(&config.Matcher{Op: "$new"}, nil, true, "missing"); why == "" {
		t.Errorf("an unknown matcher passes")
	}
}
