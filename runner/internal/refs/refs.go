// Package refs resolves a step's $ref markers (`{"$ref": "stepId#/pointer"}`)
// against the decoded results of the earlier steps of its scenario.
package refs

import (
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/go-openapi/jsonpointer"
	"github.com/mcpcheck/mcpcheck/config"
)

// Resolve returns v with every $ref marker replaced by the value it points
// at in an earlier step's result. Only the containers on the way to a
// marker are copied; the rest is shared. results maps step ids of the same
// scenario to their decoded results ({content, structuredContent,
// isError}).
func Resolve(v any, results map[string]any) (any, error) {
	r, _, err := resolveValue(v, results)
	return r, err
}

// resolveValue is Resolve, and whether anything changed.
func resolveValue(v any, results map[string]any) (any, bool, error) {
	if s, ok := config.RefMarker(v); ok {
		r, err := resolveRef(s, results)
		return r, true, err
	}
	switch x := v.(type) {
	case map[string]any:
		var out map[string]any
		for k, e := range x {
			r, changed, err := resolveValue(e, results)
			if err != nil {
				return nil, false, err
			}
			if !changed {
				continue
			}
			if out == nil {
				out = maps.Clone(x)
			}
			out[k] = r
		}
		if out == nil {
			return x, false, nil
		}
		return out, true, nil
	case []any:
		var out []any
		for i, e := range x {
			r, changed, err := resolveValue(e, results)
			if err != nil {
				return nil, false, err
			}
			if !changed {
				continue
			}
			if out == nil {
				out = append([]any(nil), x...)
			}
			out[i] = r
		}
		if out == nil {
			return x, false, nil
		}
		return out, true, nil
	}
	return v, false, nil
}

// resolveRef resolves one `stepId#/pointer` against the results of earlier
// steps. Error messages name the step and pointer but never the values.
func resolveRef(s string, results map[string]any) (any, error) {
	ref, err := config.ParseRef(s)
	if err != nil {
		return nil, err
	}
	doc, ok := results[ref.Step]
	if !ok {
		return nil, fmt.Errorf("$ref %q: step %q has no result to read (it did not run or did not pass)", s, ref.Step)
	}
	// RFC 6901 array indexes are plain decimal; jsonpointer would also
	// accept "01" and "+1", so reject those first.
	cur := doc
	for i, tok := range ref.Tokens {
		if arr, isArr := cur.([]any); isArr {
			n, err := strconv.Atoi(tok)
			if err != nil || n < 0 || strconv.Itoa(n) != tok {
				return nil, fmt.Errorf("$ref %q: %q is not an array index", s, tok)
			}
			if n >= len(arr) {
				return nil, fmt.Errorf("$ref %q: index %d is past the end of an array of %d", s, n, len(arr))
			}
		}
		next, _, err := jsonpointer.GetForToken(cur, tok)
		if err != nil {
			return nil, fmt.Errorf("$ref %q: nothing at %s", s, pointerOf(ref.Tokens[:i+1]))
		}
		cur = next
	}
	return cur, nil
}

// pointerOf writes tokens as a JSON Pointer, for messages.
func pointerOf(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteString("/" + jsonpointer.Escape(t))
	}
	return b.String()
}

// Has reports whether v contains a $ref marker anywhere.
func Has(v any) bool {
	if _, ok := config.RefMarker(v); ok {
		return true
	}
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			if Has(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if Has(e) {
				return true
			}
		}
	}
	return false
}
