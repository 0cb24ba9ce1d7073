package gen_test

import (
	"encoding/json"
	"fmt"

	"github.com/mcpcheck/mcpcheck/runner/internal/gen"
	"github.com/mcpcheck/mcpcheck/runner/internal/schema"
)

const weatherSchema = `{
  "type": "object",
  "properties": {
    "city": {"type": "string"},
    "units": {"type": "string", "enum": ["metric", "imperial"]},
    "days": {"type": "integer", "minimum": 1, "maximum": 7, "default": 3}
  },
  "required": ["city"]
}`

// weather is the tool's inputSchema as the runner compiles it.
var weather, _ = schema.Compile("get_weather", "input", []byte(weatherSchema))

func ExampleValues_Valid() {
	v := gen.NewValues(1)
	args, notes := v.Valid("get_weather", weather)
	b, _ := json.Marshal(args)
	fmt.Println(string(b), len(notes))
	// Output: {"city":"Chicago","days":3,"units":"metric"} 0
}

func ExampleValues_Distinct() {
	v := gen.NewValues(1)
	for _, args := range v.Distinct("get_weather", weather, 3) {
		b, _ := json.Marshal(args)
		fmt.Println(string(b))
	}
	// Output:
	// {"city":"Chicago","days":3,"units":"metric"}
	// {"city":"Toronto","days":2,"units":"imperial"}
	// {"city":"Berlin","days":7,"units":"metric"}
}

func ExampleFuzzCases() {
	cases, _ := gen.FuzzCases("get_weather", weather, gen.NewValues(1))
	for _, c := range cases {
		b, _ := json.Marshal(c.Arguments)
		fmt.Printf("%-16s %-5s %-16s %s\n", c.Name, c.Property, c.Detail, b)
	}
	// Output:
	// valid                  schema-derived valid call {"city":"Chicago","days":3,"units":"metric"}
	// missing-required city  required property "city" removed {"days":3,"units":"metric"}
	// wrong-type       city  string → number  {"city":12345,"days":3,"units":"metric"}
	// wrong-type       days  integer → string {"city":"Chicago","days":"not-a-valid-value","units":"metric"}
	// wrong-type       units string → number  {"city":"Chicago","days":3,"units":12345}
}

func ExampleHint() {
	ro, present := gen.Hint(json.RawMessage(`{"destructiveHint": false}`), "readOnlyHint")
	fmt.Println(ro, present)
	// Output: false false
}

func ExampleExtractID() {
	structured := map[string]any{"task": map[string]any{"id": "t-17", "title": "Water the plants"}}
	id, where, ok := gen.ExtractID("task", structured, "")
	fmt.Println(id, where, ok)
	// Output: t-17 /structuredContent/task/id true
}
