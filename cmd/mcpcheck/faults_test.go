package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/demo"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// receipts renders every step of a JSON report as one line:
// "scenario / step: status outcome [code]", in report order.
func receipts(t *testing.T, data string) string {
	t.Helper()
	var rep struct {
		Connections int `json:"connections"`
		Restarts    int `json:"restarts"`
		Scenarios   []struct {
			Name  string `json:"name"`
			Steps []struct {
				ID        string `json:"id"`
				Status    string `json:"status"`
				Outcome   string `json:"outcome"`
				ErrorCode *int64 `json:"errorCode"`
				Reason    string `json:"reason"`
			} `json:"steps"`
		} `json:"scenarios"`
	}
	if err := json.Unmarshal([]byte(data), &rep); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "connections %d, restarts %d\n", rep.Connections, rep.Restarts)
	for _, sc := range rep.Scenarios {
		for _, st := range sc.Steps {
			fmt.Fprintf(&b, "%s / %s: %s", sc.Name, st.ID, st.Status)
			if st.Outcome != "" {
				fmt.Fprintf(&b, " %s", st.Outcome)
			}
			if st.ErrorCode != nil {
				fmt.Fprintf(&b, " %d", *st.ErrorCode)
			}
			if st.Status == "skipped" {
				fmt.Fprintf(&b, " (%s)", st.Reason)
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// TestFaultReceipts runs the fault lab over both transports and both
// protocol versions and pins the exact outcome class of every step: each
// failure class is produced by a real demo fault, and every step is
// accounted for.
func TestFaultReceipts(t *testing.T) {
	srv := httptest.NewServer(demo.Handler(demo.Options{Faults: true}))
	defer srv.Close()
	for _, tc := range []struct{ transport, fixture string }{
		{"stdio", "../../examples/faults.yaml"},
		{"http", "../../examples/faults-http.yaml"},
	} {
		for _, pv := range []string{"2025-11-25", "2026-07-28"} {
			t.Run(tc.transport+"-"+pv, func(t *testing.T) {
				args := []string{"--config", tc.fixture, "--protocol", pv, "--json", "-"}
				if tc.transport == "http" {
					args = append(args, "--url", srv.URL+"/mcp")
				}
				r := runCmd(t, args...)
				if r.code != 0 {
					t.Fatalf("exit %d\n%s", r.code, r.stderr)
				}
				validReport(t, r.stdout)
				golden(t, "receipts-"+tc.transport+"-"+pv+".golden", receipts(t, r.stdout))
			})
		}
	}
	waitNoDemoChildren(t)
}

// demoChildren lists this process's children that run this test binary as
// the demo server: those an in-process run started. Servers the tests
// start themselves (startChild) are not counted, nor the processes of
// children (the shared runs' mcpcheck processes have demos of their own,
// and start ahead of the tests: see shared_runs_test.go). A server an
// in-process run failed to stop stays this process's child while the
// tests run, so it is counted.
func demoChildren() []string {
	self, _ := os.Executable()
	me := strconv.Itoa(os.Getpid())
	var out []string
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		if _, ours := startedChildren.Load(d.Name()); ours {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", d.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(fields) < 2 || fields[1] != me {
			continue
		}
		args := strings.Split(string(cmdline), "\x00")
		if len(args) > 1 && (args[0] == self || args[0] == os.Args[0]) && args[1] == "demo" {
			out = append(out, d.Name())
		}
	}
	return out
}

func waitNoDemoChildren(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		left := demoChildren()
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("demo server processes outlived the run: %v", left)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestInterrupt is a cancelled run in the middle of a hanging call: the run
// stops promptly, writes the report of what ran, exits 1 (not a pass; a
// signal's 130/143 is runWithSignals', see signals_test.go) and leaves no
// server behind.
func TestInterrupt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "report.json")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Cancel half a second after the scenarios start (OnStart: the server
	// is up, initialized and discovered), when the hanging call, the first
	// step, is in flight. Counting from the server process's start instead
	// left the handshake in that half second, which a loaded machine can
	// take longer over.
	saved := runOptions
	defer func() { runOptions = saved }()
	opts := *runOptions
	opts.OnStart = func(*report.Report) { time.AfterFunc(500*time.Millisecond, cancel) }
	runOptions = &opts
	var out, errb strings.Builder
	began := time.Now()
	code := run(ctx, []string{"--config", "testdata/interrupt.yaml", "--json", path}, &out, &errb)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, out.String(), errb.String())
	}
	if d := time.Since(began); d > 30*time.Second {
		t.Errorf("the interrupted run took %s", d)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no partial report: %v", err)
	}
	m := validReport(t, string(data))
	if f, _ := m["failure"].(map[string]any); f == nil || f["stage"] != "interrupted" {
		t.Errorf("failure = %v", m["failure"])
	}
	got := receipts(t, string(data))
	for _, want := range []string{
		"Hangs / hang: skipped (interrupted while waiting for the server)",
		"Hangs / after: skipped (not run: the run was interrupted)",
		"Never starts / ping: skipped (not run: the run was interrupted)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("receipts lack %q:\n%s", want, got)
		}
	}
	if !strings.Contains(out.String(), "interrupted") {
		t.Errorf("human report does not say it was interrupted:\n%s", out.String())
	}
	waitNoDemoChildren(t)
}
