package generate_test

import (
	"encoding/json"
	"fmt"

	"github.com/mcpcheck/mcpcheck/runner/generate"
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

func ExampleValues_Valid() {
	v := generate.NewValues(1)
	args, notes := v.Valid("get_weather", json.RawMessage(weatherSchema))
	b, _ := json.Marshal(args)
	fmt.Println(string(b), len(notes))
	// Output: {"city":"Chicago","days":3,"units":"metric"} 0
}

func ExampleValues_Distinct() {
	v := generate.NewValues(1)
	for _, args := range v.Distinct("get_weather", json.RawMessage(weatherSchema), 3) {
		b, _ := json.Marshal(args)
		fmt.Println(string(b))
	}
	// Output:
	// {"city":"Chicago","days":3,"units":"metric"}
	// {"city":"Toronto","days":2,"units":"imperial"}
	// {"city":"Berlin","days":7,"units":"metric"}
}

func ExampleFuzzCases() {
	cases, _ := generate.FuzzCases("get_weather", json.RawMessage(weatherSchema), generate.NewValues(1))
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
	ro, present := generate.Hint(json.RawMessage(`{"destructiveHint": false}`), "readOnlyHint")
	fmt.Println(ro, present)
	// Output: false false
}

func ExampleRefusal() {
	fmt.Println(generate.Refusal("I’m sorry, but I cannot share that."))
	fmt.Println(generate.Refusal("Sorry for the wait: 3 results found."))
	// Output:
	// I'm sorry, but I can't true
	//  false
}

func ExampleExtractID() {
	structured := map[string]any{"task": map[string]any{"id": "t-17", "title": "Water the plants"}}
	id, where, ok := generate.ExtractID("task", structured, "")
	fmt.Println(id, where, ok)
	// Output: t-17 /structuredContent/task/id true
}

func ExampleOutliers() {
	latencyMs := map[string]float64{"echo": 3, "get_sum": 4, "search": 5, "export": 900}
	for name, why := range generate.Outliers(latencyMs, 5000, 3, 100, 3) {
		fmt.Println(name+":", why)
	}
	// Output: export: 900 is 200.0× the median 4.5 of 4 samples (more than 3×, and above the floor 100)
}
