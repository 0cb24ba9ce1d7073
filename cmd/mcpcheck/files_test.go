//go:build unix

package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The files mcpcheck reads and writes (issue 17, classes 6, 8 and the file
// half of 3): every file written replaces the previous one whole or not at
// all, every file read is a regular file of bounded size.

// proc is one run of mcpcheck as a process of its own.
type proc struct {
	code   int
	out    string // stdout and stderr
	wall   time.Duration
	rssKiB int64
}

// procOpts are the ways a test drives the process.
type procOpts struct {
	env []string
	// signalAfter, when set, sends SIGINT that long after the start.
	signalAfter time.Duration
	// holdStdin keeps stdin an open pipe until the process ends (record).
	holdStdin bool
	// fileBlocks, when set, runs mcpcheck with RLIMIT_FSIZE of that many
	// 512-byte blocks (sh's ulimit -f): a write past it fails with EFBIG,
	// as on a full disk. Go ignores SIGXFSZ, so the write returns the error.
	fileBlocks int
}

// mcpcheckProc runs the test binary as mcpcheck with args under a deadline
// of a minute: a regression that blocks (a FIFO opened for reading) fails
// the test instead of hanging it.
func mcpcheckProc(t *testing.T, o procOpts, args ...string) proc {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	argv := append([]string{exe}, args...)
	if o.fileBlocks > 0 {
		argv = append([]string{"sh", "-c", fmt.Sprintf(`ulimit -f %d && exec "$@"`, o.fileBlocks), "sh"}, argv...)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(append(os.Environ(), o.env...), asCLI+"=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	var hold io.WriteCloser
	if o.holdStdin {
		if hold, err = cmd.StdinPipe(); err != nil {
			t.Fatal(err)
		}
		defer hold.Close()
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if o.signalAfter > 0 {
		timer := time.AfterFunc(o.signalAfter, func() { cmd.Process.Signal(os.Interrupt) })
		defer timer.Stop()
	}
	err = cmd.Wait()
	p := proc{out: out.String(), wall: time.Since(start)}
	if ctx.Err() != nil {
		t.Fatalf("mcpcheck %v still running after a minute:\n%s", args, p.out)
	}
	if ee, ok := err.(*exec.ExitError); ok {
		p.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		p.rssKiB = int64(ru.Maxrss)
	}
	return p
}

// canaries writes a previous version of each file, to be found byte for
// byte after a command that failed.
func canaries(t *testing.T, paths ...string) map[string]string {
	t.Helper()
	was := map[string]string{}
	for _, p := range paths {
		content := "previous " + filepath.Base(p) + " canary\n"
		if err := os.WriteFile(p, []byte(content), 0o640); err != nil {
			t.Fatal(err)
		}
		was[p] = content
	}
	return was
}

// unchanged checks every file still holds what it held, and that no
// temporary file was left beside it.
func unchanged(t *testing.T, was map[string]string, what string) {
	t.Helper()
	for p, content := range was {
		b, err := os.ReadFile(p)
		if err != nil || string(b) != content {
			t.Errorf("%s: %s now holds %q (%v), want the previous %q", what, p, b, err, content)
		}
		if st, err := os.Stat(p); err == nil && st.Mode().Perm() != 0o640 {
			t.Errorf("%s: %s mode %v", what, p, st.Mode())
		}
		noTemporaries(t, filepath.Dir(p), what)
	}
}

func noTemporaries(t *testing.T, dir, what string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("%s: temporary file %s left in %s", what, e.Name(), dir)
		}
	}
}

const credFixture = "name: n\nendpoint: https://example.com/mcp\nheadersFromEnv: {Authorization: MCPCHECK_TEST_UNSET_TOKEN}\nallowTools: [t]\nscenarios: [{name: s, steps: [{tool: t}]}]\n"

// TestFailedRunKeepsReports: report files that exist stay byte for byte
// when the command fails before it has a report (a missing credential, a
// merge that refuses) or cannot write one (a write error: the file size
// limit, as a full disk), and every error is non-zero naming the file.
// They used to be truncated at the start (0-byte reports) or left half
// written.
func TestFailedRunKeepsReports(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	json, junit, html, md, trace := filepath.Join(dir, "report.json"), filepath.Join(dir, "junit.xml"),
		filepath.Join(dir, "report.html"), filepath.Join(dir, "summary.md"), filepath.Join(dir, "trace.jsonl")
	files := []string{"--json", json, "--junit", junit, "--html", html, "--summary", md}

	was := canaries(t, json, junit, html, md, trace)
	cred := filepath.Join(dir, "cred.yaml")
	os.WriteFile(cred, []byte(credFixture), 0o644)
	r := runCmd(t, append([]string{"--config", cred, "--trace", trace}, files...)...)
	if r.code != 2 || !strings.Contains(r.stderr, "MCPCHECK_TEST_UNSET_TOKEN") {
		t.Errorf("missing credential: exit %d\n%s", r.code, r.stderr)
	}
	unchanged(t, was, "missing credential")

	notReport := filepath.Join(dir, "not-a-report.json")
	os.WriteFile(notReport, []byte(`{"schemaVersion": 1}`), 0o644)
	r = runCmd(t, append([]string{"merge", notReport}, files...)...)
	if r.code != 2 || !strings.Contains(r.stderr, "not-a-report.json") {
		t.Errorf("merge that refuses: exit %d\n%s", r.code, r.stderr)
	}
	unchanged(t, was, "merge that refuses")

	// A write error: 1 block of 512 bytes is less than any report.
	p := mcpcheckProc(t, procOpts{fileBlocks: 1}, append([]string{"--config", "../../examples/demo.yaml", "--trace", trace}, files...)...)
	for _, f := range []string{trace, json} {
		if p.code != 2 || !strings.Contains(p.out, "writing "+f+": file too large (the file is unchanged)") {
			t.Errorf("write error: exit %d\n%s", p.code, p.out)
		}
	}
	unchanged(t, was, "write error")

	// A directory where the report goes: exit 2 before anything runs.
	r = runCmd(t, "--config", "../../examples/demo.yaml", "--json", dir)
	if r.code != 2 || !strings.Contains(r.stderr, "--json: "+dir+" is a directory, not a regular file") || r.stdout != "" {
		t.Errorf("--json DIR: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// And a run that succeeds replaces them, keeping their mode.
	r = runCmd(t, append([]string{"--config", "../../examples/demo.yaml"}, files...)...)
	if st, _ := os.Stat(json); r.code != 0 || st.Mode().Perm() != 0o640 {
		t.Errorf("a passing run: exit %d, mode %v\n%s", r.code, st.Mode(), r.stderr)
	}
	if b, _ := os.ReadFile(json); !bytes.Contains(b, []byte(`"schemaVersion": 1`)) {
		t.Errorf("report not replaced: %s", b)
	}
	noTemporaries(t, dir, "a passing run")
}

// TestSnapshotAndRecordKeepTheirFile: snapshot --out F and record --out F
// that fail or are interrupted (SIGINT) leave an existing F as it was;
// they used to delete it ("nothing written", and F gone).
func TestSnapshotAndRecordKeepTheirFile(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	contract, fixture := filepath.Join(dir, "demo.contract.json"), filepath.Join(dir, "recorded.yaml")
	was := canaries(t, contract, fixture)

	r := runCmd(t, "snapshot", "--out", contract, "--", "/nonexistent/server")
	if r.code != 1 || !strings.Contains(r.stderr, contract+" is unchanged") {
		t.Errorf("snapshot of a server that does not start: exit %d\n%s", r.code, r.stderr)
	}
	unchanged(t, was, "failed snapshot")

	// A server that never answers initialize; the run is interrupted.
	p := mcpcheckProc(t, procOpts{signalAfter: 2 * time.Second}, "snapshot", "--timeout", "50s", "--out", contract, "--", "sleep", "45")
	if p.code == 0 || p.wall > 40*time.Second {
		t.Errorf("interrupted snapshot: exit %d after %v\n%s", p.code, p.wall, p.out)
	}
	unchanged(t, was, "interrupted snapshot")

	// A recording interrupted before the client called anything.
	p = mcpcheckProc(t, procOpts{signalAfter: 2 * time.Second, holdStdin: true}, "record", "--out", fixture, "--", "mcpcheck", "demo")
	if p.code == 0 || p.wall > 40*time.Second || !strings.Contains(p.out, "nothing written") {
		t.Errorf("interrupted recording: exit %d after %v\n%s", p.code, p.wall, p.out)
	}
	unchanged(t, was, "interrupted recording")

	// A recording whose answers would go through a linked __snapshots__ is
	// refused before the session starts, naming the link.
	outside := t.TempDir()
	os.Symlink(outside, filepath.Join(dir, "__snapshots__"))
	r = runCmd(t, "record", "--out", fixture, "--", "mcpcheck", "demo")
	if link := filepath.Join(dir, "__snapshots__"); r.code != 2 || !strings.Contains(r.stderr, link+" is a symbolic link") {
		t.Errorf("record with a linked __snapshots__: exit %d\n%s", r.code, r.stderr)
	}
	unchanged(t, was, "linked __snapshots__")
}

// goldenFixture copies examples/golden.yaml and its answers into a new
// directory and returns the fixture and the answers' file.
func goldenFixture(t *testing.T) (fixture, answers string) {
	t.Helper()
	dir := t.TempDir()
	fixture = filepath.Join(dir, "golden.yaml")
	src, err := os.ReadFile("../../examples/golden.yaml")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(fixture, src, 0o644)
	return fixture, filepath.Join(dir, "__snapshots__", "golden.yaml.json")
}

// TestGoldenAnswersAreKept: a golden update that cannot be written fails
// the run naming the file, whose answers stay as they were (it used to
// leave truncated JSON and exit 0); a __snapshots__ that is a symbolic
// link, or a link in it to outside the fixture's directory, is refused
// with exit 2 naming the link, and nothing is written through it.
func TestGoldenAnswersAreKept(t *testing.T) {
	parallel(t)
	fixture, answers := goldenFixture(t)
	stored, err := os.ReadFile("../../examples/__snapshots__/golden.yaml.json")
	if err != nil {
		t.Fatal(err)
	}
	// One stored answer differs from the server's, so --update rewrites
	// the file (larger than the 512-byte file size limit).
	changed := bytes.Replace(stored, []byte("Collect the library books"), []byte("Collect the library cards"), 1)
	if bytes.Equal(changed, stored) {
		t.Fatal("the example's answers changed: pick another value to alter")
	}
	os.MkdirAll(filepath.Dir(answers), 0o755)
	os.WriteFile(answers, changed, 0o640)
	was := map[string]string{answers: string(changed)}
	p := mcpcheckProc(t, procOpts{fileBlocks: 1}, "--config", fixture, "--update")
	if p.code != 1 || !strings.Contains(p.out, "error snapshot: the golden answers were not saved: writing "+answers+": file too large (the file is unchanged)") {
		t.Errorf("golden update that cannot be written: exit %d\n%s", p.code, p.out)
	}
	unchanged(t, was, "golden write error")

	// __snapshots__ a link out of the fixture's directory.
	fixture, answers = goldenFixture(t)
	outside := t.TempDir()
	link := filepath.Dir(answers)
	os.Symlink(outside, link)
	r := runCmd(t, "--config", fixture)
	if r.code != 2 || !strings.Contains(r.stderr, link+" is a symbolic link (to "+outside+")") {
		t.Errorf("linked __snapshots__: exit %d\n%s", r.code, r.stderr)
	}
	// A dangling link in it, to outside.
	fixture, answers = goldenFixture(t)
	os.MkdirAll(filepath.Dir(answers), 0o755)
	os.Symlink(filepath.Join(outside, "answers.json"), answers)
	r = runCmd(t, "--config", fixture)
	if r.code != 2 || !strings.Contains(r.stderr, answers+" is a symbolic link to "+filepath.Join(outside, "answers.json")) {
		t.Errorf("dangling link in __snapshots__: exit %d\n%s", r.code, r.stderr)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("written outside the fixture's directory: %v", entries)
	}
}

// TestUpdatesKeepTheirFile: --update of a contract and
// --update-expected-failures replace their file whole or not at all: a
// write that fails (the file size limit, as a full disk) fails the run
// naming the file and leaves it byte for byte.
func TestUpdatesKeepTheirFile(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	fixture := filepath.Join(dir, "contract.yaml")
	src, _ := os.ReadFile("../../examples/contract.yaml")
	os.WriteFile(fixture, src, 0o644)
	contract := filepath.Join(dir, "demo.contract.json")
	old, _ := os.ReadFile("../../examples/demo.contract.json")
	// A tool the live server does not have: drift, so --update rewrites.
	changed := bytes.Replace(old, []byte(`"tools": [`), []byte(`"tools": [{"name": "gone", "inputSchema": {"type": "object"}, "annotations": {"destructiveHint": true, "idempotentHint": false, "openWorldHint": true, "readOnlyHint": false}},`), 1)
	os.WriteFile(contract, changed, 0o640)
	was := map[string]string{contract: string(changed)}
	p := mcpcheckProc(t, procOpts{fileBlocks: 1}, "--config", fixture, "--update")
	if p.code == 0 || !strings.Contains(p.out, "updating the contract: writing "+contract+": file too large (the file is unchanged)") {
		t.Errorf("contract --update that cannot be written: exit %d\n%s", p.code, p.out)
	}
	unchanged(t, was, "contract write error")

	failing := filepath.Join(dir, "failing.yaml")
	src, _ = os.ReadFile("testdata/failing.yaml")
	os.WriteFile(failing, src, 0o644)
	known := filepath.Join(dir, "known.yaml")
	reason := strings.Repeat("a long reason ", 50)
	// The entry that stays keeps its long reason; the stale one goes.
	baseline := "- {scenario: Wrong expectations, reason: " + reason + "}\n- {scenario: Passing scenario, reason: stale}\n"
	os.WriteFile(known, []byte(baseline), 0o640)
	was = map[string]string{known: baseline}
	p = mcpcheckProc(t, procOpts{fileBlocks: 1}, "--config", failing, "--expected-failures", known, "--update-expected-failures")
	if p.code != 2 || !strings.Contains(p.out, "--update-expected-failures: writing "+known+": file too large (the file is unchanged)") {
		t.Errorf("baseline update that cannot be written: exit %d\n%s", p.code, p.out)
	}
	unchanged(t, was, "baseline write error")
}

// notFiles are paths that are not regular files: a FIFO (which used to
// block the read forever, deaf to SIGTERM), /dev/zero (endless) and a
// directory.
func notFiles(t *testing.T) []string {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "input.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal("mkfifo:", err)
	}
	return []string{fifo, "/dev/zero", t.TempDir()}
}

// TestInputsThatAreNotFiles: every file mcpcheck reads is refused at once,
// exit 2 naming it, when it is not a regular file.
func TestInputsThatAreNotFiles(t *testing.T) {
	parallel(t)
	contract := "../../examples/demo.contract.json"
	for _, path := range notFiles(t) {
		for _, args := range [][]string{
			{"--config", path},
			{"--config", "../../examples/demo.yaml", "--expected-failures", path},
			{"--config", "../../examples/demo.yaml", "--contract", path},
			{"merge", path},
			{"diff", path, contract},
			{"diff", contract, path},
		} {
			if st, _ := os.Stat(path); st.IsDir() && len(args) == 2 && args[0] == "--config" {
				continue // a directory given to --config is a directory of fixtures
			}
			p := mcpcheckProc(t, procOpts{}, args...)
			if p.code != 2 || !strings.Contains(p.out, path+" is a") || !strings.Contains(p.out, "not a regular file") || p.wall > 30*time.Second {
				t.Errorf("%v: exit %d after %v\n%s", args, p.code, p.wall, p.out)
			}
		}
	}
}

// TestFixtureDirectoryWithAFIFO: a directory given to --config whose
// *.yaml entry is a FIFO is refused at once, naming the entry.
func TestFixtureDirectoryWithAFIFO(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	src, _ := os.ReadFile("../../examples/demo.yaml")
	os.WriteFile(filepath.Join(dir, "a.yaml"), src, 0o644)
	fifo := filepath.Join(dir, "b.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal("mkfifo:", err)
	}
	p := mcpcheckProc(t, procOpts{}, "--config", dir)
	if p.code != 2 || !strings.Contains(p.out, fifo+" is a named pipe (FIFO), not a regular file") {
		t.Errorf("exit %d after %v\n%s", p.code, p.wall, p.out)
	}
}

// TestOversizedInputs: a 1 GiB file (sparse: it costs no disk) given to
// any reader is refused with exit 2 naming the file and the limit, before
// it is read: mcpcheck's peak RSS stays far below 256 MiB (merge, diff and
// --contract used to read it whole, 2.6 GB and killed).
func TestOversizedInputs(t *testing.T) {
	parallel(t)
	big := filepath.Join(t.TempDir(), "huge.json")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	contract := "../../examples/demo.contract.json"
	for _, c := range []struct {
		args  []string
		limit string
	}{
		{[]string{"merge", big}, "16 MiB"},
		{[]string{"diff", big, contract}, "16 MiB"},
		{[]string{"diff", contract, big}, "16 MiB"},
		{[]string{"--config", "../../examples/demo.yaml", "--contract", big}, "16 MiB"},
		{[]string{"--config", big}, "16 MiB"},
		{[]string{"--config", "../../examples/demo.yaml", "--expected-failures", big}, "16 MiB"},
	} {
		p := mcpcheckProc(t, procOpts{}, c.args...)
		if p.code != 2 || !strings.Contains(p.out, big) || !strings.Contains(p.out, "larger than "+c.limit) {
			t.Errorf("%v: exit %d\n%s", c.args, p.code, p.out)
		}
		if p.rssKiB > 256<<10 {
			t.Errorf("%v: peak RSS %d KiB", c.args, p.rssKiB)
		}
	}
}

// TestManyValuedInputs: the byte limit does not bound decoding (16 MiB
// of "{}," is 5.6 million objects, and in a report as many schema
// violations: merging one took 6 GB and 200 s). A document of more values
// than the limit is refused before it is decoded; one just under it, each
// value a violation, is refused within mcpcheck's memory budget, merge
// without listing them all.
func TestManyValuedInputs(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	many := filepath.Join(dir, "many.json")
	os.WriteFile(many, []byte(`{"schemaVersion":1,"scenarios":[`+strings.Repeat("{},", 2_000_000)+`{}]}`), 0o644)
	under := filepath.Join(dir, "under.json")
	os.WriteFile(under, []byte(`{"schemaVersion":1,"scenarios":[`+strings.Repeat("1,", 498_000)+`1]}`), 0o644)
	underContract := filepath.Join(dir, "under-contract.json")
	os.WriteFile(underContract, []byte(`{"schemaVersion":1,"tools":[`+strings.Repeat("1,", 498_000)+`1]}`), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"merge", many}, many + " holds more than 500000 JSON values"},
		{[]string{"diff", many, "../../examples/demo.contract.json"}, many + " holds more than 500000 JSON values"},
		{[]string{"merge", under}, under + " is not an mcpcheck JSON report: it does not match the report schema"},
		{[]string{"diff", underContract, "../../examples/demo.contract.json"}, underContract + ": not a contract file"},
	} {
		p := mcpcheckProc(t, procOpts{}, c.args...)
		if p.code != 2 || !strings.Contains(p.out, c.want) || len(p.out) > 2000 {
			t.Errorf("%v: exit %d\n%.2000s", c.args, p.code, p.out)
		}
		if p.rssKiB > 256<<10 {
			t.Errorf("%v: peak RSS %d KiB", c.args, p.rssKiB)
		}
		t.Logf("%v: peak RSS %d MiB", c.args[0], p.rssKiB>>10)
	}
}

// TestStepSummaryOneWrite: runs that append to one GITHUB_STEP_SUMMARY at
// the same time (the steps of a CI job may) each add their summary whole,
// after what was there: each is one write with O_APPEND.
func TestStepSummaryOneWrite(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	report := filepath.Join(dir, "shard.json")
	if r := runCmd(t, "--config", "testdata/failing.yaml", "--shard", "1/1", "--json", report); r.code != 1 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	one := filepath.Join(dir, "one.md")
	if r := runCmd(t, "merge", report, "--summary", one); r.code != 1 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	summary, _ := os.ReadFile(one)
	step := filepath.Join(dir, "step_summary.md")
	os.WriteFile(step, []byte("# An earlier step\n"), 0o644)
	const runs = 6
	var wg sync.WaitGroup
	for range runs {
		wg.Go(func() {
			if p := mcpcheckProc(t, procOpts{env: []string{"GITHUB_STEP_SUMMARY=" + step}}, "merge", report); p.code != 1 {
				t.Errorf("merge: exit %d\n%s", p.code, p.out)
			}
		})
	}
	wg.Wait()
	got, _ := os.ReadFile(step)
	if want := "# An earlier step\n" + strings.Repeat(string(summary), runs); string(got) != want {
		t.Errorf("the step summary is not the earlier text and %d whole summaries:\n%s", runs, got)
	}
}
