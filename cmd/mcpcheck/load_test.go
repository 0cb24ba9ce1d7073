package main

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/demo"
	"github.com/mcpcheck/mcpcheck/internal/jsonx"
	"github.com/mcpcheck/mcpcheck/runner/report"
	"github.com/mcpcheck/mcpcheck/schemas"
)

func readLoad(t *testing.T, path string) *report.Report {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := schemas.Validate(schemas.ReportURL, jsonx.Value(data)); err != nil {
		t.Fatalf("%s against the report schema: %v", path, err)
	}
	var r report.Report
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	if r.Load == nil {
		t.Fatalf("%s has no load section", path)
	}
	return &r
}

// TestLoadQuickStdio: mcpcheck load -- SERVER calls the read-only tools as
// users would, over real stdio, and its verdict is the thresholds'.
func TestLoadQuickStdio(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "load.json")
	code, text := cli(t, "", nil, "load", "--vus", "2", "--iterations", "12", "--threshold", "p99<60s", "--json", out, "--", "mcpcheck", "demo")
	if code != exitPass {
		t.Fatalf("exit %d:\n%s", code, text)
	}
	r := readLoad(t, out)
	if r.Load.Iterations != 12 || r.Load.Overall.Calls == 0 || r.Load.Overall.Errors != 0 || !r.Passed {
		t.Fatalf("load %+v", r.Load)
	}
	for _, st := range r.Load.Steps {
		if st.Calls != 12 {
			t.Errorf("step %s/%s: %d calls, want 12 (one per iteration)", st.Scenario, st.Step, st.Calls)
		}
	}
	if !strings.Contains(text, "met      p99<60s") || !strings.Contains(text, "closed model: 2 users; 12 iterations") {
		t.Errorf("human report:\n%s", text)
	}
	code, text = cli(t, "", nil, "load", "--vus", "1", "--iterations", "3", "--threshold", "rps>1000000", "--", "mcpcheck", "demo")
	if code != exitFail || !strings.Contains(text, "NOT MET  rps>1000000") {
		t.Errorf("an unmet threshold: exit %d\n%s", code, text)
	}
}

// TestLoadSegmentsMerge: two processes each run a segment of a load over
// HTTP; mcpcheck merge joins them into the histograms of the whole,
// exactly, and judges the thresholds on it.
func TestLoadSegmentsMerge(t *testing.T) {
	srv := httptest.NewServer(demo.Handler(demo.Options{}))
	defer srv.Close()
	dir := t.TempDir()
	fixture := filepath.Join(dir, "load.yaml")
	os.WriteFile(fixture, []byte(`name: segments
endpoint: `+srv.URL+`/mcp
allowTools: [get_household]
load: {vus: 4, iterations: 25, thresholds: ["p99<60s"]}
scenarios:
  - name: read
    steps: [{id: household, tool: get_household}]
`), 0o644)
	var parts []string
	var counts uint64
	for k := 1; k <= 2; k++ {
		p := filepath.Join(dir, "seg"+string(rune('0'+k))+".json")
		if code, text := cli(t, "", nil, "load", "--config", fixture, "--segment", string(rune('0'+k))+"/2", "--json", p); code != exitPass {
			t.Fatalf("segment %d: exit %d\n%s", k, code, text)
		}
		counts += readLoad(t, p).Load.Overall.Histogram.Count
		parts = append(parts, p)
	}
	merged := filepath.Join(dir, "merged.json")
	html := filepath.Join(dir, "merged.html")
	if code, text := cli(t, "", nil, append([]string{"merge", "--json", merged, "--html", html}, parts...)...); code != exitPass {
		t.Fatalf("merge: exit %d\n%s", code, text)
	}
	m := readLoad(t, merged)
	if m.Load.Iterations != 25 || m.Load.Overall.Calls != 25 || m.Load.Overall.Histogram.Count != counts || m.Load.Segment != nil || !m.Passed {
		t.Fatalf("merged: iterations %d calls %d histogram %d (parts %d) passed %v", m.Load.Iterations, m.Load.Overall.Calls, m.Load.Overall.Histogram.Count, counts, m.Passed)
	}
	if page, _ := os.ReadFile(html); !strings.Contains(string(page), "latency by percentile") {
		t.Error("the merged HTML report has no chart")
	}
	if code, text := cli(t, "", nil, "merge", "--json", merged, parts[0]); code != exitBadArgs || !strings.Contains(text, "1 of 2 segments") {
		t.Errorf("a missing segment: exit %d\n%s", code, text)
	}
}

// TestLoadBadInput: bad load flags and fixture rules are exit 2, named.
func TestLoadBadInput(t *testing.T) {
	dir := t.TempDir()
	fixture := filepath.Join(dir, "bad.yaml")
	os.WriteFile(fixture, []byte("name: bad\ncommand: [mcpcheck, demo]\nallowTools: [get_household]\nload:\n  thresholds: [\"p95<fast\"]\nscenarios:\n  - name: s\n    steps: [{id: a, tool: get_household}]\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"load", "--config", fixture}, "bad.yaml:5:16: load.thresholds: threshold \"p95<fast\": p95 compares with a duration"},
		{[]string{"load", "--threshold", "p96<1s", "--", "mcpcheck", "demo"}, `unknown metric "p96"`},
		{[]string{"load", "--vus", "0", "--", "mcpcheck", "demo"}, "--vus \"0\": want a whole number from 1 to 10000"},
		{[]string{"load", "--vus", "3", "--rate", "5", "--", "mcpcheck", "demo"}, "not both"},
		{[]string{"load", "--segment", "3/2", "--", "mcpcheck", "demo"}, "--segment"},
		{[]string{"load", "--list", "--", "mcpcheck", "demo"}, "--list is for a run, not for load"},
	} {
		code, text := cli(t, "", nil, c.args...)
		if code != exitBadArgs || !strings.Contains(text, c.want) {
			t.Errorf("%v: exit %d, want 2 and %q:\n%s", c.args, code, c.want, text)
		}
	}
}

// The load matrix example's own commands, driven as GitHub drives them:
// the segment job's command as three processes at once, then the merge
// job's, on examples/load.yaml; the merged report holds every segment's
// calls and its thresholds' verdict.
func TestLoadMatrixExample(t *testing.T) {
	parallel(t)
	wf := readWorkflow(t, "../../examples/ci/load-matrix.yml")
	command := wf.command
	segCmd, mergeCmd := command("segment", "--segment"), command("merge", "mcpcheck merge")
	for _, job := range []string{"segment", "merge"} {
		if build := command(job, "go install"); build != `go install ./cmd/mcpcheck && echo "$(go env GOPATH)/bin" >> "$GITHUB_PATH"` {
			t.Errorf("job %s builds mcpcheck with %q, not as github-actions.yml does", job, build)
		}
	}
	dir := t.TempDir()
	copyFixture(t, "../../examples/load.yaml", dir, "load.yaml")
	wf.runMatrix("segment", segCmd, dir, nil)
	matrix := wf.Jobs["segment"].Strategy.Matrix["segment"]
	var calls uint64
	for _, k := range matrix {
		calls += readLoad(t, filepath.Join(dir, fmt.Sprintf("segment-%d.json", k))).Load.Overall.Calls
	}
	code, out := wf.run(dir, nil, mergeCmd)
	if code != 0 {
		t.Fatalf("%s: exit %d\n%s", mergeCmd, code, out)
	}
	m := readLoad(t, filepath.Join(dir, "load.json"))
	if m.Load.Overall.Calls != calls || m.Load.VUs != 4 || len(m.Load.Thresholds) != 3 || !m.Passed {
		t.Errorf("merged: calls %d (segments %d), users %d, thresholds %+v", m.Load.Overall.Calls, calls, m.Load.VUs, m.Load.Thresholds)
	}
	for _, f := range []string{"load.xml", "load.html"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}

// TestLoadEverything: a load of the real server-everything's echo over
// stdio (each user its own node process), judged by its thresholds.
func TestLoadEverything(t *testing.T) {
	parallel(t)
	peers := peerDir(t)
	dir := t.TempDir()
	fixture := filepath.Join(dir, "echo.yaml")
	os.WriteFile(fixture, []byte(`name: echo under load
command: [node, `+filepath.Join(peers, peerEverything)+`, stdio]
allowTools: [echo]
timeoutMs: 30000
load: {vus: 2, iterations: 40, thresholds: ["errors<1%", "p99<10s"]}
scenarios:
  - name: echo
    steps:
      - id: echo
        tool: echo
        arguments: {message: hello}
        expect: {text: {contains: hello}}
`), 0o644)
	out := filepath.Join(dir, "load.json")
	code, text := cli(t, "", nil, "load", "--config", fixture, "--json", out, "--html", filepath.Join(dir, "load.html"))
	if code != exitPass {
		t.Fatalf("exit %d\n%s", code, text)
	}
	r := readLoad(t, out)
	if r.Load.Overall.Calls != 40 || r.Load.Overall.Errors != 0 || r.Server == nil || r.Server.Name != "mcp-servers/everything" {
		t.Fatalf("load %+v server %+v", r.Load.Overall, r.Server)
	}
}
