package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/config"
)

// The tests in this file drive the demo's hostile HTTP modes (mcpcheck demo
// --hostile MODE --http) with mcpcheck running as a child process, so that
// its wall time and peak RSS are its own: issue 17's classes 1 (credentials
// go only to the configured origin), 2 (every bound holds), 3 (memory is
// bounded) and 10 (no invented messages) over Streamable HTTP and legacy
// SSE.

// httpCanary is the credential the fixtures send; it must reach no other
// origin and appear in no output.
const httpCanary = "Bearer hostile-http-canary-7f3a"

// maxChildRSS is the peak RSS a hostile input may cost mcpcheck.
const maxChildRSS = 256 << 20

// startHostileHTTP starts `demo --hostile mode --http 127.0.0.1:0` as a
// child with env added and returns its base URL.
func startHostileHTTP(t *testing.T, mode string, env ...string) string {
	t.Helper()
	return strings.TrimSuffix(hostileHTTP(t, mode, env...), "/mcp")
}

// childRun is one run of mcpcheck as a child process.
type childRun struct {
	code           int
	wall           time.Duration
	rss            int64 // peak, bytes
	stdout, stderr string
	report         map[string]any // the JSON report, nil if none
}

// runChild runs mcpcheck on a fixture that calls step once against url,
// with transport, a 3 s step timeout, and the canary as Authorization.
func runChild(t *testing.T, url, transport, step string, extra ...string) childRun {
	t.Helper()
	dir := t.TempDir()
	fixture := filepath.Join(dir, "f.yaml")
	tool := "echo"
	if m := regexp.MustCompile(`tool: (\w+)`).FindStringSubmatch(step); m != nil {
		tool = m[1]
	}
	yaml := fmt.Sprintf(`name: hostile http
endpoint: %s
transport: %s
headersFromEnv: {Authorization: HOSTILE_HTTP_AUTH}
allowTools: [%s]
timeoutMs: 3000
initTimeoutMs: 10000
scenarios:
  - name: hostile
    steps:
      - %s
`, url, transport, tool, step)
	if err := os.WriteFile(fixture, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(dir, "report.json")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], append([]string{"--config", fixture, "--json", report}, extra...)...)
	cmd.Env = append(os.Environ(), asCLI+"=1", "HOSTILE_HTTP_AUTH="+httpCanary)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	began := time.Now()
	err := cmd.Run()
	r := childRun{wall: time.Since(began), stdout: out.String(), stderr: errb.String(), code: cmd.ProcessState.ExitCode()}
	if err != nil && r.code < 0 {
		t.Fatalf("mcpcheck did not exit: %v (after %s)\n%s%s", err, r.wall, r.stdout, r.stderr)
	}
	r.rss = cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
	if data, err := os.ReadFile(report); err == nil {
		json.Unmarshal(data, &r.report)
		if strings.Contains(string(data), "hostile-http-canary") {
			t.Errorf("the credential is in the JSON report")
		}
	}
	if strings.Contains(r.stdout+r.stderr, "hostile-http-canary") {
		t.Errorf("the credential is in mcpcheck's output")
	}
	return r
}

// stepDuration is how long the report's only step took.
func (r childRun) stepDuration() time.Duration {
	scs, _ := r.report["scenarios"].([]any)
	if len(scs) != 1 {
		return 0
	}
	steps, _ := scs[0].(map[string]any)["steps"].([]any)
	if len(steps) != 1 {
		return 0
	}
	d, _ := steps[0].(map[string]any)["durationMs"].(float64)
	return time.Duration(d * float64(time.Millisecond))
}

// stepOutcome is the outcome of the report's only step.
func (r childRun) stepOutcome() string {
	scs, _ := r.report["scenarios"].([]any)
	if len(scs) != 1 {
		return ""
	}
	steps, _ := scs[0].(map[string]any)["steps"].([]any)
	if len(steps) != 1 {
		return ""
	}
	o, _ := steps[0].(map[string]any)["outcome"].(string)
	return o
}

// TestHTTPCredentialsStayOnOrigin: a legacy SSE server whose endpoint
// event names another origin gets nothing sent there (class 1). The other
// origin is a second listener of the test's, which counts what it
// receives; the run fails naming both origins. The same server naming its
// own origin passes.
func TestHTTPCredentialsStayOnOrigin(t *testing.T) {
	parallel(t)
	var got atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Add(1)
		w.WriteHeader(http.StatusAccepted)
	}))
	defer other.Close()

	base := startHostileHTTP(t, "sse-other-origin", "HOSTILE_ENDPOINT_URL="+other.URL+"/message")
	r := runChild(t, base+"/sse", "sse", "tool: echo")
	if r.code != 1 {
		t.Errorf("exit %d, want 1\n%s%s", r.code, r.stdout, r.stderr)
	}
	if n := got.Load(); n != 0 {
		t.Errorf("the other origin received %d requests", n)
	}
	if !strings.Contains(r.stdout, other.URL) || !strings.Contains(r.stdout, base) {
		t.Errorf("the failure does not name both origins (%s, %s):\n%s", other.URL, base, r.stdout)
	}

	honest := startHostileHTTP(t, "sse-other-origin")
	if r := runChild(t, honest+"/sse", "sse", "tool: echo"); r.code != 0 || r.stepOutcome() != "ok" {
		t.Errorf("the same server on its own origin: exit %d, outcome %q\n%s%s", r.code, r.stepOutcome(), r.stdout, r.stderr)
	}
}

// TestHTTPHostileBounds: floods, endless lines and huge bodies over
// Streamable HTTP and legacy SSE end each step by its timeout (3 s) or at
// the message bound (those steps may take a minute, and never do), with the outcome they are, the run ends within its
// timeouts plus a constant, and mcpcheck's peak RSS stays under 256 MiB
// (classes 2 and 3). The honest control passes over the same harness.
func TestHTTPHostileBounds(t *testing.T) {
	parallelParent(t)
	// A step that must end at the message bound gets a minute, so that
	// the bound, not how fast a loaded machine streams the bytes, decides.
	const bounded = "tool: echo\n        timeoutMs: 60000"
	cases := []struct {
		mode, transport, step string
		want                  []string // acceptable outcomes
		says                  string   // what the human report must say, if anything
	}{
		{"honest", "http", "tool: echo", []string{"ok"}, ""},
		{"sse-other-origin", "sse", "tool: echo", []string{"ok"}, ""}, // honest over legacy SSE
		{"notify-endless", "http", "tool: echo", []string{"timeout"}, ""},
		{"notify-endless", "sse", "tool: echo", []string{"timeout"}, ""},
		{"notify-250k", "http", "tool: echo", []string{"timeout", "ok"}, ""},
		{"notify-250k", "sse", "tool: echo", []string{"timeout", "ok"}, ""},
		{"line-endless", "http", bounded, []string{"oversized_response"}, ""},
		{"line-endless", "sse", bounded, []string{"oversized_response"}, ""},
		{"json-huge", "http", bounded, []string{"oversized_response"}, ""},
		{"json-huge", "sse", bounded, []string{"oversized_response"}, ""},
		{"requests-30k", "http", "tool: echo", []string{"timeout", "ok"}, ""},
		{"requests-30k", "sse", "tool: echo", []string{"timeout", "ok"}, ""},
		{"requests-endless", "http", "tool: echo", []string{"timeout"}, ""},
		{"requests-endless", "sse", "tool: echo", []string{"timeout"}, ""},
		{"get-line-endless", "http", "await: {method: notifications/message, timeoutMs: 60000}", []string{"oversized_response"}, ""},
		{"get-notify-endless", "http", "await: {method: notifications/never}", []string{"timeout"}, ""},
		// Discovery fails, naming the bound; the step is not run.
		{"list-huge", "http", "tool: echo", []string{""}, "tools/list page 1: a message from the server is larger than maxMessageBytes"},
	}
	for _, c := range cases {
		t.Run(c.mode+"/"+c.transport, func(t *testing.T) {
			parallel(t)
			base := startHostileHTTP(t, c.mode)
			path := "/mcp"
			if c.transport == "sse" {
				path = "/sse"
			}
			r := runChild(t, base+path, c.transport, c.step)
			wantCode := 1
			if c.want[0] == "ok" {
				wantCode = 0
			}
			o := r.stepOutcome()
			ok := false
			for _, w := range c.want {
				ok = ok || o == w
			}
			if !ok || (len(c.want) == 1 && r.code != wantCode) || r.code > 1 {
				t.Errorf("exit %d, outcome %q; want %v\n%s%s", r.code, o, c.want, r.stdout, r.stderr)
			}
			if !strings.Contains(r.stdout, c.says) {
				t.Errorf("the report does not say %q:\n%s", c.says, r.stdout)
			}
			// A step with a minute ends at the bound, not at its time
			// limit: an await too (a cut on the stream it listens to ends
			// the wait), and its report says so.
			if d := r.stepDuration(); o == "oversized_response" && strings.Contains(c.step, "60000") && d >= time.Minute {
				t.Errorf("the step waited out its time limit (%s) after the cut:\n%s", d, r.stdout)
			}
			// A 3 s step (or the bound, well before a minute) and a 10 s
			// handshake at most, plus a constant generous enough for a
			// machine running two test suites.
			if r.wall > 2*time.Minute {
				t.Errorf("the run took %s", r.wall)
			}
			if r.rss > maxChildRSS {
				t.Errorf("peak RSS %d MiB, want < %d MiB", r.rss>>20, maxChildRSS>>20)
			}
			t.Logf("%s over %s: exit %d, outcome %s, %s, peak RSS %d MiB", c.mode, c.transport, r.code, o, r.wall.Round(time.Millisecond), r.rss>>20)
		})
	}
}

// TestHTTPOddIDs: a response whose id is null, an object or an array is
// malformed_response saying what the id was, never an error the server did
// not send; a server request that reuses the pending call's id is no
// second response to it (class 10).
func TestHTTPOddIDs(t *testing.T) {
	parallel(t)
	for _, transport := range []string{"http", "sse"} {
		base := startHostileHTTP(t, "odd-ids")
		path := map[string]string{"http": "/mcp", "sse": "/sse"}[transport]
		for tool, id := range map[string]string{"null_id": "null", "object_id": "an object", "array_id": "an array"} {
			t.Run(transport+"/"+tool, func(t *testing.T) {
				r := runChild(t, base+path, transport, "tool: "+tool)
				if r.code != 1 || r.stepOutcome() != "malformed_response" {
					t.Errorf("exit %d, outcome %q\n%s", r.code, r.stepOutcome(), r.stdout)
				}
				if !strings.Contains(r.stdout, "whose id is "+id) {
					t.Errorf("the failure does not say the id was %s:\n%s", id, r.stdout)
				}
				if strings.Contains(r.stdout, "invalid request") {
					t.Errorf("an error the server did not send:\n%s", r.stdout)
				}
			})
		}
		t.Run(transport+"/reused_id", func(t *testing.T) {
			r := runChild(t, base+path, transport, "tool: reused_id")
			if r.code != 0 || r.stepOutcome() != "ok" {
				t.Errorf("exit %d, outcome %q\n%s%s", r.code, r.stepOutcome(), r.stdout, r.stderr)
			}
			if strings.Contains(r.stdout+r.stderr, "more than one response") {
				t.Errorf("a server request taken for a second response:\n%s%s", r.stdout, r.stderr)
			}
		})
	}
}

// TestRecordHTTPBounds: `mcpcheck record` as a Streamable HTTP proxy in
// front of a server whose answer is an endless SSE line or a 200 MB JSON
// body cuts the answer at its message bound, says so, and stays under
// 256 MiB (class 3); it ends on the first SIGINT.
func TestRecordHTTPBounds(t *testing.T) {
	parallel(t)
	for _, mode := range []string{"line-endless", "json-huge"} {
		t.Run(mode, func(t *testing.T) {
			base := startHostileHTTP(t, mode)
			listen := fmt.Sprintf("127.0.0.1:%d", peerFreePort(t))
			cmd := exec.Command(os.Args[0], "record", "--out", filepath.Join(t.TempDir(), "rec.yaml"), "--url", base+"/mcp", "--listen", listen)
			cmd.Env = append(os.Environ(), asCLI+"=1")
			var errb strings.Builder
			cmd.Stderr = &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
				if c, err := net.Dial("tcp", listen); err == nil {
					c.Close()
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the recorder does not listen\n%s", errb.String())
				}
			}
			client := &http.Client{Timeout: time.Minute}
			req, _ := http.NewRequest(http.MethodPost, "http://"+listen+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			n, _ := io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if n > 2*config.DefaultMaxMessageBytes {
				t.Errorf("the recorder passed on %d bytes of one message", n)
			}
			cmd.Process.Signal(os.Interrupt)
			waited := make(chan error, 1)
			go func() { waited <- cmd.Wait() }()
			select {
			case <-waited:
			case <-time.After(2 * time.Minute):
				t.Fatalf("the recorder did not end on SIGINT\n%s", errb.String())
			}
			if rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10; rss > maxChildRSS {
				t.Errorf("the recorder's peak RSS is %d MiB", rss>>20)
			}
			if !strings.Contains(errb.String(), "cut a response") {
				t.Errorf("the recorder does not say it cut the answer:\n%s", errb.String())
			}
		})
	}
}

// FuzzRecordSSE feeds the recorder's event-stream watcher arbitrary bytes,
// whole and in two pieces: it never panics, and the split does not change
// what it watches (the parser's own bounds are FuzzParser's, in
// internal/sse).
func FuzzRecordSSE(f *testing.F) {
	f.Add([]byte("event: message\ndata: {\"a\":1}\n\n"), 5)
	f.Add([]byte("data: a\r\ndata: b\r\n\r\n: comment\n\ndata:c"), 3)
	f.Fuzz(func(t *testing.T, in []byte, split int) {
		run := func(pieces ...[]byte) []string {
			var got []string
			readers := make([]io.Reader, len(pieces))
			for i, p := range pieces {
				readers[i] = bytes.NewReader(p)
			}
			w := &watched{ReadCloser: io.NopCloser(io.MultiReader(readers...)), watch: func(b []byte) { got = append(got, string(b)) }}
			if _, err := io.Copy(io.Discard, w); err != nil {
				t.Fatalf("a small input passed the bound: %v", err)
			}
			return got
		}
		if split < 0 || split > len(in) {
			split = len(in) / 2
		}
		whole, parts := run(in), run(in[:split], in[split:])
		if fmt.Sprintf("%q", whole) != fmt.Sprintf("%q", parts) {
			t.Fatalf("whole: %q\nin two pieces: %q", whole, parts)
		}
	})
}
