package assert

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/config"
)

// TestErrorShaped walks the shapes of "error reported as success": the
// unmistakable ones (the docs server's answers of issue 19 among them),
// the possible ones, and honest answers that talk about errors, which
// must not be flagged at all.
func TestErrorShaped(t *testing.T) {
	obj := func(s string) any {
		var v any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct {
		name       string
		text       string
		structured any
		sure, ok   bool
	}{
		// Unmistakable.
		{"docs server's template", `{"error":"Template 42 not found"}`, nil, true, true},
		{"error object with code", `{"error":{"code":404,"message":"no such page"},"status":404}`, nil, true, true},
		{"structured error", ``, obj(`{"error":"rate limited","statusCode":429}`), true, true},
		{"success false", `{"success":false,"error":"bad token"}`, nil, true, true},
		{"Error: prefix", "Error: ENOENT: no such file or directory, open '/x'", nil, true, true},
		{"python traceback", "Traceback (most recent call last):\n  File \"x.py\", line 3, in <module>\nKeyError: 'a'", nil, true, true},
		{"go panic", "panic: runtime error: index out of range [3] with length 2\n\ngoroutine 1 [running]:\nmain.main()", nil, true, true},
		{"js stack", "TypeError: x is undefined\n    at f (/app/index.js:10:5)\n    at g (/app/index.js:20:3)", nil, true, true},
		// Possible.
		{"tool not found", "Tool 'renewable energy' not found", nil, false, true},
		{"error beside data", `{"job":"build-7","state":"failed","error":"exit 2"}`, nil, false, true},
		{"does not exist", "The page you asked for does not exist.", nil, false, true},
		// Honest.
		{"no error", `{"error":null,"items":[1,2]}`, nil, false, false},
		{"empty error", `{"error":"","value":3}`, nil, false, false},
		{"succeeded", `{"success":true,"error":"none"}`, nil, false, false},
		{"errors list", `{"errors":["line 3: unused variable"]}`, nil, false, false},
		{"mentions an error later", "Build finished.\nError: none of the 3 warnings is fatal", nil, false, false},
		{"no results", "No matches found", nil, false, false},
		{"not found deep in a document", "# Troubleshooting\n\nIf the file is not found, check the path.", nil, false, false},
		{"echo", "Echo: error", nil, false, false},
		{"at in prose", "We met at noon.\n  at the station", nil, false, false},
		{"json array", `[{"error":"x"}]`, nil, false, false},
		{"two json values", `{"error":"x"} {"y":1}`, nil, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			what, sure, ok := ErrorShaped(c.text, c.structured)
			if ok != c.ok || sure != c.sure || ok != (what != "") {
				t.Errorf("ErrorShaped = %q, sure %v, ok %v; want sure %v, ok %v", what, sure, ok, c.sure, c.ok)
			}
		})
	}
}

// TestFidelityErrorAsSuccess: fidelity fails an unmistakable error shape,
// notes a possible one, and leaves resources and prompts alone (a
// document may begin with "Error:").
func TestFidelityErrorAsSuccess(t *testing.T) {
	check := func(kind config.StepKind, text string) []Failure {
		return (&Fidelity{}).Check(&Result{Kind: kind, Outcome: config.OutcomeOK, Text: text, HasContent: true})
	}
	if f := check(config.KindTool, `{"error":"Template 42 not found"}`); len(f) != 1 || f[0].Note || !strings.Contains(f[0].Message, "error reported as success") || !strings.Contains(f[0].Message, "Template 42 not found") {
		t.Errorf("unmistakable: %+v", f)
	}
	if f := check(config.KindTool, "Tool 'renewable energy' not found"); len(f) != 1 || !f[0].Note {
		t.Errorf("possible: %+v", f)
	}
	if f := check(config.KindResource, "Error: this page documents errors"); len(f) != 0 {
		t.Errorf("resource: %+v", f)
	}
	// server-everything's get-annotated-message {messageType: "error"}
	// answers "Error: Operation failed", as asked.
	asked := &Result{Kind: config.KindTool, Outcome: config.OutcomeOK, Text: "Error: Operation failed", HasContent: true,
		Arguments: map[string]any{"messageType": "error", "includeImage": false}}
	if f := (&Fidelity{}).Check(asked); len(f) != 0 {
		t.Errorf("asked for an error: %+v", f)
	}
}
