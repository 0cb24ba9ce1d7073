package runner

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// parse loads a fixture written inline.
func parse(t *testing.T, yaml string) *config.Suite {
	t.Helper()
	s, err := config.Parse("test.yaml", []byte(yaml), config.LoadOptions{Environ: []string{}})
	if err != nil {
		t.Fatalf("fixture: %v", err)
	}
	return s
}

// inMemory returns options that connect each session to a fresh in-memory
// instance of the test server, counting tools/call requests it receives.
func inMemory(calls *atomic.Int64) Options {
	return Options{Dial: func(ctx context.Context) (mcp.Transport, error) {
		s := testServer()
		if calls != nil {
			s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
				return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
					if method == "tools/call" {
						calls.Add(1)
					}
					return next(ctx, method, req)
				}
			})
		}
		ct, st := mcp.NewInMemoryTransports()
		if _, err := s.Connect(ctx, st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}}
}

func mustRun(t *testing.T, s *config.Suite, opts Options) *report.Report {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rep, err := Run(ctx, s, opts)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return rep
}

// statuses renders every step as "scenario/step=status[:outcome]".
func statuses(r *report.Report) string {
	var b strings.Builder
	for _, sc := range r.Scenarios {
		for _, st := range sc.Steps {
			b.WriteString(sc.Name + "/" + st.ID + "=" + string(st.Status))
			if st.Outcome != "" {
				b.WriteString(":" + string(st.Outcome))
			}
			b.WriteString(" ")
		}
	}
	return strings.TrimSpace(b.String())
}

const household = `
name: household
command: [mcpcheck, demo]
allowTools: [get_household, propose_task, commit_task]
scenarios:
  - name: approve once
    steps:
      - id: initial
        tool: get_household
        expect: {structuredEquals: {revision: 0, tasks: []}}
      - id: proposal
        tool: propose_task
        arguments: {text: Collect the library books}
        expect: {structuredIncludes: {revision: 0}}
      - id: unchanged
        tool: get_household
        expect: {structuredEquals: {revision: 0, tasks: []}}
      - id: commit
        tool: commit_task
        arguments:
          proposalId: {$ref: "proposal#/structuredContent/proposalId"}
          expectedRevision: 0
          idempotencyKey: k1
        expect: {structuredEquals: {revision: 1, replayed: false}}
      - id: replay
        tool: commit_task
        arguments:
          proposalId: {$ref: "proposal#/structuredContent/proposalId"}
          expectedRevision: 0
          idempotencyKey: k1
        expect: {structuredEquals: {revision: 1, replayed: true}}
      - id: final
        tool: get_household
        expect: {structuredEquals: {revision: 1, tasks: [{id: task-1, text: Collect the library books}]}}
`

func TestHouseholdInMemory(t *testing.T) {
	rep := mustRun(t, parse(t, household), inMemory(nil))
	if !rep.Passed {
		t.Fatalf("not passed: %s; failure %+v", statuses(rep), rep.Failure)
	}
	if rep.Summary.Passed != 6 || rep.Connections != 1 || rep.Restarts != 0 {
		t.Errorf("summary %+v connections %d restarts %d", rep.Summary, rep.Connections, rep.Restarts)
	}
	if rep.Server == nil || rep.Server.Name != "mcpcheck-demo" {
		t.Errorf("server = %+v", rep.Server)
	}
	if rep.ProtocolVersion != "2025-11-25" {
		t.Errorf("protocol = %q", rep.ProtocolVersion)
	}
	if !contains(rep.ToolsDiscovered, "commit_task") {
		t.Errorf("tools = %v", rep.ToolsDiscovered)
	}
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

func TestFailureSkipsRestOfScenarioOnly(t *testing.T) {
	s := parse(t, `
name: failing
command: [mcpcheck, demo]
allowTools: [get_household, propose_task]
scenarios:
  - name: a
    steps:
      - {id: one, tool: get_household, expect: {structuredIncludes: {revision: 5}}}
      - {id: two, tool: get_household}
  - name: b
    steps:
      - {id: one, tool: get_household}
      - {id: two, tool: propose_task, arguments: {text: x}, expect: {isError: true}}
      - {id: three, tool: get_household}
`)
	rep := mustRun(t, s, inMemory(nil))
	want := "a/one=failed:ok a/two=skipped b/one=passed:ok b/two=failed:ok b/three=skipped"
	if got := statuses(rep); got != want {
		t.Fatalf("statuses:\n got %s\nwant %s", got, want)
	}
	if rep.Passed {
		t.Error("report passed")
	}
	a := rep.Scenarios[0].Steps[0].Assertions
	if len(a) != 1 || a[0].Kind != "structuredIncludes" || a[0].Path != "/revision" || a[0].Message != "value differs" {
		t.Errorf("assertion = %+v", a)
	}
	if rep.Scenarios[0].Steps[1].Reason != "an earlier step of this scenario failed (one)" {
		t.Errorf("skip reason = %q", rep.Scenarios[0].Steps[1].Reason)
	}
	b := rep.Scenarios[1].Steps[1].Assertions
	if len(b) != 1 || b[0].Kind != "isError" || b[0].Message != "expected isError true, got false" {
		t.Errorf("isError assertion = %+v", b)
	}
}

func TestMissingToolCallsNothing(t *testing.T) {
	var calls atomic.Int64
	s := parse(t, `
name: missing
command: [mcpcheck, demo]
allowTools: [get_household, delete_everything]
scenarios:
  - name: a
    steps:
      - {id: one, tool: get_household}
      - {id: two, tool: delete_everything}
`)
	rep := mustRun(t, s, inMemory(&calls))
	if calls.Load() != 0 {
		t.Errorf("%d tools/call requests reached the server", calls.Load())
	}
	if rep.Passed || rep.Failure == nil || rep.Failure.Stage != "allowlist" || !strings.Contains(rep.Failure.Message, `"delete_everything"`) {
		t.Fatalf("failure = %+v", rep.Failure)
	}
	if got := statuses(rep); got != "a/one=skipped a/two=skipped" {
		t.Errorf("statuses = %s", got)
	}
}

func TestRefResolution(t *testing.T) {
	s := parse(t, `
name: refs
command: [mcpcheck, demo]
allowTools: [echo]
scenarios:
  - name: chain
    steps:
      - id: first
        tool: echo
        arguments: {"a/b": {"c~d": [10, {"deep": "value"}]}, "dotted.key": 1, Caps: true, big: 9007199254740993}
        expect:
          structuredEquals: {"a/b": {"c~d": [10, {"deep": "value"}]}, "dotted.key": 1, Caps: true, big: 9007199254740993}
      - id: second
        tool: echo
        arguments:
          got: {$ref: "first#/structuredContent/a~1b/c~0d/1/deep"}
          whole: {$ref: "first#/structuredContent/a~1b"}
          big: {$ref: "first#/structuredContent/big"}
          notARef: {$ref: "first#/x", other: 1}
        expect:
          structuredEquals:
            got: value
            whole: {"c~d": [10, {"deep": "value"}]}
            big: 9007199254740993
            notARef: {$ref: "first#/x", other: 1}
      - id: bad
        tool: echo
        arguments: {x: {$ref: "first#/structuredContent/nope"}}
`)
	rep := mustRun(t, s, inMemory(nil))
	if got := statuses(rep); got != "chain/first=passed:ok chain/second=passed:ok chain/bad=failed" {
		t.Fatalf("statuses = %s\n%+v", got, rep.Scenarios[0].Steps)
	}
	if r := rep.Scenarios[0].Steps[2].Reason; !strings.Contains(r, "nothing at /structuredContent/nope") {
		t.Errorf("reason = %q", r)
	}
}

func TestBigIntegersCompareExactly(t *testing.T) {
	s := parse(t, `
name: big
command: [mcpcheck, demo]
allowTools: [big]
scenarios:
  - name: exact
    steps: [{id: a, tool: big, expect: {structuredIncludes: {n: 9007199254740993}}}]
  - name: rounded
    steps: [{id: a, tool: big, expect: {structuredIncludes: {n: 9007199254740992}}}]
`)
	rep := mustRun(t, s, inMemory(nil))
	if got := statuses(rep); got != "exact/a=passed:ok rounded/a=failed:ok" {
		t.Fatalf("statuses = %s", got)
	}
}

func TestTimeoutKeepsSession(t *testing.T) {
	s := parse(t, `
name: timeout
command: [mcpcheck, demo]
allowTools: [sleep, get_household]
scenarios:
  - name: slow
    steps:
      - {id: slow, tool: sleep, arguments: {ms: 5000}, timeoutMs: 100, expect: {outcome: timeout}}
      - {id: after, tool: get_household}
  - name: slow unexpected
    steps:
      - {id: slow, tool: sleep, arguments: {ms: 5000}, timeoutMs: 100}
`)
	before := sleepsCancelled.Load()
	rep := mustRun(t, s, inMemory(nil))
	if got := statuses(rep); got != "slow/slow=passed:timeout slow/after=passed:ok slow unexpected/slow=failed:timeout" {
		t.Fatalf("statuses = %s", got)
	}
	// The client sent notifications/cancelled and the server stopped the
	// work (the notification is asynchronous; give it a moment).
	deadline := time.Now().Add(time.Minute)
	for sleepsCancelled.Load()-before < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := sleepsCancelled.Load() - before; n != 2 {
		t.Errorf("the server saw %d cancellations, want 2", n)
	}
	if rep.Connections != 1 {
		t.Errorf("connections = %d", rep.Connections)
	}
}

func TestConcurrencyDoesNotChangeReport(t *testing.T) {
	var b strings.Builder
	b.WriteString("name: many\ncommand: [mcpcheck, demo]\nallowTools: [sleep, get_household, echo]\nisolation: scenario\nscenarios:\n")
	for i := range 12 {
		// Later scenarios finish first at high concurrency.
		ms := (12 - i) * 15
		b.WriteString("  - name: s" + strconv.Itoa(i) + "\n    steps:\n")
		b.WriteString("      - {id: wait, tool: sleep, arguments: {ms: " + strconv.Itoa(ms) + "}}\n")
		if i%3 == 0 {
			b.WriteString("      - {id: check, tool: get_household, expect: {structuredIncludes: {revision: 1}}}\n")
		} else {
			b.WriteString("      - {id: check, tool: echo, arguments: {i: " + strconv.Itoa(i) + "}, expect: {structuredEquals: {i: " + strconv.Itoa(i) + "}}}\n")
		}
	}
	s := parse(t, b.String())
	var first string
	for _, n := range []int{1, 4, 16} {
		s.Concurrency = n
		rep := mustRun(t, s, inMemory(nil))
		got := normalizedJSON(t, rep)
		if first == "" {
			first = got
			continue
		}
		if got != first {
			t.Errorf("concurrency %d changed the report:\n%s\nvs\n%s", n, got, first)
		}
	}
}

func TestUnknownCommandIsReported(t *testing.T) {
	s := parse(t, `
name: nope
command: [/nonexistent/server-binary]
allowTools: [x]
scenarios: [{name: a, steps: [{id: one, tool: x}]}]
`)
	rep := mustRun(t, s, Options{})
	if rep.Passed || rep.Failure == nil || rep.Failure.Stage != "connect" {
		t.Fatalf("failure = %+v", rep.Failure)
	}
	if got := statuses(rep); got != "a/one=skipped" {
		t.Errorf("statuses = %s", got)
	}
}

func TestMissingCredential(t *testing.T) {
	s := parse(t, `
name: creds
endpoint: http://127.0.0.1:1/mcp
headersFromEnv: {Authorization: MCPCHECK_TEST_NOT_SET}
allowTools: [x]
scenarios: [{name: a, steps: [{id: one, tool: x}]}]
`)
	_, err := Run(context.Background(), s, Options{Environ: []string{}})
	if !errors.Is(err, ErrMissingCredential) || !strings.Contains(err.Error(), "MCPCHECK_TEST_NOT_SET") {
		t.Fatalf("err = %v", err)
	}
}

// stdioOptions runs `mcpcheck` as this test binary in child mode.
func stdioOptions() Options {
	return Options{SelfCommand: []string{os.Args[0]}, TerminateGrace: 500 * time.Millisecond}
}

func TestHouseholdStdio(t *testing.T) {
	for _, pv := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(pv, func(t *testing.T) {
			s := parse(t, household)
			s.Env = map[string]string{childEnvVar: "serve"}
			s.ProtocolVersion = pv
			rep := mustRun(t, s, stdioOptions())
			if !rep.Passed || rep.ProtocolVersion != pv {
				t.Fatalf("passed %v protocol %s: %s %+v", rep.Passed, rep.ProtocolVersion, statuses(rep), rep.Failure)
			}
			if rep.Target.Transport != "stdio" || rep.Target.Program != "mcpcheck" {
				t.Errorf("target = %+v", rep.Target)
			}
		})
	}
}

func alive(pid int) bool {
	return syscall.Kill(pid, 0) == nil
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("pid file: %v", err)
	}
	pid, _ := strconv.Atoi(string(b))
	return pid
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d outlived the run", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestNoOrphans(t *testing.T) {
	for _, mode := range []string{"serve", "ignore-stdin-close"} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			pidfile := filepath.Join(dir, "pid")
			s := parse(t, household)
			s.Env = map[string]string{childEnvVar: mode, "MCPCHECK_TEST_PIDFILE": pidfile, "MCPCHECK_TEST_GRANDCHILD": "1"}
			rep := mustRun(t, s, stdioOptions())
			if !rep.Passed {
				t.Fatalf("not passed: %s %+v", statuses(rep), rep.Failure)
			}
			waitGone(t, readPid(t, pidfile))
			waitGone(t, readPid(t, pidfile+".grandchild"))
		})
	}
}

func TestCancelledMidStepReapsChild(t *testing.T) {
	dir := t.TempDir()
	pidfile := filepath.Join(dir, "pid")
	s := parse(t, `
name: cancel
command: [mcpcheck, demo]
allowTools: [sleep, get_household]
scenarios:
  - name: long
    steps:
      - {id: slow, tool: sleep, arguments: {ms: 60000}}
      - {id: after, tool: get_household}
  - name: later
    steps: [{id: one, tool: get_household}]
`)
	sleeping := filepath.Join(dir, "sleeping")
	s.Env = map[string]string{childEnvVar: "serve", "MCPCHECK_TEST_PIDFILE": pidfile, "MCPCHECK_TEST_GRANDCHILD": "1", "MCPCHECK_TEST_SLEEPING": sleeping}
	ctx, cancel := context.WithCancel(context.Background())
	opts := stdioOptions()
	go func() {
		// Cancel once the slow call has reached the server (and its
		// grandchild is up): an event, where 300 ms after the grandchild
		// appeared was a guess a loaded machine could miss.
		for {
			_, errSleep := os.Stat(sleeping)
			_, errGrand := os.Stat(pidfile + ".grandchild")
			if errSleep == nil && errGrand == nil {
				cancel()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	began := time.Now()
	rep, err := Run(ctx, s, opts)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(began); d > 20*time.Second {
		t.Errorf("cancelled run took %s", d)
	}
	if rep.Passed || rep.Failure == nil || rep.Failure.Stage != "interrupted" {
		t.Errorf("failure = %+v", rep.Failure)
	}
	// The call in flight was cancelled: its step judges nothing.
	if got := statuses(rep); got != "long/slow=skipped long/after=skipped later/one=skipped" {
		t.Errorf("statuses = %s", got)
	}
	if got := rep.Scenarios[0].Steps[0].Reason; got != reasonInterruptedCall {
		t.Errorf("the cancelled step's reason = %q", got)
	}
	if got := rep.Scenarios[1].Steps[0].Reason; got != reasonInterrupted {
		t.Errorf("the step not run: reason = %q", got)
	}
	waitGone(t, readPid(t, pidfile))
	waitGone(t, readPid(t, pidfile+".grandchild"))
}

func TestServerExitAtStart(t *testing.T) {
	s := parse(t, household)
	s.Env = map[string]string{childEnvVar: "exit-at-start", "SECRET": "x"}
	s.EnvFromEnv = map[string]string{"TOKEN": "MY_TOKEN"}
	opts := stdioOptions()
	opts.Environ = []string{"MY_TOKEN=sekrit-token-value", "PATH=" + os.Getenv("PATH")}
	rep := mustRun(t, s, opts)
	if rep.Failure == nil || rep.Failure.Stage != "connect" {
		t.Fatalf("failure = %+v", rep.Failure)
	}
	joined := strings.Join(rep.ServerStderr, "\n")
	if !strings.Contains(joined, "cannot open the database") || strings.Contains(joined, "sekrit") || !strings.Contains(joined, Redacted) {
		t.Errorf("stderr tail = %q", joined)
	}
}

func TestServerCrashMidCall(t *testing.T) {
	s := parse(t, `
name: crash
command: [mcpcheck, demo]
allowTools: [crash, get_household]
scenarios:
  - name: crashes
    steps:
      - {id: boom, tool: crash}
      - {id: after, tool: get_household}
`)
	s.Env = map[string]string{childEnvVar: "serve"}
	s.EnvFromEnv = map[string]string{"TOKEN": "MY_TOKEN"}
	opts := stdioOptions()
	opts.Environ = []string{"MY_TOKEN=sekrit-token-value", "PATH=" + os.Getenv("PATH")}
	rep := mustRun(t, s, opts)
	if got := statuses(rep); got != "crashes/boom=failed:transport_closed crashes/after=skipped" {
		t.Fatalf("statuses = %s", got)
	}
	st := rep.Scenarios[0].Steps[0]
	if st.ExitStatus != "exit status 7" {
		t.Errorf("exit status = %q", st.ExitStatus)
	}
	joined := strings.Join(st.Stderr, "\n")
	if !strings.Contains(joined, "crash tool called") || strings.Contains(joined, "sekrit") || !strings.Contains(joined, Redacted) {
		t.Errorf("stderr = %q", joined)
	}
}

func TestHTTP(t *testing.T) {
	var sawAuth atomic.Value
	var deletes atomic.Int64
	server := testServer()
	h := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server { return server }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sawAuth.Store(r.Header.Get("Authorization"))
		if r.Method == http.MethodDelete {
			deletes.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	s := parse(t, household)
	s.Command = nil
	s.Endpoint = srv.URL + "/mcp"
	s.HeadersFromEnv = map[string]string{"Authorization": "MCP_AUTH"}
	s.AllowTools = append(s.AllowTools, "whoami")
	s.Scenarios = append(s.Scenarios, config.Scenario{Name: "leak", Steps: []config.Step{{ID: "who", Tool: "whoami", Origin: "fixture"}}})
	rep := mustRun(t, s, Options{Environ: []string{"MCP_AUTH=Bearer sekrit-token-value"}})
	if got := statuses(rep); !strings.HasPrefix(got, "approve once/initial=passed:ok") || !strings.HasSuffix(got, "leak/who=failed:tool_error") {
		t.Fatalf("statuses = %s %+v", got, rep.Failure)
	}
	if sawAuth.Load() != "Bearer sekrit-token-value" {
		t.Errorf("server saw Authorization %q", sawAuth.Load())
	}
	if deletes.Load() != 1 {
		t.Errorf("%d session DELETEs, want 1", deletes.Load())
	}
	if rep.Target.Transport != "http" || rep.Target.Origin != srv.URL {
		t.Errorf("target = %+v", rep.Target)
	}
	d := rep.Scenarios[1].Steps[0].Detail
	if strings.Contains(d, "sekrit") || !strings.Contains(d, Redacted) || strings.Contains(d, "\x1b") {
		t.Errorf("detail not redacted/stripped: %q", d)
	}
}

func TestHTTPRedirectNotFollowed(t *testing.T) {
	var followed atomic.Bool
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { followed.Store(true) }))
	defer target.Close()
	srv := httptest.NewServer(http.RedirectHandler(target.URL+"/mcp", http.StatusTemporaryRedirect))
	defer srv.Close()
	s := parse(t, household)
	s.Command = nil
	s.Endpoint = srv.URL + "/mcp"
	rep := mustRun(t, s, Options{})
	if followed.Load() {
		t.Error("the redirect was followed")
	}
	if rep.Failure == nil || rep.Failure.Stage != "connect" {
		t.Errorf("failure = %+v", rep.Failure)
	}
}

func TestStructuredPaths(t *testing.T) {
	s := parse(t, `
name: paths
command: [mcpcheck, demo]
allowTools: [echo]
scenarios:
  - name: queries
    steps:
      - id: e
        tool: echo
        arguments: {tasks: [{id: a, text: one}, {id: b, text: two}], "dotted.key": {n: 9007199254740993}}
        expect:
          structuredPaths:
            "tasks.#": 2
            "tasks.#(id==\"b\").text": two
            "tasks.0": {id: a, text: one}
            "dotted\\.key.n": 9007199254740993
  - name: mismatches
    steps:
      - id: e
        tool: echo
        arguments: {tasks: [{id: a, text: one}]}
        expect:
          structuredPaths:
            "tasks.#": 2
            "tasks.0": {id: a}
            "missing.path": 1
`)
	rep := mustRun(t, s, inMemory(nil))
	if got := statuses(rep); got != "queries/e=passed:ok mismatches/e=failed:ok" {
		t.Fatalf("statuses = %s\n%+v", got, rep.Scenarios[0].Steps[0].Assertions)
	}
	var got []string
	for _, a := range rep.Scenarios[1].Steps[0].Assertions {
		got = append(got, string(a.Kind)+" "+a.Path+": "+a.Message)
	}
	want := "structuredPaths missing.path: nothing at this path\nstructuredPaths tasks.#: value differs\nstructuredPaths tasks.0 /text: unexpected key"
	if strings.Join(got, "\n") != want {
		t.Errorf("assertions:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
}

func TestTrace(t *testing.T) {
	s := parse(t, `
name: trace
command: [mcpcheck, demo]
allowTools: [echo, get_household]
scenarios:
  - name: one
    steps:
      - {id: e, tool: echo, arguments: {token: sekrit-token-value, n: 9007199254740993}}
      - {id: g, tool: get_household, expect: {structuredIncludes: {revision: 3}}}
`)
	s.EnvFromEnv = map[string]string{"T": "MY_TOKEN"}
	var buf strings.Builder
	opts := inMemory(nil)
	opts.Environ = []string{"MY_TOKEN=sekrit-token-value"}
	opts.Trace = &buf
	mustRun(t, s, opts)
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d trace lines:\n%s", len(lines), buf.String())
	}
	var first, second report.TraceEntry
	json.Unmarshal([]byte(lines[0]), &first)
	json.Unmarshal([]byte(lines[1]), &second)
	if first.Scenario != "one" || first.Step != "e" || first.Tool != "echo" || first.Outcome != "ok" || first.Status != "passed" || first.StartedAt == "" {
		t.Errorf("first = %+v", first)
	}
	if first.Arguments["token"] != Redacted {
		t.Errorf("arguments not redacted: %v", first.Arguments)
	}
	if !strings.Contains(lines[0], `"n":9007199254740993`) {
		t.Errorf("number lost precision: %s", lines[0])
	}
	if second.Status != "failed" || !strings.Contains(second.Detail, "structuredIncludes /revision") {
		t.Errorf("second = %+v", second)
	}
}

// TestToolTypos checks the words for names the server does not have: a
// step's misspelled tool gets "did you mean" in the failure, an allowTools
// entry the server lacks is a warning naming the fixture line, and neither
// calls anything it should not.
func TestToolTypos(t *testing.T) {
	var calls atomic.Int64
	s := parse(t, `
name: typos
command: [mcpcheck, demo]
allowTools: [get_household, propose_tsk]
scenarios:
  - name: a
    steps:
      - {id: one, tool: get_household}
`)
	rep := mustRun(t, s, inMemory(&calls))
	if !rep.Passed || calls.Load() != 1 {
		t.Fatalf("passed %v after %d calls: %+v", rep.Passed, calls.Load(), rep.Failure)
	}
	want := `test.yaml:4:1: allowTools names "propose_tsk", which the server does not list; did you mean "propose_task"?`
	if !slices.Contains(rep.Warnings, want) {
		t.Errorf("warnings = %q, want %q", rep.Warnings, want)
	}

	s = parse(t, `
name: typos
command: [mcpcheck, demo]
allowTools: [get_houshold]
scenarios:
  - name: a
    steps:
      - {id: one, tool: get_houshold}
`)
	rep = mustRun(t, s, inMemory(&calls))
	if rep.Failure == nil || !strings.Contains(rep.Failure.Message, `"get_houshold" (first used by step one at test.yaml:8:9; did you mean "get_household"?)`) {
		t.Errorf("failure = %+v", rep.Failure)
	}
}
