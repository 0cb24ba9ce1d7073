package main

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/demo"
)

// behaviourVerdicts are a JSON report's behaviour verdicts as
// "tool rule status", sorted.
func behaviourVerdicts(t *testing.T, report string) []string {
	t.Helper()
	var rep struct {
		Scenarios []struct {
			Behaviour []struct{ Tool, Rule, Status string }
		}
	}
	if err := json.Unmarshal([]byte(report), &rep); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, sc := range rep.Scenarios {
		for _, v := range sc.Behaviour {
			out = append(out, v.Tool+" "+v.Rule+" "+v.Status)
		}
	}
	sort.Strings(out)
	return out
}

// TestBehaviourExample runs examples/behaviour.yaml against the pantry of
// the demo's defects, over stdio and over HTTP: every planted liar is
// found under its rule, every honest claim is verified, and nothing else
// is said. The JSON report names the changed paths but never the values;
// the human report shows them.
func TestBehaviourExample(t *testing.T) {
	parallel(t)
	want := []string{
		"add_item idempotencyKey violated", // the planted ignored key
		"add_item nonDestructive verified",
		"clear_item idempotent verified",
		"clear_item nonDestructive violated", // the planted deleter
		"get_household readOnly verified",
		"list_pantry readOnly verified",
		"log_meal nonDestructive verified",
		"log_meal retry violated",          // a retry logs twice: a flag, no claim broken
		"peek_pantry readOnly violated",    // the planted writer
		"restock_item idempotent violated", // the planted appender
		"restock_item nonDestructive verified",
		"set_quantity idempotent verified",
		"stock_item idempotencyKey verified",
		"stock_item nonDestructive verified",
	}
	srv := httptest.NewServer(demo.Handler(demo.Options{Defects: true}))
	defer srv.Close()
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			dir := t.TempDir()
			jsonFile, junit, summary := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.xml"), filepath.Join(dir, "r.md")
			args := []string{"--config", "../../examples/behaviour.yaml", "--json", jsonFile, "--junit", junit, "--summary", summary}
			if transport == "http" {
				args = append(args, "--url", srv.URL+"/mcp")
			}
			r := runCmd(t, args...)
			if r.code != 1 {
				t.Fatalf("exit %d, want 1 (the planted liars must fail the run)\n%s", r.code, r.stderr)
			}
			data, err := os.ReadFile(jsonFile)
			if err != nil {
				t.Fatal(err)
			}
			js := string(data)
			m := validReport(t, js)
			if got := behaviourVerdicts(t, js); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("verdicts:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			var failed []string
			for _, f := range m["findings"].([]any) {
				f := f.(map[string]any)
				if f["status"] == "failed" {
					failed = append(failed, f["tool"].(string)+" "+f["kind"].(string))
				}
			}
			sort.Strings(failed)
			if got := strings.Join(failed, ", "); got != "add_item idempotencyKey, clear_item nonDestructive, peek_pantry readOnly, restock_item idempotent" {
				t.Errorf("failed findings: %s", got)
			}
			score := m["summary"].(map[string]any)["scores"].([]any)[0].(map[string]any)
			if score["name"] != "annotationHonesty" || score["passed"] != 9.0 || score["total"] != 13.0 {
				t.Errorf("score = %v, want annotationHonesty 9/13", score)
			}
			if strings.Contains(js, "peeked at flour") {
				t.Error("the JSON report carries an observed value")
			}
			// The index is where the audit stood when the check began: the
			// read-only checks share the run's session, after the others.
			if !regexp.MustCompile(`tool list_pantry /structuredContent/audit/\d+ added: "peeked at flour"`).MatchString(r.stdout) {
				t.Errorf("the human report does not show the observed change:\n%s", r.stdout)
			}
			for file, want := range map[string]string{junit: `peek_pantry readOnly`, summary: "Annotation honesty"} {
				if b, err := os.ReadFile(file); err != nil || !strings.Contains(string(b), want) {
					t.Errorf("%s lacks %q (%v)", filepath.Base(file), want, err)
				}
			}
		})
	}
}

// TestBehaviourQuickDemo: quick mode verifies the read-only annotations
// by default, and the clean demo's are all true.
func TestBehaviourQuickDemo(t *testing.T) {
	r := runCmd(t, "--json", "-", "--no-protocol-probes", "--", "mcpcheck", "demo")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	validReport(t, r.stdout)
	got := strings.Join(behaviourVerdicts(t, r.stdout), "\n")
	want := "get_household readOnly verified\npropose_task readOnly verified\ntidy_household readOnly verified"
	if got != want {
		t.Errorf("verdicts:\n%s\nwant:\n%s", got, want)
	}
	r = runCmd(t, "--json", "-", "--no-protocol-probes", "--no-behaviour", "--", "mcpcheck", "demo")
	if v := behaviourVerdicts(t, r.stdout); r.code != 0 || len(v) != 0 {
		t.Errorf("--no-behaviour: exit %d, verdicts %v", r.code, v)
	}
}

// TestObserveExample runs examples/observe.yaml (it passes: the proposal
// changes nothing, the commit only what changedOnly allows), then the
// same fixture with changedOnly narrowed: the step fails naming each
// change outside it, at the expect block's line.
func TestObserveExample(t *testing.T) {
	r := runCmd(t, "--config", "../../examples/observe.yaml")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	data, err := os.ReadFile("../../examples/observe.yaml")
	if err != nil {
		t.Fatal(err)
	}
	narrow := strings.Replace(string(data), "            - household://tasks\n", "", 1)
	if narrow == string(data) {
		t.Fatal("the example no longer allows household://tasks to change")
	}
	fixture := filepath.Join(t.TempDir(), "narrow.yaml")
	if err := os.WriteFile(fixture, []byte(narrow), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runCmd(t, "--config", fixture)
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		"unchanged household://tasks#/contents/0/text/revision: changed since observation before (grew)",
		"unchanged household://tasks#/contents/0/text/tasks/0: changed since observation before (added)",
		"narrow.yaml:18:9",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the report lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "get_household#") {
		t.Errorf("a change changedOnly allows was reported:\n%s", r.stdout)
	}
	// An unchanged that names no earlier observation is the fixture's error.
	bad := strings.Replace(narrow, "unchanged: before}", "unchanged: after}", 1)
	if err := os.WriteFile(fixture, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runCmd(t, "--config", fixture)
	if r.code != 2 || !strings.Contains(r.stderr, `narrow.yaml:17:29: scenarios[0].steps[1].expect.unchanged: no earlier observe step of this scenario is named "after"`) {
		t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
}
