package main

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/demo"
	"github.com/mcpcheck/mcpcheck/runner"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// TestTasksEverything runs examples/tasks.yaml against the pinned
// server-everything over stdio and Streamable HTTP: its task-only
// simulate-research-query runs as a task to completion (the research
// report is the tasks/result answer), is refused when called plainly, and
// ends cancelled when cancelled.
func TestTasksEverything(t *testing.T) {
	parallel(t)
	dir := peerDir(t)
	for _, endpoint := range []string{"", startEverythingHTTP(t, dir)} {
		rep, _ := passExample(t, "tasks.yaml", dir, endpoint, nil)
		steps := rep.Scenarios[0].Steps
		// The research works through four one-second stages: a call that
		// came back sooner did not wait for the task.
		if steps[0].DurationMs < 3000 {
			t.Errorf("research took %.0f ms; the task was not followed to its end", steps[0].DurationMs)
		}
	}
}

// demoTasksFixture calls the demo's task tools every way a step can.
const demoTasksFixture = `name: demo tasks
%TARGET%
protocolVersion: "2025-11-25"
allowTools: [plan_week, export_household]
timeoutMs: 20000
scenarios:
  - name: tasks
    continueOnFailure: true
    steps:
      - id: plan-plain
        tool: plan_week
        arguments: {days: 3}
        expect: {structuredEquals: {days: 3}}
      - id: plan-task
        tool: plan_week
        task: true
        arguments: {days: 4}
        expect: {structuredEquals: {days: 4}}
      - id: export
        tool: export_household
        arguments: {format: csv}
        expect: {text: {contains: "(csv)"}}
      - id: export-plain
        tool: export_household
        task: false
        arguments: {format: csv}
        expect: {outcome: protocol_error, errorCode: -32601}
      - id: cancel
        tool: plan_week
        task: {cancelAfterMs: 50}
        arguments: {days: 2}
        expect: {result: {includes: {status: cancelled}}}
      - id: too-short
        tool: plan_week
        task: true
        timeoutMs: 100
        arguments: {days: 2}
        expect: {outcome: timeout}
`

func runDemoTasks(t *testing.T, target string) *report.Report {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tasks.yaml")
	if err := os.WriteFile(path, []byte(strings.Replace(demoTasksFixture, "%TARGET%", target, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	suite, err := config.Load(path, config.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := runner.Run(context.Background(), suite, *runOptions)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestTasksDemo runs every kind of task step against the demo's tasks
// profile over stdio and Streamable HTTP: a plain call of the optional
// tool, the same as a task, the required tool called as a task without
// being asked, its plain call refused with -32601, a cancellation, and a
// task longer than its step's time limit (timeout).
func TestTasksDemo(t *testing.T) {
	srv := httptest.NewServer(demo.Handler(demo.Options{Tasks: true}))
	defer srv.Close()
	for _, target := range []string{"command: [mcpcheck, demo, --tasks]", "endpoint: " + srv.URL + "/mcp"} {
		rep := runDemoTasks(t, target)
		if !rep.Passed {
			var b strings.Builder
			report.Text(&b, rep, report.TextOptions{})
			t.Errorf("%s:\n%s", target, b.String())
		}
		if !slicesContains(rep.Surface.Capabilities, "tasks") {
			t.Errorf("%s: capabilities %v lack tasks", target, rep.Surface.Capabilities)
		}
		for _, tool := range rep.Surface.Tools {
			want := map[string]string{"plan_week": `{"taskSupport":"optional"}`, "export_household": `{"taskSupport":"required"}`}[tool.Name]
			if got := string(tool.Execution); want != "" && got != want {
				t.Errorf("%s: %s execution = %s, want %s", target, tool.Name, got, want)
			}
		}
	}
}

// TestTasksDemoDefects: with --protocol-defects export_household answers
// a plain call with -32603, which the step that expects -32601 catches.
func TestTasksDemoDefects(t *testing.T) {
	rep := runDemoTasks(t, "command: [mcpcheck, demo, --tasks, --protocol-defects]")
	for _, st := range rep.Scenarios[0].Steps {
		failed := st.Status == report.StatusFailed
		if failed != (st.ID == "export-plain") {
			b, _ := json.Marshal(st)
			t.Errorf("step %s: status %s: %s", st.ID, st.Status, b)
		}
	}
}

func slicesContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestTasksQuick: quick mode's generated task checks pass on the demo's
// tasks profile and catch each planted task defect (--protocol-defects):
// as-task the missing ttl, get-unknown the made-up task, cancel-finished
// the accepted cancellation, plain-call the -32603.
func TestTasksQuick(t *testing.T) {
	parallelParent(t)
	srv := httptest.NewServer(demo.Handler(demo.Options{Tasks: true}))
	t.Cleanup(srv.Close)
	for _, mode := range []string{"stdio", "defects", "http"} {
		t.Run(mode, func(t *testing.T) {
			parallel(t)
			tasksQuick(t, srv.URL, mode)
		})
	}
}

// tasksQuick runs quick mode on the demo with --tasks (stdio, stdio with
// --protocol-defects, or the HTTP server at url) and checks the task
// scenarios. With --protocol-defects only they run (--run): the protocol
// probes the rest of that profile fails are other tests' business, and
// they made this one wait 30 s.
func tasksQuick(t *testing.T, url, mode string) {
	defects := mode == "defects"
	args := []string{"--json", filepath.Join(t.TempDir(), "r.json"), "--", "mcpcheck", "demo", "--tasks"}
	switch mode {
	case "defects":
		args = append([]string{"--run", "^tasks: "}, append(args, "--protocol-defects")...)
	case "http":
		args = []string{"--json", args[1], "--url", url + "/mcp"}
	}
	runCmd(t, args...)
	rep := readReport(t, args[slices.Index(args, "--json")+1])
	failed := map[string]bool{}
	seen := 0
	for _, sc := range rep.Scenarios {
		if !strings.HasPrefix(sc.Name, "tasks: ") {
			continue
		}
		for _, st := range sc.Steps {
			seen++
			if st.Status == report.StatusFailed {
				failed[strings.TrimPrefix(sc.Name, "tasks: ")+"/"+st.ID] = true
			}
		}
	}
	for _, w := range rep.Warnings {
		t.Errorf("%s: warning %s", mode, w)
	}
	if seen != 7 {
		t.Errorf("defects=%v: %d task checks, want 7 (3 for plan_week, 4 for export_household)", defects, seen)
	}
	want := map[string]bool{}
	if defects {
		want = map[string]bool{"plan_week/as-task": true, "plan_week/get-unknown": true, "plan_week/cancel-finished": true,
			"export_household/as-task": true, "export_household/get-unknown": true, "export_household/cancel-finished": true,
			"export_household/plain-call": true}
	}
	if len(failed) != len(want) {
		t.Errorf("defects=%v: failed %v, want %v", defects, failed, want)
	}
	for k := range want {
		if !failed[k] {
			t.Errorf("defects=%v: %s did not fail", defects, k)
		}
	}
}

// TestTaskOnlyToolCalledPlainly (issue 19 item 5): where a tool that
// requires a task cannot be called as one (here: under 2026-07-28, whose
// tasks extension mcpcheck does not speak yet), its valid call's -32601 is
// a note that says it was called without task augmentation — not "a
// synthetic-input false positive" — its bad-input cases are skipped (the
// refusal would be the same whatever the input), and the run passes.
func TestTaskOnlyToolCalledPlainly(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.json")
	res := runCmd(t, "--protocol", "2026-07-28", "--json", out, "--", "mcpcheck", "demo", "--tasks")
	if res.code != 0 {
		t.Fatalf("exit %d:\n%s", res.code, res.stdout)
	}
	rep := readReport(t, out)
	valid, fuzz := false, 0
	for _, sc := range rep.Scenarios {
		if sc.Name != "generated: export_household" {
			continue
		}
		for _, st := range sc.Steps {
			switch {
			case st.ID == "valid":
				valid = true
				if !st.Flagged || len(st.Notes) == 0 || !strings.Contains(st.Notes[0], "called without task augmentation") || strings.Contains(st.Notes[0], "false positive") {
					t.Errorf("valid call: flagged %v, notes %q", st.Flagged, st.Notes)
				}
			case st.Status != report.StatusSkipped:
				t.Errorf("bad-input case %s: status %s, want skipped", st.ID, st.Status)
			default:
				fuzz++
			}
		}
	}
	if !valid || fuzz == 0 {
		t.Errorf("valid call seen %v, %d skipped cases", valid, fuzz)
	}
}

// TestTaskNeedsInput: a task that needs the client (input_required: an
// ambiguous research query asks for a clarification) gets tasks/result at
// once; the server's elicitation comes on that call and is answered from
// the fixture's client block, and the report shows the clarification —
// over stdio, and over Streamable HTTP, where the request rides the
// tasks/result POST's own stream and the runner answers it there.
func TestTaskNeedsInput(t *testing.T) {
	parallel(t)
	dir := peerDir(t)
	for _, target := range []string{"command: [node, " + filepath.Join(dir, peerEverything) + ", stdio]", "endpoint: " + startEverythingHTTP(t, dir)} {
		taskNeedsInput(t, target)
	}
}

func taskNeedsInput(t *testing.T, target string) {
	fixture := `name: research needs input
` + target + `
protocolVersion: "2025-11-25"
allowTools: [simulate-research-query]
timeoutMs: 30000
client:
  elicitation: {action: accept, content: {interpretation: historical}}
scenarios:
  - name: ambiguous research
    steps:
      - tool: simulate-research-query
        arguments: {topic: tides, ambiguous: true}
        expect: {text: {contains: "Clarification**: historical"}}
`
	path := filepath.Join(t.TempDir(), "input.yaml")
	if err := os.WriteFile(path, []byte(fixture), 0o644); err != nil {
		t.Fatal(err)
	}
	res := runCmd(t, "--config", path)
	if res.code != 0 || !strings.Contains(res.stdout, "elicitation/create") {
		t.Errorf("%s: exit %d:\n%s", target, res.code, res.stdout)
	}
}
