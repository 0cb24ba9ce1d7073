package assert

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/mcpcheck/mcpcheck/schemas"
)

// TestRegistryMatchesSchema keeps the checker registry and the fixture
// schema in step: every `expect` key has a checker and every checker an
// `expect` key. (config's TestSchemaMatchesGo holds the outcome enum to
// config.Outcomes.)
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
}
