package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The tests below run mcpcheck as a child process (the test binary with
// MCPCHECK_TEST_AS_CLI=1) against hostile stdio servers (the test binary
// again, `demo --hostile MODE`), one per class of attack, and check what a
// user would: the exit code, the outcome of the call, that the run ends
// within its timeouts plus a generous constant, that mcpcheck's peak RSS
// stays under 256 MiB, and that no process the server started is left.

// hostileTimeoutMs is the fixtures' step timeout.
const hostileTimeoutMs = 3000

// hostileSlack is what a run may take beyond its steps' timeouts: session
// shutdowns (two graces of 2 s and a kill), on a loaded machine.
const hostileSlack = 20 * time.Second

// maxRSSKiB is the memory bound of mcpcheck on any hostile input.
const maxRSSKiB = 256 << 10

// hostileRun is one run of mcpcheck as a process.
type hostileRun struct {
	code   int
	wall   time.Duration
	rssKiB int64
	stdout string
	stderr string
	report struct {
		Warnings  []string `json:"warnings"`
		Scenarios []struct {
			Steps []struct {
				ID         string  `json:"id"`
				Status     string  `json:"status"`
				Outcome    string  `json:"outcome"`
				DurationMs float64 `json:"durationMs"`
			} `json:"steps"`
		} `json:"scenarios"`
	}
}

// outcome is the outcome of step id.
func (h *hostileRun) outcome(id string) string {
	for _, sc := range h.report.Scenarios {
		for _, st := range sc.Steps {
			if st.ID == id {
				return st.Outcome
			}
		}
	}
	return ""
}

// runCLI runs the test binary as mcpcheck with args and stdin, bounded by
// limit, and measures it.
func runCLI(t *testing.T, limit time.Duration, stdin []byte, env []string, args ...string) hostileRun {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), asCLI+"=1"), env...)
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	began := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(limit):
		cmd.Process.Kill()
		<-done
		t.Fatalf("mcpcheck %s did not end within %s; stderr:\n%s", strings.Join(args, " "), limit, errb.String())
	}
	h := hostileRun{code: cmd.ProcessState.ExitCode(), wall: time.Since(began), stdout: out.String(), stderr: errb.String()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		h.rssKiB = ru.Maxrss
	}
	if h.rssKiB > maxRSSKiB && !raceEnabled {
		t.Errorf("peak RSS %d KiB, over %d KiB", h.rssKiB, maxRSSKiB)
	}
	return h
}

// runHostile runs a fixture of two echo steps (the first with text; the
// second runs whatever became of the first) against `demo --hostile mode`,
// with env for the server.
func runHostile(t *testing.T, mode, text string, env map[string]string) hostileRun {
	t.Helper()
	dir := t.TempDir()
	argText, _ := json.Marshal(text)
	if env == nil {
		env = map[string]string{}
	}
	envYAML, _ := json.Marshal(env)
	fixture := fmt.Sprintf(`name: hostile %s
command: [%q, demo, --hostile, %s]
env: %s
protocolVersion: "2025-11-25"
timeoutMs: %d
allowTools: [echo]
scenarios:
  - name: s
    continueOnFailure: true
    steps:
      - {id: call, tool: echo, arguments: {text: %s}}
      - {id: again, tool: echo, arguments: {text: "hi"}}
`, mode, os.Args[0], mode, envYAML, hostileTimeoutMs, argText)
	path := filepath.Join(dir, "fixture.yaml")
	if err := os.WriteFile(path, []byte(fixture), 0o644); err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(dir, "report.json")
	// Two steps at most: both may time out.
	limit := 2*hostileTimeoutMs*time.Millisecond + hostileSlack
	h := runCLI(t, limit+time.Minute, nil, nil, "--config", path, "--json", report)
	if h.wall > limit {
		t.Errorf("the run took %s, over its timeouts plus %s", h.wall, hostileSlack)
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatalf("no report: %v\nstdout:\n%s\nstderr:\n%s", err, h.stdout, h.stderr)
	}
	if err := json.Unmarshal(data, &h.report); err != nil {
		t.Fatal(err)
	}
	return h
}

// alive reports whether process pid exists (a zombie counts: it was not
// reaped).
func processAlive(pid int) bool {
	return syscall.Kill(pid, 0) == nil
}

// waitNoProcess fails unless the process whose pid file names is gone
// within a few seconds; it kills it if not, so no test leaves it behind.
func waitNoProcess(t *testing.T, pidfile string) {
	t.Helper()
	var pid int
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		b, err := os.ReadFile(pidfile)
		if err == nil {
			if pid, err = strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pid in %s", pidfile)
		}
	}
	for deadline := time.Now().Add(30 * time.Second); processAlive(pid); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("process %d outlived the run", pid)
		}
	}
}

// TestStdioHonest is the control: the same minimal server, behaving, shows
// no failure and no warning.
func TestStdioHonest(t *testing.T) {
	parallel(t)
	h := runHostile(t, "honest", "hello", nil)
	if h.code != exitPass || h.outcome("call") != "ok" || h.outcome("again") != "ok" || len(h.report.Warnings) > 0 {
		t.Errorf("exit %d, outcomes %s/%s, warnings %q\n%s", h.code, h.outcome("call"), h.outcome("again"), h.report.Warnings, h.stdout)
	}
}

// TestStdioOversizedLine: a line longer than maxMessageBytes (one that
// never ends, one of 200 MB) is oversized_response, never held whole.
func TestStdioOversizedLine(t *testing.T) {
	parallelParent(t)
	for _, mode := range []string{"stdio-endless-line", "stdio-huge-line"} {
		t.Run(mode, func(t *testing.T) {
			parallel(t)
			h := runHostile(t, mode, "hello", nil)
			if h.code != exitFail || h.outcome("call") != "oversized_response" {
				t.Errorf("exit %d, outcome %q, want 1 and oversized_response\n%s", h.code, h.outcome("call"), h.stdout)
			}
		})
	}
}

// TestStdioServerStopsReading: a request larger than the pipe buffer to a
// server that no longer reads its stdin ends at the step's timeout as
// transport_closed, and the run goes on.
func TestStdioServerStopsReading(t *testing.T) {
	parallel(t)
	h := runHostile(t, "stdio-stop-reading", strings.Repeat("x", 3<<19), nil)
	if h.code != exitFail || h.outcome("call") != "transport_closed" {
		t.Fatalf("exit %d, outcome %q, want 1 and transport_closed\n%s", h.code, h.outcome("call"), h.stdout)
	}
	st := h.report.Scenarios[0].Steps[0]
	if !strings.Contains(h.stdout, "stopped reading its stdin") {
		t.Errorf("the output does not say the server stopped reading:\n%s", h.stdout)
	}
	if d := time.Duration(st.DurationMs * float64(time.Millisecond)); d > hostileTimeoutMs*time.Millisecond+5*time.Second {
		t.Errorf("the step took %s, its timeout is %dms", d, hostileTimeoutMs)
	}
}

// TestStdioRequestFlood: a server that floods the client with requests and
// stops reading the answers: the call ends at its timeout, the session
// closes in bounded time.
func TestStdioRequestFlood(t *testing.T) {
	parallel(t)
	h := runHostile(t, "stdio-request-flood", "hello", nil)
	if h.code != exitFail || h.outcome("call") != "timeout" {
		t.Errorf("exit %d, outcome %q, want 1 and timeout\n%s", h.code, h.outcome("call"), h.stdout)
	}
	// The next call waits behind the client's stuck answers: it ends by
	// its timeout too, or with the session they closed.
	if o := h.outcome("again"); o != "timeout" && o != "transport_closed" {
		t.Errorf("the next step: outcome %q\n%s", o, h.stdout)
	}
}

// TestStdioRequestStorm: 30,000 requests from the server during each call;
// the run ends within its timeouts (whether a call made it in time depends
// on the machine, for either step: each ends ok or timeout, and the exit
// status says whether both were ok).
func TestStdioRequestStorm(t *testing.T) {
	parallel(t)
	h := runHostile(t, "stdio-request-storm", "hello", nil)
	call, again := h.outcome("call"), h.outcome("again")
	allOK := call == "ok" && again == "ok"
	for _, o := range []string{call, again} {
		if o != "ok" && o != "timeout" {
			allOK = false
			t.Errorf("outcome %q, want ok or timeout", o)
		}
	}
	if want := map[bool]int{true: exitPass, false: exitFail}[allOK]; h.code != want {
		t.Errorf("exit %d with outcomes %s/%s, want %d\n%s", h.code, call, again, want, h.stdout)
	}
}

// TestStdioOddIDs: responses whose id is null, an object, an array or
// missing are ignored with a warning; the call gets its real answer.
func TestStdioOddIDs(t *testing.T) {
	parallel(t)
	h := runHostile(t, "stdio-odd-ids", "hello", nil)
	if h.code != exitPass || h.outcome("call") != "ok" {
		t.Fatalf("exit %d, outcome %q, want 0 and ok\n%s", h.code, h.outcome("call"), h.stdout)
	}
	all := strings.Join(h.report.Warnings, "\n")
	for _, w := range []string{"id null", "an object as its id", "an array as its id", "without an id"} {
		if !strings.Contains(all, w) {
			t.Errorf("no warning about a response with %s in %q", w, h.report.Warnings)
		}
	}
	if strings.Contains(h.stdout+all, "invalid request") {
		t.Errorf("an invented error reached the report:\n%s", h.stdout)
	}
}

// TestStdioReusedID: a server request with the pending call's id is a
// request, not a second response.
func TestStdioReusedID(t *testing.T) {
	parallel(t)
	h := runHostile(t, "stdio-reuse-id", "hello", nil)
	if h.code != exitPass || h.outcome("call") != "ok" {
		t.Fatalf("exit %d, outcome %q, want 0 and ok\n%s", h.code, h.outcome("call"), h.stdout)
	}
	for _, w := range h.report.Warnings {
		if strings.Contains(w, "more than one response") {
			t.Errorf("false warning: %s", w)
		}
	}
}

// TestStdioNoOrphans: a grandchild that left the server's process group
// (setsid) and ignores SIGTERM, one left by a server that exited, and a
// server that ignores SIGTERM: none is left after a run, tools, snapshot
// or record.
func TestStdioNoOrphans(t *testing.T) {
	parallelParent(t)
	for _, c := range []struct {
		name, mode string
		code       int
		outcome    string // of the call, when it matters
	}{
		{"run", "stdio-setsid-grandchild", exitPass, ""},
		{"server-exits", "stdio-daemon-exit", exitFail, "transport_closed"},
		{"ignores-sigterm", "stdio-ignore-term", exitPass, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			parallel(t)
			pidfile := filepath.Join(t.TempDir(), "pid")
			h := runHostile(t, c.mode, "hello", map[string]string{"HOSTILE_PID_FILE": pidfile})
			if h.code != c.code || (c.outcome != "" && h.outcome("call") != c.outcome) {
				t.Errorf("exit %d, outcome %q\n%s", h.code, h.outcome("call"), h.stdout)
			}
			waitNoProcess(t, pidfile)
		})
	}
	for _, sub := range []string{"tools", "snapshot"} {
		t.Run(sub, func(t *testing.T) {
			parallel(t)
			dir := t.TempDir()
			pidfile := filepath.Join(dir, "pid")
			args := []string{sub}
			if sub == "snapshot" {
				args = append(args, "--out", filepath.Join(dir, "contract.json"))
			}
			args = append(args, "--env", "HOSTILE_PID_FILE="+pidfile, "--", os.Args[0], "demo", "--hostile", "stdio-setsid-grandchild")
			h := runCLI(t, hostileSlack+time.Minute, nil, nil, args...)
			if h.code != exitPass || h.wall > hostileSlack {
				t.Errorf("exit %d in %s\n%s%s", h.code, h.wall, h.stdout, h.stderr)
			}
			waitNoProcess(t, pidfile)
		})
	}
	t.Run("record", func(t *testing.T) {
		parallel(t)
		dir := t.TempDir()
		pidfile := filepath.Join(dir, "pid")
		h := runCLI(t, hostileSlack+time.Minute, []byte(recordClient), nil,
			"record", "--out", filepath.Join(dir, "rec.yaml"), "--env", "HOSTILE_PID_FILE="+pidfile,
			"--", os.Args[0], "demo", "--hostile", "stdio-setsid-grandchild")
		// The grandchild holds the server's stdout open: record still ends.
		if h.code != exitPass || h.wall > hostileSlack {
			t.Errorf("exit %d in %s\n%s", h.code, h.wall, h.stderr)
		}
		waitNoProcess(t, pidfile)
	})
}

// recordClient is a client's side of a session: the handshake and one
// tools/call, then its stdin closes.
const recordClient = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}
`

// TestRecordOversizedLine: record proxying a line without end stops at
// maxMessageBytes, says so, and holds none of it.
func TestRecordOversizedLine(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	h := runCLI(t, hostileSlack+time.Minute, []byte(recordClient), nil,
		"record", "--out", filepath.Join(dir, "rec.yaml"), "--", os.Args[0], "demo", "--hostile", "stdio-endless-line")
	if h.code != exitFail || !strings.Contains(h.stderr, "maxMessageBytes") || h.wall > hostileSlack {
		t.Errorf("exit %d in %s, stderr:\n%s", h.code, h.wall, h.stderr)
	}
}

// TestRecordMaxMessageBytes: --max-message-bytes sets record's bound: an
// honest answer longer than it ends the session, saying the bound; a value
// out of range is a command-line error.
func TestRecordMaxMessageBytes(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	long := strings.Replace(recordClient, `{"text":"hi"}`, `{"text":"`+strings.Repeat("x", 2000)+`"}`, 1)
	h := runCLI(t, hostileSlack+time.Minute, []byte(long), nil,
		"record", "--out", filepath.Join(dir, "rec.yaml"), "--max-message-bytes", "1024", "--", os.Args[0], "demo", "--hostile", "honest")
	if h.code != exitFail || !strings.Contains(h.stderr, "1024 bytes") {
		t.Errorf("exit %d, stderr:\n%s", h.code, h.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "rec.yaml")); err == nil {
		t.Error("a session ended by the bound wrote a fixture")
	}
	h = runCLI(t, time.Minute, nil, nil, "record", "--out", filepath.Join(dir, "rec.yaml"), "--max-message-bytes", "10", "--", os.Args[0], "demo")
	if h.code != exitBadArgs || !strings.Contains(h.stderr, "--max-message-bytes must be from 1024") {
		t.Errorf("exit %d, stderr:\n%s", h.code, h.stderr)
	}
}
