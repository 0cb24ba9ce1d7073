package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// The signal tests run mcpcheck as a process of its own (the test binary as
// the CLI: runWithSignals, exactly as main) against hostile servers that
// never answer and ignore SIGTERM and the end of their input (mcpcheck demo
// --hostile sigterm-deaf*), and signal it while the server holds a call.

// markEnv is hostile.MarkEnv: the file a sigterm-deaf server writes its pid
// to when the request it will never answer arrives.
const markEnv = "HOSTILE_MARK"

// signalBound is how long after its first signal an interrupted mcpcheck
// may take to exit: generous (the machine is shared); the rule is ~5 s.
const signalBound = 20 * time.Second

// lockedBuffer is an output of a child process read while it runs.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// cliProc is mcpcheck running as a child process.
type cliProc struct {
	cmd            *exec.Cmd
	stdout, stderr lockedBuffer
	exited         chan struct{}
}

// startCLI starts the test binary as mcpcheck with args, in the package
// directory.
func startCLI(t *testing.T, stdin io.Reader, args ...string) *cliProc {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c := &cliProc{cmd: exec.Command(self, args...), exited: make(chan struct{})}
	c.cmd.Env = append(os.Environ(), asCLI+"=1")
	c.cmd.Stdin = stdin
	c.cmd.Stdout, c.cmd.Stderr = &c.stdout, &c.stderr
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		c.cmd.Wait()
		close(c.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-c.exited:
		default:
			c.cmd.Process.Kill()
			<-c.exited
		}
	})
	return c
}

func (c *cliProc) signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := c.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("signalling mcpcheck: %v", err)
	}
}

// wait waits up to d for mcpcheck to exit and returns its exit code (-1
// when a signal killed it: mcpcheck must exit, not die).
func (c *cliProc) wait(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case <-c.exited:
	case <-time.After(d):
		t.Fatalf("mcpcheck still running %s after the signal\nstdout:\n%s\nstderr:\n%s", d, c.stdout.String(), c.stderr.String())
	}
	st := c.cmd.ProcessState
	if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
		t.Logf("mcpcheck peak RSS %d KiB", ru.Maxrss)
		if ru.Maxrss > 256<<10 {
			t.Errorf("mcpcheck peak RSS %d KiB, want < 256 MiB", ru.Maxrss)
		}
	}
	return st.ExitCode()
}

// waitMark waits for the sigterm-deaf server to write its pid to path: the
// request it never answers has arrived.
func waitMark(t *testing.T, c *cliProc, path string) int {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil {
			if pid, err := strconv.Atoi(string(b)); err == nil {
				return pid
			}
		}
		select {
		case <-c.exited:
			t.Fatalf("mcpcheck exited before the server got the call\nstdout:\n%s\nstderr:\n%s", c.stdout.String(), c.stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("the server never got the call\nstderr:\n%s", c.stderr.String())
	return 0
}

// waitProcessGone fails unless pid has exited (or is a zombie) within a minute.
func waitProcessGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		// The state follows the ")" closing the command name.
		if err != nil || bytes.Contains(st[bytes.LastIndexByte(st, ')'):], []byte(") Z")) {
			return
		}
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("server process %d outlived mcpcheck", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// deafFixture writes a fixture that runs a sigterm-deaf mode over stdio
// (the server marks mark) and returns its path.
func deafFixture(t *testing.T, dir, name, mode, mark, body string) string {
	t.Helper()
	path := filepath.Join(dir, name+".yaml")
	fx := fmt.Sprintf("name: %s\ncommand: [mcpcheck, demo, --hostile, %s]\nenv: {%s: %q}\nallowTools: [wait]\n%s", name, mode, markEnv, mark, body)
	if err := os.WriteFile(path, []byte(fx), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A call the server never answers, one step after it, and a scenario not
// begun: what an interrupted run reports of each.
const deafScenarios = `timeoutMs: 60000
scenarios:
  - name: Waits
    steps:
      - {id: wait, tool: wait, arguments: {text: hi}}
      - {id: after, tool: wait, arguments: {text: hi}}
  - name: Never starts
    steps:
      - {id: one, tool: wait, arguments: {text: hi}}
`

var deafReceipts = []string{
	"Waits / wait: skipped (interrupted while waiting for the server)",
	"Waits / after: skipped (not run: the run was interrupted)",
	"Never starts / one: skipped (not run: the run was interrupted)",
}

// TestSignalStopsRun: the first SIGINT or SIGTERM while a call hangs on a
// server that ignores SIGTERM stops the run within the bound, writes every
// report asked for, complete, with the steps skipped "interrupted", exits
// 130 or 143 and leaves no server process.
func TestSignalStopsRun(t *testing.T) {
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			parallel(t)
			dir := t.TempDir()
			mark := filepath.Join(dir, "mark")
			fx := deafFixture(t, dir, "Deaf", "sigterm-deaf", mark, deafScenarios)
			out := func(name string) string { return filepath.Join(dir, name) }
			c := startCLI(t, nil, "--config", fx, "--json", out("r.json"), "--junit", out("r.xml"),
				"--html", out("r.html"), "--summary", out("r.md"), "--trace", out("r.trace"))
			pid := waitMark(t, c, mark)
			began := time.Now()
			c.signal(t, tc.sig)
			code := c.wait(t, signalBound)
			t.Logf("exit %d %s after the signal", code, time.Since(began).Round(time.Millisecond))
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, c.stdout.String(), c.stderr.String())
			}
			waitProcessGone(t, pid)
			checkInterruptedReports(t, dir)
			if !strings.Contains(c.stderr.String(), "stopping; writing the reports of what ran") {
				t.Errorf("stderr does not say the signal was taken:\n%s", c.stderr.String())
			}
			if s := c.stdout.String(); !strings.Contains(s, "error interrupted") || !strings.Contains(s, "FAIL Deaf") {
				t.Errorf("human report does not say it was interrupted:\n%s", s)
			}
		})
	}
}

// checkInterruptedReports checks the reports of the deafScenarios run in
// dir: each complete, the verdict not a pass, the steps skipped.
func checkInterruptedReports(t *testing.T, dir string) {
	t.Helper()
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	data := read("r.json")
	m := validReport(t, data)
	if f, _ := m["failure"].(map[string]any); f == nil || f["stage"] != "interrupted" || m["passed"] != false {
		t.Errorf("failure = %v, passed = %v", m["failure"], m["passed"])
	}
	got := receipts(t, data)
	for _, want := range deafReceipts {
		if !strings.Contains(got, want) {
			t.Errorf("JSON report lacks %q:\n%s", want, got)
		}
	}
	var junit struct {
		Skipped int `xml:"skipped,attr"`
		Suites  []struct {
			Cases []struct {
				Name    string `xml:"name,attr"`
				Skipped *struct {
					Message string `xml:"message,attr"`
				} `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal([]byte(read("r.xml")), &junit); err != nil {
		t.Errorf("JUnit report: %v", err)
	}
	var skipped []string
	for _, s := range junit.Suites {
		for _, c := range s.Cases {
			if c.Skipped != nil {
				skipped = append(skipped, c.Skipped.Message)
			}
		}
	}
	if want := []string{"interrupted while waiting for the server", "not run: the run was interrupted", "not run: the run was interrupted"}; fmt.Sprint(skipped) != fmt.Sprint(want) {
		t.Errorf("JUnit skipped %q, want %q", skipped, want)
	}
	if html := read("r.html"); !strings.HasSuffix(strings.TrimSpace(html), "</html>") || !strings.Contains(html, "interrupted while waiting for the server") {
		t.Errorf("HTML report incomplete (%d bytes)", len(html))
	}
	if md := read("r.md"); !strings.Contains(md, "3 skipped") {
		t.Errorf("Markdown summary:\n%s", md)
	}
	// The trace has the call that was cancelled, whole lines only.
	var traced []string
	sc := bufio.NewScanner(strings.NewReader(read("r.trace")))
	for sc.Scan() {
		var e struct{ Step, Status, Detail string }
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("trace line %q: %v", sc.Text(), err)
		}
		traced = append(traced, e.Step+" "+e.Status+" "+e.Detail)
	}
	if want := "wait skipped interrupted while waiting for the server"; fmt.Sprint(traced) != "["+want+"]" {
		t.Errorf("trace = %q, want [%s]", traced, want)
	}
}

// TestSignalTwice: a second SIGINT ends mcpcheck at once, before the
// server (which ignores SIGTERM) would have been shut down in order, and
// still kills it.
func TestSignalTwice(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	mark := filepath.Join(dir, "mark")
	fx := deafFixture(t, dir, "Deaf", "sigterm-deaf", mark, deafScenarios)
	c := startCLI(t, nil, "--config", fx, "--json", filepath.Join(dir, "r.json"))
	pid := waitMark(t, c, mark)
	c.signal(t, syscall.SIGINT)
	time.Sleep(200 * time.Millisecond)
	began := time.Now()
	c.signal(t, syscall.SIGINT)
	code := c.wait(t, signalBound)
	t.Logf("exit %d %s after the second signal", code, time.Since(began).Round(time.Millisecond))
	if code != 130 {
		t.Fatalf("exit %d, want 130\nstderr:\n%s", code, c.stderr.String())
	}
	if !strings.Contains(c.stderr.String(), "SIGINT again: stopped at once (1 server process group(s) killed)") {
		t.Errorf("stderr:\n%s", c.stderr.String())
	}
	waitProcessGone(t, pid)
}

// TestSignalBlockedWrite: a server that stopped reading holds a write of
// a request larger than the pipe buffer (the call after the one it took);
// the first SIGTERM still ends the run, with its report, and the server is
// killed.
func TestSignalBlockedWrite(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	mark := filepath.Join(dir, "mark")
	big := strings.Repeat("x", 1<<20)
	fx := deafFixture(t, dir, "Deaf reader", "sigterm-deaf-reader", mark, `timeoutMs: 60000
scenarios:
  - name: First
    steps:
      - {id: first, tool: wait, arguments: {text: hi}, timeoutMs: 300, expect: {outcome: timeout}}
      - {id: big, tool: wait, arguments: {text: `+big+`}}
`)
	c := startCLI(t, nil, "--config", fx, "--json", filepath.Join(dir, "r.json"))
	pid := waitMark(t, c, mark)
	// The first call times out after 300 ms; the big one is then blocked
	// writing (the report shows it was in flight): the signal goes once the
	// server's stdin is full, whatever the machine's load.
	waitStdinFull(t, pid)
	c.signal(t, syscall.SIGTERM)
	if code := c.wait(t, signalBound); code != 143 {
		t.Fatalf("exit %d, want 143\nstderr:\n%s", code, c.stderr.String())
	}
	waitProcessGone(t, pid)
	data, err := os.ReadFile(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	validReport(t, string(data))
	if got := receipts(t, string(data)); !strings.Contains(got, "First / first: passed timeout\nFirst / big: skipped (interrupted while waiting for the server)") {
		t.Errorf("receipts:\n%s", got)
	}
}

// TestSignalDuringInitialize: interrupted while the server holds
// initialize, the run reports "interrupted", not a connect failure.
func TestSignalDuringInitialize(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	mark := filepath.Join(dir, "mark")
	fx := deafFixture(t, dir, "Deaf init", "sigterm-deaf-init", mark, "initTimeoutMs: 60000\nscenarios: [{name: S, steps: [{id: one, tool: wait}]}]\n")
	c := startCLI(t, nil, "--config", fx, "--json", filepath.Join(dir, "r.json"))
	pid := waitMark(t, c, mark)
	c.signal(t, syscall.SIGINT)
	if code := c.wait(t, signalBound); code != 130 {
		t.Fatalf("exit %d, want 130\nstderr:\n%s", code, c.stderr.String())
	}
	waitProcessGone(t, pid)
	data, _ := os.ReadFile(filepath.Join(dir, "r.json"))
	m := validReport(t, string(data))
	if f, _ := m["failure"].(map[string]any); f == nil || f["stage"] != "interrupted" {
		t.Errorf("failure = %v", m["failure"])
	}
	if got := receipts(t, string(data)); !strings.Contains(got, "S / one: skipped (not run: the run was interrupted)") {
		t.Errorf("receipts:\n%s", got)
	}
}

// TestSignalHTTP: a Streamable HTTP call that the server holds open and
// never answers is cancelled by the first SIGINT.
func TestSignalHTTP(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	mark := filepath.Join(dir, "mark")
	url := hostileHTTP(t, "sigterm-deaf", markEnv+"="+mark)
	fx := filepath.Join(dir, "deaf-http.yaml")
	os.WriteFile(fx, []byte("name: Deaf\nendpoint: "+url+"\nallowTools: [wait]\n"+deafScenarios), 0o644)
	c := startCLI(t, nil, "--config", fx, "--json", filepath.Join(dir, "r.json"))
	waitMark(t, c, mark)
	c.signal(t, syscall.SIGINT)
	if code := c.wait(t, signalBound); code != 130 {
		t.Fatalf("exit %d, want 130\nstderr:\n%s", code, c.stderr.String())
	}
	data, _ := os.ReadFile(filepath.Join(dir, "r.json"))
	validReport(t, string(data))
	got := receipts(t, string(data))
	for _, want := range deafReceipts {
		if !strings.Contains(got, want) {
			t.Errorf("JSON report lacks %q:\n%s", want, got)
		}
	}
}

// TestSignalSuites: a signal during the first of two suites reports the
// second too, every step skipped, and starts no server for it.
func TestSignalSuites(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	mark, mark2 := filepath.Join(dir, "mark"), filepath.Join(dir, "mark2")
	fx := deafFixture(t, dir, "First", "sigterm-deaf", mark, deafScenarios)
	fx2 := deafFixture(t, dir, "Second", "sigterm-deaf-init", mark2, "scenarios: [{name: S, steps: [{id: one, tool: wait}]}]\n")
	c := startCLI(t, nil, "--config", fx, "--config", fx2, "--json", filepath.Join(dir, "r.json"))
	waitMark(t, c, mark)
	c.signal(t, syscall.SIGINT)
	if code := c.wait(t, signalBound); code != 130 {
		t.Fatalf("exit %d, want 130\nstderr:\n%s", code, c.stderr.String())
	}
	if _, err := os.Stat(mark2); err == nil {
		t.Errorf("the second suite's server was started after the signal")
	}
	data, _ := os.ReadFile(filepath.Join(dir, "r.json"))
	var doc struct {
		Suites []json.RawMessage `json:"suites"`
	}
	if err := json.Unmarshal(data, &doc); err != nil || len(doc.Suites) != 2 {
		t.Fatalf("JSON report of two suites: %v\n%s", err, data)
	}
	for i, want := range []string{deafReceipts[0], "S / one: skipped (not run: the run was interrupted)"} {
		validReport(t, string(doc.Suites[i]))
		if got := receipts(t, string(doc.Suites[i])); !strings.Contains(got, want) {
			t.Errorf("suite %d lacks %q:\n%s", i+1, want, got)
		}
	}
}

// TestSignalCommands: tools, snapshot and record end promptly on the first
// signal, with 130/143, and leave no server.
func TestSignalCommands(t *testing.T) {
	for _, tc := range []struct {
		name string
		mode string
		sig  syscall.Signal
		code int
		args func(fx, out string) []string
	}{
		{"tools", "sigterm-deaf-init", syscall.SIGINT, 130, func(fx, _ string) []string { return []string{"tools", "--config", fx} }},
		{"snapshot", "sigterm-deaf-init", syscall.SIGTERM, 143, func(fx, out string) []string { return []string{"snapshot", "--out", out, "--config", fx} }},
		{"record", "sigterm-deaf", syscall.SIGTERM, 143, func(_, out string) []string {
			mark := filepath.Join(filepath.Dir(out), "mark")
			return []string{"record", "--out", out, "--env", markEnv + "=" + mark, "--", "mcpcheck", "demo", "--hostile", "sigterm-deaf"}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parallel(t)
			dir := t.TempDir()
			mark := filepath.Join(dir, "mark")
			fx := deafFixture(t, dir, "Deaf", tc.mode, mark, "initTimeoutMs: 60000\n"+deafScenarios)
			out := filepath.Join(dir, "out")
			var stdin io.Reader
			if tc.name == "record" {
				// A client that initializes, calls, and keeps its end open.
				pr, pw, err := os.Pipe()
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { pr.Close(); pw.Close() })
				fmt.Fprint(pw, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n"+
					`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait","arguments":{"text":"hi"}}}`+"\n")
				stdin = pr
			}
			c := startCLI(t, stdin, tc.args(fx, out)...)
			pid := waitMark(t, c, mark)
			c.signal(t, tc.sig)
			if code := c.wait(t, signalBound); code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, c.stdout.String(), c.stderr.String())
			}
			waitProcessGone(t, pid)
			if b, err := os.ReadFile(out); err == nil && len(b) > 0 {
				t.Errorf("%s wrote %s after the signal:\n%s", tc.name, out, b)
			}
		})
	}
}

// waitStdinFull waits until the stdin pipe of process pid holds a pipe
// buffer's worth of unread bytes: a write to it blocks.
func waitStdinFull(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if n := unreadStdin(pid); n >= 1<<15 { // half a 64 KiB pipe: only the big request is that large
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the stdin of process %d never filled up", pid)
		}
	}
}

// unreadStdin is how many bytes wait in the stdin pipe of process pid (its
// FIONREAD, asked through /proc; -1 when that cannot be asked).
func unreadStdin(pid int) int {
	f, err := os.OpenFile(fmt.Sprintf("/proc/%d/fd/0", pid), os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return -1
	}
	defer f.Close()
	var n int32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), syscall.TIOCINQ, uintptr(unsafe.Pointer(&n))); errno != 0 {
		return -1
	}
	return int(n)
}
