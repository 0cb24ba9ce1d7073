package gen

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
)

// schemaMaker writes random, well-formed schemas from a small grammar that
// covers every keyword family the generator knows, for one draft.
type schemaMaker struct {
	r     *rand.Rand
	draft int
	defs  int
}

func (m *schemaMaker) pick(xs ...any) any { return xs[m.r.IntN(len(xs))] }

func (m *schemaMaker) num() json.Number {
	return json.Number(m.pick("-5", "-1", "0", "0.5", "1", "2", "2.5", "3", "7", "10", "100").(string))
}

func (m *schemaMaker) value() any {
	switch m.r.IntN(6) {
	case 0:
		return m.pick("a", "b", "Chicago", "", "x-1").(string)
	case 1:
		return m.num()
	case 2:
		return m.r.IntN(2) == 0
	case 3:
		return nil
	case 4:
		return []any{m.num()}
	}
	return map[string]any{"k": m.pick("v", "w")}
}

func (m *schemaMaker) schema(depth int) any {
	if depth > 3 || m.r.IntN(10) == 0 {
		return m.pick(true, map[string]any{}, map[string]any{"type": "string"}, map[string]any{"type": "integer"})
	}
	s := map[string]any{}
	kind := m.r.IntN(12)
	types := []string{"string", "number", "integer", "boolean", "object", "array", "null"}
	switch {
	case kind < 7:
		t := types[kind]
		if m.r.IntN(5) == 0 {
			s["type"] = []any{t, types[m.r.IntN(len(types))]}
		} else if m.r.IntN(8) != 0 {
			s["type"] = t
		}
		m.typed(s, t, depth)
	case kind == 7:
		k := m.pick("anyOf", "oneOf", "allOf").(string)
		n := 1 + m.r.IntN(3)
		arr := make([]any, n)
		for i := range arr {
			arr[i] = m.schema(depth + 1)
		}
		s[k] = arr
	case kind == 8:
		s["enum"] = []any{m.value(), m.value(), m.value()}
	case kind == 9:
		s["const"] = m.value()
	case kind == 10 && m.defs > 0:
		if m.draft >= draft2019 {
			s["$ref"] = fmt.Sprintf("#/$defs/d%d", m.r.IntN(m.defs))
		} else {
			s["$ref"] = fmt.Sprintf("#/definitions/d%d", m.r.IntN(m.defs))
		}
		if m.r.IntN(3) == 0 {
			s["minLength"] = json.Number("2")
		}
	default:
		s["if"] = m.schema(depth + 1)
		s["then"] = m.schema(depth + 1)
		if m.r.IntN(2) == 0 {
			s["else"] = m.schema(depth + 1)
		}
	}
	if m.r.IntN(8) == 0 {
		s["not"] = m.schema(depth + 1)
	}
	if m.r.IntN(6) == 0 {
		s["default"] = m.value()
	}
	if m.r.IntN(8) == 0 {
		s["examples"] = []any{m.value()}
	}
	return s
}

func (m *schemaMaker) typed(s map[string]any, t string, depth int) {
	maybe := func(k string, v any) {
		if m.r.IntN(3) == 0 {
			s[k] = v
		}
	}
	switch t {
	case "string":
		maybe("minLength", json.Number(fmt.Sprint(m.r.IntN(8))))
		maybe("maxLength", json.Number(fmt.Sprint(m.r.IntN(20))))
		maybe("pattern", m.pick(`^[a-z]+$`, `^\d{3}-\d{4}$`, `a`, `^[A-Z][a-z]*$`, `^(foo|bar)$`, `x?y+`, `^.{2,4}$`, `\s`, `^[^@]+@[^@]+$`))
		maybe("format", m.pick("email", "uri", "date", "date-time", "time", "uuid", "ipv4", "ipv6", "hostname", "duration", "uri-reference", "regex", "json-pointer", "made-up"))
	case "number", "integer":
		if m.draft == draft4 {
			maybe("minimum", m.num())
			maybe("maximum", m.num())
			maybe("exclusiveMinimum", m.r.IntN(2) == 0)
			maybe("exclusiveMaximum", m.r.IntN(2) == 0)
		} else {
			maybe("minimum", m.num())
			maybe("maximum", m.num())
			maybe("exclusiveMinimum", m.num())
			maybe("exclusiveMaximum", m.num())
		}
		maybe("multipleOf", json.Number(m.pick("0.5", "2", "3", "0.25", "1.5").(string)))
	case "object":
		props := map[string]any{}
		names := []string{"city", "email", "count", "id", "a", "b"}
		var req []any
		for i := 0; i < m.r.IntN(4); i++ {
			n := names[m.r.IntN(len(names))]
			props[n] = m.schema(depth + 1)
			if m.r.IntN(2) == 0 {
				req = append(req, n)
			}
		}
		s["properties"] = props
		if m.r.IntN(5) == 0 {
			req = append(req, "zz")
		}
		if len(req) > 0 {
			s["required"] = req
		}
		maybe("additionalProperties", m.pick(false, true, map[string]any{"type": "integer"}))
		if m.r.IntN(6) == 0 {
			s["patternProperties"] = map[string]any{"^z": m.schema(depth + 1)}
		}
		maybe("minProperties", json.Number(fmt.Sprint(m.r.IntN(4))))
		maybe("maxProperties", json.Number(fmt.Sprint(m.r.IntN(4))))
		if m.r.IntN(6) == 0 {
			s["propertyNames"] = map[string]any{"pattern": "^[a-z]+$"}
		}
		if m.r.IntN(8) == 0 {
			if m.draft >= draft2019 {
				s["dependentRequired"] = map[string]any{"a": []any{"b"}}
			} else {
				s["dependencies"] = map[string]any{"a": []any{"b"}}
			}
		}
		if m.draft >= draft2019 && m.r.IntN(10) == 0 {
			s["unevaluatedProperties"] = false
		}
	case "array":
		if m.r.IntN(4) == 0 {
			tuple := []any{m.schema(depth + 1), m.schema(depth + 1)}
			if m.draft >= draft2020 {
				s["prefixItems"] = tuple
				maybe("items", m.schema(depth+1))
			} else {
				s["items"] = tuple
				maybe("additionalItems", m.pick(false, m.schema(depth+1)))
			}
		} else {
			maybe("items", m.schema(depth+1))
		}
		maybe("minItems", json.Number(fmt.Sprint(m.r.IntN(4))))
		maybe("maxItems", json.Number(fmt.Sprint(m.r.IntN(5))))
		maybe("uniqueItems", m.r.IntN(2) == 0)
		if m.r.IntN(5) == 0 {
			s["contains"] = m.schema(depth + 1)
			if m.draft >= draft2019 {
				maybe("minContains", json.Number(fmt.Sprint(m.r.IntN(3))))
				maybe("maxContains", json.Number(fmt.Sprint(1+m.r.IntN(3))))
			}
		}
	}
}

func (m *schemaMaker) root() []byte {
	drafts := []struct {
		id    int
		uri   string
		defKw string
	}{
		{draft4, "http://json-schema.org/draft-04/schema#", "definitions"},
		{draft6, "http://json-schema.org/draft-06/schema#", "definitions"},
		{draft7, "http://json-schema.org/draft-07/schema#", "definitions"},
		{draft2019, "https://json-schema.org/draft/2019-09/schema", "$defs"},
		{draft2020, "https://json-schema.org/draft/2020-12/schema", "$defs"},
		{draft2020, "", "$defs"},
	}
	d := drafts[m.r.IntN(len(drafts))]
	m.draft = d.id
	m.defs = 0
	defs := map[string]any{}
	for i := 0; i < m.r.IntN(3); i++ {
		defs[fmt.Sprintf("d%d", i)] = m.schema(2)
		m.defs++
	}
	root := map[string]any{"type": "object"}
	m.typed(root, "object", 0)
	if d.uri != "" {
		root["$schema"] = d.uri
	}
	if len(defs) > 0 {
		root[d.defKw] = defs
	}
	b, _ := json.Marshal(root)
	return b
}

// TestRandomSchemas is a property test over random well-formed schemas of
// every draft: Valid reports notes exactly when the real validator rejects
// the arguments, and every missing-required and wrong-type case is
// rejected. It also reports how often the generator succeeds.
func TestRandomSchemas(t *testing.T) {
	n := randomCount()
	if testing.Short() {
		n = 400
	}
	m := &schemaMaker{r: rand.New(rand.NewPCG(randomSeed(), 2))}
	clean, compiled := 0, 0
	for i := 0; i < n; i++ {
		raw := m.root()
		if sch, _ := compile(raw); sch == nil {
			continue
		}
		compiled++
		sch, _, notes := checkContract(t, raw, int64(i))
		if len(notes) == 0 {
			clean++
		}
		cases, _ := FuzzCases("tool", sch, NewValues(int64(i)))
		for _, c := range cases[1:] {
			if validate(sch, c.Arguments) == nil {
				t.Fatalf("%s/%s accepted for %s: %v", c.Name, c.Property, raw, c.Arguments)
			}
		}
	}
	t.Logf("%d random schemas compiled; %d (%.0f%%) got note-free, validated arguments", compiled, clean, 100*float64(clean)/float64(max(compiled, 1)))
	if compiled == 0 || float64(clean) < 0.5*float64(compiled) {
		t.Errorf("generator succeeded on only %d of %d", clean, compiled)
	}
}

// randomSeed and randomCount let a longer hunt run with
// GENERATE_RANDOM_SEED and GENERATE_RANDOM_COUNT; the defaults are fixed.
func randomSeed() uint64 {
	if v, err := strconv.ParseUint(os.Getenv("GENERATE_RANDOM_SEED"), 10, 64); err == nil {
		return v
	}
	return 1
}

func randomCount() int {
	if v, err := strconv.Atoi(os.Getenv("GENERATE_RANDOM_COUNT")); err == nil && v > 0 {
		return v
	}
	return 4000
}
