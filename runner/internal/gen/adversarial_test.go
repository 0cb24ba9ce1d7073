package gen

import (
	"fmt"
	"strings"
	"testing"
)

// adversarialSchemas are malformed or hostile inputSchemas. The runner
// refuses many of them (package schema); the rest reach the generator.
// Nothing may panic or hang; output must be deterministic; notes come
// exactly with arguments the validator rejects (checkContract).
func adversarialSchemas() map[string]string {
	deep := func(n int, open, leaf, close string) string {
		return strings.Repeat(open, n) + leaf + strings.Repeat(close, n)
	}
	var hugeEnum strings.Builder
	hugeEnum.WriteString(`{"type":"object","properties":{"e":{"enum":[`)
	for i := 0; i < 100000; i++ {
		if i > 0 {
			hugeEnum.WriteByte(',')
		}
		fmt.Fprintf(&hugeEnum, "%d", i)
	}
	hugeEnum.WriteString(`],"type":"string"}},"required":["e"]}`)
	// Each level refers twice to the one below: 2^40 paths in a small text.
	var bomb strings.Builder
	bomb.WriteString(`{"$defs":{"d0":{"type":"string"}`)
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&bomb, `,"d%d":{"anyOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}],"not":{"type":"string"}}`, i, i-1, i-1)
	}
	bomb.WriteString(`},"type":"object","properties":{"a":{"$ref":"#/$defs/d40"}},"required":["a"]}`)
	anyOfBomb := bomb.String()
	return map[string]string{
		"empty bytes":             ``,
		"whitespace":              "  \n ",
		"truncated":               `{"type":"object","properties":{`,
		"trailing data":           `{"type":"object"} {"x":1}`,
		"array":                   `[1,2,3]`,
		"string":                  `"object"`,
		"number":                  `42`,
		"null":                    `null`,
		"false":                   `false`,
		"properties array":        `{"type":"object","properties":[{"a":1}],"required":["a"]}`,
		"properties string":       `{"type":"object","properties":"a"}`,
		"property schema array":   `{"type":"object","properties":{"a":[1]},"required":["a"]}`,
		"property schema null":    `{"type":"object","properties":{"a":null},"required":["a"]}`,
		"required string":         `{"type":"object","properties":{"abc":{"type":"string"}},"required":"abc"}`,
		"required mixed":          `{"type":"object","properties":{"a":{"type":"string"}},"required":["a",1,null,{"x":1}]}`,
		"required object":         `{"type":"object","required":{"a":true}}`,
		"unknown type":            `{"type":"object","properties":{"a":{"type":"int"}},"required":["a"]}`,
		"type array junk":         `{"type":"object","properties":{"a":{"type":[1,"str",null]}},"required":["a"]}`,
		"type empty array":        `{"type":"object","properties":{"a":{"type":[]}},"required":["a"]}`,
		"type object":             `{"type":{"x":1}}`,
		"root type array":         `{"type":"array","items":{"type":"string"}}`,
		"missing type":            `{"properties":{"a":{},"b":{"description":"who knows"}},"required":["a","b"]}`,
		"anyOf not array":         `{"type":"object","properties":{"a":{"anyOf":{"type":"string"}}},"required":["a"]}`,
		"anyOf empty":             `{"type":"object","properties":{"a":{"anyOf":[]}},"required":["a"]}`,
		"oneOf impossible":        `{"type":"object","properties":{"a":{"oneOf":[{"type":"string"},{"type":"string"}]}},"required":["a"]}`,
		"allOf conflict":          `{"type":"object","properties":{"a":{"allOf":[{"type":"string"},{"type":"integer"}]}},"required":["a"]}`,
		"allOf scalar":            `{"type":"object","allOf":"x"}`,
		"ref remote":              `{"type":"object","properties":{"a":{"$ref":"https://evil.example/s.json"}},"required":["a"]}`,
		"ref file":                `{"type":"object","properties":{"a":{"$ref":"file:///etc/passwd"}},"required":["a"]}`,
		"ref relative":            `{"type":"object","properties":{"a":{"$ref":"other.json#/x"}},"required":["a"]}`,
		"ref anchor":              `{"type":"object","properties":{"a":{"$ref":"#foo"}},"required":["a"]}`,
		"ref missing":             `{"type":"object","properties":{"a":{"$ref":"#/$defs/nope"}},"required":["a"]}`,
		"ref bad escape":          `{"type":"object","properties":{"a":{"$ref":"#/%zz"}},"required":["a"]}`,
		"ref not string":          `{"type":"object","properties":{"a":{"$ref":5}},"required":["a"]}`,
		"ref self root":           `{"$ref":"#"}`,
		"ref self property":       `{"type":"object","properties":{"a":{"$ref":"#/properties/a"}},"required":["a"]}`,
		"ref mutual cycle":        `{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"type":"object","properties":{"x":{"$ref":"#/$defs/a"}},"required":["x"]}`,
		"ref required recursion":  `{"type":"object","properties":{"child":{"$ref":"#"}},"required":["child"]}`,
		"ref array index":         `{"$defs":{"list":[{"type":"integer"}]},"type":"object","properties":{"a":{"$ref":"#/$defs/list/0"},"b":{"$ref":"#/$defs/list/01"}},"required":["a","b"]}`,
		"nested id ref":           `{"type":"object","properties":{"a":{"$id":"https://other.example/x.json","$defs":{"s":{"type":"string"}},"$ref":"#/$defs/s"}},"required":["a"]}`,
		"dynamic ref":             `{"type":"object","properties":{"a":{"$dynamicRef":"#meta"}},"required":["a"]}`,
		"deep properties 3000":    deep(3000, `{"type":"object","required":["a"],"properties":{"a":`, `{}`, `}}`),
		"deep properties 95":      deep(95, `{"type":"object","required":["a"],"properties":{"a":`, `{}`, `}}`),
		"deep allOf 3000":         deep(3000, `{"allOf":[`, `{"type":"object"}`, `]}`),
		"deep allOf 95":           deep(95, `{"allOf":[`, `{"type":"object","required":["a"],"properties":{"a":{"type":"string","minLength":3}}}`, `]}`),
		"deep arrays 3000":        `{"type":"object","properties":{"a":` + deep(3000, `{"type":"array","minItems":1,"items":`, `{}`, `}`) + `},"required":["a"]}`,
		"deep json 20000":         deep(20000, `[`, `1`, `]`),
		"huge enum":               hugeEnum.String(),
		"anyOf bomb":              anyOfBomb,
		"minLength above max":     `{"type":"object","properties":{"a":{"type":"string","minLength":10,"maxLength":2}},"required":["a"]}`,
		"minLength huge":          `{"type":"object","properties":{"a":{"type":"string","minLength":1000000000}},"required":["a"]}`,
		"minLength negative":      `{"type":"object","properties":{"a":{"type":"string","minLength":-3}},"required":["a"]}`,
		"minLength string":        `{"type":"object","properties":{"a":{"type":"string","minLength":"3"}},"required":["a"]}`,
		"minimum above max":       `{"type":"object","properties":{"a":{"type":"number","minimum":10,"maximum":2}},"required":["a"]}`,
		"exclusive equal":         `{"type":"object","properties":{"a":{"type":"number","exclusiveMinimum":3,"maximum":3}},"required":["a"]}`,
		"integer no room":         `{"type":"object","properties":{"a":{"type":"integer","minimum":1.1,"maximum":1.9}},"required":["a"]}`,
		"exponent huge":           `{"type":"object","properties":{"a":{"type":"number","minimum":1e999999999}},"required":["a"]}`,
		"exponent tiny":           `{"type":"object","properties":{"a":{"type":"number","multipleOf":1e-999999999}},"required":["a"]}`,
		"multipleOf zero":         `{"type":"object","properties":{"a":{"type":"number","multipleOf":0}},"required":["a"]}`,
		"multipleOf negative":     `{"type":"object","properties":{"a":{"type":"integer","multipleOf":-2}},"required":["a"]}`,
		"multipleOf primes":       `{"type":"object","properties":{"a":{"allOf":[{"multipleOf":1009},{"multipleOf":1013},{"multipleOf":1019},{"multipleOf":1021},{"multipleOf":1031}],"type":"integer","maximum":1000}},"required":["a"]}`,
		"impossible pattern":      `{"type":"object","properties":{"a":{"type":"string","pattern":"a^b"}},"required":["a"]}`,
		"invalid pattern":         `{"type":"object","properties":{"a":{"type":"string","pattern":"["}},"required":["a"]}`,
		"lookahead pattern":       `{"type":"object","properties":{"a":{"type":"string","pattern":"^(?!admin).+$"}},"required":["a"]}`,
		"pattern explosion":       `{"type":"object","properties":{"a":{"type":"string","pattern":"^((a{1000}){1000}){1000}$"}},"required":["a"]}`,
		"pattern vs length":       `{"type":"object","properties":{"a":{"type":"string","pattern":"^[0-9]{5}$","maxLength":3}},"required":["a"]}`,
		"pattern not string":      `{"type":"object","properties":{"a":{"type":"string","pattern":42}},"required":["a"]}`,
		"patternProperties bad":   `{"type":"object","patternProperties":{"[":{"type":"string"}},"required":["x"]}`,
		"format vs length":        `{"type":"object","properties":{"a":{"type":"string","format":"email","maxLength":3}},"required":["a"]}`,
		"format not string":       `{"type":"object","properties":{"a":{"type":"string","format":["email"]}},"required":["a"]}`,
		"false property":          `{"type":"object","properties":{"a":false},"required":["a"]}`,
		"closed object required":  `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false,"required":["b"]}`,
		"not everything":          `{"type":"object","properties":{"a":{"not":{}}},"required":["a"]}`,
		"minItems huge":           `{"type":"object","properties":{"a":{"type":"array","minItems":1000000000000}},"required":["a"]}`,
		"minItems above max":      `{"type":"object","properties":{"a":{"type":"array","minItems":3,"maxItems":1}},"required":["a"]}`,
		"unique impossible":       `{"type":"object","properties":{"a":{"type":"array","items":{"enum":[1]},"uniqueItems":true,"minItems":2}},"required":["a"]}`,
		"tuple too short":         `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"type":"array","items":[{"type":"string"}],"additionalItems":false,"minItems":2}},"required":["a"]}`,
		"items array 2020":        `{"type":"object","properties":{"a":{"type":"array","items":[{"type":"string"}]}},"required":["a"]}`,
		"minProperties huge":      `{"type":"object","minProperties":100000,"additionalProperties":false}`,
		"maxProperties zero":      `{"type":"object","maxProperties":0,"required":["a"]}`,
		"enum empty":              `{"type":"object","properties":{"a":{"enum":[]}},"required":["a"]}`,
		"enum not array":          `{"type":"object","properties":{"a":{"enum":"abc"}},"required":["a"]}`,
		"const vs type":           `{"type":"object","properties":{"a":{"const":"x","type":"integer"}},"required":["a"]}`,
		"default invalid":         `{"type":"object","properties":{"a":{"type":"integer","default":"seven","minimum":3}},"required":["a"]}`,
		"examples not array":      `{"type":"object","properties":{"a":{"type":"string","examples":"x"}},"required":["a"]}`,
		"unknown keywords":        `{"type":"object","properties":{"a":{"type":"string","x-whatever":{"$ref":"https://evil.example"}}},"required":["a"]}`,
		"dependentSchemas cycle":  `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"dependentSchemas":{"a":{"$ref":"#"}}}`,
		"dependencies bad":        `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","required":["a"],"dependencies":{"a":5}}`,
		"if without then":         `{"type":"object","if":{"required":["a"]},"else":false}`,
		"unknown draft":           `{"$schema":"https://example.com/my-draft","type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`,
		"weird property names":    `{"type":"object","properties":{"a/b":{"type":"string"},"~0":{"type":"integer"},"":{"type":"boolean"},"$ref":{"type":"string"}},"required":["a/b","~0","","$ref"]}`,
		"invalid utf8 in pattern": "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\",\"pattern\":\"^[\xff]$\"}},\"required\":[\"a\"]}",
		"surrogate class":         `{"type":"object","properties":{"a":{"type":"string","pattern":"^[\ud800-\udfff]$"}},"required":["a"]}`,
		"unicode class":           `{"type":"object","properties":{"a":{"type":"string","pattern":"^\\p{Greek}{3}$"}},"required":["a"]}`,
		"memory bomb":             `{"type":"object","properties":{"a":{"type":"array","minItems":256,"items":{"type":"array","minItems":256,"items":{"type":"array","minItems":256,"items":{"type":"string","minLength":65536}}}}},"required":["a"]}`,
		"big numbers everywhere":  `{"type":"object","properties":{"a":{"type":"integer","minimum":123456789012345678901234567890,"maximum":123456789012345678901234567899,"multipleOf":7}},"required":["a"]}`,
	}
}

func TestAdversarialSchemas(t *testing.T) {
	schemas := adversarialSchemas()
	if len(schemas) < 25 {
		t.Fatalf("only %d adversarial schemas", len(schemas))
	}
	for name, raw := range schemas {
		t.Run(name, func(t *testing.T) {
			sch, _, _ := checkContract(t, []byte(raw), 1)
			cases, _ := FuzzCases("tool", sch, NewValues(1))
			if len(cases) == 0 || cases[0].Name != CaseValid {
				t.Fatalf("no valid case first: %v", cases)
			}
			NewValues(1).Distinct("tool", sch, 3)
			Groups([]Tool{{Name: "create_x", InputSchema: sch}, {Name: "get_x", InputSchema: sch}})
		})
	}
}

// TestAdversarialNotes checks that schemas nobody can satisfy, or whose
// values would exceed the generator's limits, are explained rather than
// silently "valid". Each of them compiles, so the note is the generator's.
func TestAdversarialNotes(t *testing.T) {
	for _, name := range []string{"minLength above max", "minimum above max", "exclusive equal", "integer no room",
		"impossible pattern", "false property", "closed object required", "not everything", "minItems above max",
		"unique impossible", "tuple too short", "enum empty", "const vs type", "oneOf impossible", "allOf conflict",
		"ref self root", "ref required recursion", "deep properties 95", "pattern vs length",
		"format vs length", "minProperties huge", "maxProperties zero", "memory bomb"} {
		raw := adversarialSchemas()[name]
		if raw == "" {
			t.Fatalf("no schema %q", name)
		}
		if _, notes := NewValues(1).Valid("t", mustCompile(t, raw)); len(notes) == 0 {
			t.Errorf("%s: no note", name)
		}
	}
}
