package assert

import (
	"bytes"
	"encoding/json"
	"sort"

	"github.com/tidwall/gjson"

	"github.com/mcpcheck/mcpcheck/config"
)

// StructuredPaths queries structuredContent with gjson paths and demands the
// value each finds. It is for what structuredEquals and structuredIncludes
// cannot say: an array's length ("tasks.#"), one element found by a field
// ("tasks.#(id==\"task-2\").text"), a value deep inside a large result.
// Failures carry the gjson path as written, not a JSON Pointer.
type StructuredPaths struct {
	Paths []string // sorted, for a deterministic report
	Want  map[string]any
}

func buildPaths(e *config.Expect) Checker {
	if len(e.StructuredPaths) == 0 {
		return nil
	}
	c := &StructuredPaths{Want: map[string]any{}}
	for p, v := range e.StructuredPaths {
		c.Paths = append(c.Paths, p)
		c.Want[p] = v.V
	}
	sort.Strings(c.Paths)
	return c
}

// Kind implements [Checker].
func (c *StructuredPaths) Kind() string { return "structuredPaths" }

// Check implements [Checker].
func (c *StructuredPaths) Check(r *Result) []Failure {
	if !r.HasResult {
		return nil
	}
	if !r.HasStructured {
		return []Failure{{Kind: c.Kind(), Message: "the result has no structuredContent"}}
	}
	raw := r.StructuredRaw
	if raw == nil {
		raw, _ = json.Marshal(r.Structured)
	}
	var out []Failure
	for _, p := range c.Paths {
		want := c.Want[p]
		res := gjson.GetBytes(raw, p)
		if !res.Exists() {
			out = append(out, Failure{Kind: c.Kind(), Path: p, Message: "nothing at this path", Expected: want, HasExpected: true})
			continue
		}
		dec := json.NewDecoder(bytes.NewReader([]byte(res.Raw)))
		dec.UseNumber()
		var got any
		if err := dec.Decode(&got); err != nil {
			// gjson results that are not JSON text (a modifier's output, say)
			// compare as strings.
			got = res.String()
		}
		d := differ{kind: c.Kind()}
		d.diff("", want, got)
		for _, f := range d.out {
			f.Path = p + pointerSuffix(f.Path)
			out = append(out, f)
		}
	}
	return out
}

// pointerSuffix renders a JSON Pointer below a gjson path's value.
func pointerSuffix(ptr string) string {
	if ptr == "" {
		return ""
	}
	return " " + ptr
}
