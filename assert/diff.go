package assert

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/go-openapi/jsonpointer"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/internal/jsonx"
)

// differ walks expected and actual values side by side and collects
// mismatches with their JSON Pointer paths. Matchers (*config.Matcher) in
// the expected value match instead of comparing.
type differ struct {
	kind   KindName
	subset bool // object keys of actual beyond expected are allowed
	limit  int  // at most this many failures; 0 means maxFailures
	out    []Failure
}

func (d *differ) full() bool {
	limit := d.limit
	if limit == 0 {
		limit = maxFailures
	}
	return len(d.out) >= limit
}

func (d *differ) add(path, msg string, want any, hasWant bool, got any, hasGot bool) {
	if d.full() {
		return
	}
	d.out = append(d.out, Failure{Kind: d.kind, Path: path, Message: msg, Expected: want, HasExpected: hasWant, Actual: got, HasActual: hasGot})
}

func (d *differ) diff(path string, want, got any) {
	d.compare(path, want, got, true, "")
}

// compare is diff for a value that may not be there (present false): a
// key an object lacks, a path that finds nothing, a result without
// structuredContent. missing says so in a message.
func (d *differ) compare(path string, want, got any, present bool, missing string) {
	if d.full() {
		return
	}
	if m, ok := want.(*config.Matcher); ok {
		if why := d.mismatch(m, got, present, missing); why != "" {
			d.add(path, m.String()+": "+why, m, true, got, present)
		}
		return
	}
	if !present {
		d.add(path, missing, want, true, nil, false)
		return
	}
	wt, gt := TypeName(want), TypeName(got)
	if wt != gt {
		d.add(path, fmt.Sprintf("expected %s, got %s", wt, gt), want, true, got, true)
		return
	}
	switch w := want.(type) {
	case map[string]any:
		g := got.(map[string]any)
		for _, k := range sortedKeys(w) {
			gv, ok := g[k]
			d.compare(path+"/"+jsonpointer.Escape(k), w[k], gv, ok, "missing key")
		}
		if !d.subset {
			for _, k := range sortedKeys(g) {
				if _, ok := w[k]; !ok {
					d.add(path+"/"+jsonpointer.Escape(k), "unexpected key", nil, false, g[k], true)
				}
			}
		}
	case []any:
		g := got.([]any)
		if len(w) != len(g) {
			d.add(path, fmt.Sprintf("expected an array of %d, got %d", len(w), len(g)), want, true, got, true)
			return
		}
		for i := range w {
			d.diff(path+"/"+strconv.Itoa(i), w[i], g[i])
		}
	default:
		if !ScalarEqual(want, got) {
			d.add(path, "value differs", want, true, got, true)
		}
	}
}

// matches reports whether got (when present) matches want the way d
// compares: with includes semantics inside an includes, equality
// elsewhere.
func (d *differ) matches(want, got any, present bool) bool {
	sub := differ{kind: d.kind, subset: d.subset, limit: 1}
	sub.compare("", want, got, present, "missing")
	return len(sub.out) == 0
}

// Equal reports whether two generic JSON values are deeply equal, with
// numbers compared by value; matchers in a match instead of comparing.
func Equal(a, b any) bool {
	d := differ{}
	d.diff("", a, b)
	return len(d.out) == 0
}

// TypeName names the JSON type of a generic value.
func TypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number, float64, float32, int, int64, int32, uint64:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	default:
		return fmt.Sprintf("%T", v)
	}
}

// ScalarEqual compares two JSON scalars of the same type.
func ScalarEqual(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	default:
		return jsonx.Equal(numText(a), numText(b))
	}
}

func numText(v any) string {
	switch x := v.(type) {
	case json.Number:
		return string(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case float32:
		return strconv.FormatFloat(float64(x), 'g', -1, 32)
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case int32:
		return strconv.FormatInt(int64(x), 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	}
	return ""
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
