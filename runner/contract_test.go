package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// contractOptions serves the test server plus tools with hand-written
// schemas; refURL is where the remote-$ref tool's schema points.
func contractOptions(refURL string, calls *atomic.Int64) Options {
	return Options{Dial: func(ctx context.Context) (mcp.Transport, error) {
		s := testServer()
		echo := func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			calls.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}, StructuredContent: req.Params.Arguments}, nil
		}
		add := func(name, in, out string, h mcp.ToolHandler) {
			t := &mcp.Tool{Name: name, InputSchema: json.RawMessage(in)}
			if out != "" {
				t.OutputSchema = json.RawMessage(out)
			}
			s.AddTool(t, h)
		}
		add("city", `{"type":"object","properties":{"location":{"type":"string","enum":["New York","Chicago"]}},"required":["location"],"additionalProperties":false}`, "", echo)
		// draft-07: "dependencies" is a keyword there, ignored by 2020-12.
		add("draft7", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","dependencies":{"a":["b"]}}`, "", echo)
		add("local_ref", `{"type":"object","properties":{"item":{"$ref":"#/$defs/item"}},"required":["item"],"$defs":{"item":{"type":"object","required":["name"],"properties":{"name":{"type":"string"}}}}}`, "", echo)
		add("remote_ref", `{"type":"object","properties":{"item":{"$ref":"`+refURL+`"}}}`, "", echo)
		add("file_ref", `{"type":"object","properties":{"item":{"$ref":"file:///etc/hostname"}}}`, "", echo)
		add("dynamic_ref", `{"type":"object","properties":{"item":{"$dynamicRef":"`+refURL+`#meta"}}}`, "", echo)
		add("unknown_draft", `{"$schema":"`+refURL+`","type":"object"}`, "", echo)
		add("panics", `{"type":"object","properties":{"n":{"type":"number","multipleOf":1e-999999999}}}`, "", echo)
		add("explodes", explodingSchema(40), "", echo)
		add("recursive", `{"type":"object","properties":{"tree":{"$ref":"#/$defs/node"}},"$defs":{"node":{"type":"object","properties":{"children":{"type":"array","items":{"$ref":"#/$defs/node"}}}}}}`, "", echo)
		add("remote_output", `{"type":"object"}`, `{"type":"object","properties":{"x":{"$ref":"`+refURL+`"}}}`, echo)
		add("bad_output", `{"type":"object"}`, `{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]}`,
			func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				calls.Add(1)
				var in struct{ Mode string }
				json.Unmarshal(req.Params.Arguments, &in)
				switch in.Mode {
				case "good":
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}, StructuredContent: json.RawMessage(`{"id":7}`)}, nil
				case "error":
					return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "no"}}, StructuredContent: json.RawMessage(`{"id":"x"}`)}, nil
				case "none":
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "text only"}}}, nil
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}, StructuredContent: json.RawMessage(`{"id":"not-an-int"}`)}, nil
			})
		ct, st := mcp.NewInMemoryTransports()
		if _, err := s.Connect(ctx, st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}}
}

func TestContractBoundary(t *testing.T) {
	var hits atomic.Int64
	listener := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte(`{"type":"string"}`))
	}))
	defer listener.Close()
	var calls atomic.Int64
	s := parse(t, `
name: contracts
command: [mcpcheck, demo]
allowTools: [city, draft7, local_ref, remote_ref, file_ref, dynamic_ref, unknown_draft, remote_output, bad_output, panics, explodes, recursive]
scenarios:
  - name: enum rejected
    steps: [{id: s, tool: city, arguments: {location: Paris}, expect: {outcome: input_rejected}}]
  - name: enum accepted
    steps: [{id: s, tool: city, arguments: {location: Chicago}}]
  - name: unknown key rejected
    steps: [{id: s, tool: city, arguments: {location: Chicago, extra: 1}, expect: {outcome: input_rejected}}]
  - name: opt out sends anyway
    steps: [{id: s, tool: city, arguments: {location: Paris}, validateArguments: false}]
  - name: draft-07 honoured
    steps: [{id: s, tool: draft7, arguments: {a: 1}, expect: {outcome: input_rejected}}]
  - name: local ref valid
    steps: [{id: s, tool: local_ref, arguments: {item: {name: x}}}]
  - name: local ref invalid
    steps: [{id: s, tool: local_ref, arguments: {item: {}}, expect: {outcome: input_rejected}}]
  - name: remote ref refused
    steps: [{id: s, tool: remote_ref, arguments: {item: x}, expect: {outcome: input_rejected}}]
  - name: file ref refused
    steps: [{id: s, tool: file_ref, arguments: {item: x}, expect: {outcome: input_rejected}}]
  - name: dynamic ref refused
    steps: [{id: s, tool: dynamic_ref, arguments: {item: x}, expect: {outcome: input_rejected}}]
  - name: unknown draft refused
    steps: [{id: s, tool: unknown_draft, expect: {outcome: input_rejected}}]
  - name: remote output schema is not validated
    steps: [{id: s, tool: remote_output}]
  - name: output invalid
    steps: [{id: s, tool: bad_output, expect: {outcome: output_invalid}}]
  - name: output valid
    steps: [{id: s, tool: bad_output, arguments: {mode: good}, expect: {structuredEquals: {id: 7}}}]
  - name: tool errors are not output-checked
    steps: [{id: s, tool: bad_output, arguments: {mode: error}, expect: {isError: true}}]
  - name: missing structuredContent is invalid
    steps: [{id: s, tool: bad_output, arguments: {mode: none}, expect: {outcome: output_invalid}}]
  - name: a schema that crashes the validator is refused
    steps: [{id: s, tool: panics, arguments: {n: 1}, expect: {outcome: input_rejected}}]
  - name: a schema too costly to validate is refused
    steps: [{id: s, tool: explodes, arguments: {x: 1}, expect: {outcome: input_rejected}}]
  - name: a recursive schema still validates
    steps: [{id: s, tool: recursive, arguments: {tree: {children: [{children: []}]}}}]
`)
	rep := mustRun(t, s, contractOptions(listener.URL+"/schema.json", &calls))
	if !rep.Passed {
		t.Fatalf("not passed: %s\n%+v", statuses(rep), rep.Scenarios)
	}
	if hits.Load() != 0 {
		t.Errorf("the listener was fetched %d times; server schemas must never cause a fetch", hits.Load())
	}
	// Sent: enum accepted, opt out, local ref valid, remote output, and the
	// four bad_output calls. Rejected inputs never reach the server.
	if calls.Load() != 9 {
		t.Errorf("%d calls reached the server, want 9", calls.Load())
	}
	var warned []string
	for _, w := range rep.Warnings {
		for _, name := range []string{"remote_ref", "file_ref", "dynamic_ref", "unknown_draft", "remote_output"} {
			if strings.Contains(w, `"`+name+`"`) {
				warned = append(warned, name)
			}
		}
	}
	if len(warned) != 5 || len(rep.Warnings) != 7 {
		t.Errorf("warnings = %v", rep.Warnings)
	}
	r := rep.Scenarios[0].Steps[0]
	if r.Reason != `arguments do not match the tool's inputSchema at "/location" (enum); nothing was sent` || strings.Contains(r.Reason, "Paris") {
		t.Errorf("reason = %q", r.Reason)
	}
	o := rep.Scenarios[12].Steps[0]
	if !strings.Contains(o.Reason, `at "/id" (type)`) {
		t.Errorf("output reason = %q", o.Reason)
	}
}

// explodingSchema returns a schema whose $defs refer twice to the next
// level, depth times: 2^depth expansions from a few hundred bytes.
func explodingSchema(depth int) string {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{"x":{"$ref":"#/$defs/d0"}},"$defs":{`)
	for i := range depth {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"d%d":{"anyOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]}`, i, i+1, i+1)
	}
	fmt.Fprintf(&b, `,"d%d":{"type":"string"}}}`, depth)
	return b.String()
}
