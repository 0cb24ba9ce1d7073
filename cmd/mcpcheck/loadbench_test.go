package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/runner"
)

// The load benchmarks put runner.Load (what `mcpcheck load` runs) next to a
// bare go-sdk goroutine pool making the same calls to the same Streamable
// HTTP server, a child process: N users, each on a session of its own,
// calling one tool as fast as they can for a fixed duration. One op is one
// such run. Reported per side:
//
//	calls/s            the calls that ended within the run, over its length
//	client-cpu-us/call this process's CPU (getrusage RUSAGE_SELF) per call
//
// and, in the "paired" sub-benchmark (the two sides alternately, the order
// swapped every op), the ratios load/pool of both. The pool checks each
// answer as cheaply as a hand-written client would; the load run checks
// the fixture's expectation, classifies the outcome and records the
// latency, as it always does. The target is calls/s ≥ 0.95× the
// pool's.
//
//	go test -run '^$' -bench 'Load.*HTTP/impl=paired' -benchtime 5x ./cmd/mcpcheck/
//
// MCPCHECK_LOAD_VUS (default 4) and MCPCHECK_LOAD_DURATION (default 5s)
// change the shape. The whole-process comparison (the CLI against a pool
// binary) is runner/testdata/bench/loadpool.sh. Timings are measured,
// never asserted.

// loadBenchShape is the users and the duration of one op.
func loadBenchShape(b *testing.B) (int, time.Duration) {
	vus, d := 4, 5*time.Second
	if s := os.Getenv("MCPCHECK_LOAD_VUS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("MCPCHECK_LOAD_VUS=%q: want a positive integer", s)
		}
		vus = n
	}
	if s := os.Getenv("MCPCHECK_LOAD_DURATION"); s != "" {
		v, err := time.ParseDuration(s)
		if err != nil || v <= 0 {
			b.Fatalf("MCPCHECK_LOAD_DURATION=%q: want a duration", s)
		}
		d = v
	}
	return vus, d
}

// startListening starts cmd, waits (60 s at most) for a line of its
// output that says where it listens, and returns the URL built from that
// line's first submatch; the process ends with the benchmark.
func startListening(tb testing.TB, cmd *exec.Cmd, line *regexp.Regexp, url func(string) string) string {
	tb.Helper()
	out, err := cmd.StderrPipe()
	if err != nil {
		tb.Fatal(err)
	}
	cmd.Stdout = cmd.Stderr // both streams into the pipe: node logs to stdout
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := line.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
	}()
	select {
	case s := <-found:
		return url(s)
	case <-time.After(60 * time.Second):
		tb.Fatalf("%s did not say where it listens", cmd.Path)
	}
	return ""
}

// loadCall is the one call both sides make, and the pool's check of it.
type loadCall struct {
	tool   string
	args   map[string]any
	expect string // the fixture's step members after tool
	ok     func(*mcp.CallToolResult) bool
}

// poolSide is the bare go-sdk pool: the cheapest setup the SDK offers, as
// mcpcheck's own (no standalone SSE stream, an HTTP connection pool per
// session). The clock starts before the sessions open, as a load run's
// users open theirs inside the run.
func poolSide(b *testing.B, url string, vus int, d time.Duration, c loadCall) (calls uint64, elapsed, cpu time.Duration) {
	client := mcp.NewClient(&mcp.Implementation{Name: "pool", Version: "0"}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var n, failed atomic.Uint64
	var wg sync.WaitGroup
	mark := cpuNow()
	start := time.Now()
	for range vus {
		wg.Go(func() {
			t := &mcp.StreamableClientTransport{Endpoint: url, DisableStandaloneSSE: true,
				HTTPClient: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4, IdleConnTimeout: 90 * time.Second}}}
			cs, err := client.Connect(ctx, t, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			if err != nil {
				failed.Add(1)
				return
			}
			defer cs.Close()
			for ctx.Err() == nil {
				r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
				if err != nil && ctx.Err() != nil {
					return // cut short by the end of the run
				}
				n.Add(1)
				if err != nil || !c.ok(r) {
					failed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	elapsed = min(time.Since(start), d+time.Second)
	cpu, _ = mark.since()
	if failed.Load() > 0 {
		b.Fatalf("pool: %d of %d calls failed", failed.Load(), n.Load())
	}
	return n.Load(), elapsed, cpu
}

// loadSide is runner.Load on a one-step fixture making the same call.
func loadSide(b *testing.B, url string, vus int, d time.Duration, c loadCall) (calls uint64, elapsed, cpu time.Duration) {
	fixture := fmt.Sprintf("name: load-bench\nendpoint: %s\nprotocolVersion: \"2025-11-25\"\nallowTools: [%s]\nscenarios:\n  - name: bench\n    steps:\n      - {id: call, tool: %s%s}\n",
		url, c.tool, c.tool, c.expect)
	suite, err := config.Parse("load-bench.yaml", []byte(fixture), config.LoadOptions{Environ: []string{}})
	if err != nil {
		b.Fatalf("fixture: %v", err)
	}
	opts := runner.LoadOptions{Options: runner.Options{Environ: []string{}}, LoadRun: config.LoadRun{VUs: vus, Duration: d}}
	mark := cpuNow()
	rep, err := runner.Load(context.Background(), suite, opts)
	cpu, _ = mark.since()
	if err != nil {
		b.Fatal(err)
	}
	if rep.Load == nil || !rep.Passed || rep.Load.Overall.Errors > 0 {
		b.Fatalf("load run: passed=%v failure=%v load=%+v", rep.Passed, rep.Failure, rep.Load)
	}
	return rep.Load.Overall.Calls, time.Duration(rep.Load.ElapsedMs) * time.Millisecond, cpu
}

// benchLoadSides runs the three sub-benchmarks against url.
func benchLoadSides(b *testing.B, url string, c loadCall) {
	vus, d := loadBenchShape(b)
	type side func(*testing.B, string, int, time.Duration, loadCall) (uint64, time.Duration, time.Duration)
	type figures struct{ rps, cpuPerCall float64 }
	one := func(b *testing.B, s side) figures {
		n, el, cpu := s(b, url, vus, d, c)
		if n == 0 {
			b.Fatal("no call ended within the run")
		}
		return figures{float64(n) / el.Seconds(), float64(cpu.Microseconds()) / float64(n)}
	}
	report := func(b *testing.B, prefix string, fs []figures) figures {
		var sum figures
		for _, f := range fs {
			sum.rps += f.rps
			sum.cpuPerCall += f.cpuPerCall
		}
		sum.rps /= float64(len(fs))
		sum.cpuPerCall /= float64(len(fs))
		b.ReportMetric(sum.rps, prefix+"calls/s")
		b.ReportMetric(sum.cpuPerCall, prefix+"client-cpu-us/call")
		return sum
	}
	for _, s := range []struct {
		name string
		run  side
	}{{"load", loadSide}, {"pool", poolSide}} {
		b.Run("impl="+s.name, func(b *testing.B) {
			var fs []figures
			for b.Loop() {
				fs = append(fs, one(b, s.run))
			}
			report(b, "", fs)
		})
	}
	b.Run("impl=paired", func(b *testing.B) {
		var lf, pf []figures
		i := 0
		for b.Loop() {
			if i%2 == 0 {
				lf = append(lf, one(b, loadSide))
				pf = append(pf, one(b, poolSide))
			} else {
				pf = append(pf, one(b, poolSide))
				lf = append(lf, one(b, loadSide))
			}
			i++
		}
		l, p := report(b, "load-", lf), report(b, "pool-", pf)
		b.ReportMetric(l.rps/p.rps, "load/pool-calls/s")
		b.ReportMetric(l.cpuPerCall/p.cpuPerCall, "load/pool-cpu")
	})
}

// BenchmarkLoadDemoHTTP: get_household against `mcpcheck demo --http`
// (this test binary re-executed as the demo).
func BenchmarkLoadDemoHTTP(b *testing.B) {
	cmd := exec.Command(os.Args[0], "demo", "--http", "127.0.0.1:0")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	url := startListening(b, cmd, regexp.MustCompile(`serving Streamable HTTP at (http://\S+)`), func(s string) string { return s })
	benchLoadSides(b, url, loadCall{
		tool: "get_household", args: map[string]any{},
		expect: ", expect: {structuredIncludes: {revision: 0}}",
		ok: func(r *mcp.CallToolResult) bool {
			m, _ := r.StructuredContent.(map[string]any)
			return !r.IsError && m["revision"] == float64(0)
		},
	})
}

// BenchmarkLoadEverythingHTTP: echo against the pinned server-everything
// over Streamable HTTP.
func BenchmarkLoadEverythingHTTP(b *testing.B) {
	entry := filepath.Join(peerDir(b), peerEverything)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close() // the server binds it next; a race with another process is unlikely on loopback
	cmd := exec.Command("node", entry, "streamableHttp")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "PORT=" + port}
	url := startListening(b, cmd, regexp.MustCompile(`listening on port (\d+)`), func(p string) string { return "http://127.0.0.1:" + p + "/mcp" })
	benchLoadSides(b, url, loadCall{
		tool: "echo", args: map[string]any{"message": "hi"},
		expect: `, arguments: {message: hi}, expect: {text: {contains: ["Echo: hi"]}}`,
		ok: func(r *mcp.CallToolResult) bool {
			if r.IsError || len(r.Content) == 0 {
				return false
			}
			t, _ := r.Content[0].(*mcp.TextContent)
			return t != nil && strings.Contains(t.Text, "Echo: hi")
		},
	})
}
