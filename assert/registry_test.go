package assert

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/mcpcheck/mcpcheck/schemas"
)

// TestRegistryMatchesSchema keeps the checker registry and the fixture
// schema in step: every `expect` key has a checker and every checker an
// `expect` key, and the outcome enum lists exactly the outcome classes.
func TestRegistryMatchesSchema(t *testing.T) {
	var doc struct {
		Defs map[string]struct {
			Properties map[string]struct {
				Enum []string `json:"enum"`
			} `json:"properties"`
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
		inRegistry = append(inRegistry, k.Name)
	}
	slices.Sort(inSchema)
	slices.Sort(inRegistry)
	if !slices.Equal(inSchema, inRegistry) {
		t.Errorf("expect keys in the schema %v != checkers in the registry %v", inSchema, inRegistry)
	}
	var outcomeDef struct {
		Enum []string `json:"enum"`
	}
	var defs struct {
		Defs map[string]json.RawMessage `json:"$defs"`
	}
	json.Unmarshal(schemas.Fixture, &defs)
	json.Unmarshal(defs.Defs["outcome"], &outcomeDef)
	enum := slices.Clone(outcomeDef.Enum)
	slices.Sort(enum)
	want := slices.Clone(Outcomes)
	slices.Sort(want)
	if !slices.Equal(enum, want) {
		t.Errorf("outcome enum %v != outcome classes %v", enum, want)
	}
}
