package assert

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpcheck/mcpcheck/config"
)

// Absent demands that a value, typically a deleted resource's id, is gone:
// the call may fail (tool_error, protocol_error) or succeed, but a
// successful result must not contain the value anywhere in its
// structuredContent or text. A successful read that still returns it is a
// stale read.
type Absent struct{}

func buildAbsent(e *config.Expect) Checker {
	if e.Absent == nil {
		return nil
	}
	return &Absent{}
}

// Kind implements [Checker].
func (c *Absent) Kind() KindName { return KindAbsent }

// Check implements [Checker].
func (c *Absent) Check(r *Result) []Failure {
	switch r.Outcome {
	case config.OutcomeToolError, config.OutcomeProtocolError:
		return nil
	case config.OutcomeOK, config.OutcomeOutputInvalid:
	default:
		return []Failure{{Kind: c.Kind(), Message: fmt.Sprintf("expected a result or an error saying it is gone, got %s", r.Outcome)}}
	}
	if r.HasStructured && containsValue(r.Structured, r.Absent) {
		return []Failure{{Kind: c.Kind(), Message: "the value is still returned (stale read)", Expected: r.Absent, HasExpected: true}}
	}
	if s := scalarText(r.Absent); s != "" && strings.Contains(r.Text, s) {
		return []Failure{{Kind: c.Kind(), Message: "the value still appears in the text (stale read)", Expected: r.Absent, HasExpected: true}}
	}
	return nil
}

// containsValue reports whether v occurs anywhere inside haystack.
func containsValue(haystack, v any) bool {
	if TypeName(haystack) == TypeName(v) && Equal(haystack, v) {
		return true
	}
	switch x := haystack.(type) {
	case map[string]any:
		for _, e := range x {
			if containsValue(e, v) {
				return true
			}
		}
	case []any:
		return slices.ContainsFunc(x, func(e any) bool { return containsValue(e, v) })
	}
	return false
}

// scalarText is how a scalar is written in text ("" for containers and
// values too short to search for).
func scalarText(v any) string {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case json.Number:
		s = string(x)
	default:
		return ""
	}
	if len(s) < 3 {
		return ""
	}
	return s
}

// jsonText renders a value as JSON text for substring searches.
func jsonText(v any) string {
	if v == nil {
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}
