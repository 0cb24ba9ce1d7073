package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/schemas"
)

func TestSchemaCommand(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []byte
		id   string
	}{
		{[]string{"schema"}, schemas.Fixture, schemas.FixtureURL},
		{[]string{"schema", "fixture"}, schemas.Fixture, schemas.FixtureURL},
		{[]string{"schema", "report"}, schemas.Report, schemas.ReportURL},
		{[]string{"schema", "contract"}, schemas.Contract, schemas.ContractURL},
	} {
		r := runCmd(t, tc.args...)
		if r.code != 0 || r.stdout != string(tc.want) {
			t.Errorf("%v: exit %d, not the embedded schema (%d bytes, want %d)", tc.args, r.code, len(r.stdout), len(tc.want))
		}
		var doc struct {
			ID string `json:"$id"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || doc.ID != tc.id {
			t.Errorf("%v: $id %q, err %v", tc.args, doc.ID, err)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"schema", "fixtur"}, `no schema "fixtur"; did you mean fixture?`},
		{[]string{"schema", "fixture", "report"}, "one name at most"},
	} {
		if r := runCmd(t, tc.args...); r.code != 2 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d stderr %q, want 2 and %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}

// TestFixtureSchemaHeaders: a fixture may name its schema for an editor, as
// a yaml-language-server comment or a $schema key (YAML and JSON); mcpcheck
// accepts and ignores both.
func TestFixtureSchemaHeaders(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	body := "name: Schema headers\ncommand: [mcpcheck, demo]\nallowTools: [get_household]\nscenarios: [{name: s, steps: [{id: read, tool: get_household}]}]\n"
	files := map[string]string{
		"comment.yaml": "# yaml-language-server: $schema=" + schemas.FixtureURL + "\n" + body,
		"key.yaml":     "$schema: " + schemas.FixtureURL + "\n" + body,
		"key.json": `{"$schema": "` + schemas.FixtureURL + `", "name": "Schema headers", "command": ["mcpcheck", "demo"], "allowTools": ["get_household"],
			"scenarios": [{"name": "s", "steps": [{"id": "read", "tool": "get_household"}]}]}`,
	}
	for name, text := range files {
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte(text), 0o644)
		if r := runCmd(t, "--config", path); r.code != 0 || !strings.HasPrefix(r.stdout, "PASS Schema headers") {
			t.Errorf("%s: exit %d\n%s%s", name, r.code, r.stdout, r.stderr)
		}
	}
}

func TestVersionCommand(t *testing.T) {
	saved := readBuildInfo
	defer func() { readBuildInfo = saved }()
	readBuildInfo = func() (*debug.BuildInfo, bool) {
		return &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/mcpcheck/mcpcheck", Version: "v0.3.0"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123abcd"}, {Key: "vcs.time", Value: "2026-11-30T10:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}, true
	}
	r := runCmd(t, "version")
	want := "mcpcheck 0.1.0\nmodule   github.com/mcpcheck/mcpcheck v0.3.0\nrevision 0123abcd (modified)\ncommit   2026-11-30T10:00:00Z\ngo       go1.26.8\n"
	if r.code != 0 || r.stdout != want {
		t.Errorf("exit %d:\n%s\nwant:\n%s", r.code, r.stdout, want)
	}
	if r := runCmd(t, "version", "extra"); r.code != 2 {
		t.Errorf("version with an argument: exit %d", r.code)
	}
	if r := runCmd(t, "--version"); r.code != 0 || r.stdout != "mcpcheck 0.1.0\n" {
		t.Errorf("--version changed: %q", r.stdout)
	}
}

// installLine is how the README's Install section (and the CI example)
// installs mcpcheck today, from a clone's root.
const installLine = "go install ./cmd/mcpcheck"

// TestGoInstall installs the command the way the README tells users to
// (installLine, from this checkout's root, with VCS stamping: this
// machine's GOFLAGS may turn it off), then runs the installed binary:
// `version` names the module and this checkout's revision, and the
// README's demo command passes.
func TestGoInstall(t *testing.T) {
	parallel(t)
	if testing.Short() {
		t.Skip("builds the command (-short)")
	}
	gobin := t.TempDir()
	root, _ := filepath.Abs("../..")
	install := exec.Command("go", strings.Fields(installLine)[1:]...)
	install.Dir = root
	install.Env = append(os.Environ(), "GOBIN="+gobin, "GOFLAGS=-buildvcs=auto")
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("go install: %v\n%s", err, out)
	}
	bin := filepath.Join(gobin, "mcpcheck")
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatalf("mcpcheck version: %v", err)
	}
	if !strings.HasPrefix(string(out), "mcpcheck 0.1.0\nmodule   github.com/mcpcheck/mcpcheck ") {
		t.Errorf("mcpcheck version:\n%s", out)
	}
	// A clone (CI's) is stamped; a git worktree, whose .git is a file, is
	// not stamped by this Go, so there the revision is not asked for.
	if st, err := os.Stat(filepath.Join(root, ".git")); err != nil || !st.IsDir() {
		t.Logf("%s is not a clone's work tree; not checking the revision:\n%s", root, out)
	} else if head, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output(); err == nil {
		if rev := strings.TrimSpace(string(head)); !strings.Contains(string(out), "revision "+rev) {
			t.Errorf("mcpcheck version does not name this checkout's revision %s:\n%s", rev, out)
		}
	}
	demo := exec.Command(bin, "--config", "examples/demo.yaml")
	demo.Dir = root
	if out, err := demo.CombinedOutput(); err != nil || !strings.HasPrefix(string(out), "PASS ") {
		t.Errorf("installed mcpcheck --config examples/demo.yaml: %v\n%s", err, out)
	}
}
