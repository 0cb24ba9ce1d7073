package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// selected runs testdata/tagged.yaml with args and returns the exit code
// and, per scenario, its status and why it was left out.
func selected(t *testing.T, args ...string) (int, map[string]string) {
	t.Helper()
	r := runCmd(t, append([]string{"--config", "testdata/tagged.yaml", "--json", "-"}, args...)...)
	m := validReport(t, r.stdout)
	got := map[string]string{}
	for _, sc := range m["scenarios"].([]any) {
		sc := sc.(map[string]any)
		v := sc["status"].(string)
		if why, ok := sc["notSelected"]; ok {
			v += " (" + why.(string) + ")"
			for _, st := range sc["steps"].([]any) {
				st := st.(map[string]any)
				if st["status"] != "skipped" || !strings.HasPrefix(st["reason"].(string), "not selected: ") {
					t.Errorf("%v: step %v of a scenario left out: %v %v", args, st["id"], st["status"], st["reason"])
				}
			}
		}
		got[sc["name"].(string)] = v
	}
	if len(got) != 3 {
		t.Errorf("%v: %d scenarios in the report, want all 3", args, len(got))
	}
	return r.code, got
}

// Selection by tag and by name: the scenarios left out stay in the report,
// skipped "not selected" with the reason; the verdict is the selection's.
func TestSelection(t *testing.T) {
	parallel(t)
	for _, c := range []struct {
		args []string
		code int
		want map[string]string
	}{
		{[]string{"--tag", "smoke"}, 0, map[string]string{"Read the household": "passed", "Propose and commit": "skipped (tag)", "Untagged and failing": "skipped (tag)"}},
		{[]string{"--tag", "smoke", "--tag", "write"}, 0, map[string]string{"Read the household": "passed", "Propose and commit": "passed", "Untagged and failing": "skipped (tag)"}},
		{[]string{"--skip-tag", "read"}, 1, map[string]string{"Read the household": "skipped (skipTag)", "Propose and commit": "passed", "Untagged and failing": "failed"}},
		// A step matched by "scenario/step" brings its whole scenario, the
		// step it refers to included.
		{[]string{"--run", "and commit/commit$"}, 0, map[string]string{"Read the household": "skipped (run)", "Propose and commit": "passed", "Untagged and failing": "skipped (run)"}},
		{[]string{"--run", "^Untagged"}, 1, map[string]string{"Read the household": "skipped (run)", "Propose and commit": "skipped (run)", "Untagged and failing": "failed"}},
		{[]string{"--run", "household", "--tag", "smoke"}, 0, map[string]string{"Read the household": "passed", "Propose and commit": "skipped (tag)", "Untagged and failing": "skipped (tag)"}},
	} {
		code, got := selected(t, c.args...)
		if code != c.code {
			t.Errorf("%v: exit %d, want %d", c.args, code, c.code)
		}
		for name, want := range c.want {
			if got[name] != want {
				t.Errorf("%v: %q is %s, want %s", c.args, name, got[name], want)
			}
		}
	}
	r := runCmd(t, "--config", "testdata/tagged.yaml", "--run", "(")
	if r.code != 2 || !strings.Contains(r.stderr, "--run") {
		t.Errorf("a bad --run: exit %d, %s", r.code, r.stderr)
	}
	// A selection that leaves everything out is refused before anything
	// runs: a misspelt tag must not pass a CI job that ran nothing.
	for _, args := range [][]string{{"--tag", "smokee"}, {"--tag", "write", "--skip-tag", "write"}, {"--run", "^Nothing"}} {
		r := runCmd(t, append([]string{"--config", "testdata/tagged.yaml"}, args...)...)
		if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, "selects no scenario, so nothing would run (their tags: read, smoke, write)") {
			t.Errorf("%v: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
		}
	}
	// The human report says why each step was left out.
	r = runCmd(t, "--config", "testdata/tagged.yaml", "--tag", "smoke")
	if !strings.Contains(r.stdout, "not selected: it has no tag --tag names") || !strings.Contains(r.stdout, "1 passed, 0 failed, 3 skipped") {
		t.Errorf("human report:\n%s", r.stdout)
	}
}

// --list of a fixture applies the selection and makes no connection: the
// server it names need not even exist.
func TestListSelectionCallsNothing(t *testing.T) {
	data, err := os.ReadFile("testdata/tagged.yaml")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "nowhere.yaml")
	os.WriteFile(path, []byte(strings.Replace(string(data), "command: [mcpcheck, demo]", "command: [/nonexistent/mcp-server]", 1)), 0o644)
	r := runCmd(t, "--config", path, "--list", "--skip-tag", "read")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var steps []string
	for _, l := range strings.Split(r.stdout, "\n") {
		if f := strings.Fields(l); len(f) > 2 && f[len(f)-4] == "fixture" {
			steps = append(steps, strings.Join(f[:len(f)-4], " "))
		}
	}
	want := []string{"Propose and commit proposal", "Propose and commit commit", "Untagged and failing wrong"}
	if !slices.Equal(steps, want) {
		t.Errorf("listed %q, want %q\n%s", steps, want, r.stdout)
	}
	if !strings.Contains(r.stdout, "not selected (1): Read the household") || !strings.Contains(r.stdout, "not connected") {
		t.Errorf("list output:\n%s", r.stdout)
	}
}
