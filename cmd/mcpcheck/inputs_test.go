package main

// Inputs that reach the code (issue 19 item 10), end to end through the
// real CLI against the demo's notes folder (mcpcheck demo --notes DIR):
// paths inside the folder only, EISDIR on a directory, head or tail but
// never both.

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// notesRun is what these tests read of a run: the valid calls' outcomes
// and arguments (from the trace) and the report's coverage line.
type notesRun struct {
	outcome  map[string]string
	args     map[string]map[string]any
	coverage string
}

func runNotes(t *testing.T, args ...string) notesRun {
	t.Helper()
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	r := runCmd(t, append([]string{"--json", "-", "--trace", trace}, args...)...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	validReport(t, r.stdout)
	var rep struct {
		Coverage  string `json:"coverage"`
		Scenarios []struct {
			Steps []struct{ Tool, Origin, Case, Outcome string } `json:"steps"`
		} `json:"scenarios"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	out := notesRun{outcome: map[string]string{}, args: map[string]map[string]any{}, coverage: rep.Coverage}
	for _, sc := range rep.Scenarios {
		for _, st := range sc.Steps {
			if st.Origin == "fidelity" && st.Case == "valid" {
				out.outcome[st.Tool] = st.Outcome
			}
		}
	}
	f, err := os.Open(trace)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e struct {
			Tool, Case string
			Origin     string
			Arguments  map[string]any
		}
		if json.Unmarshal(sc.Bytes(), &e) == nil && e.Case == "valid" && out.args[e.Tool] == nil {
			out.args[e.Tool] = e.Arguments
		}
	}
	return out
}

func notesFolder(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "groceries.txt"), []byte("milk\neggs\nbread\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestNotesInputsReachTheCode(t *testing.T) {
	parallel(t)
	dir := notesFolder(t)
	run := runNotes(t, "--no-protocol-probes", "--no-behaviour", "--include-destructive",
		"--allow-tools", "notes_folder,list_notes,read_note,write_note", "--", "mcpcheck", "demo", "--notes", dir)
	// read_note gets the file list_notes named, with head or tail (not
	// both); write_note a fresh path in the folder, not groceries.txt
	// and not the folder itself.
	for _, tool := range []string{"read_note", "write_note", "list_notes"} {
		if run.outcome[tool] != "ok" {
			t.Errorf("%s valid call: %q, want ok (args %v)", tool, run.outcome[tool], run.args[tool])
		}
	}
	if _, both := run.args["read_note"]["tail"]; both {
		if _, head := run.args["read_note"]["head"]; head {
			t.Errorf("read_note got head and tail together: %v", run.args["read_note"])
		}
	}
	if got, want := run.args["write_note"]["path"], filepath.Join(dir, "mcpcheck-write_note-path.txt"); got != want {
		t.Errorf("write_note path %v, want %v", got, want)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "groceries.txt")); string(b) != "milk\neggs\nbread\n" {
		t.Errorf("groceries.txt was changed: %q", b)
	}
	if !strings.HasPrefix(run.coverage, "4 of 8 tools called; 4 not: not in allowTools") {
		t.Errorf("coverage = %q", run.coverage)
	}
}

func TestNotesClientRoots(t *testing.T) {
	parallel(t)
	dir := notesFolder(t)
	// Neither notes_folder nor list_notes may be called: the folder and
	// its files come from the client roots mcpcheck offers.
	fixture := filepath.Join(t.TempDir(), "roots.yaml")
	os.WriteFile(fixture, []byte(`name: notes with client roots
command: [mcpcheck, demo, --notes, `+dir+`]
allowTools: [read_note, write_note]
client:
  roots: [{uri: "file://`+filepath.ToSlash(dir)+`", name: notes}]
generate: {fidelity: true, includeDestructive: true}
`), 0o600)
	run := runNotes(t, "--config", fixture)
	if run.outcome["read_note"] != "ok" || run.outcome["write_note"] != "ok" {
		t.Errorf("valid calls: %v (args %v)", run.outcome, run.args)
	}
	if got, want := run.args["read_note"]["path"], filepath.Join(dir, "groceries.txt"); got != want {
		t.Errorf("read_note path %v, want %v (a file of the root)", got, want)
	}

	// Quick mode's --root offers the same.
	run = runNotes(t, "--no-protocol-probes", "--no-behaviour", "--include-destructive", "--root", dir,
		"--allow-tools", "read_note,write_note", "--", "mcpcheck", "demo", "--notes", dir)
	if run.outcome["read_note"] != "ok" || run.outcome["write_note"] != "ok" {
		t.Errorf("--root: valid calls %v (args %v)", run.outcome, run.args)
	}

	// Without any directory offered, paths are absolute under the run's
	// scratch directory: nothing is resolved against the server's working
	// directory, and the demo refuses them (outside its folder).
	run = runNotes(t, "--no-protocol-probes", "--no-behaviour", "--include-destructive",
		"--allow-tools", "read_note,write_note", "--", "mcpcheck", "demo", "--notes", dir)
	for _, tool := range []string{"read_note", "write_note"} {
		p, _ := run.args[tool]["path"].(string)
		if !filepath.IsAbs(p) || strings.HasPrefix(p, dir) {
			t.Errorf("%s path %q: want an absolute path outside the folder (the scratch directory)", tool, p)
		}
		if run.outcome[tool] != "tool_error" {
			t.Errorf("%s: %q, want tool_error (outside the folder)", tool, run.outcome[tool])
		}
	}
}
