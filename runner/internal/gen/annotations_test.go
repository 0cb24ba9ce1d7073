package gen

import (
	"encoding/json"
	"testing"
)

func TestHint(t *testing.T) {
	tests := []struct {
		raw, name      string
		value, present bool
	}{
		{`{"readOnlyHint":true}`, "readOnlyHint", true, true},
		{`{"readOnlyHint":false}`, "readOnlyHint", false, true},
		{`{"destructiveHint":true}`, "readOnlyHint", false, false},
		{`{}`, "readOnlyHint", false, false},
		{``, "readOnlyHint", false, false},
		{`null`, "readOnlyHint", false, false},
		{`[true]`, "readOnlyHint", false, false},
		{`{"readOnlyHint":"true"}`, "readOnlyHint", false, false},
		{`{"readOnlyHint":1}`, "readOnlyHint", false, false},
		{`{"readOnlyHint":null}`, "readOnlyHint", false, false},
		{`{"readOnlyHint": true }`, "readOnlyHint", true, true},
		{`{"readOnlyHint":true`, "readOnlyHint", false, false},
		{`{"title":"x","idempotentHint":true,"openWorldHint":false}`, "openWorldHint", false, true},
		{`{"ReadOnlyHint":true}`, "readOnlyHint", false, false},
	}
	for _, tt := range tests {
		v, p := Hint(json.RawMessage(tt.raw), tt.name)
		if v != tt.value || p != tt.present {
			t.Errorf("Hint(%s, %s) = %v, %v; want %v, %v", tt.raw, tt.name, v, p, tt.value, tt.present)
		}
	}
}

func TestHintPeers(t *testing.T) {
	readOnly := 0
	for _, tools := range loadPeers(t) {
		for _, tool := range tools {
			if v, p := Hint(tool.Annotations, "readOnlyHint"); !p {
				t.Errorf("%s: readOnlyHint missing", tool.Name)
			} else if v {
				readOnly++
			}
		}
	}
	if readOnly == 0 {
		t.Error("no read-only tool in the captures")
	}
}
