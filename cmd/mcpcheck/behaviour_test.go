package main

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
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
			if !strings.Contains(r.stdout, `tool list_pantry /structuredContent/audit/0 added: "peeked at flour"`) {
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
