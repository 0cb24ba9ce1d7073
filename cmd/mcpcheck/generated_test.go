package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/demo"
	"github.com/mcpcheck/mcpcheck/runner"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// quickReport is the part of a JSON report the generated-check tests read.
type quickReport struct {
	Suite   string `json:"suite"`
	Passed  bool   `json:"passed"`
	Summary struct {
		Scores []struct {
			Name    string  `json:"name"`
			Percent float64 `json:"percent"`
			Passed  int     `json:"passed"`
			Total   int     `json:"total"`
		} `json:"scores"`
	} `json:"summary"`
	SkippedTools []struct {
		Tool, Reason string
	} `json:"skippedTools"`
	Findings []struct {
		Tool, Origin, Kind, Status, Expected, Got, Reference string
	} `json:"findings"`
	Scenarios []struct {
		Name  string `json:"name"`
		Steps []struct {
			ID, Tool, Origin, Status, Outcome, Case string
		} `json:"steps"`
	} `json:"scenarios"`
}

func decodeQuick(t *testing.T, data string) quickReport {
	t.Helper()
	validReport(t, data)
	var q quickReport
	if err := json.Unmarshal([]byte(data), &q); err != nil {
		t.Fatal(err)
	}
	return q
}

func (q quickReport) score(name string) (float64, int) {
	for _, s := range q.Summary.Scores {
		if s.Name == name {
			return s.Percent, s.Total
		}
	}
	return -1, 0
}

func (q quickReport) skipped() []string {
	var out []string
	for _, s := range q.SkippedTools {
		out = append(out, s.Tool)
	}
	return out
}

// calledTools lists every tool a step called.
func (q quickReport) calledTools() []string {
	var out []string
	for _, sc := range q.Scenarios {
		for _, st := range sc.Steps {
			if st.Outcome != "" && st.Tool != "" && !slices.Contains(out, st.Tool) {
				out = append(out, st.Tool)
			}
		}
	}
	slices.Sort(out)
	return out
}

// protocolKinds lists the kinds of the protocol probes' failed findings
// and notes, sorted, and fails the test if any other finding failed.
func (q quickReport) protocolKinds(t *testing.T) (failed, notes []string) {
	t.Helper()
	for _, f := range q.Findings {
		switch {
		case f.Origin != "protocol" && f.Status == "failed":
			t.Errorf("a failed finding besides the protocol probes': %+v", f)
		case f.Origin != "protocol":
		case f.Status == "failed":
			failed = append(failed, f.Kind)
		default:
			notes = append(notes, f.Kind)
		}
	}
	slices.Sort(failed)
	slices.Sort(notes)
	return failed, notes
}

// checkNullArguments checks the protocol finding every server built on the
// TypeScript SDK shares (typescript-sdk #2012): tools/call with arguments
// null answered -32603, on tool, with its spec reference.
func (q quickReport) checkNullArguments(t *testing.T, tool string) {
	t.Helper()
	for _, f := range q.Findings {
		if f.Kind == "null-arguments" {
			if f.Status != "failed" || f.Tool != tool || !strings.HasPrefix(f.Reference, "MCP 2025-11-25 server/tools, Error Handling: \"Protocol Errors") || !strings.Contains(f.Reference, "Validate all tool inputs") || !strings.Contains(f.Got, "JSON-RPC error -32603") || !strings.Contains(f.Expected, "never -32603") {
				t.Errorf("null-arguments finding = %+v", f)
			}
			return
		}
	}
	t.Errorf("no null-arguments finding")
}

// everythingWriters are server-everything's tools not annotated read-only.
var everythingWriters = []string{"gzip-file-as-resource", "simulate-research-query", "toggle-simulated-logging", "toggle-subscriber-updates"}

// checkQuickEverything checks a quick run against server-everything: its
// tool checks all pass; the protocol probes find the null-arguments bug of
// the TypeScript SDK (exit 1), the other failed probes in failed, and the
// SHOULDs it does not follow in notes.
func checkQuickEverything(t *testing.T, r result, failed, notes []string) {
	t.Helper()
	if r.code != 1 {
		t.Fatalf("exit %d, want 1 (the protocol probes' findings)\n%s", r.code, r.stderr)
	}
	q := decodeQuick(t, r.stdout)
	q.checkNullArguments(t, "get-env")
	if f, n := q.protocolKinds(t); !slices.Equal(f, failed) || !slices.Equal(n, notes) {
		t.Errorf("protocol findings: failed %v (want %v), notes %v (want %v)", f, failed, n, notes)
	}
	// The title names the server by its serverInfo name, not "node".
	if q.Suite != "quick check of mcp-servers/everything" {
		t.Errorf("suite = %q", q.Suite)
	}
	if got := q.skipped(); !slices.Equal(got, everythingWriters) {
		t.Errorf("skipped tools = %v, want every non-read-only tool %v", got, everythingWriters)
	}
	for _, w := range everythingWriters {
		if slices.Contains(q.calledTools(), w) {
			t.Errorf("%s was called", w)
		}
	}
	if pct, total := q.score("crashResilience"); pct != 100 || total < 10 {
		t.Errorf("crash resilience %.2f%% of %d cases", pct, total)
	}
	// 9 tools' valid calls, 7 resources read, 3 of 4 prompts (resource-prompt
	// answers -32603 to the synthetic arguments: an honest error, not scored).
	if pct, total := q.score("responseFidelity"); pct != 100 || total != 19 {
		t.Errorf("response fidelity %.2f%% of %d", pct, total)
	}
}

func TestQuickEverythingStdio(t *testing.T) {
	parallel(t)
	peerDir(t)
	// The run is shared with TestShardMergeEverything, and started ahead
	// (see shared_runs_test.go).
	w := everythingSpec(0, 0).get()
	if w.err != "" {
		t.Fatalf("the run: %s\n%s", w.err, w.out)
	}
	r := result{code: w.code, stdout: w.report, stderr: w.out}
	checkQuickEverything(t, r, []string{"null-arguments"},
		[]string{"bad-jsonrpc", "invalid-cursor", "invalid-log-level", "missing-method", "read-without-uri"})
}

func TestQuickEverythingHTTP(t *testing.T) {
	parallel(t)
	endpoint := startEverythingHTTP(t, peerDir(t))
	r := runCmd(t, "--json", "-", "--timeout", "30s", "--url", endpoint)
	// Over HTTP a request on a deleted session gets 400, where the spec
	// says 404 (a MUST), and a foreign Origin and a foreign Host are
	// served (risks; by hand: curl -H 'Host: mcpcheck-foreign.example' gets
	// 200). Its SSE answers begin with a priming event (sse-priming passes).
	checkQuickEverything(t, r, []string{"deleted-session", "null-arguments"},
		[]string{"batch", "foreign-host", "foreign-origin", "invalid-cursor", "invalid-log-level", "read-without-uri"})
}

func TestQuickMemory(t *testing.T) {
	parallel(t)
	dir := peerDir(t)
	r := runCmd(t, "--json", "-", "--env", "MEMORY_FILE_PATH="+filepath.Join(t.TempDir(), "memory.jsonl"), "--",
		"node", filepath.Join(dir, peerMemory))
	if r.code != 1 {
		t.Fatalf("exit %d, want 1 (the protocol probes' findings)\n%s", r.code, r.stderr)
	}
	q := decodeQuick(t, r.stdout)
	q.checkNullArguments(t, "read_graph")
	if f, n := q.protocolKinds(t); !slices.Equal(f, []string{"null-arguments"}) ||
		!slices.Equal(n, []string{"bad-jsonrpc", "invalid-cursor", "missing-method", "read-without-uri"}) {
		t.Errorf("protocol findings: failed %v, notes %v", f, n)
	}
	writers := []string{"add_observations", "create_entities", "create_relations", "delete_entities", "delete_observations", "delete_relations"}
	if got := q.skipped(); !slices.Equal(got, writers) {
		t.Errorf("skipped = %v, want %v", got, writers)
	}
	if got := q.calledTools(); !slices.Equal(got, []string{"open_nodes", "read_graph", "search_nodes"}) {
		t.Errorf("called %v", got)
	}
	if pct, _ := q.score("crashResilience"); pct != 100 {
		t.Errorf("crash resilience %.2f%%", pct)
	}
}

// TestMemoryLifecycle runs examples/memory.yaml: the explicit lifecycle
// group passes against server-memory, whose delete really deletes. Its
// memory file lives in the run's ${tmp}: a second run starts from an empty
// graph again, and nothing is left behind.
func TestMemoryLifecycle(t *testing.T) {
	dir := peerDir(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	suite, err := config.Load("../../examples/memory.yaml", config.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	suite.Cwd = dir
	var rep *report.Report
	for range 2 {
		if rep, err = runner.Run(context.Background(), suite, runner.Options{}); err != nil {
			t.Fatal(err)
		}
		if left, _ := os.ReadDir(tmp); len(left) != 0 {
			t.Errorf("the scratch directory is left behind: %v", left)
		}
	}
	var js strings.Builder
	reportJSON(t, &js, rep)
	q := decodeQuick(t, js.String())
	if !q.Passed {
		t.Fatalf("memory.yaml failed:\n%s", js.String())
	}
	var chain []string
	for _, sc := range q.Scenarios {
		if sc.Name == "lifecycle: entity" {
			for _, st := range sc.Steps {
				chain = append(chain, st.ID+"="+st.Status)
			}
		}
	}
	if strings.Join(chain, " ") != "create=passed read=passed delete=passed read-after-delete=passed" {
		t.Errorf("lifecycle chain: %v", chain)
	}
	if pct, total := q.score("lifecycle"); pct != 100 || total != 4 {
		t.Errorf("lifecycle score %.2f%% of %d", pct, total)
	}
}

// generatedReceipts renders a generated run's verdicts: every step, every
// finding, every score. Durations and measured figures are left out.
func generatedReceipts(t *testing.T, data string) string {
	t.Helper()
	var rep struct {
		Summary struct {
			Scores []struct {
				Name          string
				Passed, Total int
				Grade         string
			} `json:"scores"`
		} `json:"summary"`
		Findings []struct {
			Tool, Kind, Status, Step string
			Flagged                  bool
		} `json:"findings"`
		SkippedTools []struct{ Tool string } `json:"skippedTools"`
		Notes        []string                `json:"notes"`
	}
	if err := json.Unmarshal([]byte(data), &rep); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	// Steps, without connection counts, and without the identical calls on
	// independent connections: how many of them win a race is chance; the
	// finding below is the verdict.
	for _, line := range strings.Split(strings.SplitN(receipts(t, data), "\n", 2)[1], "\n") {
		if line != "" && !strings.HasPrefix(line, "concurrency: ") {
			b.WriteString(line + "\n")
		}
	}
	// Latency is the one timing-dependent verdict: slow_search is slow by
	// design (1.2 s), every other tool answers in milliseconds, but on a
	// loaded two-core machine one of them can pass the relative rule's
	// 100 ms floor. Such a flag is logged, not pinned: tests never fail on
	// timing. The score is pinned as if it had not happened.
	loadFlags := 0
	findings := rep.Findings[:0]
	for _, f := range rep.Findings {
		if f.Kind == "latency" && f.Tool != "slow_search" {
			t.Logf("%s flagged slow on this machine (timing, not pinned)", f.Tool)
			loadFlags++
			continue
		}
		findings = append(findings, f)
	}
	rep.Findings = findings
	for _, s := range rep.Summary.Scores {
		if s.Name == "latency" {
			s.Passed += loadFlags
			s.Grade = "-"
		}
		fmt.Fprintf(&b, "score %s: %d/%d %s\n", s.Name, s.Passed, s.Total, s.Grade)
	}
	for _, f := range rep.Findings {
		if strings.HasPrefix(f.Step, "concurrency: ") || strings.HasPrefix(f.Step, "crossed: ") {
			// One call of a concurrency check is never a finding of its
			// own: the check's verdict (Step empty) is.
			t.Errorf("a concurrency call is a finding of its own: %+v", f)
		}
		fmt.Fprintf(&b, "finding %s %s: status=%s flagged=%v step=%s\n", f.Tool, f.Kind, f.Status, f.Flagged, f.Step)
	}
	for _, s := range rep.SkippedTools {
		fmt.Fprintf(&b, "skipped %s\n", s.Tool)
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(&b, "note %s\n", n)
	}
	return b.String()
}

// TestDefectsReceipts runs every generator against the demo's planted
// defects, over stdio and over HTTP, and pins what each finds: the planted
// tool fails or is flagged, the controls are not.
//
// Each transport runs in processes of its own (mcpcheck as a child over
// stdio, the demo as a child over HTTP) with a TMPDIR of its own, where
// ticket_counter's cross-process lock lives: no other test's calls can
// contend for it.
func TestDefectsReceipts(t *testing.T) {
	parallelParent(t)
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			parallel(t)
			// The runs are shared (see shared_runs_test.go): over HTTP
			// sixteen at a time, which TestDefectsSameWhateverJobs shows
			// gives the receipts of one at a time.
			spec := stdioSpec(defectsYAML)
			if transport == "http" {
				spec = httpSpec("16")
			}
			w := spec.get()
			if w.err != "" {
				t.Fatalf("the run: %s\n%s", w.err, w.out)
			}
			if w.code != 1 {
				t.Fatalf("exit %d, want 1 (the planted defects must fail the run)\n%s", w.code, w.out)
			}
			validReport(t, w.report)
			golden(t, "defects-"+transport+".golden", generatedReceipts(t, w.report))
		})
	}
}

// TestDefectsSameWhateverJobs: the generated report (statuses, outcomes,
// findings, scores, notes) is the same one by one and sixteen at a time,
// although read-only tools' cases and isolated parallel scenarios overlap.
// The two runs go at once, each against a demo of its own (see
// TestDefectsReceipts).
func TestDefectsSameWhateverJobs(t *testing.T) {
	parallelParent(t)
	jobs := []string{"1", "16"}
	got := make([]string, len(jobs))
	t.Run("runs", func(t *testing.T) {
		for i, n := range jobs {
			t.Run("jobs-"+n, func(t *testing.T) {
				parallel(t)
				// Both runs are shared, and started ahead (see
				// shared_runs_test.go); sixteen at a time is also
				// TestDefectsReceipts/http's.
				w := httpSpec(n).get()
				if w.err != "" {
					t.Fatalf("--jobs %s: %s\n%s", n, w.err, w.out)
				}
				if w.code != 1 {
					t.Fatalf("--jobs %s: exit %d, want 1\n%s", n, w.code, w.out)
				}
				got[i] = generatedReceipts(t, w.report)
			})
		}
	})
	if t.Failed() {
		return
	}
	if got[0] != got[1] {
		t.Errorf("--jobs 1 and --jobs 16 reports differ:\n--- jobs 1\n%s\n--- jobs 16\n%s", got[0], got[1])
	}
}

// TestQuickTraceAndList runs quick mode against the demo's defects over
// stdio: --list shows what would run and calls nothing, --trace writes a
// line per call (case, property, redacted arguments) and per skipped tool.
func TestQuickTraceAndList(t *testing.T) {
	parallel(t)
	r := runCmd(t, "--list", "--allow-tools", "lookup_city,convert_units,create_note", "--", "mcpcheck", "demo", "--defects")
	if r.code != 0 {
		t.Fatalf("--list exit %d\n%s", r.code, r.stderr)
	}
	for _, want := range []string{"generated: convert_units", "wrong-type.value", "fuzz", "skipped tools (", "annotated readOnlyHint: false, so no generated call is made (--include-destructive calls tools not annotated read-only): create_note"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("--list output lacks %q:\n%s", want, r.stdout)
		}
	}

	trace := filepath.Join(t.TempDir(), "run.jsonl")
	r = runCmd(t, "--trace", trace, "--allow-tools", "lookup_city,convert_units,create_note", "--env", "API_KEY=sekrit-token-value", "--", "mcpcheck", "demo", "--defects")
	if r.code != 1 { // convert_units answers -32603 to a wrong-typed value
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	var calls, skipped int
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var e report.TraceEntry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("bad trace line %q: %v", line, err)
		}
		switch {
		case e.Skipped != "":
			skipped++
			switch e.Tool {
			case "lookup_city", "convert_units":
				t.Errorf("allowlisted read-only tool %s skipped: %s", e.Tool, e.Skipped)
			case "create_note":
				if !strings.Contains(e.Skipped, "readOnlyHint: false") {
					t.Errorf("create_note skipped for %q", e.Skipped)
				}
			default:
				if !strings.Contains(e.Skipped, "not in allowTools") {
					t.Errorf("%s skipped for %q", e.Tool, e.Skipped)
				}
			}
		default:
			calls++
			if e.Origin == "" || e.Case == "" || e.StartedAt == "" || e.Outcome == "" {
				t.Errorf("incomplete trace line: %s", line)
			}
			if e.Case == "wrong-type" && e.Property == "" {
				t.Errorf("wrong-type case without its property: %s", line)
			}
		}
	}
	if calls < 5 || skipped < 20 {
		t.Errorf("%d call lines, %d skipped lines", calls, skipped)
	}
	if strings.Contains(string(data)+r.stdout+r.stderr, "sekrit") {
		t.Error("a --env value leaked")
	}
}

// TestQuickFilesystem runs quick mode against the reference filesystem
// server, which refuses every path outside the directory it serves:
// without offered inputs, 8 of its 10 read-only tools' valid calls are
// refused (inconclusive); with them, list_allowed_directories's answer
// gives the directory, its listing tools (directory_tree, list_directory,
// ...) called with it give todo.txt, and the file tools get that file
// (before issue 19 they got the directory: EISDIR). read_file and
// read_text_file, which forbid head with tail, get one of them (optional
// properties without a default: one per call). Nothing is written: its
// writers are not read-only; with --include-destructive they write fresh
// paths only.
func TestQuickFilesystem(t *testing.T) {
	parallel(t)
	dir := peerDir(t)
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "todo.txt"), []byte("water the plants\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	inconclusive := func(args ...string) (int, int, quickReport) {
		t.Helper()
		// The protocol probes find what they find in every server on the
		// TypeScript SDK (TestQuickMemory); this test is about fidelity.
		r := runCmd(t, append(append([]string{"--json", "-", "--no-protocol-probes"}, args...), "--", "node", filepath.Join(dir, peerFilesystem), root)...)
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		var rep struct {
			Summary struct {
				Scores []struct {
					Name                string
					Total, Inconclusive int
				}
			}
		}
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
			t.Fatal(err)
		}
		for _, s := range rep.Summary.Scores {
			if s.Name == "responseFidelity" {
				return s.Total, s.Inconclusive, decodeQuick(t, r.stdout)
			}
		}
		t.Fatalf("no fidelity score:\n%s", r.stdout)
		return 0, 0, quickReport{}
	}
	judged, inc, q := inconclusive()
	if q.Suite != "quick check of secure-filesystem-server" {
		t.Errorf("suite = %q", q.Suite)
	}
	if judged != 10 || inc != 0 {
		t.Errorf("with offered inputs: %d judged, %d inconclusive; want 10 and 0", judged, inc)
	}
	judged, inc, _ = inconclusive("--no-offered-inputs")
	if judged != 2 || inc != 8 {
		t.Errorf("without offered inputs: %d judged, %d inconclusive; want 2 and 8", judged, inc)
	}
	if entries, _ := os.ReadDir(root); len(entries) != 1 {
		t.Errorf("the served directory holds %d entries after the run, want the one it had", len(entries))
	}
	// With its writers called: each gets a fresh path of mcpcheck's own
	// in the served directory, never todo.txt or the directory itself.
	judged, inc, _ = inconclusive("--include-destructive", "--no-behaviour")
	if b, _ := os.ReadFile(filepath.Join(root, "todo.txt")); string(b) != "water the plants\n" {
		t.Errorf("todo.txt was changed: %q", b)
	}
	if b, err := os.ReadFile(filepath.Join(root, "mcpcheck-write_file-path.txt")); err != nil || len(b) == 0 {
		t.Errorf("write_file's fresh path was not written: %v", err)
	}
	if fi, err := os.Stat(filepath.Join(root, "mcpcheck-create_directory-path")); err != nil || !fi.IsDir() {
		t.Errorf("create_directory's fresh path was not made: %v", err)
	}
	// edit_file and move_file get fresh paths that do not exist (ENOENT):
	// inconclusive, and nothing of the server's is edited or moved.
	if judged != 12 || inc != 2 {
		t.Errorf("with --include-destructive: %d judged, %d inconclusive; want 12 and 2", judged, inc)
	}
}

// TestProtocolExample runs examples/protocol.yaml: the demo passes every
// protocol probe over stdio (the threshold of 100 met); over HTTP against
// the demo with planted protocol defects the threshold is not met, and the
// failed probes are the planted ones.
func TestProtocolExample(t *testing.T) {
	parallel(t)
	r := runCmd(t, "--json", "-", "--config", "../../examples/protocol.yaml")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	q := decodeQuick(t, r.stdout)
	if pct, total := q.score("protocolRobustness"); pct != 100 || total < 15 {
		t.Errorf("protocol robustness %.2f%% of %d", pct, total)
	}
	if f, n := q.protocolKinds(t); len(f) > 0 || len(n) > 0 {
		t.Errorf("clean demo: failed %v, notes %v", f, n)
	}
	srv := httptest.NewServer(demo.Handler(demo.Options{ProtocolDefects: true}))
	defer srv.Close()
	r = runCmd(t, "--json", "-", "--config", "../../examples/protocol.yaml", "--url", srv.URL+"/mcp")
	if r.code != 1 {
		t.Fatalf("exit %d with planted defects\n%s", r.code, r.stderr)
	}
	q = decodeQuick(t, r.stdout)
	if f, _ := q.protocolKinds(t); !slices.Equal(f, []string{"deleted-session", "invalid-protocol-version", "null-arguments", "omitted-arguments", "unknown-tool", "unsupported-version"}) {
		t.Errorf("failed probes %v", f)
	}
	if pct, _ := q.score("protocolRobustness"); pct >= 100 {
		t.Errorf("protocol robustness %.2f%%", pct)
	}
}
