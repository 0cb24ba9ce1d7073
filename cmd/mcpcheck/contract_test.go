package main

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/demo"
)

// snapshotOf runs mcpcheck snapshot with args and returns the contract.
func snapshotOf(t *testing.T, args ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "contract.json")
	r := runCmd(t, append([]string{"snapshot", "--out", out}, args...)...)
	if r.code != 0 {
		t.Fatalf("snapshot %v: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestSnapshotDemo pins the demo's contract, the same over stdio and HTTP
// and from a fixture, and the one committed in examples/.
func TestSnapshotDemo(t *testing.T) {
	parallel(t)
	stdio := snapshotOf(t, "--", "mcpcheck", "demo")
	golden(t, "demo.contract.json", stdio)
	srv := httptest.NewServer(demo.Handler(demo.Options{}))
	defer srv.Close()
	if http := snapshotOf(t, "--url", srv.URL+"/mcp"); http != stdio {
		t.Errorf("the contract over HTTP differs from stdio's:\n%s", http)
	}
	if fixture := snapshotOf(t, "--config", "../../examples/demo.yaml"); fixture != stdio {
		t.Errorf("the contract from a fixture differs:\n%s", fixture)
	}
	committed, err := os.ReadFile("../../examples/demo.contract.json")
	if err != nil || string(committed) != stdio {
		t.Errorf("examples/demo.contract.json is not the demo's contract (%v); rewrite it with mcpcheck snapshot", err)
	}
	// Without --out the contract is on stdout, alone.
	r := runCmd(t, "snapshot", "--", "mcpcheck", "demo")
	if r.code != 0 || r.stdout != stdio {
		t.Errorf("snapshot to stdout: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

func TestSnapshotEverything(t *testing.T) {
	parallel(t)
	dir := peerDir(t)
	stdio := snapshotOf(t, "--env", "GZIP_ALLOWED_DOMAINS=localhost", "--", "node", filepath.Join(dir, peerEverything), "stdio")
	golden(t, "everything.contract.json", stdio)
	if again := snapshotOf(t, "--env", "GZIP_ALLOWED_DOMAINS=localhost", "--", "node", filepath.Join(dir, peerEverything), "stdio"); again != stdio {
		t.Errorf("two snapshots differ")
	}
	for _, name := range []string{"echo", "get-structured-content", "demo://resource/static/document/", "completable-prompt", `"readOnlyHint": true`} {
		if !strings.Contains(stdio, name) {
			t.Errorf("the contract lacks %s", name)
		}
	}
}

func TestSnapshotBadCommandLine(t *testing.T) {
	for _, args := range [][]string{
		{"snapshot"},
		{"snapshot", "--out"},
		{"snapshot", "--json", "-", "--", "mcpcheck", "demo"},
		{"snapshot", "--out", filepath.Join(t.TempDir(), "no", "such", "dir", "c.json"), "--", "mcpcheck", "demo"},
	} {
		if r := runCmd(t, args...); r.code != 2 || !strings.HasPrefix(r.stderr, "mcpcheck") {
			t.Errorf("%v: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
}

// TestDriftDemoReleases drives the demo's two releases through snapshot →
// diff: one change of each severity, breaking first, exit 1 under the
// default --fail-on and per --fail-on otherwise.
func TestDriftDemoReleases(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	old, nw := filepath.Join(dir, "old.json"), filepath.Join(dir, "new.json")
	os.WriteFile(old, []byte(snapshotOf(t, "--", "mcpcheck", "demo")), 0o644)
	os.WriteFile(nw, []byte(snapshotOf(t, "--", "mcpcheck", "demo", "--next-release")), 0o644)

	r := runCmd(t, "diff", old, nw)
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", r.code, r.stdout, r.stderr)
	}
	golden(t, "drift.golden", strings.ReplaceAll(r.stdout, dir, "DIR"))
	b, ri, c, i := strings.Index(r.stdout, "  breaking"), strings.Index(r.stdout, "  risky"), strings.Index(r.stdout, "  compatible"), strings.Index(r.stdout, "  info")
	if !(b > 0 && b < ri && ri < c && c < i) {
		t.Errorf("not grouped breaking, risky, compatible, info:\n%s", r.stdout)
	}

	r = runCmd(t, "diff", "--json", "-", old, nw)
	m := validReport(t, r.stdout)
	drift := m["drift"].([]any)
	if len(drift) != 4 {
		t.Fatalf("drift = %v", drift)
	}
	for k, want := range []string{"breaking", "risky", "compatible", "info"} {
		d := drift[k].(map[string]any)
		if d["severity"] != want {
			t.Errorf("drift[%d] = %v, want %s", k, d, want)
		}
		if _, has := d["old"]; has {
			t.Errorf("values in the JSON report: %v", d)
		}
	}
	if s := m["summary"].(map[string]any)["drift"].(map[string]any); s["breaking"] != 1.0 || s["info"] != 1.0 || s["failOn"] != "breaking" {
		t.Errorf("summary.drift = %v", s)
	}

	junit, summary := filepath.Join(dir, "drift.xml"), filepath.Join(dir, "drift.md")
	if r := runCmd(t, "diff", old, nw, "--junit", junit, "--summary", summary); r.code != 1 {
		t.Errorf("with report files: exit %d\n%s", r.code, r.stderr)
	}
	x, _ := os.ReadFile(junit)
	md, _ := os.ReadFile(summary)
	if !strings.Contains(string(x), `<testsuite name="contract drift" tests="4" failures="1"`) ||
		!strings.Contains(string(x), "annotation changed at /tools/0/annotations/idempotentHint; old: true; new: false") {
		t.Errorf("JUnit:\n%s", x)
	}
	if !strings.Contains(string(md), "Contract drift") || !strings.Contains(string(md), `❌ | breaking tool commit\_task`) {
		t.Errorf("summary:\n%s", md)
	}

	for failOn, code := range map[string]int{"none": 0, "breaking": 1, "risky": 1, "compatible": 1} {
		if r := runCmd(t, "diff", old, nw, "--fail-on", failOn); r.code != code {
			t.Errorf("--fail-on %s: exit %d, want %d", failOn, r.code, code)
		}
	}
	// Back again: the reverse judgement (the hint is promised again).
	if r := runCmd(t, "diff", nw, old, "--fail-on", "risky"); r.code != 1 || !strings.Contains(r.stdout, "1 compatible") {
		t.Errorf("reverse: exit %d\n%s", r.code, r.stdout)
	}
	if r := runCmd(t, "diff", old, old); r.code != 0 || !strings.Contains(r.stdout, "Contract: no drift.") {
		t.Errorf("same file: exit %d\n%s", r.code, r.stdout)
	}
}

func TestDiffBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"schemaVersion": 1}`), 0o644)
	good := "../../examples/demo.contract.json"
	for _, args := range [][]string{
		{"diff"},
		{"diff", good},
		{"diff", good, good, good},
		{"diff", good, filepath.Join(dir, "missing.json")},
		{"diff", good, bad},
		{"diff", good, good, "--fail-on", "sometimes"},
	} {
		r := runCmd(t, args...)
		if r.code != 2 || !strings.HasPrefix(r.stderr, "mcpcheck diff: ") {
			t.Errorf("%v: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
	if r := runCmd(t, "diff", good, bad); !strings.Contains(r.stderr, "bad.json: not a contract file: at /") {
		t.Errorf("no place named: %q", r.stderr)
	}
}

// TestContractInFixture checks the live server against the fixture's
// contract: no drift against the same release, the next release's drift
// fails (or not, per --fail-on), and --update rewrites the file so the next
// run has none.
func TestContractInFixture(t *testing.T) {
	parallel(t)
	r := runCmd(t, "--config", "../../examples/contract.yaml")
	if r.code != 0 || !strings.Contains(r.stdout, "Contract: no drift.") {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	next := httptest.NewServer(demo.Handler(demo.Options{NextRelease: true}))
	defer next.Close()
	r = runCmd(t, "--config", "../../examples/contract.yaml", "--url", next.URL+"/mcp", "--json", "-")
	if r.code != 1 {
		t.Fatalf("against the next release: exit %d\n%s", r.code, r.stderr)
	}
	m := validReport(t, r.stdout)
	if m["passed"] != false || len(m["drift"].([]any)) != 4 || m["drift"].([]any)[0].(map[string]any)["failing"] != true {
		t.Errorf("report: passed %v, drift %v", m["passed"], m["drift"])
	}
	if !strings.Contains(r.stderr, "tool commit_task: annotation changed at /tools/0/annotations/idempotentHint") {
		t.Errorf("human report:\n%s", r.stderr)
	}
	if r := runCmd(t, "--config", "../../examples/contract.yaml", "--url", next.URL+"/mcp", "--fail-on", "none"); r.code != 0 {
		t.Errorf("--fail-on none: exit %d\n%s", r.code, r.stdout)
	}

	// --update, in a copy of the example.
	dir := t.TempDir()
	for _, f := range []string{"contract.yaml", "demo.contract.json"} {
		data, _ := os.ReadFile(filepath.Join("../../examples", f))
		os.WriteFile(filepath.Join(dir, f), data, 0o644)
	}
	fixture := filepath.Join(dir, "contract.yaml")
	if r := runCmd(t, "--config", fixture, "--url", next.URL+"/mcp", "--update"); r.code != 0 || !strings.Contains(r.stdout, "contract file updated") {
		t.Fatalf("--update: exit %d\n%s", r.code, r.stdout)
	}
	updated, _ := os.ReadFile(filepath.Join(dir, "demo.contract.json"))
	if !strings.Contains(string(updated), `"version": "0.2.0"`) {
		t.Errorf("not rewritten:\n%s", updated)
	}
	if r := runCmd(t, "--config", fixture, "--url", next.URL+"/mcp"); r.code != 0 || !strings.Contains(r.stdout, "Contract: no drift.") {
		t.Errorf("after --update: exit %d\n%s", r.code, r.stdout)
	}
	// A missing contract is an input error, unless --update writes it.
	os.Remove(filepath.Join(dir, "demo.contract.json"))
	if r := runCmd(t, "--config", fixture); r.code != 2 || !strings.Contains(r.stderr, "does not exist") {
		t.Errorf("missing contract: exit %d\n%s", r.code, r.stderr)
	}
	if r := runCmd(t, "--config", fixture, "--list"); r.code != 0 {
		t.Errorf("--list reads no contract: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runCmd(t, "--config", fixture, "--update"); r.code != 0 {
		t.Errorf("missing contract with --update: exit %d\n%s", r.code, r.stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, "demo.contract.json")); err != nil {
		t.Errorf("--update did not write the contract: %v", err)
	}
}

// TestContractQuickMode: --contract works without a fixture.
func TestContractQuickMode(t *testing.T) {
	parallel(t)
	r := runCmd(t, "--contract", "../../examples/demo.contract.json", "--fail-on", "risky", "--", "mcpcheck", "demo", "--next-release")
	if r.code != 1 || !strings.Contains(r.stdout, "Contract drift: 1 breaking, 1 risky, 1 compatible, 1 info (fails on risky and above)") {
		t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
