package assert

import (
	"encoding/json"
	"sort"

	"github.com/tidwall/gjson"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/internal/jsonx"
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
	paths, want := sortedPaths(e.StructuredPaths)
	return &StructuredPaths{Paths: paths, Want: want}
}

// Kind implements [Checker].
func (c *StructuredPaths) Kind() KindName { return KindStructuredPaths }

// Check implements [Checker].
func (c *StructuredPaths) Check(r *Result) []Failure {
	if !r.HasResult {
		return nil
	}
	if !r.HasStructured {
		return []Failure{{Kind: c.Kind(), Message: noStructured}}
	}
	raw := r.StructuredRaw
	if raw == nil {
		raw, _ = json.Marshal(r.Structured)
	}
	return checkPaths(c.Kind(), c.Paths, c.Want, raw)
}

// sortedPaths splits gjson paths with their expected values into the
// sorted paths (for a deterministic report) and the values.
func sortedPaths(m map[string]*config.Value) ([]string, map[string]any) {
	paths := make([]string, 0, len(m))
	want := make(map[string]any, len(m))
	for p, v := range m {
		paths = append(paths, p)
		want[p] = v.V
	}
	sort.Strings(paths)
	return paths, want
}

// checkPaths queries raw, which is JSON text, with each path and compares
// what it finds with its value, like structuredEquals (matchers allowed;
// {"$absent": true} demands that a path finds nothing). A failure's path
// is the gjson path, then a JSON Pointer below the value it found.
func checkPaths(kind KindName, paths []string, want map[string]any, raw []byte) []Failure {
	var out []Failure
	for _, path := range paths {
		res := gjson.GetBytes(raw, path)
		var got any
		if res.Exists() {
			if err := jsonx.Decode([]byte(res.Raw), &got); err != nil {
				// gjson results that are not JSON text (a modifier's output,
				// say) compare as strings.
				got = res.String()
			}
		}
		d := differ{kind: kind}
		d.compare("", want[path], got, res.Exists(), "nothing at this path")
		for _, f := range d.out {
			f.Path = path + pointerSuffix(f.Path)
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
