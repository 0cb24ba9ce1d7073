package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/runner"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// The benchmarks below put the runner next to a bare go-sdk client loop that
// makes the same calls to the same server over the same kind of pipes, with
// the protocol pinned to 2025-11-25 and no client capabilities: the floor
// for any runner built on the SDK. One op is a whole session (start the
// server, initialize, tools/list, the steps, shut down); the reported
// metrics are
//
//	ns/step         steady-state wall time per step: from the end of the
//	                first call to the end of the last, over steps-1
//	client-cpu-ns/step  this process's CPU (user+sys, getrusage RUSAGE_SELF)
//	                for the whole op, divided by the steps
//	server-cpu-ns/step  the server's CPU (RUSAGE_CHILDREN, once reaped)
//
// The "paired" sub-benchmarks run the two sides alternately inside each op
// (runner first on even ops, bare first on odd ones), so drift on a shared
// machine hits both; they report both ns/step figures and their ratio.
//
//	go test -run '^$' -bench 'Stdio' -benchtime 10x -count 5 ./cmd/mcpcheck/ | tee bench.txt
//	benchstat -col /impl bench.txt
//
// Timings are measured, never asserted; VERIFICATION.md has the figures.

// demoSteps is the length of the demo scenario.
const demoSteps = 1000

// everythingSteps is the length of the server-everything scenario; the
// issue asks for 10,000. MCPCHECK_BENCH_STEPS overrides it (and demoSteps).
const everythingSteps = 10000

// benchSteps returns n unless MCPCHECK_BENCH_STEPS says otherwise.
func benchSteps(b *testing.B, n int) int {
	if s := os.Getenv("MCPCHECK_BENCH_STEPS"); s != "" {
		if _, err := fmt.Sscan(s, &n); err != nil || n < 2 {
			b.Fatalf("MCPCHECK_BENCH_STEPS=%q: want an integer ≥ 2", s)
		}
	}
	return n
}

// cities are the server-everything locations the steps cycle through.
var cities = []string{"New York", "Chicago", "Los Angeles"}

// benchFixture writes a fixture of one scenario with n steps. head holds
// the suite-level keys; step(i) returns the i-th step's tool, arguments
// and expect as flow-style YAML members.
func benchFixture(head string, n int, step func(i int) string) string {
	var b strings.Builder
	b.WriteString(head)
	b.WriteString("scenarios:\n  - name: bench\n    steps:\n")
	for i := range n {
		fmt.Fprintf(&b, "      - {id: s%d, %s}\n", i+1, step(i))
	}
	return b.String()
}

// demoFixture is n cheap read-only calls to the demo's get_household.
func demoFixture(n int) string {
	return benchFixture("name: bench-demo\ncommand: [mcpcheck, demo]\nprotocolVersion: \"2025-11-25\"\nallowTools: [get_household]\n", n,
		func(int) string { return "tool: get_household, expect: {structuredIncludes: {revision: 0}}" })
}

// everythingFixture is the suite of /work/shared/bench: n
// get-structured-content calls against server-everything at entry.
func everythingFixture(entry string, n int) string {
	head := fmt.Sprintf("name: bench-everything\ncommand: [node, %q, stdio]\nprotocolVersion: \"2025-11-25\"\nallowTools: [get-structured-content]\n", entry)
	return benchFixture(head, n, func(i int) string {
		return fmt.Sprintf("tool: get-structured-content, arguments: {location: %s}, expect: {structuredIncludes: {}}", cities[i%3])
	})
}

// sideResult is one side's op: its steady-state span and its CPU.
type sideResult struct {
	steady         time.Duration // end of first call → end of last call
	self, children time.Duration // CPU of this process and of reaped children
}

type cpuMark struct{ self, children time.Duration }

func cpuNow() cpuMark {
	var s, c syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &s)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &c)
	tv := func(r *syscall.Rusage) time.Duration {
		return time.Duration(r.Utime.Nano() + r.Stime.Nano())
	}
	return cpuMark{tv(&s), tv(&c)}
}

func (m cpuMark) since() (self, children time.Duration) {
	n := cpuNow()
	return n.self - m.self, n.children - m.children
}

// runnerSide runs suite through Run and checks that every step passed.
func runnerSide(b *testing.B, suite *config.Suite, opts runner.Options) sideResult {
	n := len(suite.Scenarios[0].Steps)
	var first, last time.Time
	opts.OnStep = func(_, _ int, r report.StepResult) {
		last = time.Now()
		if first.IsZero() {
			first = last
		}
	}
	mark := cpuNow()
	rep, err := runner.Run(context.Background(), suite, opts)
	if err != nil {
		b.Fatalf("Run: %v", err)
	}
	self, kids := mark.since()
	if !rep.Passed || rep.Summary.Passed != n {
		b.Fatalf("runner: passed %v, %d of %d steps; failure %+v; %s", rep.Passed, rep.Summary.Passed, n, rep.Failure, firstFailure(rep))
	}
	return sideResult{steady: last.Sub(first), self: self, children: kids}
}

func firstFailure(rep *report.Report) string {
	for _, sc := range rep.Scenarios {
		for _, st := range sc.Steps {
			if st.Status == report.StatusFailed {
				return fmt.Sprintf("step %s: %s %s %+v", st.ID, st.Outcome, st.Reason, st.Assertions)
			}
		}
	}
	return ""
}

// bareCall is one call of the bare loop: the tool, its arguments and the
// check the fixture's expectation makes.
type bareCall struct {
	tool  string
	args  func(i int) any
	check func(structured any) bool
}

// bareSide is the bare go-sdk client: the SDK's CommandTransport, protocol
// 2025-11-25, no capabilities, tools/list, n calls with the equivalent
// check, close.
func bareSide(b *testing.B, cmd *exec.Cmd, n int, call bareCall) sideResult {
	ctx := context.Background()
	mark := cpuNow()
	client := mcp.NewClient(&mcp.Implementation{Name: "bare", Version: "0"}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: config.DefaultProtocolVersion})
	if err != nil {
		b.Fatalf("bare connect: %v", err)
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		b.Fatalf("bare tools/list: %v", err)
	}
	var first time.Time
	for i := range n {
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: call.tool, Arguments: call.args(i)})
		if err != nil || r.IsError || !call.check(r.StructuredContent) {
			b.Fatalf("bare call %d: err %v, result %+v", i, err, r)
		}
		if i == 0 {
			first = time.Now()
		}
	}
	last := time.Now()
	if err := cs.Close(); err != nil {
		b.Fatalf("bare close: %v", err)
	}
	self, kids := mark.since()
	return sideResult{steady: last.Sub(first), self: self, children: kids}
}

// side is one implementation under comparison.
type side struct {
	name string
	run  func() sideResult
}

// benchSides runs the "runner", "bare" and "paired" sub-benchmarks.
func benchSides(b *testing.B, steps int, runner, bare side) {
	report := func(b *testing.B, prefix string, rs []sideResult) float64 {
		var steady, self, kids time.Duration
		for _, r := range rs {
			steady += r.steady
			self += r.self
			kids += r.children
		}
		ops := float64(len(rs))
		perStep := float64(steady.Nanoseconds()) / ops / float64(steps-1)
		b.ReportMetric(perStep, prefix+"ns/step")
		b.ReportMetric(float64(self.Nanoseconds())/ops/float64(steps), prefix+"client-cpu-ns/step")
		b.ReportMetric(float64(kids.Nanoseconds())/ops/float64(steps), prefix+"server-cpu-ns/step")
		return perStep
	}
	for _, s := range []side{runner, bare} {
		b.Run("impl="+s.name, func(b *testing.B) {
			rs := make([]sideResult, 0, b.N)
			for b.Loop() {
				rs = append(rs, s.run())
			}
			report(b, "", rs)
		})
	}
	b.Run("impl=paired", func(b *testing.B) {
		var rr, br []sideResult
		i := 0
		for b.Loop() {
			if i%2 == 0 {
				rr = append(rr, runner.run())
				br = append(br, bare.run())
			} else {
				br = append(br, bare.run())
				rr = append(rr, runner.run())
			}
			i++
		}
		r := report(b, "runner-", rr)
		s := report(b, "bare-", br)
		b.ReportMetric(r/s, "runner/bare")
	})
}

// BenchmarkDemoStdio is 1,000 get_household steps against the demo server
// (this test binary re-executed as `mcpcheck demo`, as the stdio tests do).
func BenchmarkDemoStdio(b *testing.B) {
	n := benchSteps(b, demoSteps)
	suite, err := config.Parse("bench-demo.yaml", []byte(demoFixture(n)), config.LoadOptions{Environ: []string{}})
	if err != nil {
		b.Fatalf("fixture: %v", err)
	}
	opts := *runOptions
	opts.Environ = []string{"PATH=" + os.Getenv("PATH")}
	call := bareCall{
		tool: "get_household",
		args: func(int) any { return map[string]any{} },
		check: func(sc any) bool {
			m, ok := sc.(map[string]any)
			return ok && m["revision"] == float64(0)
		},
	}
	benchSides(b, n,
		side{"runner", func() sideResult { return runnerSide(b, suite, opts) }},
		side{"bare", func() sideResult {
			cmd := exec.Command(os.Args[0], "demo")
			cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
			return bareSide(b, cmd, n, call)
		}})
}

// BenchmarkEverythingStdio is 10,000 get-structured-content steps against
// the pinned server-everything (the shared/bench suite).
func BenchmarkEverythingStdio(b *testing.B) {
	dir := peerDir(b)
	entry := filepath.Join(dir, peerEverything)
	n := benchSteps(b, everythingSteps)
	suite, err := config.Parse("bench-everything.yaml", []byte(everythingFixture(entry, n)), config.LoadOptions{Environ: []string{}})
	if err != nil {
		b.Fatalf("fixture: %v", err)
	}
	opts := runner.Options{Environ: []string{"PATH=" + os.Getenv("PATH")}}
	call := bareCall{
		tool: "get-structured-content",
		args: func(i int) any { return map[string]any{"location": cities[i%3]} },
		check: func(sc any) bool {
			_, ok := sc.(map[string]any)
			return ok
		},
	}
	benchSides(b, n,
		side{"runner", func() sideResult { return runnerSide(b, suite, opts) }},
		side{"bare", func() sideResult {
			cmd := exec.Command("node", entry, "stdio")
			cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
			return bareSide(b, cmd, n, call)
		}})
}

// BenchmarkParseFixture is what loading the server-everything fixture costs
// before the first call: config.Parse (YAML, schema validation, decoding)
// of the same text fixture.sh writes. The CLI pays it once per run.
func BenchmarkParseFixture(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("steps=%d", n), func(b *testing.B) {
			data := []byte(everythingFixture("/peers/"+peerEverything, n))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := config.Parse("suite.yaml", data, config.LoadOptions{Environ: []string{}}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/step")
		})
	}
}
