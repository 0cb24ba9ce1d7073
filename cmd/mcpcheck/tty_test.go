//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

// pty is a pseudo-terminal whose slave the command writes to, its master
// read all the while, opened with the standard library only.
type pty struct {
	t             *testing.T
	master, slave *os.File
	mu            sync.Mutex
	out           bytes.Buffer
	done          chan struct{}
}

func openPTY(t *testing.T) *pty {
	t.Helper()
	if _, err := os.Stat("/dev/ptmx"); err != nil {
		t.Skipf("no pseudo-terminal to stream to: %v", err)
	}
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	var n uint32
	ioctl := func(req uintptr, arg unsafe.Pointer) {
		// Control keeps the descriptor non-blocking, unlike Fd.
		rc, err := master.SyscallConn()
		if err == nil {
			rc.Control(func(fd uintptr) {
				if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, fd, req, uintptr(arg)); e != 0 {
					err = e
				}
			})
		}
		if err != nil {
			t.Fatalf("ioctl %#x: %v", req, err)
		}
	}
	unlock := int32(0)
	ioctl(syscall.TIOCSPTLCK, unsafe.Pointer(&unlock))
	ioctl(syscall.TIOCGPTN, unsafe.Pointer(&n))
	slave, err := os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		t.Fatal(err)
	}
	p := &pty{t: t, master: master, slave: slave, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			p.mu.Lock()
			p.out.Write(buf[:n])
			p.mu.Unlock()
			if err != nil {
				return // EIO once the slave is closed
			}
		}
	}()
	t.Cleanup(func() {
		slave.Close()
		master.Close()
	})
	return p
}

// output is what the terminal received so far.
func (p *pty) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// drain waits until the terminal has received everything up to the end of
// the report (a summary line), then closes the slave and waits for the
// reader, and returns what it read.
func (p *pty) drain() string {
	p.t.Helper()
	end := regexp.MustCompile(`\d+ passed, \d+ failed, \d+ skipped in [^\r\n]*\r\n$`)
	for deadline := time.Now().Add(2 * time.Minute); !end.MatchString(p.output()); {
		if time.Now().After(deadline) {
			p.t.Fatalf("the terminal never got the end of the report:\n%q", p.output())
		}
		time.Sleep(10 * time.Millisecond)
	}
	p.slave.Close()
	select {
	case <-p.done:
	case <-time.After(time.Minute):
		p.t.Fatal("the terminal's reader did not end")
	}
	return p.output()
}

// screen is what a terminal shows after out: a carriage return goes back
// to the start of the line, ESC [ K erases to its end, a line feed starts
// a new line (the terminal sends "\r\n"). An unfinished last line is kept,
// so a status line left behind would show.
func screen(out string) string {
	var b strings.Builder
	var line []rune
	col := 0
	for i := 0; i < len(out); {
		switch {
		case strings.HasPrefix(out[i:], "\x1b[K"):
			line, i = line[:col], i+3
		case out[i] == '\r':
			col, i = 0, i+1
		case out[i] == '\n':
			b.WriteString(string(line) + "\n")
			line, col, i = nil, 0, i+1
		default:
			r, n := utf8.DecodeRuneInString(out[i:])
			if col < len(line) {
				line[col] = r
			} else {
				line = append(line, r)
			}
			col, i = col+1, i+n
		}
	}
	return b.String() + string(line)
}

// terminalEnv makes the test's environment a colour terminal's, whatever
// the one running the tests is (TERM=dumb would turn streaming off).
func terminalEnv(t *testing.T) {
	t.Setenv("TERM", "xterm-256color")
	t.Setenv("NO_COLOR", "")
	os.Unsetenv("NO_COLOR")
}

// ttyRun runs the command in-process with the terminal as stdout, or as
// stderr with --json - (the JSON then goes to the returned stdout).
func ttyRun(t *testing.T, ctx context.Context, p *pty, onStderr bool, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	if onStderr {
		code = run(ctx, args, &out, p.slave)
	} else {
		code = run(ctx, args, p.slave, &errb)
	}
	return code, out.String(), errb.String()
}

var statusLine = regexp.MustCompile(`running (\d+)/(\d+) steps, (\d+) failed, [0-9.]+s`)

// checkStreamed checks a terminal's transcript against the report written
// to a file or pipe for the same fixture (plain): the status line was
// drawn before the first step line and erased for good, every line of the
// plain report is there exactly as often (the verdict line moved to the
// end, last but one), and only the suite's name is added, at the top.
func checkStreamed(t *testing.T, raw, plain string) {
	t.Helper()
	if !strings.Contains(raw, "\r\x1b[K") {
		t.Errorf("the status line was never redrawn in place:\n%q", raw)
	}
	first := statusLine.FindStringIndex(raw)
	stepLine := regexp.MustCompile(`(\n|\x1b\[K)  (ok  |FAIL|skip|flag) `).FindStringIndex(raw)
	if first == nil || stepLine == nil || first[0] > stepLine[0] {
		t.Errorf("no status line before the first step line:\n%q", raw)
	}
	shown := screen(raw)
	if statusLine.MatchString(shown) {
		t.Errorf("the status line was not erased:\n%s", shown)
	}
	count := func(s string) map[string]int {
		m := map[string]int{}
		for _, l := range strings.Split(normalize(s), "\n") {
			if l != "" {
				m[l]++
			}
		}
		return m
	}
	verdict, _, _ := strings.Cut(plain, "\n")
	suite := verdict[strings.Index(verdict, " ")+1:]
	want := count(plain)
	want[suite]++
	if diff := cmp.Diff(want, count(shown)); diff != "" {
		t.Errorf("the transcript's lines are not the report's (-report +transcript):\n%s", diff)
	}
	lines := strings.Split(strings.TrimSuffix(shown, "\n"), "\n")
	if len(lines) < 3 || lines[0] != suite || lines[len(lines)-2] != verdict {
		t.Errorf("want the suite's name first, the verdict line %q last but one:\n%s", verdict, shown)
	}
}

// TestTTYStreams runs fixtures with a real pseudo-terminal as the human
// output: the report streams under a status line, in the layout of its
// golden file, with the very lines of the report a file gets; and a file
// still gets exactly today's report (the goldens of TestDemoExample and
// TestFailingFixture).
func TestTTYStreams(t *testing.T) {
	terminalEnv(t)
	for _, tc := range []struct {
		name     string
		args     []string
		onStderr bool   // --json -: the report on stderr, the JSON on stdout
		plain    string // the golden of the report written to a file
		json     string // the golden of the JSON, with onStderr
	}{
		{name: "demo", args: []string{"--config", "../../examples/demo.yaml"}, plain: "demo.golden"},
		{name: "failing", args: []string{"--config", "testdata/failing.yaml", "--json", "-"}, onStderr: true, plain: "failing.golden", json: "failing.json.golden"},
		{name: "failing-quiet", args: []string{"--config", "testdata/failing.yaml", "--quiet"}},
		{name: "jobs", args: []string{"--config", "testdata/stream.yaml", "--jobs", "4"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append(tc.args, "--no-color")
			r := runCmd(t, args...)
			plain := r.stdout
			if tc.onStderr {
				plain = r.stderr
			}
			if tc.plain != "" {
				golden(t, tc.plain, normalize(plain))
			}

			p := openPTY(t)
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			code, stdout, stderr := ttyRun(t, ctx, p, tc.onStderr, args...)
			raw := p.drain()
			if code != r.code {
				t.Errorf("exit %d on a terminal, %d without (stderr %q)", code, r.code, stderr)
			}
			if tc.json != "" {
				golden(t, tc.json, normalizeJSON(stdout))
			}
			if strings.Contains(raw, "\x1b[3") {
				t.Errorf("--no-color coloured the terminal:\n%q", raw)
			}
			golden(t, "stream-"+tc.name+".golden", normalize(screen(raw)))
			checkStreamed(t, raw, plain)
		})
	}
}

// TestTTYOutOfOrder checks that a scenario that finishes early waits for
// the ones before it: the status line counts its steps while the slow
// first scenario still holds the terminal.
func TestTTYOutOfOrder(t *testing.T) {
	terminalEnv(t)
	p := openPTY(t)
	ttyRun(t, context.Background(), p, false, "--config", "testdata/stream.yaml", "--jobs", "4", "--no-color")
	raw := p.drain()
	slow := strings.Index(raw, "  ok   slow ")
	if slow < 0 {
		t.Fatalf("no line for the slow step:\n%q", raw)
	}
	held := false
	for _, m := range statusLine.FindAllStringSubmatch(raw[:slow], -1) {
		if n, _ := strconv.Atoi(m[1]); n > 0 {
			held = true // steps of later scenarios were final, not printed
		}
	}
	if !held {
		t.Errorf("no status line counted the later scenarios' steps before the slow one's line:\n%q", raw[:slow])
	}
	if strings.Contains(raw[:slow], "Quick") {
		t.Errorf("a later scenario was printed before the first was complete:\n%q", raw[:slow])
	}
}

// TestTTYFaultsJobs runs the fault lab four scenarios at once on a
// terminal, with its JSON report in a file: the streamed transcript holds
// every scenario once, in report order, and every step's line in order,
// with the mark of its status in that same run.
func TestTTYFaultsJobs(t *testing.T) {
	terminalEnv(t)
	p := openPTY(t)
	path := filepath.Join(t.TempDir(), "report.json")
	ttyRun(t, context.Background(), p, false, "--config", "../../examples/faults.yaml", "--jobs", "4", "--no-color", "--json", path)
	shown := screen(p.drain())
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Suite     string `json:"suite"`
		Passed    bool   `json:"passed"`
		Summary   struct{ Passed, Failed, Skipped int }
		Scenarios []struct {
			Name  string
			Steps []struct{ ID, Tool, Status string }
		}
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	if statusLine.MatchString(shown) {
		t.Errorf("the status line was not erased:\n%s", shown)
	}
	marks := map[string]string{"passed": "(ok  |flag)", "failed": "FAIL", "skipped": "skip"}
	var want strings.Builder
	want.WriteString(`(?s)^` + regexp.QuoteMeta(rep.Suite) + `\nTarget: [^\n]*\n`)
	for _, sc := range rep.Scenarios {
		want.WriteString(`\n` + regexp.QuoteMeta(sc.Name) + `\n`)
		for _, st := range sc.Steps {
			want.WriteString(`  ` + marks[st.Status] + ` ` + regexp.QuoteMeta(st.ID) + ` +` + regexp.QuoteMeta(st.Tool) + `\b[^\n]*\n(       [^\n]*\n)*`)
		}
	}
	verdict := "PASS"
	if !rep.Passed {
		verdict = "FAIL"
	}
	want.WriteString(fmt.Sprintf(`.*\n\n%s %s\n%d passed, %d failed, %d skipped in [^\n]*\n$`, verdict, regexp.QuoteMeta(rep.Suite), rep.Summary.Passed, rep.Summary.Failed, rep.Summary.Skipped))
	if !regexp.MustCompile(want.String()).MatchString(shown) {
		t.Errorf("the transcript is not the run's report in order:\n%s", shown)
	}
}

// TestTTYColor: colours on a terminal as before, none with NO_COLOR (the
// report still streams).
func TestTTYColor(t *testing.T) {
	terminalEnv(t)
	p := openPTY(t)
	ttyRun(t, context.Background(), p, false, "--config", "../../examples/demo.yaml")
	if raw := p.drain(); !strings.Contains(raw, "\x1b[32mok  \x1b[0m") || !strings.Contains(raw, "\x1b[32m\x1b[1mPASS\x1b[0m") {
		t.Errorf("no colour on a terminal:\n%q", raw)
	}
	t.Setenv("NO_COLOR", "1")
	p = openPTY(t)
	ttyRun(t, context.Background(), p, false, "--config", "../../examples/demo.yaml")
	if raw := p.drain(); strings.Contains(raw, "\x1b[3") || !statusLine.MatchString(raw) {
		t.Errorf("NO_COLOR: want a stream without colour:\n%q", raw)
	}
}

// TestTTYInterrupt is Ctrl-C while a call hangs, on a terminal: the status
// line goes, the steps not run and the final parts are printed, the
// verdict last.
func TestTTYInterrupt(t *testing.T) {
	terminalEnv(t)
	p := openPTY(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		// Cancel once the status line has been redrawn a few times: the
		// run is going, the hanging call in flight.
		for ctx.Err() == nil && len(statusLine.FindAllString(p.output(), -1)) < 4 {
			time.Sleep(20 * time.Millisecond)
		}
		cancel()
	}()
	code, _, stderr := ttyRun(t, ctx, p, false, "--config", "testdata/interrupt.yaml", "--no-color")
	if code != 1 {
		t.Errorf("exit %d, want 1 (stderr %q)", code, stderr)
	}
	raw := p.drain()
	golden(t, "stream-interrupt.golden", normalize(screen(raw)))
	if statusLine.MatchString(screen(raw)) {
		t.Errorf("the status line was not erased:\n%s", screen(raw))
	}
	waitNoDemoChildren(t)
}

// TestTTYSelection: on a terminal, a scenario left out by the selection is
// the same one line as in a file.
func TestTTYSelection(t *testing.T) {
	terminalEnv(t)
	args := []string{"--config", "testdata/tagged.yaml", "--tag", "write", "--no-color"}
	r := runCmd(t, args...)
	p := openPTY(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	code, _, stderr := ttyRun(t, ctx, p, false, args...)
	if code != 0 || r.code != 0 {
		t.Errorf("exit %d on a terminal, %d without (stderr %q)", code, r.code, stderr)
	}
	checkStreamed(t, p.drain(), r.stdout)
	if !strings.Contains(r.stdout, "Read the household\n  skip 1 step, not selected: it has no tag --tag names\n") {
		t.Errorf("the report:\n%s", r.stdout)
	}
}

// TestTTYSeveralSuites streams suites one after another on a terminal:
// each one's lines as it goes, then the total; nothing of the status line
// is left, and the lines are the ones a file gets.
func TestTTYSeveralSuites(t *testing.T) {
	terminalEnv(t)
	args := []string{"--config", "../../examples/demo.yaml", "--config", "testdata/failing.yaml", "--no-color"}
	r := runCmd(t, args...)
	p := openPTY(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	code, _, stderr := ttyRun(t, ctx, p, false, args...)
	shown := screen(p.drain())
	if code != r.code || code != 1 {
		t.Errorf("exit %d on a terminal, %d without (stderr %q)", code, r.code, stderr)
	}
	if statusLine.MatchString(shown) {
		t.Errorf("the status line was not erased:\n%s", shown)
	}
	count := func(s string) map[string]int {
		m := map[string]int{}
		for _, l := range strings.Split(normalize(s), "\n") {
			m[l]++
		}
		return m
	}
	want := count(r.stdout)
	// A streamed suite's name comes first, before its verdict at the end.
	want["Household revision and idempotency regression"]++
	want["Failures are reported with paths"]++
	if diff := cmp.Diff(want, count(shown)); diff != "" {
		t.Errorf("the transcript's lines are not the report's (-report +transcript):\n%s", diff)
	}
	if !strings.HasSuffix(strings.TrimSpace(shown), "FAIL total: 2 suites, 1 passed, 1 failed; steps: 12 passed, 2 failed, 1 skipped in "+lastWord(shown)) {
		t.Errorf("the total is not last:\n%s", shown)
	}
}

func lastWord(s string) string {
	f := strings.Fields(s)
	return f[len(f)-1]
}
