package gen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"testing"

	"github.com/mcpcheck/mcpcheck/runner/internal/schema"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// compile compiles raw as the runner compiles a tool's inputSchema: nil
// for no schema, or one it refuses (err says why).
func compile(raw []byte) (*schema.Schema, error) {
	return schema.Compile("tool", "input", raw)
}

// mustCompile compiles a schema a test relies on.
func mustCompile(t testing.TB, raw string) *schema.Schema {
	t.Helper()
	s, err := compile([]byte(raw))
	if err != nil || s == nil {
		t.Fatalf("test schema does not compile (%v): %s", err, clip(raw))
	}
	return s
}

// validate round-trips v through JSON (as the runner would send it) and
// validates it, as compiled and with formats asserted.
func validate(sch *schema.Schema, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return err
	}
	if err := sch.Validate(inst); err != nil {
		return err
	}
	strict, err := sch.WithFormats()
	if err != nil {
		return err
	}
	if err := strict.Validate(inst); err != nil {
		return fmt.Errorf("with formats asserted: %w", err)
	}
	return nil
}

type peerTool struct {
	Name         string          `json:"name"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
	Annotations  json.RawMessage `json:"annotations"`
}

var peerFiles = []string{"testdata/tools-everything.json", "testdata/tools-everything-nocaps.json", "testdata/tools-memory.json"}

func loadPeers(t testing.TB) map[string][]peerTool {
	t.Helper()
	out := map[string][]peerTool{}
	for _, f := range peerFiles {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Tools []peerTool `json:"tools"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if len(doc.Tools) == 0 {
			t.Fatalf("%s: no tools", f)
		}
		out[f] = doc.Tools
	}
	return out
}

// checkContract is the property every schema must have, whatever its bytes:
// no panic, the same output twice, and notes exactly when the real
// validator rejects the arguments (formats asserted or not; no schema, or
// a refused one, always gets a note). It returns the compiled schema, the
// arguments and the notes.
func checkContract(t *testing.T, raw []byte, seed int64) (*schema.Schema, map[string]any, []string) {
	t.Helper()
	sch, _ := compile(raw)
	v := NewValues(seed)
	args, notes := v.Valid("tool", sch)
	again, notesAgain := v.Valid("tool", sch)
	if !reflect.DeepEqual(args, again) || !reflect.DeepEqual(notes, notesAgain) {
		t.Fatalf("Valid is not deterministic for %s:\n%v %v\n%v %v", clip(string(raw)), args, notes, again, notesAgain)
	}
	if args == nil {
		t.Fatalf("Valid returned nil arguments for %s", clip(string(raw)))
	}
	if sch == nil {
		if len(notes) == 0 {
			t.Fatalf("no note without a schema for %s", clip(string(raw)))
		}
		return nil, args, notes
	}
	err := validate(sch, args)
	b, _ := json.Marshal(args)
	switch {
	case len(notes) == 0 && err != nil:
		t.Fatalf("Valid said ok but the arguments are invalid\nschema: %s\nargs: %s\n%v", raw, b, err)
	case len(notes) > 0 && err == nil:
		t.Fatalf("Valid gave notes %q for valid arguments\nschema: %s\nargs: %s", notes, raw, b)
	}
	return sch, args, notes
}
