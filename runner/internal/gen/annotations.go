package gen

import (
	"bytes"
	"encoding/json"
)

// Hint reads one boolean annotation (readOnlyHint, destructiveHint,
// idempotentHint, openWorldHint, ...) from a tool's raw `annotations`
// object. present is false when the annotations are absent or not an
// object, when the key is missing, or when its value is not a boolean; a
// caller must then not assume either value. In particular a tool without
// readOnlyHint: true is not read-only.
func Hint(annotations json.RawMessage, name string) (value bool, present bool) {
	trimmed := bytes.TrimSpace(annotations)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return false, false
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &m); err != nil {
		return false, false
	}
	raw, ok := m[name]
	if !ok {
		return false, false
	}
	switch string(bytes.TrimSpace(raw)) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}
