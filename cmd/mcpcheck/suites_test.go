package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copyFixture copies a fixture into dir under name.
func copyFixture(t *testing.T, from, dir, name string) string {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Several --config files run one after another; the exit code is the
// worst, the human report ends with the total, and the JSON holds each
// suite's report exactly as a run of that suite alone writes it.
func TestSeveralFixtures(t *testing.T) {
	parallel(t)
	demo, failing := "../../examples/demo.yaml", "testdata/failing.yaml"
	r := runCmd(t, "--config", demo, "--config", failing, "--json", "-")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1 (the worst)\n%s", r.code, r.stderr)
	}
	m := validReport(t, r.stdout)
	suites, _ := m["suites"].([]any)
	if len(suites) != 2 || m["schemaVersion"] != 1.0 {
		t.Fatalf("want {schemaVersion: 1, suites: [2 reports]}, got keys %v", keys(m))
	}
	for i, file := range []string{demo, failing} {
		alone := runCmd(t, "--config", file, "--json", "-")
		want := map[string]any{}
		if err := json.Unmarshal([]byte(normalizeJSON(alone.stdout)), &want); err != nil {
			t.Fatal(err)
		}
		got, _ := json.MarshalIndent(suites[i], "", "  ")
		wantJSON, _ := json.MarshalIndent(want, "", "  ")
		if normalizeJSON(string(got)) != string(wantJSON) {
			t.Errorf("suite %d (%s) differs from its run alone:\n%s\nwant\n%s", i, file, got, wantJSON)
		}
	}
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	last := lines[len(lines)-3:]
	if !strings.HasPrefix(last[0], "PASS Household") || !strings.HasPrefix(last[1], "FAIL Failures are reported") ||
		!strings.HasPrefix(last[2], "FAIL total: 2 suites, 1 passed, 1 failed; steps: 12 passed, 2 failed, 1 skipped in ") {
		t.Errorf("the human report does not end with the total:\n%s", strings.Join(last, "\n"))
	}
	// The human report of each suite is the one it writes alone.
	alone := runCmd(t, "--config", failing)
	if !strings.Contains(normalize(r.stderr), normalize(alone.stdout)) {
		t.Errorf("the failing suite's report differs from its run alone")
	}
}

// A directory stands for its fixtures in name order; --jobs-suites runs
// them at once and changes nothing but durations.
func TestFixtureDirectory(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	copyFixture(t, "testdata/failing.yaml", dir, "b-failing.yml")
	copyFixture(t, "../../examples/demo.yaml", dir, "a-demo.yaml")
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a fixture, and not taken for one"), 0o644)
	os.Mkdir(filepath.Join(dir, "__snapshots__"), 0o755)
	one := runCmd(t, "--config", dir)
	if one.code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", one.code, one.stdout, one.stderr)
	}
	if a, b := strings.Index(one.stdout, "PASS Household"), strings.Index(one.stdout, "FAIL Failures"); a < 0 || b < a {
		t.Errorf("suites not in name order:\n%s", one.stdout)
	}
	two := runCmd(t, "--config", dir, "--jobs-suites", "2")
	if normalize(two.stdout) != normalize(one.stdout) || two.code != one.code {
		t.Errorf("--jobs-suites 2 changed the report:\n%s\nwant\n%s", two.stdout, one.stdout)
	}
	// The same file named twice (directly and through its directory) runs once.
	r := runCmd(t, "--config", dir, "--config", filepath.Join(dir, "a-demo.yaml"), "--json", "-")
	if m := validReport(t, r.stdout); len(m["suites"].([]any)) != 2 {
		t.Errorf("a file named twice ran twice")
	}
}

// A file of a fixture directory that is not a fixture stops the run before
// anything starts, named with its line; so does a directory without one.
func TestFixtureDirectoryErrors(t *testing.T) {
	dir := t.TempDir()
	copyFixture(t, "../../examples/demo.yaml", dir, "demo.yaml")
	os.WriteFile(filepath.Join(dir, "settings.json"), []byte(`{"editor": "vi"}`), 0o644)
	r := runCmd(t, "--config", dir)
	if r.code != 2 || r.stdout != "" {
		t.Fatalf("exit %d, want 2 and no report\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, filepath.Join(dir, "settings.json")+":1:") {
		t.Errorf("the error does not name the file at its line:\n%s", r.stderr)
	}
	empty := t.TempDir()
	r = runCmd(t, "--config", empty)
	if r.code != 2 || !strings.Contains(r.stderr, empty) || !strings.Contains(r.stderr, "no *.yaml") {
		t.Errorf("exit %d: %s", r.code, r.stderr)
	}
	r = runCmd(t, "--config", "../../examples/demo.yaml", "--jobs-suites", "0")
	if r.code != 2 || !strings.Contains(r.stderr, "--jobs-suites") {
		t.Errorf("exit %d: %s", r.code, r.stderr)
	}
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// A directory's files that a fixture names as its expected failures or its
// contract are its companions, not fixtures: the directory runs. The same
// file that no fixture names is an error.
func TestFixtureDirectoryCompanions(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	data, err := os.ReadFile("testdata/failing.yaml")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "failing.yaml"), append([]byte("expectedFailures: known.yaml\n"), data...), 0o644)
	os.WriteFile(filepath.Join(dir, "known.yaml"), []byte("- {scenario: Wrong expectations}\n- {scenario: Tool error where success was expected}\n"), 0o644)
	copyFixture(t, "../../examples/contract.yaml", dir, "contract.yaml")
	copyFixture(t, "../../examples/demo.contract.json", dir, "demo.contract.json")
	r := runCmd(t, "--config", dir)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "PASS total: 2 suites, 2 passed, 0 failed") {
		t.Errorf("report:\n%s", r.stdout)
	}
	os.WriteFile(filepath.Join(dir, "other.yaml"), []byte("- {scenario: Wrong expectations}\n"), 0o644)
	if r := runCmd(t, "--config", dir); r.code != 2 || !strings.Contains(r.stderr, filepath.Join(dir, "other.yaml")+":1:1") {
		t.Errorf("a baseline no fixture names: exit %d\n%s", r.code, r.stderr)
	}
}
