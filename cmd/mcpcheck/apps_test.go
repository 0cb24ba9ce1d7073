package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/runner/report"
)

// TestAppsQuick: quick mode reads each MCP App's UI resource and judges it
// by the extension: the demo's show_household passes; with --defects the
// malformed show_chart fails, naming each breach (mime type, CSP entries
// that are no origins, a permission that is not an object, an unknown
// visibility, a page that is no HTML document).
func TestAppsQuick(t *testing.T) {
	parallelParent(t)
	for _, defects := range []bool{false, true} {
		t.Run(fmt.Sprintf("defects=%v", defects), func(t *testing.T) {
			parallel(t)
			appsQuick(t, defects)
		})
	}
}

// appsQuick runs quick mode on the demo with --apps (and --defects) and
// checks the apps scenario. The demo gets a TMPDIR of its own: with
// --defects it takes the ticket_counter lock (see demoHTTP). The clean demo
// runs whole (it must pass); with --defects only the apps scenario runs
// (--run): the rest of the profile is other tests' business, and its
// planted hangs made this one wait 44 s for nothing it reads.
func appsQuick(t *testing.T, defects bool) {
	out := filepath.Join(t.TempDir(), "r.json")
	args := []string{"--json", out, "--env", "TMPDIR=" + t.TempDir()}
	if defects {
		args = append(args, "--run", "^apps$", "--", "mcpcheck", "demo", "--apps", "--defects")
	} else {
		args = append(args, "--", "mcpcheck", "demo", "--apps")
	}
	res := runCmd(t, args...)
	if !defects && res.code != 0 {
		t.Fatalf("clean demo --apps: exit %d\n%s", res.code, res.stdout)
	}
	rep := readReport(t, out)
	got := map[string]report.StepResult{}
	for _, sc := range rep.Scenarios {
		if sc.Name == "apps" {
			for _, st := range sc.Steps {
				got[st.ID] = st
			}
		}
	}
	if st, ok := got["ui-show_household"]; !ok || st.Status != report.StatusPassed {
		t.Errorf("defects=%v: ui-show_household = %+v", defects, st)
	}
	chart, ok := got["ui-show_chart"]
	if ok != defects {
		t.Fatalf("defects=%v: show_chart checked: %v", defects, ok)
	}
	if !defects {
		return
	}
	if chart.Status != report.StatusFailed {
		t.Fatalf("ui-show_chart: %+v", chart)
	}
	for _, want := range []string{`served as "text/html"`, `connectDomains[0] "*" is not an origin`, "is more than an origin",
		"permissions.camera is true", "visibility", "not an HTML document"} {
		if !strings.Contains(chart.Reason, want) {
			t.Errorf("ui-show_chart reason lacks %q: %s", want, chart.Reason)
		}
	}
}

// TestToolsShowsTasksAndApps: the text view of mcpcheck tools says which
// tools run as tasks and which have a UI, and lists the tasks capability;
// the JSON view keeps execution and _meta as sent.
func TestToolsShowsTasksAndApps(t *testing.T) {
	res := runCmd(t, "tools", "--", "mcpcheck", "demo", "--tasks", "--apps")
	for _, want := range []string{"Capabilities: completions, logging, prompts, resources, tasks, tools",
		"tasks: required (only as a task", "tasks: optional (may be called as a task",
		"ui: ui://household/board.html (an MCP App's resource)", "days  integer 1..7"} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("tools lacks %q:\n%s", want, res.stdout)
		}
	}
	res = runCmd(t, "tools", "--json", "-", "--", "mcpcheck", "demo", "--tasks", "--apps")
	for _, want := range []string{`"execution": {`, `"taskSupport": "required"`, `"resourceUri": "ui://household/board.html"`} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("tools --json lacks %s", want)
		}
	}
}
