package gen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// compileSchema compiles raw with the validator mcpcheck uses, the way the
// runner does: draft 2020-12 unless $schema says otherwise, nothing ever
// loaded. assertFormat turns on format assertions for every draft.
//
// The validator panics on a few hostile schemas (e.g. multipleOf
// 1e-999999999 in v6.0.3); such a schema counts as not compiling.
func compileSchema(raw []byte, assertFormat bool) (sch *jsonschema.Schema, err error) {
	defer func() {
		if r := recover(); r != nil {
			sch, err = nil, fmt.Errorf("validator panicked compiling the schema: %v", r)
		}
	}()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(jsonschema.SchemeURLLoader{})
	if assertFormat {
		c.AssertFormat()
	}
	if err := c.AddResource("mem://tool/input.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("mem://tool/input.json")
}

// validate round-trips v through JSON (as the runner would send it) and
// validates it.
func validate(sch *jsonschema.Schema, v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("validator panicked: %v", r)
		}
	}()
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return err
	}
	return sch.Validate(inst)
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
// no panic, the same output twice, and — when the schema compiles and
// Valid reports no notes — arguments the real validator accepts. It
// returns the arguments and notes.
func checkContract(t *testing.T, raw []byte, seed int64) (map[string]any, []string) {
	t.Helper()
	v := NewValues(seed)
	args, notes := v.Valid("tool", raw)
	again, notesAgain := v.Valid("tool", raw)
	if !reflect.DeepEqual(args, again) || !reflect.DeepEqual(notes, notesAgain) {
		t.Fatalf("Valid is not deterministic for %s:\n%v %v\n%v %v", clip(string(raw)), args, notes, again, notesAgain)
	}
	if args == nil {
		t.Fatalf("Valid returned nil arguments for %s", clip(string(raw)))
	}
	if len(notes) > 0 {
		return args, notes
	}
	for _, assertFormat := range []bool{false, true} {
		sch, err := compileSchema(raw, assertFormat)
		if err != nil {
			return args, notes
		}
		if err := validate(sch, args); err != nil {
			b, _ := json.Marshal(args)
			t.Fatalf("Valid said ok but the arguments are invalid (assertFormat=%v)\nschema: %s\nargs: %s\n%v", assertFormat, raw, b, err)
		}
	}
	return args, notes
}
