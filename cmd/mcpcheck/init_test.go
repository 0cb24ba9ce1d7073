package main

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"

	"github.com/mcpcheck/mcpcheck/demo"
	"github.com/mcpcheck/mcpcheck/schemas"
)

// initAndRun writes a starter fixture with mcpcheck init (args name the
// target), checks it against the fixture schema, runs it and returns the
// fixture's text and the run's report: the fixture must pass at once.
func initAndRun(t *testing.T, args ...string) (string, map[string]any) {
	t.Helper()
	dir := t.TempDir()
	out := filepath.Join(dir, "sub", "starter.yaml")
	os.Mkdir(filepath.Dir(out), 0o755)
	r := runCmd(t, append([]string{"init", "-o", out}, args...)...)
	if r.code != 0 {
		t.Fatalf("init: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	if !strings.HasPrefix(text, "# yaml-language-server: $schema=https://mcpcheck.dev/schemas/fixture.schema.json\n") {
		t.Errorf("no schema line at the top:\n%s", text)
	}
	var doc any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("the fixture is not YAML: %v\n%s", err, text)
	}
	j, _ := json.Marshal(doc)
	v, _ := jsonschema.UnmarshalJSON(strings.NewReader(string(j)))
	if err := schemas.Validate(schemas.FixtureURL, v); err != nil {
		t.Fatalf("the fixture does not match schemas/fixture.schema.json: %v\n%s", err, text)
	}
	ignore, err := os.ReadFile(filepath.Join(filepath.Dir(out), ".gitignore"))
	if err != nil || !strings.Contains(string(ignore), ".mcpcheck/\n") {
		t.Errorf(".gitignore beside the fixture = %q, %v; want a .mcpcheck/ line", ignore, err)
	}
	run := runCmd(t, "--config", out, "--json", "-")
	if run.code != 0 {
		t.Fatalf("the starter fixture does not pass: exit %d\n%s\n%s", run.code, run.stderr, text)
	}
	return text, validReport(t, run.stdout)
}

// kinds counts the report's passed steps by kind.
func kinds(t *testing.T, rep map[string]any) map[string]int {
	t.Helper()
	n := map[string]int{}
	for _, sc := range rep["scenarios"].([]any) {
		for _, st := range sc.(map[string]any)["steps"].([]any) {
			st := st.(map[string]any)
			if st["status"] != "passed" {
				t.Errorf("step %v: %v", st["id"], st["status"])
			}
			n[st["kind"].(string)]++
		}
	}
	return n
}

func TestInitDemoStdio(t *testing.T) {
	parallel(t)
	text, rep := initAndRun(t, "--", "mcpcheck", "demo")
	n := kinds(t, rep)
	// The clean demo's read-only tools, its resource and its prompt.
	if n["tool"] != 3 || n["resource"] != 1 || n["prompt"] != 1 {
		t.Errorf("steps by kind = %v, want 3 tools, a resource and a prompt\n%s", n, text)
	}
	for _, want := range []string{"allowTools: [get_household, propose_task, tidy_household]", "revision: {$type: integer}", "type: text", "\"A fixture\"", "cwd: "} {
		if !strings.Contains(text, want) {
			t.Errorf("fixture lacks %q:\n%s", want, text)
		}
	}
	// Expectations are shapes: no value the server answered is in the file.
	if strings.Contains(text, "Household") {
		t.Errorf("the fixture holds an answer's value:\n%s", text)
	}
}

func TestInitDemoHTTP(t *testing.T) {
	srv := httptest.NewServer(demo.Handler(demo.Options{}))
	defer srv.Close()
	text, rep := initAndRun(t, "--url", srv.URL+"/mcp")
	if n := kinds(t, rep); n["tool"] != 3 {
		t.Errorf("steps by kind = %v\n%s", n, text)
	}
	if !strings.Contains(text, "endpoint: "+srv.URL+"/mcp") || strings.Contains(text, "command:") {
		t.Errorf("target not the endpoint:\n%s", text)
	}
}

func TestInitEverything(t *testing.T) {
	parallel(t)
	dir := peerDir(t)
	text, rep := initAndRun(t, "--timeout", "4s", "--env", "GZIP_ALLOWED_DOMAINS=localhost", "--",
		"node", filepath.Join(dir, peerEverything), "stdio")
	n := kinds(t, rep)
	if n["tool"] < 5 || n["resource"] != 1 || n["prompt"] != 1 {
		t.Errorf("steps by kind = %v\n%s", n, text)
	}
	// Not annotated read-only: never called, never allowed.
	for _, tool := range []string{"toggle-simulated-logging", "gzip-file-as-resource"} {
		if strings.Contains(text, tool) {
			t.Errorf("%s is in the fixture:\n%s", tool, text)
		}
	}
	// get-structured-content's outputSchema'd answer: its shape.
	if !strings.Contains(text, "temperature: {$type: integer}") {
		t.Errorf("no structured shape:\n%s", text)
	}
}

func TestInitRefusesToOverwrite(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "mine.yaml")
	os.WriteFile(out, []byte("name: mine\n"), 0o644)
	os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("bin/\n.mcpcheck/\n"), 0o644)
	r := runCmd(t, "init", "-o", out, "--", "mcpcheck", "demo")
	if r.code != 2 || !strings.Contains(r.stderr, "exists; give --force") {
		t.Fatalf("exit %d, stderr %q; want 2 and a refusal", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(out); string(b) != "name: mine\n" {
		t.Fatalf("the file changed: %q", b)
	}
	if r := runCmd(t, "init", "--force", "-o", out, "--", "mcpcheck", "demo"); r.code != 0 {
		t.Fatalf("--force: exit %d\n%s", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(out); !strings.Contains(string(b), "scenarios:") {
		t.Fatalf("--force did not write the fixture: %q", b)
	}
	// The .gitignore already had the line: not added twice.
	if b, _ := os.ReadFile(filepath.Join(dir, ".gitignore")); string(b) != "bin/\n.mcpcheck/\n" {
		t.Errorf(".gitignore = %q", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("left behind: %v", entries)
	}
	for _, bad := range [][]string{{"init"}, {"init", "-o"}, {"init", "--jobs", "2", "--", "mcpcheck", "demo"}} {
		if r := runCmd(t, bad...); r.code != 2 {
			t.Errorf("%q: exit %d, want 2", bad, r.code)
		}
	}
}
