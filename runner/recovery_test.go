package runner

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestRelaunchAfterCrash(t *testing.T) {
	s := parse(t, `
name: relaunch
command: [mcpcheck, demo]
allowTools: [crash, get_household, propose_task]
scenarios:
  - name: crash
    steps:
      - {id: boom, tool: crash, expect: {outcome: transport_closed}}
      - {id: observer, tool: get_household, expect: {outcome: transport_closed}}
  - name: next scenario gets a fresh server
    steps:
      - {id: fresh, tool: get_household, expect: {structuredEquals: {revision: 0, tasks: []}}}
      - {id: propose, tool: propose_task, arguments: {text: a}}
  - name: reconnect within a scenario
    reconnect: true
    steps:
      - {id: boom, tool: crash, expect: {outcome: transport_closed}}
      - {id: observer, tool: get_household, expect: {structuredEquals: {revision: 0, tasks: []}}}
`)
	s.Env = map[string]string{childEnvVar: "serve"}
	rep := mustRun(t, s, stdioOptions())
	if !rep.Passed {
		t.Fatalf("not passed: %s", statuses(rep))
	}
	if rep.Connections != 3 || rep.Restarts != 2 {
		t.Errorf("connections %d restarts %d, want 3 and 2", rep.Connections, rep.Restarts)
	}
	if st := rep.Scenarios[0].Steps[0]; st.ExitStatus != "exit status 7" || len(st.Stderr) == 0 {
		t.Errorf("crash step: exit %q stderr %q", st.ExitStatus, st.Stderr)
	}
}

func TestHTTPServerGoneTerminatesEarly(t *testing.T) {
	var srv *httptest.Server
	server := testServer()
	server.AddTool(&mcp.Tool{Name: "shutdown", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			go func() {
				srv.Listener.Close()
				srv.CloseClientConnections()
			}()
			time.Sleep(100 * time.Millisecond)
			return &mcp.CallToolResult{}, nil
		})
	srv = httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	defer srv.Close()
	s := parse(t, `
name: gone
endpoint: http://127.0.0.1:1/mcp
allowTools: [shutdown, get_household]
scenarios:
  - name: before
    steps: [{id: ok, tool: get_household}]
  - name: takes it down
    steps:
      - {id: down, tool: shutdown, expect: {outcome: transport_closed}}
  - name: after one
    steps: [{id: a, tool: get_household}, {id: b, tool: get_household}]
  - name: after two
    steps: [{id: c, tool: get_household}]
`)
	s.Endpoint = srv.URL + "/mcp"
	rep := mustRun(t, s, Options{})
	want := "before/ok=passed:ok takes it down/down=passed:transport_closed after one/a=skipped after one/b=skipped after two/c=skipped"
	if got := statuses(rep); got != want {
		t.Fatalf("statuses:\n got %s\nwant %s", got, want)
	}
	te := rep.TerminatedEarly
	if te == nil || te.Scenario != "takes it down" || te.Step != "down" || !strings.Contains(te.Reason, "server unreachable") {
		t.Fatalf("terminatedEarly = %+v", te)
	}
	if r := rep.Scenarios[2].Steps[1].Reason; r != reasonUnreachable {
		t.Errorf("skip reason = %q", r)
	}
	if rep.Passed {
		t.Error("a run that terminated early passed")
	}
}
