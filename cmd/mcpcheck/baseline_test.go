package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testdata/failing.yaml fails two scenarios ("Wrong expectations" at step
// initial, "Tool error where success was expected" at step stale) and
// passes "Passing scenario".
const (
	wrong   = "Wrong expectations"
	toolErr = "Tool error where success was expected"
)

func writeBaseline(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "known.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// The four verdicts of a baseline: listed failures pass (0), an unlisted
// failure fails (1), a listed entry that now passes fails as stale (1), an
// entry naming nothing of the fixture is bad input (2).
func TestExpectedFailures(t *testing.T) {
	parallel(t)
	listed := "- {scenario: " + wrong + ", step: initial, reason: \"household owner, issue #12\"}\n- scenario: " + toolErr + "\n"
	for _, c := range []struct {
		name, baseline string
		code           int
		want           []string
	}{
		{"listed", listed, 0, []string{"expected failure (household owner, issue #12)", "PASS Failures are reported", "2 passed, 2 failed (2 expected), 1 skipped"}},
		{"unlisted", "- {scenario: " + wrong + ", step: initial}\n", 1, []string{"FAIL Failures are reported", "2 failed (1 expected)"}},
		{"stale", listed + "- {scenario: Passing scenario, reason: flaky once}\n", 1, []string{
			"FAIL Failures are reported", `stale baseline KNOWN:3:3: scenario "Passing scenario" is listed as an expected failure and now passes`}},
		{"stale step", listed + "- {scenario: " + wrong + ", step: never-runs}\n- {scenario: Passing scenario, step: ok}\n", 1, []string{
			`stale baseline KNOWN:4:3: scenario "Passing scenario", step ok, is listed`}},
		{"empty", "", 1, []string{"FAIL Failures are reported"}},
	} {
		path := writeBaseline(t, c.baseline)
		r := runCmd(t, "--config", "testdata/failing.yaml", "--expected-failures", path, "--json", "-")
		if r.code != c.code {
			t.Errorf("%s: exit %d, want %d\n%s", c.name, r.code, c.code, r.stderr)
		}
		m := validReport(t, r.stdout)
		for _, w := range c.want {
			if w = strings.ReplaceAll(w, "KNOWN", path); !strings.Contains(r.stderr, w) {
				t.Errorf("%s: the report does not say %q:\n%s", c.name, w, r.stderr)
			}
		}
		if c.name == "listed" {
			sc := m["scenarios"].([]any)[0].(map[string]any)
			st := sc["steps"].([]any)[0].(map[string]any)
			if st["status"] != "failed" || st["expectedFailure"] == nil || m["summary"].(map[string]any)["expectedFailures"] != 2.0 {
				t.Errorf("listed: step %v, summary %v", st, m["summary"])
			}
		}
		if strings.HasPrefix(c.name, "stale") && m["staleBaseline"] == nil {
			t.Errorf("%s: no staleBaseline in the JSON report", c.name)
		}
	}
}

// An entry that names no scenario or step of the fixture, or breaks the
// baseline's schema, is exit 2 at its line, before anything runs.
func TestExpectedFailuresBadEntries(t *testing.T) {
	for _, c := range []struct{ baseline, want string }{
		{"- {scenario: " + wrong + "}\n- {scenario: Wrong expectation}\n", `:2:14: names no scenario of testdata/failing.yaml: "Wrong expectation"; did you mean "Wrong expectations"?`},
		{"- {scenario: " + wrong + ", step: intial}\n", `:1:40: scenario "Wrong expectations" has no step "intial"`},
		{"- {scenario: " + wrong + ", stpe: initial}\n", `:1:34: [0]: unknown key "stpe"; did you mean "step"?`},
		{"- {step: initial}\n", `:1:3: [0]: missing required key "scenario"`},
		{"- {scenario: " + wrong + "}\n- {scenario: " + wrong + "}\n", `:2:3: scenario "Wrong expectations", step "" is listed twice`},
		{"scenario: " + wrong + "\n", `:1:1: `},
	} {
		path := writeBaseline(t, c.baseline)
		r := runCmd(t, "--config", "testdata/failing.yaml", "--expected-failures", path)
		if r.code != 2 || r.stdout != "" {
			t.Errorf("%q: exit %d, want 2 and no report\n%s%s", c.baseline, r.code, r.stdout, r.stderr)
		}
		if !strings.Contains(r.stderr, path+c.want) {
			t.Errorf("%q: want %q in\n%s", c.baseline, path+c.want, r.stderr)
		}
	}
	r := runCmd(t, "--config", "testdata/failing.yaml", "--expected-failures", filepath.Join(t.TempDir(), "missing.yaml"))
	if r.code != 2 || !strings.Contains(r.stderr, "missing.yaml") {
		t.Errorf("a missing baseline: exit %d\n%s", r.code, r.stderr)
	}
}

// --update-expected-failures rewrites the baseline from the run: the
// failures listed, the stale entries gone, the reasons of the entries that
// stay kept; the fixture's own expectedFailures key names the file.
func TestUpdateExpectedFailures(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	data, err := os.ReadFile("testdata/failing.yaml")
	if err != nil {
		t.Fatal(err)
	}
	fixture := filepath.Join(dir, "failing.yaml")
	os.WriteFile(fixture, append([]byte("expectedFailures: known.yaml\n"), data...), 0o644)
	known := filepath.Join(dir, "known.yaml")
	os.WriteFile(known, []byte("- {scenario: Passing scenario, reason: flaky once}\n- {scenario: "+wrong+", step: initial, reason: keep me}\n"), 0o644)
	if r := runCmd(t, "--config", fixture); r.code != 1 || !strings.Contains(r.stdout, "stale baseline") {
		t.Fatalf("before the update: exit %d\n%s", r.code, r.stdout)
	}
	r := runCmd(t, "--config", fixture, "--update-expected-failures")
	if r.code != 0 {
		t.Fatalf("the updating run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	got, _ := os.ReadFile(known)
	want := "# Known failures (mcpcheck --expected-failures); rewritten by --update-expected-failures.\n" +
		"- scenario: Wrong expectations\n  step: initial\n  reason: keep me\n" +
		"- scenario: Tool error where success was expected\n  step: stale\n"
	if string(got) != want {
		t.Errorf("rewritten baseline:\n%s\nwant\n%s", got, want)
	}
	if r := runCmd(t, "--config", fixture); r.code != 0 {
		t.Errorf("after the update: exit %d\n%s", r.code, r.stdout)
	}
	// A selection judges only what ran: an update keeps the others' entries.
	if r := runCmd(t, "--config", fixture, "--run", "^Passing", "--update-expected-failures"); r.code != 0 {
		t.Errorf("an update of a selection: exit %d\n%s", r.code, r.stdout)
	}
	if again, _ := os.ReadFile(known); string(again) != want {
		t.Errorf("an update of a selection dropped entries:\n%s", again)
	}
	r = runCmd(t, "--config", "testdata/failing.yaml", "--update-expected-failures")
	if r.code != 2 || !strings.Contains(r.stderr, "no expectedFailures file") {
		t.Errorf("an update without a file: exit %d\n%s", r.code, r.stderr)
	}
}

// Shards judged against one baseline merge to the whole run's verdict: an
// entry is judged in the shard that ran its scenario, and listed once.
func TestMergeWithBaseline(t *testing.T) {
	parallel(t)
	known := writeBaseline(t, "- {scenario: "+wrong+", step: initial}\n- {scenario: Passing scenario}\n")
	dir := t.TempDir()
	var paths []string
	for k := 1; k <= 3; k++ {
		p := filepath.Join(dir, string(rune('0'+k))+".json")
		runCmd(t, "--config", "testdata/failing.yaml", "--expected-failures", known, "--shard", string(rune('0'+k))+"/3", "--json", p)
		paths = append(paths, p)
	}
	whole := runCmd(t, "--config", "testdata/failing.yaml", "--expected-failures", known, "--json", "-")
	merged := runCmd(t, append(append([]string{"merge"}, paths...), "--json", "-")...)
	if merged.code != 1 || whole.code != 1 {
		t.Fatalf("exit %d merged, %d whole\n%s", merged.code, whole.code, merged.stderr)
	}
	if got, want := comparable(t, merged.stdout), comparable(t, whole.stdout); got != want {
		t.Errorf("merged differs from the whole run:\n%s", lineDiff(got, want))
	}
	if !strings.Contains(merged.stderr, "stale baseline") {
		t.Errorf("merged human report:\n%s", merged.stderr)
	}
}

// The CI outputs tell known failures from failures: JUnit skips a listed
// failure with its reason, the summary and the annotations leave it out of
// the errors, and a stale entry is a failed check annotated at its line in
// the baseline file.
func TestExpectedFailuresInCIOutputs(t *testing.T) {
	t.Setenv("GITHUB_ACTIONS", "true")
	known := writeBaseline(t, "- {scenario: "+wrong+", step: initial, reason: demo#1}\n- {scenario: Passing scenario}\n")
	dir := t.TempDir()
	junit, summary := filepath.Join(dir, "r.xml"), filepath.Join(dir, "r.md")
	r := runCmd(t, "--config", "testdata/failing.yaml", "--expected-failures", known, "--junit", junit, "--summary", summary)
	if r.code != 1 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	x, _ := os.ReadFile(junit)
	for _, w := range []string{`<skipped message="expected failure (demo#1): `, `name="baseline"`, `name="Passing scenario"`, `<failure message="stale baseline: listed as an expected failure`} {
		if !strings.Contains(string(x), w) {
			t.Errorf("JUnit lacks %q:\n%s", w, x)
		}
	}
	md, _ := os.ReadFile(summary)
	for _, w := range []string{"2 failed (1 expected)", `expected failure (demo\#1): `, "#### Known failures", "| ❌ | Passing scenario | stale baseline"} {
		if !strings.Contains(string(md), w) {
			t.Errorf("the summary lacks %q:\n%s", w, md)
		}
	}
	if strings.Contains(r.stdout, "::error file=testdata/failing.yaml,line=8") {
		t.Errorf("a known failure is annotated as an error:\n%s", r.stdout)
	}
	for _, w := range []string{"::error file=testdata/failing.yaml,line=18", "::error file=" + known + ",line=2,col=3,title=mcpcheck%3A baseline / Passing scenario::stale baseline"} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("annotations lack %q:\n%s", w, r.stdout)
		}
	}
}
