package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// copyGolden copies examples/golden.yaml (with its snapshots when withAnswers)
// into a temporary directory and returns the fixture's and the snapshot
// file's paths there.
func copyGolden(t *testing.T, withAnswers bool) (fixture, answers string) {
	t.Helper()
	dir := t.TempDir()
	data, err := os.ReadFile("../../examples/golden.yaml")
	if err != nil {
		t.Fatal(err)
	}
	fixture = filepath.Join(dir, "golden.yaml")
	os.WriteFile(fixture, data, 0o644)
	answers = filepath.Join(dir, "__snapshots__", "golden.yaml.json")
	if withAnswers {
		stored, err := os.ReadFile("../../examples/__snapshots__/golden.yaml.json")
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Dir(answers), 0o755)
		os.WriteFile(answers, stored, 0o644)
	}
	return fixture, answers
}

func TestGoldenDemo(t *testing.T) {
	parallel(t)
	r := runCmd(t, "--config", "../../examples/golden.yaml")
	if r.code != 0 || strings.Contains(r.stdout, "note:") {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	// --update changes nothing when nothing changed, twice over.
	fixture, answers := copyGolden(t, true)
	before, _ := os.ReadFile(answers)
	for range 2 {
		if r := runCmd(t, "--config", fixture, "--update"); r.code != 0 {
			t.Fatalf("--update: exit %d\n%s", r.code, r.stdout)
		}
		after, _ := os.ReadFile(answers)
		if string(after) != string(before) {
			t.Fatalf("--update rewrote an unchanged file:\n%s", after)
		}
	}

	// A changed answer fails with its path, expected and actual (human
	// report only); --update takes the new one and prunes unused ones.
	changed := strings.Replace(string(before), `"Collect the library books"`, `"Return the library books"`, 1)
	changed = strings.Replace(changed, `"snapshots": {`, `"snapshots": {"Gone": {"old": 1},`, 1)
	os.WriteFile(answers, []byte(changed), 0o644)
	r = runCmd(t, "--config", fixture, "--json", "-")
	if r.code != 1 {
		t.Fatalf("changed answer: exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, `snapshot /structuredContent/tasks/0/text: value differs`) ||
		!strings.Contains(r.stderr, `expected: "Return the library books`) {
		t.Errorf("human report:\n%s", r.stderr)
	}
	m := validReport(t, r.stdout)
	step := m["scenarios"].([]any)[0].(map[string]any)["steps"].([]any)[2].(map[string]any)
	a := step["assertions"].([]any)[0].(map[string]any)
	if a["kind"] != "snapshot" || a["path"] != "/structuredContent/tasks/0/text" || strings.Contains(r.stdout, "library books") {
		t.Errorf("JSON report: %v", a)
	}
	if r := runCmd(t, "--config", fixture, "--update"); r.code != 0 || !strings.Contains(r.stdout, "removed 1 unused answer") {
		t.Fatalf("--update: exit %d\n%s", r.code, r.stdout)
	}
	if after, _ := os.ReadFile(answers); string(after) != string(before) {
		t.Errorf("--update did not restore the answers:\n%s", after)
	}
}

// TestGoldenMissing: a missing answer is written with a note, but under CI
// it fails and nothing is written.
func TestGoldenMissing(t *testing.T) {
	fixture, answers := copyGolden(t, false)
	t.Setenv("CI", "true")
	r := runCmd(t, "--config", fixture)
	if r.code != 1 || !strings.Contains(r.stdout, "no stored answer, and CI is set") {
		t.Fatalf("CI: exit %d\n%s", r.code, r.stdout)
	}
	if _, err := os.Stat(answers); err == nil {
		t.Errorf("CI recorded the answers")
	}
	t.Setenv("CI", "")
	r = runCmd(t, "--config", fixture)
	if r.code != 0 || strings.Count(r.stdout, "no stored answer; this one was written") != 9 {
		t.Fatalf("exit %d\n%s", r.code, r.stdout)
	}
	written, _ := os.ReadFile(answers)
	committed, _ := os.ReadFile("../../examples/__snapshots__/golden.yaml.json")
	if string(written) != string(committed) {
		t.Errorf("the recorded answers differ from the committed ones:\n%s", written)
	}
}

// everythingGolden writes a fixture of server-everything's dynamic
// resources, whose text and blob carry the time they were made.
func everythingGolden(t *testing.T, dir, rules string) string {
	t.Helper()
	fixture := filepath.Join(dir, "everything.yaml")
	text := `name: server-everything golden answers
command: [node, ` + filepath.Join(peerDir(t), peerEverything) + `, stdio]
env: {GZIP_ALLOWED_DOMAINS: localhost}
allowTools: [get-structured-content]
scenarios:
  - name: Dynamic resources
` + rules + `
    steps:
      - id: text
        resource: demo://resource/dynamic/text/1
        expect: {snapshot: true}
      - id: blob
        resource: demo://resource/dynamic/blob/2
        snapshotIgnore: [/contents/*/blob]
        expect: {snapshot: true}
      - id: weather
        tool: get-structured-content
        arguments: {location: Chicago}
        expect: {snapshot: true}
`
	os.WriteFile(fixture, []byte(text), 0o644)
	return fixture
}

// TestGoldenEverything: snapshotSanitize time and snapshotIgnore make
// server-everything's timestamped resources stable; without the
// sanitizer the second run fails on the time.
func TestGoldenEverything(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	fixture := everythingGolden(t, dir, "    snapshotSanitize: [time]")
	for k := range 2 {
		r := runCmd(t, "--config", fixture)
		if r.code != 0 {
			t.Fatalf("run %d: exit %d\n%s", k+1, r.code, r.stdout)
		}
		time.Sleep(1100 * time.Millisecond) // the resources' clock has seconds
	}
	stored, _ := os.ReadFile(filepath.Join(dir, "__snapshots__", "everything.yaml.json"))
	if strings.Contains(string(stored), `"blob": "`) {
		t.Errorf("the ignored blob is stored:\n%s", stored)
	}
	for _, want := range []string{"created at <time>", `"temperature": 36`} {
		if !strings.Contains(string(stored), want) {
			t.Errorf("stored answers lack %q:\n%s", want, stored)
		}
	}
	if strings.Contains(string(stored), "<time> AM") || strings.Contains(string(stored), "<time> PM") {
		t.Errorf("the time sanitizer left the AM/PM:\n%s", stored)
	}

	bare := t.TempDir()
	fixture = everythingGolden(t, bare, "")
	runCmd(t, "--config", fixture)
	time.Sleep(1100 * time.Millisecond)
	if r := runCmd(t, "--config", fixture); r.code != 1 || !strings.Contains(r.stdout, "snapshot /contents/0/text: value differs") {
		t.Errorf("without the sanitizer: exit %d\n%s", r.code, r.stdout)
	}
}

// TestGoldenKeepsNoSecret: server-everything's get-env answers with its
// environment, a credential included; the stored answer has it redacted.
func TestGoldenKeepsNoSecret(t *testing.T) {
	t.Setenv("CI", "")
	const secret = "sk-golden-4471-secret"
	t.Setenv("GOLDEN_TOKEN", secret)
	dir := t.TempDir()
	fixture := filepath.Join(dir, "env.yaml")
	os.WriteFile(fixture, []byte(`name: env
command: [node, `+filepath.Join(peerDir(t), peerEverything)+`, stdio]
envFromEnv: {API_TOKEN: GOLDEN_TOKEN}
allowTools: [get-env]
scenarios:
  - name: Environment
    steps:
      - id: env
        tool: get-env
        expect: {text: {contains: [API_TOKEN]}, snapshot: true}
`), 0o644)
	if r := runCmd(t, "--config", fixture); r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stdout)
	}
	stored, _ := os.ReadFile(filepath.Join(dir, "__snapshots__", "env.yaml.json"))
	if strings.Contains(string(stored), secret) || !strings.Contains(string(stored), "API_TOKEN") {
		t.Errorf("the snapshot file holds the secret, or not the variable:\n%s", stored)
	}
}
