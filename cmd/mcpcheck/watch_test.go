//go:build linux

package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestWatch runs mcpcheck --watch as a process of its own on a real
// pseudo-terminal: it runs the fixture, runs it again when the fixture
// changes and when a file under --watch-path changes, clears the screen
// before each run so the latest run is what shows, and leaves on SIGINT
// with exit 130.
func TestWatch(t *testing.T) {
	terminalEnv(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	os.Mkdir(src, 0o755)
	failing := strings.ReplaceAll(lastFailedFixture, "REV", "3")
	fixture := writeFixture(t, dir, "w.yaml", failing)
	p := openPTY(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "--config", fixture, "--watch", "--watch-path", src, "--no-color")
	cmd.Env = append(os.Environ(), asCLI+"=1")
	cmd.Stdout, cmd.Stderr = p.slave, p.slave
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			<-exited
		}
	})
	// waitRuns waits until the terminal shows the end of the n-th run and
	// returns what the screen shows since it was last cleared.
	waitRuns := func(n int) string {
		t.Helper()
		for deadline := time.Now().Add(60 * time.Second); ; {
			out := p.output()
			if strings.Count(out, clearScreen) >= n && strings.Count(out, "Ctrl-C to leave") >= n {
				return screen(out[strings.LastIndex(out, clearScreen)+len(clearScreen):])
			}
			if time.Now().After(deadline) {
				t.Fatalf("run %d never ended:\n%q", n, out)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	first := waitRuns(1)
	if !strings.Contains(first, "FAIL Last failed") || !strings.Contains(first, "this run: exit 1") {
		t.Fatalf("first run:\n%s", first)
	}

	// The fixture changes: the next run passes, and the screen shows it
	// alone.
	writeFixture(t, dir, "w.yaml", strings.ReplaceAll(lastFailedFixture, "REV", "0"))
	second := waitRuns(2)
	if !strings.Contains(second, "PASS Last failed") || strings.Contains(second, "FAIL") || !strings.Contains(second, "this run: exit 0") {
		t.Errorf("second run:\n%s", second)
	}

	// A file under --watch-path appears: one more run.
	os.WriteFile(filepath.Join(src, "server.py"), []byte("print()\n"), 0o644)
	if third := waitRuns(3); !strings.Contains(third, "PASS Last failed") {
		t.Errorf("third run:\n%s", third)
	}
	// Nothing changes (the run's own .mcpcheck/last-run.json aside): no
	// run starts.
	time.Sleep(2 * time.Second)
	if n := strings.Count(p.output(), clearScreen); n != 3 {
		t.Errorf("%d runs without a change, want 3", n)
	}
	// A fixture broken while being edited is exit 2, and still watched.
	writeFixture(t, dir, "w.yaml", "name: [\n")
	if broken := waitRuns(4); !strings.Contains(broken, "this run: exit 2") || !strings.Contains(broken, "w.yaml:") {
		t.Errorf("broken fixture:\n%s", broken)
	}
	writeFixture(t, dir, "w.yaml", failing)
	if fixed := waitRuns(5); !strings.Contains(fixed, "FAIL Last failed") {
		t.Errorf("after the fix:\n%s", fixed)
	}

	cmd.Process.Signal(syscall.SIGINT)
	select {
	case err := <-exited:
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != exitInterrupted {
			t.Errorf("after SIGINT: %v, want exit 130", err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("--watch did not leave on SIGINT")
	}
}

// TestTTYLoop streams, on a real pseudo-terminal, a run with -v and one
// with a retried scenario: the terminal gets the very lines of the report
// a file gets, exchanges and the flaky and retried lines included (the
// stream hears of a retried scenario once, at its end).
func TestTTYLoop(t *testing.T) {
	terminalEnv(t)
	dir := t.TempDir()
	t.Setenv("MCPCHECK_TEST_EXCHANGE_TOKEN", secretValue)
	exchanges := writeFixture(t, dir, "x.yaml", strings.Replace(exchangeFixture, "LONG", "short", 1))
	count := filepath.Join(dir, "count")
	flaky := writeFixture(t, dir, "flaky.yaml", strings.Replace(flakyFixture, "COUNT", count, 1))
	for _, tc := range []struct {
		name, shows string
		args        []string
	}{
		{"verbose", "request: tools/call", []string{"--config", exchanges, "-v", "--no-color"}},
		{"retries", "  FLAKY flaky: passed on run 2 of 2", []string{"--config", flaky, "--no-color"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(count) // both runs see the same calls
			r := runCmd(t, tc.args...)
			os.Remove(count)
			p := openPTY(t)
			code, _, _ := ttyRun(t, context.Background(), p, false, tc.args...)
			raw := p.drain()
			if code != r.code {
				t.Errorf("exit %d on a terminal, %d without", code, r.code)
			}
			if !strings.Contains(r.stdout, tc.shows) {
				t.Fatalf("the report lacks %q:\n%s", tc.shows, r.stdout)
			}
			checkStreamed(t, raw, r.stdout)
		})
	}
}
