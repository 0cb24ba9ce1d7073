package main

import (
	"context"
	"encoding/json"
	"maps"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/demo"
	"github.com/mcpcheck/mcpcheck/runner"
	"github.com/mcpcheck/mcpcheck/runner/report"
	"github.com/mcpcheck/mcpcheck/schemas"
)

// validReport checks a JSON report against the report schema and returns it
// decoded.
func validReport(t *testing.T, data string) map[string]any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(data))
	if err != nil {
		t.Fatalf("report is not JSON: %v\n%s", err, data)
	}
	if err := schemas.Validate(schemas.ReportURL, v); err != nil {
		t.Fatalf("report does not match schemas/report.schema.json: %v\n%s", err, data)
	}
	var m map[string]any
	json.Unmarshal([]byte(data), &m)
	return m
}

func TestDemoExample(t *testing.T) {
	r := runCmd(t, "--config", "../../examples/demo.yaml")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	golden(t, "demo.golden", normalize(r.stdout))
	if n := strings.Count(r.stdout, "\n  ok "); n < 8 {
		t.Errorf("%d passing steps, want at least 8", n)
	}
}

func TestDemoExampleJSONOnStdout(t *testing.T) {
	parallel(t)
	r := runCmd(t, "--config", "../../examples/demo.yaml", "--json", "-")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	validReport(t, r.stdout)
	golden(t, "demo.json.golden", normalizeJSON(r.stdout))
	if !strings.HasPrefix(r.stderr, "PASS ") {
		t.Errorf("human report not on stderr: %q", r.stderr)
	}
}

// A bare --json, as mcp-fuzz users type it, means the JSON on stdout,
// wherever it stands: last, or before another flag.
func TestBareJSONFlag(t *testing.T) {
	parallel(t)
	for _, args := range [][]string{
		{"--config", "../../examples/demo.yaml", "--json"},
		{"--json", "--config", "../../examples/demo.yaml"},
	} {
		r := runCmd(t, args...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, r.code, r.stderr)
		}
		validReport(t, r.stdout)
		if !strings.HasPrefix(r.stderr, "PASS ") {
			t.Errorf("%v: human report not on stderr: %q", args, r.stderr)
		}
	}
	if got := jsonDefault([]string{"--json", "--", "node", "--json"}); !slices.Equal(got, []string{"--json", "-", "--", "node", "--json"}) {
		t.Errorf("jsonDefault touched the server's own arguments: %q", got)
	}
}

func TestDemoExample2026(t *testing.T) {
	r := runCmd(t, "--config", "../../examples/demo.yaml", "--protocol", "2026-07-28", "--json", "-")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if m := validReport(t, r.stdout); m["protocolVersion"] != "2026-07-28" {
		t.Errorf("protocolVersion = %v", m["protocolVersion"])
	}
}

func TestJSONFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "report.json")
	r := runCmd(t, "--config", "../../examples/demo.yaml", "--json", path)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	validReport(t, string(data))
	if !strings.HasPrefix(r.stdout, "PASS ") {
		t.Errorf("human report not on stdout")
	}
}

func TestFailingFixture(t *testing.T) {
	r := runCmd(t, "--config", "testdata/failing.yaml", "--json", "-")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\n%s", r.code, r.stderr)
	}
	m := validReport(t, r.stdout)
	if m["passed"] != false {
		t.Error("passed is not false")
	}
	golden(t, "failing.json.golden", normalizeJSON(r.stdout))
	golden(t, "failing.golden", normalize(r.stderr))
	// The JSON report never carries result values or server text.
	for _, leak := range []string{"nobody", "Sweep the floor", "proposal-1", "revision conflict", "stale"} {
		if strings.Contains(strings.ReplaceAll(r.stdout, `"stale"`, ""), leak) {
			t.Errorf("JSON report leaks %q", leak)
		}
	}
	// The human report shows expected and actual at the failing path.
	if !strings.Contains(r.stderr, "expected: 1") || !strings.Contains(r.stderr, "actual:   0") {
		t.Errorf("human report lacks expected/actual:\n%s", r.stderr)
	}
}

func TestDemoOverHTTP(t *testing.T) {
	srv := httptest.NewServer(demo.Handler(demo.Options{}))
	defer srv.Close()
	for _, fixture := range []string{"../../examples/demo-http.yaml", "../../examples/demo.yaml"} {
		r := runCmd(t, "--config", fixture, "--url", srv.URL+"/mcp", "--json", "-")
		if r.code != 0 {
			t.Fatalf("%s: exit %d\n%s", fixture, r.code, r.stderr)
		}
		m := validReport(t, r.stdout)
		target := m["target"].(map[string]any)
		if target["transport"] != "http" || target["origin"] != srv.URL {
			t.Errorf("%s: target = %v", fixture, target)
		}
	}
}

// TestEveryExampleRuns keeps the examples honest: each file in examples/ is
// run by some test here.
func TestEveryExampleRuns(t *testing.T) {
	covered := map[string]bool{"demo.yaml": true, "demo-http.yaml": true, "everything.yaml": true,
		"whole-server.yaml": true, "client.yaml": true, // TestWholeServer, TestClientBlock
		"memory.yaml":    true,                       // TestMemoryLifecycle
		"defects.yaml":   true,                       // TestDefectsReceipts
		"protocol.yaml":  true,                       // TestProtocolExample
		"behaviour.yaml": true, "observe.yaml": true, // TestBehaviourExample, TestObserveExample
		"contract.yaml": true, "demo.contract.json": true, // TestContractInFixture, TestSnapshotDemo
		"golden.yaml": true, "__snapshots__": true, // TestGoldenDemo
		"faults.yaml": true, "faults-http.yaml": true, // TestFaultReceipts
		"tasks.yaml": true, // TestTasksEverything
		"eras.yaml":  true, // TestErasExample
		"load.yaml":  true, // TestLoadMatrixExample
		"ci":         true, // TestGitHubActionsExample, TestLoadMatrixExample
		".mcpcheck":  true} // every run's last-run.json (--last-failed)
	files, _ := filepath.Glob("../../examples/*")
	for _, f := range files {
		if !covered[filepath.Base(f)] {
			t.Errorf("examples/%s is not run by any test", filepath.Base(f))
		}
	}
}

// runEverything runs examples/everything.yaml against the pinned
// server-everything, over stdio (installed in the peers cache) or over HTTP.
func runEverything(t *testing.T, endpoint string, flags ...string) *report.Report {
	settings := map[string]any{}
	for i := 0; i+1 < len(flags); i += 2 {
		settings[flags[i]] = flags[i+1]
	}
	rep, _ := passExample(t, "everything.yaml", peerDir(t), endpoint, settings)
	var js strings.Builder
	report.JSON(&js, rep)
	validReport(t, js.String())
	if rep.Server == nil || rep.Server.Name != "mcp-servers/everything" {
		t.Errorf("server = %+v", rep.Server)
	}
	return rep
}

// passExample runs examples/NAME with settings against the pinned
// server-everything, over stdio (installed in dir) or at endpoint, fails
// the test unless the run passed, and returns the report and its text.
func passExample(t *testing.T, name, dir, endpoint string, settings map[string]any) (*report.Report, string) {
	t.Helper()
	flags := endpointFlag(endpoint)
	maps.Copy(flags, settings)
	suite, err := config.Load("../../examples/"+name, config.LoadOptions{Flags: flags})
	if err != nil {
		t.Fatal(err)
	}
	if endpoint == "" {
		suite.Cwd = dir // the fixture says the repository root; the tests install elsewhere
	}
	rep, err := runner.Run(context.Background(), suite, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	report.Text(&b, rep, report.TextOptions{})
	if !rep.Passed {
		t.Fatalf("%s (endpoint %q) failed:\n%s", name, endpoint, b.String())
	}
	return rep, b.String()
}

func TestEverythingStdio(t *testing.T) {
	parallel(t)
	rep := runEverything(t, "")
	if rep.Target.Transport != "stdio" || rep.Target.Program != "node" {
		t.Errorf("target = %+v", rep.Target)
	}
}

func TestEverythingHTTP(t *testing.T) {
	parallel(t)
	endpoint := startEverythingHTTP(t, peerDir(t))
	rep := runEverything(t, endpoint)
	if rep.Target.Transport != "http" {
		t.Errorf("target = %+v", rep.Target)
	}
}

// TestEverythingSSE runs the same fixture over the legacy HTTP+SSE
// transport (server-everything's sse mode), as --sse does.
func TestEverythingSSE(t *testing.T) {
	parallel(t)
	endpoint := startEverythingSSE(t, peerDir(t))
	rep := runEverything(t, endpoint, "transport", string(config.TransportSSE))
	if rep.Target.Transport != "sse" {
		t.Errorf("target = %+v", rep.Target)
	}
}

// TestDemoExampleInMemory runs the whole command against the demo server
// over an in-memory transport (no process, no network).
func TestDemoExampleInMemory(t *testing.T) {
	saved := runOptions
	defer func() { runOptions = saved }()
	runOptions = &runner.Options{Dial: func(ctx context.Context) (mcp.Transport, error) {
		ct, st := mcp.NewInMemoryTransports()
		if _, err := demo.NewServer(demo.Options{}).Connect(ctx, st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}}
	r := runCmd(t, "--config", "../../examples/demo.yaml", "--json", "-")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	m := validReport(t, r.stdout)
	if target := m["target"].(map[string]any); target["transport"] != "memory" {
		t.Errorf("target = %v", target)
	}
	if s := m["summary"].(map[string]any); s["passed"] != float64(10) {
		t.Errorf("summary = %v", s)
	}
}

func reportJSON(t *testing.T, w *strings.Builder, rep *report.Report) {
	t.Helper()
	if err := report.JSON(w, rep); err != nil {
		t.Fatal(err)
	}
}

// endpointFlag is the --url setting, when endpoint is given.
func endpointFlag(endpoint string) map[string]any {
	if endpoint == "" {
		return map[string]any{}
	}
	return map[string]any{"endpoint": endpoint}
}

// TestWholeServer runs examples/whole-server.yaml, every step kind, against
// the demo over stdio and over Streamable HTTP, under both protocol
// versions over stdio.
func TestWholeServer(t *testing.T) {
	parallel(t)
	srv := httptest.NewServer(demo.Handler(demo.Options{}))
	defer srv.Close()
	for _, args := range [][]string{
		{},
		{"--protocol", "2026-07-28"},
		{"--url", srv.URL + "/mcp"},
	} {
		r := runCmd(t, append([]string{"--config", "../../examples/whole-server.yaml", "--json", "-"}, args...)...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, r.code, r.stderr)
		}
		m := validReport(t, r.stdout)
		kinds := map[string]bool{}
		for _, sc := range m["scenarios"].([]any) {
			for _, st := range sc.(map[string]any)["steps"].([]any) {
				kinds[st.(map[string]any)["kind"].(string)] = true
			}
		}
		for _, k := range config.StepKinds {
			if k != config.KindUnsubscribe && !kinds[string(k)] {
				t.Errorf("%v: no %s step ran", args, k)
			}
		}
	}
}

// TestClientBlock runs examples/client.yaml against server-everything over
// stdio and HTTP: the roots, sampling and elicitation answers reach the
// server, and each step reports what the server asked.
func TestClientBlock(t *testing.T) {
	parallel(t)
	dir := peerDir(t)
	for _, endpoint := range []string{"", startEverythingHTTP(t, dir)} {
		rep, text := passExample(t, "client.yaml", dir, endpoint, nil)
		for i, want := range []string{"roots/list", "sampling/createMessage", "elicitation/create"} {
			st := rep.Scenarios[i].Steps[0]
			if want == "roots/list" && len(st.ServerRequests) == 0 {
				// server-everything asks for the roots 350 ms after
				// initialized, or during get-roots-list if that comes
				// first: on a loaded machine the step may start later,
				// with the roots already fetched (the fixture's text
				// expectation shows they reached the server).
				continue
			}
			most := 1
			if want == "roots/list" {
				// Or both: the timer's request fell inside the step too.
				most = 2
			}
			if len(st.ServerRequests) != 1 || st.ServerRequests[0].Method != want || st.ServerRequests[0].Count < 1 || st.ServerRequests[0].Count > most {
				t.Errorf("%s: server requests %+v, want %s (at most %d)", st.ID, st.ServerRequests, want, most)
			}
		}
		if !strings.Contains(text, "the server asked the client: sampling/createMessage ×1") {
			t.Errorf("the human report does not say what the server asked:\n%s", text)
		}
	}
}
