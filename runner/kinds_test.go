package runner

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpcheck/mcpcheck/demo"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// kindsFixture exercises every step kind against the demo: reads, a
// prompt, completions, lists, ping, the log level, a subscription and the
// update it brings, and a tool that reports progress.
const kindsFixture = `name: every step kind
endpoint: http://127.0.0.1:1/mcp
allowTools: [propose_task, commit_task, tidy_household]
timeoutMs: 5000
scenarios:
  - name: reads
    steps:
      - {id: about, resource: household://about}
      - {id: tasks, resource: household://tasks}
      - {id: missing, resource: household://tasks/task-9, expect: {outcome: protocol_error, errorCode: -32002}}
      - {id: prompt, prompt: plan_chores, arguments: {member: Robin, day: Tuesday}}
      - {id: no-member, prompt: plan_chores, expect: {outcome: protocol_error, errorCode: -32602}}
      - {id: days, complete: {ref: {type: ref/prompt, name: plan_chores}, argument: {name: day, value: T}}}
      - {id: prompts, list: prompts}
      - {id: templates, list: resourceTemplates}
      - {id: ping, ping: {}, protocols: ["2025-11-25"]}           # removed in 2026-07-28
      - {id: level, setLogLevel: debug, protocols: ["2025-11-25"]}
  - name: subscription
    steps:
      - {id: sub, subscribe: household://tasks}
      - {id: proposal, tool: propose_task, arguments: {text: Water the plants}}
      - id: commit
        tool: commit_task
        arguments: {proposalId: {$ref: "proposal#/structuredContent/proposalId"}, expectedRevision: 0, idempotencyKey: k1}
      - {id: updated, await: {method: notifications/resources/updated, params: {uri: household://tasks}, timeoutMs: 3000}}
      - {id: reread, resource: {$ref: "updated#/params/uri"}}
      - {id: no-more, await: {method: notifications/resources/updated, timeoutMs: 300}, expect: {outcome: timeout}}
  - name: progress
    steps:
      - {id: tidy, tool: tidy_household, arguments: {steps: 2}}
`

// TestEveryStepKind runs every kind against the demo in memory and over
// Streamable HTTP, under both protocol versions in memory.
func TestEveryStepKind(t *testing.T) {
	suite := parse(t, kindsFixture)
	memory := Options{Dial: func(ctx context.Context) (mcp.Transport, error) {
		ct, st := mcp.NewInMemoryTransports()
		if _, err := demo.NewServer(demo.Options{}).Connect(ctx, st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}}
	srv := httptest.NewServer(demo.Handler(demo.Options{}))
	defer srv.Close()
	want := "reads/about=passed:ok reads/tasks=passed:ok reads/missing=passed:protocol_error reads/prompt=passed:ok " +
		"reads/no-member=passed:protocol_error reads/days=passed:ok reads/prompts=passed:ok reads/templates=passed:ok " +
		"reads/ping=passed:ok reads/level=passed:ok subscription/sub=passed:ok subscription/proposal=passed:ok " +
		"subscription/commit=passed:ok subscription/updated=passed:ok subscription/reread=passed:ok " +
		"subscription/no-more=passed:timeout progress/tidy=passed:ok"
	for _, c := range []struct {
		name, protocol string
		opts           Options
	}{
		{"memory", "2025-11-25", memory},
		{"memory", "2026-07-28", memory},
		{"http", "2025-11-25", Options{}},
	} {
		t.Run(c.name+"/"+c.protocol, func(t *testing.T) {
			s := *suite
			s.ProtocolVersion = c.protocol
			if c.name == "http" {
				s.Endpoint = srv.URL + "/mcp"
			}
			rep := mustRun(t, &s, c.opts)
			want := want
			if c.protocol == "2026-07-28" {
				want = strings.Replace(want, "reads/ping=passed:ok reads/level=passed:ok", "reads/ping=skipped reads/level=skipped", 1)
			}
			if got := statuses(rep); got != want {
				t.Errorf("steps:\n got %s\nwant %s\n%+v", got, want, rep.Failure)
			}
			steps := rep.Scenarios[0].Steps
			for i, target := range []string{"household://about", "household://tasks", "household://tasks/task-9", "plan_chores", "plan_chores", "plan_chores day", "prompts", "resourceTemplates", "", "debug"} {
				if steps[i].Target != target || steps[i].Tool != "" {
					t.Errorf("step %s: target %q tool %q, want target %q", steps[i].ID, steps[i].Target, steps[i].Tool, target)
				}
			}
			if got := rep.Scenarios[1].Steps[4].Target; got != "household://tasks" {
				t.Errorf("a URI from $ref is reported once resolved: %q", got)
			}
			if !strings.Contains(strings.Join(rep.ResourcesDiscovered, " "), "household://about") || len(rep.PromptsDiscovered) != 1 {
				t.Errorf("discovered %v %v %v", rep.ResourcesDiscovered, rep.ResourceTemplatesDiscovered, rep.PromptsDiscovered)
			}
		})
	}
}

// TestUndeclaredCapability: a step against a capability the server did not
// declare fails before anything is sent, and says which.
func TestUndeclaredCapability(t *testing.T) {
	suite := parse(t, `name: undeclared
command: [x]
allowTools: []
scenarios:
  - name: s
    continueOnFailure: true
    steps:
      - {id: prompt, prompt: anything}
      - {id: resource, resource: file:///x}
      - {id: complete, complete: {ref: {type: ref/prompt, name: p}, argument: {name: a, value: ""}}}
      - {id: ping, ping: {}}
`)
	bare := Options{Dial: func(ctx context.Context) (mcp.Transport, error) {
		s := mcp.NewServer(&mcp.Implementation{Name: "tools-only", Version: "1"}, nil)
		mcp.AddTool(s, &mcp.Tool{Name: "noop"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{}, nil, nil
		})
		ct, st := mcp.NewInMemoryTransports()
		if _, err := s.Connect(ctx, st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}}
	rep := mustRun(t, suite, bare)
	steps := rep.Scenarios[0].Steps
	for i, want := range []string{"prompts", "resources", "completions"} {
		if st := steps[i]; st.Status != report.StatusFailed || st.Outcome != "" || st.Reason != "the server does not declare the "+want+" capability; nothing was sent" {
			t.Errorf("step %s: %s %q %q", st.ID, st.Status, st.Outcome, st.Reason)
		}
	}
	if steps[3].Status != report.StatusPassed {
		t.Errorf("ping: %+v", steps[3])
	}
}
