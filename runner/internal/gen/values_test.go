package gen

import (
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/runner/internal/schema"
)

// TestValidPeers generates arguments for every tool of the recorded
// tools/list captures and validates them with the real validator, formats
// asserted.
func TestValidPeers(t *testing.T) {
	for file, tools := range loadPeers(t) {
		for _, tool := range tools {
			t.Run(file+"/"+tool.Name, func(t *testing.T) {
				sch := mustCompile(t, string(tool.InputSchema))
				args, notes := NewValues(1).Valid(tool.Name, sch)
				if len(notes) > 0 {
					t.Fatalf("notes: %v", notes)
				}
				if err := validate(sch, args); err != nil {
					t.Fatalf("invalid arguments %v: %v", args, err)
				}
				for i, d := range NewValues(7).Distinct(tool.Name, sch, 5) {
					if err := validate(sch, d); err != nil {
						t.Fatalf("Distinct[%d] %v invalid: %v", i, d, err)
					}
				}
			})
		}
	}
}

// TestValidRealistic pins the realistic values users see for the captures.
func TestValidRealistic(t *testing.T) {
	peers := loadPeers(t)
	byName := map[string]*schema.Schema{}
	for _, tools := range peers {
		for _, tool := range tools {
			byName[tool.Name] = mustCompile(t, string(tool.InputSchema))
		}
	}
	tests := []struct {
		tool string
		want string
	}{
		{"echo", `{"message":"Please remember to water the plants on Friday."}`},
		{"get-structured-content", `{"location":"New York"}`},
		{"get-resource-reference", `{"resourceId":1,"resourceType":"Text"}`},
		{"get-resource-links", `{"count":3}`},
		{"search_nodes", `{"query":"best coffee shops in Chicago"}`},
		{"open_nodes", `{"names":["Jane Doe"]}`},
		{"delete_entities", `{"entityNames":["Jane Doe"]}`},
		{"create_relations", `{"relations":[{"from":"Jane Doe","relationType":"works_at","to":"Jane Doe"}]}`},
		{"simulate-research-query", `{"ambiguous":false,"topic":"renewable energy"}`},
		{"trigger-sampling-request", `{"maxTokens":100,"prompt":"Write a haiku about autumn leaves."}`},
	}
	for _, tt := range tests {
		args, notes := NewValues(1).Valid(tt.tool, byName[tt.tool])
		got, _ := json.Marshal(args)
		if string(got) != tt.want || len(notes) > 0 {
			t.Errorf("%s: got %s %v, want %s", tt.tool, got, notes, tt.want)
		}
	}
}

// trickySchemas are satisfiable schemas that exercise each keyword. Valid
// must answer every one without a note, and the real validator must agree.
var trickySchemas = map[string]string{
	"pattern phone":         `{"type":"object","properties":{"n":{"type":"string","pattern":"^\\d{3}-\\d{4}$"}},"required":["n"]}`,
	"pattern letters":       `{"type":"object","properties":{"city":{"type":"string","pattern":"^[a-z]+$"}},"required":["city"]}`,
	"pattern with length":   `{"type":"object","properties":{"code":{"type":"string","pattern":"^[A-Z]{2}[0-9]+$","minLength":6,"maxLength":8}},"required":["code"]}`,
	"pattern alternation":   `{"type":"object","properties":{"unit":{"type":"string","pattern":"^(celsius|fahrenheit)$"}},"required":["unit"]}`,
	"pattern and format":    `{"type":"object","properties":{"e":{"type":"string","format":"email","pattern":"@example\\.org$"}},"required":["e"]}`,
	"formats":               `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","required":["a","b","c","d","e","f","g","h","i","j","k","l","m","n","o","p","q","r","s"],"properties":{"a":{"type":"string","format":"email"},"b":{"type":"string","format":"uri"},"c":{"type":"string","format":"uri-reference"},"d":{"type":"string","format":"hostname"},"e":{"type":"string","format":"ipv4"},"f":{"type":"string","format":"ipv6"},"g":{"type":"string","format":"date"},"h":{"type":"string","format":"date-time"},"i":{"type":"string","format":"time"},"j":{"type":"string","format":"uuid"},"k":{"type":"string","format":"regex"},"l":{"type":"string","format":"json-pointer"},"m":{"type":"string","format":"relative-json-pointer"},"n":{"type":"string","format":"uri-template"},"o":{"type":"string","format":"iri"},"p":{"type":"string","format":"iri-reference"},"q":{"type":"string","format":"idn-email"},"r":{"type":"string","format":"idn-hostname"},"s":{"type":"string","format":"url"}}}`,
	"formats 2019":          `{"$schema":"https://json-schema.org/draft/2019-09/schema","type":"object","required":["a","b","c"],"properties":{"a":{"type":"string","format":"duration"},"b":{"type":"string","format":"uuid"},"c":{"type":"string","format":"date-time"}}}`,
	"format semver period":  `{"type":"object","required":["v","p"],"properties":{"v":{"type":"string","format":"semver"},"p":{"type":"string","format":"period"}}}`,
	"open interval":         `{"type":"object","properties":{"x":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1}},"required":["x"]}`,
	"draft4 exclusive":      `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"x":{"type":"integer","minimum":5,"maximum":6,"exclusiveMinimum":true}},"required":["x"]}`,
	"draft4 exclusive max":  `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"x":{"type":"number","minimum":0,"maximum":0.5,"exclusiveMaximum":true}},"required":["x"]}`,
	"decimal multipleOf":    `{"type":"object","properties":{"x":{"type":"number","multipleOf":0.01,"minimum":0.015,"maximum":0.02}},"required":["x"]}`,
	"two multipleOf":        `{"type":"object","properties":{"x":{"allOf":[{"type":"integer","multipleOf":3,"minimum":100},{"multipleOf":5}]}},"required":["x"]}`,
	"integer fractional":    `{"type":"object","properties":{"x":{"type":"integer","minimum":1.5,"maximum":2.5}},"required":["x"]}`,
	"huge bounds":           `{"type":"object","properties":{"x":{"type":"integer","minimum":1e20}},"required":["x"]}`,
	"negative range":        `{"type":"object","properties":{"x":{"type":"number","minimum":-10,"maximum":-9.5}},"required":["x"]}`,
	"enum with default":     `{"type":"object","properties":{"unit":{"enum":["c","f"],"default":"f"}},"required":["unit"]}`,
	"nullable enum":         `{"type":"object","properties":{"mode":{"enum":[null,"","fast"]}},"required":["mode"]}`,
	"const":                 `{"type":"object","properties":{"v":{"const":{"a":[1,2]}}},"required":["v"]}`,
	"anyOf":                 `{"type":"object","properties":{"x":{"anyOf":[{"type":"string","minLength":5},{"type":"number"}]}},"required":["x"]}`,
	"oneOf overlap":         `{"type":"object","properties":{"x":{"oneOf":[{"type":"integer"},{"type":"number"}]}},"required":["x"]}`,
	"oneOf objects":         `{"type":"object","properties":{"shape":{"oneOf":[{"type":"object","properties":{"kind":{"const":"circle"},"r":{"type":"number"}},"required":["kind","r"]},{"type":"object","properties":{"kind":{"const":"square"},"side":{"type":"number"}},"required":["kind","side"]}]}},"required":["shape"]}`,
	"allOf merge":           `{"type":"object","allOf":[{"properties":{"a":{"type":"string"}}},{"required":["a"]},{"properties":{"a":{"minLength":12}}}]}`,
	"recursive tree":        `{"$defs":{"node":{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/node"}}},"required":["name"]}},"type":"object","properties":{"root":{"$ref":"#/$defs/node"}},"required":["root"]}`,
	"draft7 ref siblings":   `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"s":{"type":"string"}},"type":"object","properties":{"x":{"$ref":"#/definitions/s","type":"number"}},"required":["x"]}`,
	"2020 ref siblings":     `{"$defs":{"s":{"type":"string"}},"type":"object","properties":{"x":{"$ref":"#/$defs/s","minLength":4}},"required":["x"]}`,
	"anchor ref":            `{"$id":"https://example.com/tool.json","$defs":{"s":{"$anchor":"mail","type":"string","format":"email"}},"type":"object","properties":{"x":{"$ref":"#mail"}},"required":["x"]}`,
	"nested id ref":         `{"type":"object","properties":{"a":{"$id":"https://other.example/x.json","$defs":{"s":{"type":"string","minLength":8}},"$ref":"#/$defs/s"}},"required":["a"]}`,
	"dynamic ref":           `{"$defs":{"node":{"$dynamicAnchor":"node","type":"object","properties":{"name":{"type":"string"},"kids":{"type":"array","items":{"$dynamicRef":"#node"}}},"required":["name","kids"]}},"type":"object","properties":{"tree":{"$ref":"#/$defs/node"}},"required":["tree"]}`,
	"draft7 anchor id":      `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"n":{"$id":"#num","type":"integer","minimum":40}},"type":"object","properties":{"n":{"$ref":"#num"}},"required":["n"]}`,
	"format under not":      `{"type":"object","properties":{"a":{"type":"string","format":"json-pointer","not":{"format":"date-time","minLength":6}}},"required":["a"]}`,
	"not and oneOf exact":   `{"type":"object","properties":{"city":{"type":"string","not":{"enum":["Chicago"]}},"y":{"type":"string","oneOf":[{"pattern":"^[a-z]+$"},{"minLength":7}]}},"required":["city","y"]}`,
	"escaped pointer":       `{"$defs":{"a/b":{"type":"integer","minimum":7},"c~d":{"type":"boolean"}},"type":"object","properties":{"x":{"$ref":"#/$defs/a~1b"},"y":{"$ref":"#/$defs/c~0d"}},"required":["x","y"]}`,
	"closed object":         `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}`,
	"pattern properties":    `{"type":"object","patternProperties":{"^x_[0-9]+$":{"type":"integer"}},"required":["x_1"],"additionalProperties":false}`,
	"minProperties":         `{"type":"object","minProperties":3,"additionalProperties":{"type":"integer"}}`,
	"maxProperties":         `{"type":"object","maxProperties":1,"properties":{"a":{"type":"string"},"b":{"type":"string"},"c":{"type":"string"}},"required":["b"]}`,
	"propertyNames":         `{"type":"object","properties":{"tags":{"type":"object","propertyNames":{"pattern":"^[a-z]+$"},"minProperties":1,"additionalProperties":{"type":"string"}}},"required":["tags"]}`,
	"tuple draft7":          `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"p":{"type":"array","items":[{"type":"number"},{"type":"string"}],"additionalItems":false,"minItems":2}},"required":["p"]}`,
	"prefixItems":           `{"type":"object","properties":{"p":{"type":"array","prefixItems":[{"type":"number"},{"type":"string","format":"date"}],"items":{"type":"boolean"},"minItems":3}},"required":["p"]}`,
	"unique enum items":     `{"type":"object","properties":{"days":{"type":"array","items":{"enum":["mon","tue","wed"]},"uniqueItems":true,"minItems":3}},"required":["days"]}`,
	"unique strings":        `{"type":"object","properties":{"names":{"type":"array","items":{"type":"string"},"uniqueItems":true,"minItems":4}},"required":["names"]}`,
	"contains":              `{"$schema":"https://json-schema.org/draft/2019-09/schema","type":"object","properties":{"a":{"type":"array","items":{"type":"integer"},"contains":{"minimum":50},"minContains":2}},"required":["a"]}`,
	"if then else":          `{"type":"object","properties":{"kind":{"enum":["a","b"]},"n":{"type":"integer"}},"required":["kind","n"],"if":{"properties":{"kind":{"const":"a"}}},"then":{"properties":{"n":{"minimum":10}}},"else":{"properties":{"n":{"maximum":0}}}}`,
	"not string":            `{"type":"object","properties":{"x":{"not":{"type":"string"}}},"required":["x"]}`,
	"dependentRequired":     `{"type":"object","properties":{"card":{"type":"string"},"billing":{"type":"string"}},"required":["card"],"dependentRequired":{"card":["billing"]}}`,
	"dependencies draft7":   `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"card":{"type":"string"}},"required":["card"],"dependencies":{"card":{"properties":{"cvv":{"type":"string","pattern":"^[0-9]{3}$"}},"required":["cvv"]}}}`,
	"deep nesting":          `{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"object","properties":{"c":{"type":"object","properties":{"d":{"type":"object","properties":{"e":{"type":"string","format":"date"}},"required":["e"]}},"required":["d"]}},"required":["c"]}},"required":["b"]}},"required":["a"]}`,
	"nullable type":         `{"type":"object","properties":{"x":{"type":["null","string"],"minLength":2}},"required":["x"]}`,
	"short city":            `{"type":"object","properties":{"city":{"type":"string","maxLength":2}},"required":["city"]}`,
	"long name":             `{"type":"object","properties":{"name":{"type":"string","minLength":40}},"required":["name"]}`,
	"unevaluatedProperties": `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"unevaluatedProperties":false}`,
	"untyped root":          `{"properties":{"q":{"type":"string"}},"required":["q"]}`,
	"empty":                 `{}`,
	"true schema":           `true`,
	"required no props":     `{"type":"object","required":["anything"]}`,
	"array of objects":      `{"type":"object","properties":{"rows":{"type":"array","minItems":2,"maxItems":2,"items":{"type":"object","properties":{"id":{"type":"integer","minimum":1},"email":{"type":"string","format":"email"}},"required":["id","email"]}}},"required":["rows"]}`,
	"integer as number":     `{"type":"object","properties":{"lat":{"type":"number","minimum":-90,"maximum":90},"lon":{"type":"number","minimum":-180,"maximum":180}},"required":["lat","lon"]}`,
	"hinted time zone":      `{"type":"object","properties":{"source_timezone":{"type":"string"},"time":{"type":"string","pattern":"^([01]\\d|2[0-3]):[0-5]\\d$"}},"required":["source_timezone","time"]}`,
}

func TestValidTricky(t *testing.T) {
	for name, raw := range trickySchemas {
		t.Run(name, func(t *testing.T) {
			mustCompile(t, raw)
			for _, seed := range []int64{0, 1, 42} {
				_, args, notes := checkContract(t, []byte(raw), seed)
				if len(notes) > 0 {
					b, _ := json.Marshal(args)
					t.Fatalf("seed %d: notes %v (args %s)", seed, notes, b)
				}
			}
		})
	}
}

// TestValidHonoursKeywords pins the values chosen for specific keywords.
func TestValidHonoursKeywords(t *testing.T) {
	tests := []struct {
		schema string
		want   string
	}{
		{`{"type":"object","properties":{"n":{"type":"string","pattern":"^\\d{3}-\\d{4}$"}},"required":["n"]}`, `{"n":"555-0142"}`},
		{`{"type":"object","properties":{"city":{"type":"string","pattern":"^[a-z]+$"}},"required":["city"]}`, `{"city":"chicago"}`},
		{`{"type":"object","properties":{"x":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1}},"required":["x"]}`, `{"x":0.5}`},
		{`{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"x":{"type":"integer","minimum":5,"maximum":6,"exclusiveMinimum":true}},"required":["x"]}`, `{"x":6}`},
		{`{"type":"object","properties":{"x":{"type":"number","multipleOf":0.01,"minimum":0.015,"maximum":0.02}},"required":["x"]}`, `{"x":0.02}`},
		{`{"type":"object","properties":{"x":{"allOf":[{"type":"integer","multipleOf":3,"minimum":100},{"multipleOf":5}]}},"required":["x"]}`, `{"x":105}`},
		{`{"type":"object","properties":{"x":{"type":"integer","minimum":1e20}},"required":["x"]}`, `{"x":100000000000000000000}`},
		{`{"type":"object","properties":{"unit":{"enum":["c","f"],"default":"f"}},"required":["unit"]}`, `{"unit":"f"}`},
		{`{"type":"object","properties":{"mode":{"enum":[null,"","fast"]}},"required":["mode"]}`, `{"mode":"fast"}`},
		{`{"type":"object","properties":{"when":{"type":"string","examples":["tomorrow"]}},"required":["when"]}`, `{"when":"tomorrow"}`},
		{`{"type":"object","properties":{"city":{"type":"string","maxLength":2}},"required":["city"]}`, `{"city":"Ch"}`},
		{`{"type":"object","properties":{"email":{"type":"string"},"website":{"type":"string"},"tz":{"type":"string"},"time":{"type":"string"},"date":{"type":"string"},"country":{"type":"string"},"path":{"type":"string"},"name":{"type":"string"},"user_id":{"type":"integer"},"lang":{"type":"string"},"currency":{"type":"string"},"phone":{"type":"string"},"lat":{"type":"number"},"limit":{"type":"integer"},"page":{"type":"integer"},"dryRun":{"type":"boolean"}},"required":["email","website","tz","time","date","country","path","name","user_id","lang","currency","phone","lat","limit","page","dryRun"]}`,
			`{"country":"Canada","currency":"USD","date":"2026-01-15","dryRun":true,"email":"jane.doe@example.com","lang":"en","lat":41.8781,"limit":10,"name":"Jane Doe","page":1,"path":"notes/todo.txt","phone":"+1-312-555-0142","time":"09:30","tz":"America/New_York","user_id":42,"website":"https://example.com"}`},
		{`{"type":"object","properties":{"at":{"type":"string","format":"date-time"},"id":{"type":"string","format":"uuid"}},"required":["at","id"]}`, `{"at":"2026-01-15T09:30:00Z","id":"3f6c2a9e-8b1d-4c7e-9a52-1d0e4b7f8c21"}`},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"s":{"type":"string"}},"type":"object","properties":{"x":{"$ref":"#/definitions/s","type":"number"}},"required":["x"]}`, `{"x":"harbor"}`},
	}
	for _, tt := range tests {
		args, notes := NewValues(0).Valid("tool", mustCompile(t, tt.schema))
		got, _ := json.Marshal(args)
		if string(got) != tt.want || len(notes) > 0 {
			t.Errorf("schema %s\n got %s %v\nwant %s", tt.schema, got, notes, tt.want)
		}
	}
}

// TestValidNumbersAreJSONNumbers checks the value representation.
func TestValidNumbersAreJSONNumbers(t *testing.T) {
	args, _ := NewValues(3).Valid("t", mustCompile(t, `{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"integer"},"c":{"type":"array","items":{"type":"number"}},"d":{"type":"object","properties":{"e":{"type":"integer"}},"required":["e"]}},"required":["a","b","c","d"]}`))
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case json.Number, string, bool, nil:
		default:
			t.Errorf("value %v has Go type %T", v, v)
		}
	}
	walk(args)
	if _, ok := args["a"].(json.Number); !ok {
		t.Errorf("a = %#v, want json.Number", args["a"])
	}
}

func TestValidDeterministicAcrossSeedsAndTools(t *testing.T) {
	raw := mustCompile(t, `{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"string"}},"required":["a","b"]}`)
	a1, _ := NewValues(1).Valid("x", raw)
	a2, _ := NewValues(1).Valid("x", raw)
	if !reflect.DeepEqual(a1, a2) {
		t.Fatalf("same seed and tool differ: %v %v", a1, a2)
	}
	differ := false
	for seed := int64(2); seed < 10; seed++ {
		b, _ := NewValues(seed).Valid("x", raw)
		c, _ := NewValues(1).Valid("y", raw)
		if !reflect.DeepEqual(a1, b) || !reflect.DeepEqual(a1, c) {
			differ = true
		}
	}
	if !differ {
		t.Errorf("seed and tool name never change unhinted values")
	}
}

func TestDistinct(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		n      int
		want   int
	}{
		{"enum of two", `{"type":"object","properties":{"unit":{"enum":["c","f"]}},"required":["unit"]}`, 5, 2},
		{"boolean", `{"type":"object","properties":{"on":{"type":"boolean"}},"required":["on"]}`, 5, 2},
		{"no properties", `{"type":"object","properties":{}}`, 3, 1},
		{"const", `{"type":"object","properties":{"v":{"const":1}},"required":["v"]}`, 3, 1},
		{"free string", `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`, 4, 4},
		{"number", `{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}`, 6, 6},
		{"n zero", `{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}`, 0, 0},
		{"unsatisfiable", `{"type":"object","properties":{"a":{"type":"integer","minimum":5,"maximum":1}},"required":["a"]}`, 3, 0},
		{"garbage", `[`, 3, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sch, _ := compile([]byte(tt.schema))
			got := NewValues(1).Distinct("t", sch, tt.n)
			if len(got) != tt.want {
				t.Fatalf("got %d %v, want %d", len(got), got, tt.want)
			}
			seen := map[string]bool{}
			for _, d := range got {
				b, _ := json.Marshal(d)
				if seen[string(b)] {
					t.Errorf("duplicate %s", b)
				}
				seen[string(b)] = true
				if verr := validate(sch, d); verr != nil {
					t.Errorf("%s invalid: %v", b, verr)
				}
			}
			if len(got) > 0 {
				first, _ := NewValues(1).Valid("t", sch)
				if !reflect.DeepEqual(first, got[0]) {
					t.Errorf("first distinct %v is not Valid's %v", got[0], first)
				}
			}
		})
	}
}

func TestValidNotes(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		note   string // a substring of some note
	}{
		{"min above max", `{"type":"object","properties":{"a":{"type":"integer","minimum":5,"maximum":1}},"required":["a"]}`, "minimum 5 and maximum 1"},
		{"minLength above maxLength", `{"type":"object","properties":{"a":{"type":"string","minLength":5,"maxLength":1}},"required":["a"]}`, "minLength 5 is above maxLength 1"},
		{"impossible pattern", `{"type":"object","properties":{"a":{"type":"string","pattern":"a^b"}},"required":["a"]}`, "/a: 'ab' does not match pattern 'a^b'"},
		{"false property", `{"type":"object","properties":{"a":false},"required":["a"]}`, "schema is false"},
		{"cycle", `{"$ref":"#"}`, "cycle"},
		{"deep", strings.Repeat(`{"type":"object","required":["a"],"properties":{"a":`, 40) + `{}` + strings.Repeat(`}}`, 40), "nested deeper than 32"},
		{"string root", `{"type":"string"}`, "does not describe an object"},
		{"format asserted", `{"type":"object","properties":{"e":{"type":"string","format":"email","minLength":40}},"required":["e"]}`, "/e: "},
		{"refused", `{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}},"required":["a"]}`, noSchema},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sch, _ := compile([]byte(tt.schema))
			args, notes := NewValues(0).Valid("t", sch)
			if args == nil {
				t.Fatal("nil args")
			}
			found := false
			for _, n := range notes {
				if strings.Contains(n, tt.note) {
					found = true
				}
			}
			if !found {
				t.Errorf("notes %q lack %q", notes, tt.note)
			}
		})
	}
}

func TestHintLookup(t *testing.T) {
	tests := []struct{ name, want string }{
		{"city", "Chicago"}, {"homeCity", "Chicago"}, {"email", "jane.doe@example.com"},
		{"emailAddress", "jane.doe@example.com"}, {"website", "https://example.com"},
		{"source_timezone", "America/New_York"}, {"time_zone", "America/New_York"}, {"tz", "America/New_York"},
		{"time", "09:30"}, {"start_date", "2026-01-15"}, {"country", "Canada"}, {"q", "best coffee shops in Chicago"},
		{"searchQuery", "best coffee shops in Chicago"}, {"topic", "renewable energy"}, {"filename", "notes/todo.txt"},
		{"file_path", "notes/todo.txt"}, {"id", "3f6c2a9e-8b1d-4c7e-9a52-1d0e4b7f8c21"}, {"task_id", "3f6c2a9e-8b1d-4c7e-9a52-1d0e4b7f8c21"},
		{"name", "Jane Doe"}, {"entityNames", "Jane Doe"}, {"message", "Please remember to water the plants on Friday."},
		{"language", "en"}, {"locale", "en-US"}, {"currency", "USD"}, {"phoneNumber", "+1-312-555-0142"},
		{"HTTPServerURL", "https://example.com"}, {"tags", "work"},
	}
	for _, tt := range tests {
		h := lookupHint(tt.name)
		if h == nil || len(h.strs) == 0 || h.strs[0] != tt.want {
			got := "<none>"
			if h != nil && len(h.strs) > 0 {
				got = h.strs[0]
			}
			t.Errorf("lookupHint(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
	for _, name := range []string{"foo", "", "update", "candidate", "___"} {
		if h := lookupHint(name); h != nil {
			t.Errorf("lookupHint(%q) = %v, want none", name, h.keys)
		}
	}
}

// TestFormatValues keeps the table honest: the validator, formats
// asserted, accepts each format value.
func TestFormatValues(t *testing.T) {
	for f, vals := range formatValues {
		sch, err := mustCompile(t, `{"format":"`+f+`"}`).WithFormats()
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vals {
			if err := sch.Validate(v); err != nil {
				t.Errorf("format %s value %q: %v", f, v, err)
			}
		}
	}
}

// TestHintValuesAreRealistic: time hints are HH:MM.
func TestHintValuesAreRealistic(t *testing.T) {
	hhmm := regexp.MustCompile(`^\d{2}:\d{2}$`)
	for _, v := range lookupHint("time").strs {
		if !hhmm.MatchString(v) {
			t.Errorf("time hint %q is not HH:MM", v)
		}
	}
}

func TestSplitWordsAndSingular(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"sourceTimezone", []string{"source", "timezone"}},
		{"HTTPServer_url", []string{"http", "server", "url"}},
		{"get-tiny-image", []string{"get", "tiny", "image"}},
		{"task_create", []string{"task", "create"}},
		{"createTask", []string{"create", "task"}},
		{"v2Items", []string{"v2", "items"}},
	}
	for _, tt := range tests {
		if got := SplitWords(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("SplitWords(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	for in, want := range map[string]string{"tasks": "task", "entries": "entry", "boxes": "box", "addresses": "address", "status": "status", "analysis": "analysis", "id": "id", "names": "name"} {
		if got := singular(in); got != want {
			t.Errorf("singular(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestValuesConcurrent shares one Values (and the package tables) across
// goroutines; run with -race. Results must equal the sequential ones.
func TestValuesConcurrent(t *testing.T) {
	var schemas []*schema.Schema
	for _, tools := range loadPeers(t) {
		for _, tool := range tools {
			schemas = append(schemas, mustCompile(t, string(tool.InputSchema)))
		}
	}
	for _, raw := range trickySchemas {
		schemas = append(schemas, mustCompile(t, raw))
	}
	v := NewValues(9)
	want := make([]map[string]any, len(schemas))
	for i, s := range schemas {
		want[i], _ = v.Valid("tool", s)
	}
	errs := make(chan string, 8*len(schemas))
	done := make(chan struct{})
	for w := 0; w < 8; w++ {
		go func() {
			defer func() { done <- struct{}{} }()
			for i, s := range schemas {
				got, _ := v.Valid("tool", s)
				if !reflect.DeepEqual(got, want[i]) {
					b, _ := json.Marshal(s.Doc())
					errs <- string(b)
				}
				FuzzCases("tool", s, v)
				v.Distinct("tool", s, 2)
			}
		}()
	}
	for w := 0; w < 8; w++ {
		<-done
	}
	close(errs)
	for s := range errs {
		t.Errorf("concurrent result differs for %s", s)
	}
	var nilValues *Values
	if a, _ := nilValues.Valid("t", schemas[0]); a == nil {
		t.Error("nil *Values returned nil arguments")
	}
	if a, notes := v.Valid("t", nil); a == nil || len(notes) == 0 {
		t.Errorf("a nil schema gave %v %q", a, notes)
	}
}
