package gen

import (
	"encoding/json"
	"testing"
)

// server-filesystem's read_text_file (as its tools/list gives it): head
// and tail are optional, without defaults, and the server refuses both at
// once ("Cannot specify both head and tail"). directory_tree's
// excludePatterns declares a default.
const headTail = `{"type":"object","properties":{"path":{"type":"string"},"head":{"type":"number","description":"If provided, returns only the first N lines of the file"},"tail":{"type":"number","description":"If provided, returns only the last N lines of the file"},"excludePatterns":{"type":"array","items":{"type":"string"},"default":[]}},"required":["path"],"additionalProperties":false}`

func TestOptionalSwitchesOneAtATime(t *testing.T) {
	in := mustCompile(t, headTail)
	v := NewValues(1)
	args, notes := v.Valid("read_text_file", in)
	if len(notes) > 0 {
		t.Fatalf("notes: %v", notes)
	}
	if _, ok := args["path"]; !ok {
		t.Errorf("the required path is missing: %v", args)
	}
	if _, ok := args["excludePatterns"]; !ok {
		t.Errorf("an optional property with a default is sent (it restates the server's own): %v", args)
	}
	_, head := args["head"]
	_, tail := args["tail"]
	if !head || tail {
		t.Errorf("valid call: want head alone (the first switch by name), got %v", args)
	}
	// The variants reach the other switch, never both together.
	sawTail := false
	for _, d := range v.Distinct("read_text_file", in, 6) {
		_, h := d["head"]
		_, tl := d["tail"]
		if h && tl {
			b, _ := json.Marshal(d)
			t.Fatalf("a variant fills head and tail together: %s", b)
		}
		sawTail = sawTail || tl
	}
	if !sawTail {
		t.Errorf("no variant sends tail: each switch must still be reached")
	}
}

func TestOptionalMinPropertiesStillMet(t *testing.T) {
	// minProperties may need more than one switch: it wins.
	in := mustCompile(t, `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"},"c":{"type":"string"}},"minProperties":2}`)
	args, notes := NewValues(1).Valid("t", in)
	if len(notes) > 0 || len(args) < 2 {
		t.Fatalf("got %v, notes %v", args, notes)
	}
}
