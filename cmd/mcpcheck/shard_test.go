package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/mcpcheck/mcpcheck/demo"
)

// comparable is a JSON report made comparable between runs: durations
// zeroed, the latency probe (whose verdicts are timings: a loaded machine
// flags other tools) left out, as the defects golden does, and the
// sessions counted left out: a lost shared session is replaced when a
// later scenario of the same run needs it, which in a shard may be none
// (runner.Merge).
//
// Identical calls made at once on independent connections race, as they
// are meant to: how many of them win is chance (ticket_counter's "1 of 4"
// on a quiet machine is "2 of 4", or none, when the calls arrive further
// apart or a holder is slow to let go), so, as in the defects golden
// (generatedReceipts), the verdict is compared and not the count: such a
// scenario's steps become how many calls it made and the distinct
// failures they had, and the finding's message loses its count of
// winners. Whether the finding was made, its kind, tool and status, and
// the outcomes the failing calls ended in stay exact.
func comparable(t *testing.T, data string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(data), &m); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	var fix func(v any) any
	fix = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				x[k] = fix(e)
				if k == "durationMs" || k == "connections" || k == "restarts" {
					x[k] = 0
				}
			}
			if x["kind"] == "independent-connections" {
				if msg, ok := x["message"].(string); ok {
					x["message"] = raceVerdict(msg)
				}
			}
			if steps, ok := x["steps"].([]any); ok && racedSteps(steps) {
				x["steps"] = distinctFailures(steps)
			}
			if x["score"] == "latency" && x["origin"] == "probe" {
				return nil
			}
			if x["name"] == "latency" && x["grade"] != nil {
				return nil
			}
			// Which of N identical calls on independent connections win
			// ticket_counter's lock is chance: the finding is pinned, its
			// count and the calls' outcomes are not.
			if x["case"] == "independent-connections" {
				delete(x, "outcome")
				delete(x, "notes")
				delete(x, "flagged")
				delete(x, "reason")
			}
			if x["kind"] == "independent-connections" {
				if msg, ok := x["message"].(string); ok {
					x["message"] = regexp.MustCompile(`^\d+ of \d+ `).ReplaceAllString(msg, "N of M ")
				}
			}
		case []any:
			out := []any{}
			for _, e := range x {
				if e = fix(e); e != nil {
					out = append(out, e)
				}
			}
			return out
		}
		return v
	}
	b, _ := json.MarshalIndent(fix(m), "", "  ")
	return string(b)
}

// raceMessages are the independent-connections verdicts: some of the
// calls won, or none did although the call succeeds alone.
var raceMessages = []*regexp.Regexp{
	regexp.MustCompile(`^\d+ of (\d+) identical calls on independent connections succeeded and the rest ended in (.+): the failure depends on load$`),
	regexp.MustCompile(`^the call succeeds alone but all (\d+) concurrent calls on independent connections ended in (.+)$`),
}

// raceVerdict is an independent-connections message without its count of
// winners.
func raceVerdict(msg string) string {
	for _, re := range raceMessages {
		if m := re.FindStringSubmatch(msg); m != nil {
			return fmt.Sprintf("of %s identical calls on independent connections, some ended in %s", m[1], m[2])
		}
	}
	return msg
}

// racedSteps reports whether steps are the calls of an
// independent-connections check.
func racedSteps(steps []any) bool {
	for _, st := range steps {
		if m, ok := st.(map[string]any); !ok || m["case"] != "independent-connections" {
			return false
		}
	}
	return len(steps) > 1
}

// distinctFailures is how many calls steps made, then one of each result
// that was not ok (ids aside: the runner renumbers identical calls after
// sorting them by outcome).
func distinctFailures(steps []any) []any {
	out := []any{fmt.Sprintf("%d calls", len(steps))}
	seen := map[string]bool{}
	for _, st := range steps {
		m := st.(map[string]any)
		if m["outcome"] == "ok" {
			continue
		}
		delete(m, "id")
		key, _ := json.Marshal(m)
		if !seen[string(key)] {
			seen[string(key)] = true
			out = append(out, m)
		}
	}
	return out
}

// shardReports runs fixture as every shard of n at once, each a process
// of its own as on a CI job of its own (its own temporary directory: the
// demo's ticket_counter locks a file there, which shards on one machine
// would contend for), and returns the reports' paths.
func shardReports(t *testing.T, fixture string, n int) []string {
	dir := t.TempDir()
	runs := make([]*wholeRun, n)
	var wg sync.WaitGroup
	for k := 1; k <= n; k++ {
		// Shared runs: those of defects.yaml are started ahead (see
		// shared_runs_test.go).
		wg.Go(func() { runs[k-1] = shardSpec(fixture, k, n).get() })
	}
	wg.Wait()
	paths := make([]string, n)
	for i, w := range runs {
		k := i + 1
		if w.err != "" || w.code == 2 {
			t.Fatalf("shard %d/%d: exit %d %s\n%s", k, n, w.code, w.err, w.out)
		}
		if m := validReport(t, w.report); fmt.Sprint(m["shard"]) != fmt.Sprintf("map[index:%d total:%d]", k, n) {
			t.Errorf("shard %d/%d's report says shard %v", k, n, m["shard"])
		}
		paths[i] = filepath.Join(dir, fmt.Sprintf("shard-%d.json", k))
		if err := os.WriteFile(paths[i], []byte(w.report), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return paths
}

// Every K/N for N = 1..4 (2 and 3 for defects.yaml), merged, is the unsharded run's report: the same
// scenarios, steps, findings, scores, notes, connections and verdict,
// apart from durations.
func TestShardMergeEquivalence(t *testing.T) {
	parallelParent(t)
	for _, fixture := range []string{"../../examples/faults.yaml", "../../examples/defects.yaml"} {
		t.Run(filepath.Base(fixture), func(t *testing.T) {
			parallelParent(t)
			// The whole run as a process of its own too, with a temporary
			// directory of its own (see shardReports): nothing else on the
			// machine may hold the demo's ticket lock while it runs. It
			// goes at the same time as the four splits (independent runs)
			// and they wait for it only to compare: its wall time is
			// mostly the demo's planted delays.
			// (The whole run is shared: see shared_runs_test.go.)
			var whole *wholeRun
			ran := make(chan struct{})
			go func() {
				defer close(ran)
				whole = stdioSpec(fixture).get()
			}()
			// Every split of the fault lab; of defects.yaml (each split a
			// whole run's CPU, ~12 s) an even one and an uneven one.
			splits := []int{1, 2, 3, 4}
			if filepath.Base(fixture) == "defects.yaml" {
				splits = []int{2, 3}
			}
			for _, n := range splits {
				t.Run(fmt.Sprintf("%d-shards", n), func(t *testing.T) {
					parallel(t)
					paths := shardReports(t, fixture, n)
					out := filepath.Join(t.TempDir(), "merged.json")
					r := runCmd(t, append(append([]string{"merge"}, paths...), "--json", out)...)
					data, err := os.ReadFile(out)
					if err != nil {
						t.Fatalf("%d shards: %v\n%s", n, err, r.stderr)
					}
					validReport(t, string(data))
					if !strings.Contains(r.stdout, "passed,") {
						t.Errorf("%d shards: no human report:\n%s", n, r.stdout)
					}
					<-ran
					if whole.err != "" {
						t.Fatalf("the whole run: %s\n%s", whole.err, whole.out)
					}
					if r.code != whole.code {
						t.Errorf("%d shards: merge exit %d, the whole run %d\n%s", n, r.code, whole.code, r.stderr)
					}
					if got, want := comparable(t, string(data)), comparable(t, whole.report); got != want {
						t.Errorf("%d shards: the merged report differs from the whole run's:\n%s", n, lineDiff(got, want))
					}
				})
			}
		})
	}
}

// workflow is a GitHub Actions example as its tests drive it: each job's
// matrix and the commands of its steps.
type workflow struct {
	t    *testing.T
	Jobs map[string]struct {
		Needs    any `yaml:"needs"`
		Strategy struct {
			Matrix map[string][]int `yaml:"matrix"`
		} `yaml:"strategy"`
		Steps []struct {
			Run string `yaml:"run"`
			Dir string `yaml:"working-directory"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

func readWorkflow(t *testing.T, path string) *workflow {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	wf := &workflow{t: t}
	if err := yaml.Unmarshal(data, wf); err != nil {
		t.Fatal(err)
	}
	return wf
}

// command is the run line of job's step that contains has.
func (wf *workflow) command(job, has string) string {
	for _, st := range wf.Jobs[job].Steps {
		if strings.Contains(st.Run, has) {
			return st.Run
		}
	}
	wf.t.Fatalf("job %s has no step running %q", job, has)
	return ""
}

// dir is the working directory of job's step that runs has.
func (wf *workflow) dir(job, has string) string {
	for _, st := range wf.Jobs[job].Steps {
		if strings.Contains(st.Run, has) {
			return st.Dir
		}
	}
	return ""
}

// run runs one of the workflow's mcpcheck lines in dir with env added.
func (wf *workflow) run(dir string, env []string, line string) (int, string) {
	args := words(line)
	if args[0] != "mcpcheck" {
		wf.t.Fatalf("%q does not run mcpcheck", line)
	}
	return cli(wf.t, dir, env, args[1:]...)
}

// runMatrix runs job's command (the line cmd) once per value of the job's
// matrix, all at once as GitHub runs a matrix; each run must pass.
func (wf *workflow) runMatrix(job, cmd, dir string, env []string) {
	var wg sync.WaitGroup
	for _, k := range wf.Jobs[job].Strategy.Matrix[job] {
		wg.Go(func() {
			line := strings.ReplaceAll(cmd, "${{ matrix."+job+" }}", fmt.Sprint(k))
			if code, out := wf.run(dir, env, line); code != 0 {
				wf.t.Errorf("%s %d: exit %d\n%s", job, k, code, out)
			}
		})
	}
	wg.Wait()
}

// lineDiff shows the lines of got and want that differ, a few around.
func lineDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	var b strings.Builder
	for i := 0; i < max(len(g), len(w)); i++ {
		var x, y string
		if i < len(g) {
			x = g[i]
		}
		if i < len(w) {
			y = w[i]
		}
		if x != y {
			fmt.Fprintf(&b, "line %d\n  got:  %s\n  want: %s\n", i+1, x, y)
			if b.Len() > 3000 {
				break
			}
		}
	}
	return b.String()
}

// merge refuses, exit 2 naming the files, reports that are not the shards
// of one run; --allow-partial merges a run with a shard missing.
func TestMergeRefuses(t *testing.T) {
	parallel(t)
	faults := shardReports(t, "../../examples/faults.yaml", 3)
	failing := shardReports(t, "testdata/failing.yaml", 3)
	whole := filepath.Join(t.TempDir(), "whole.json")
	runCmd(t, "--config", "../../examples/faults.yaml", "--json", whole)
	notJSON := filepath.Join(t.TempDir(), "notes.json")
	os.WriteFile(notJSON, []byte(`{"hello": "world"}`), 0o644)
	for _, c := range []struct {
		name  string
		files []string
		want  []string
	}{
		{"different suites", []string{faults[0], failing[1], faults[2]}, []string{faults[0], failing[1], "different suites"}},
		{"a shard twice", []string{faults[0], faults[1], faults[1], faults[2]}, []string{faults[1], "both shard 2/3"}},
		{"a shard missing", []string{faults[0], faults[2]}, []string{"shard 2/3 missing", faults[0], faults[2], "--allow-partial"}},
		{"not a shard", []string{whole, faults[0]}, []string{whole, "not a shard's report"}},
		{"not a report", []string{notJSON}, []string{notJSON, "not an mcpcheck JSON report"}},
		{"no report", nil, []string{"give the shards' JSON reports"}},
	} {
		r := runCmd(t, append([]string{"merge"}, c.files...)...)
		if r.code != 2 {
			t.Errorf("%s: exit %d, want 2\n%s", c.name, r.code, r.stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("%s: the refusal does not say %q:\n%s", c.name, w, r.stderr)
			}
		}
	}
	r := runCmd(t, "merge", faults[0], faults[2], "--allow-partial", "--json", "-")
	if r.code != 0 {
		t.Fatalf("--allow-partial: exit %d\n%s", r.code, r.stderr)
	}
	m := validReport(t, r.stdout)
	left := 0
	for _, sc := range m["scenarios"].([]any) {
		if sc.(map[string]any)["notSelected"] == "shard" {
			left++
		}
	}
	if left == 0 || m["shard"] != nil {
		t.Errorf("--allow-partial: %d scenarios of the missing shard left skipped, shard %v", left, m["shard"])
	}
	// The merged verdict is the exit code: the failing fixture fails merged.
	if r := runCmd(t, append([]string{"merge"}, failing...)...); r.code != 1 || !strings.HasPrefix(r.stdout, "FAIL ") {
		t.Errorf("merged failing shards: exit %d\n%s", r.code, r.stdout)
	}
}

// The GitHub Actions example's own commands, driven as it drives them:
// the shard job's command as three processes at once (the matrix), then
// the merge job's, on a fixture directory.
func TestGitHubActionsExample(t *testing.T) {
	parallel(t)
	wf := readWorkflow(t, "../../examples/ci/github-actions.yml")
	command := wf.command
	shardCmd, mergeCmd := command("shard", "--shard"), command("merge", "mcpcheck merge")
	// mcpcheck is built from its source, as the README's Install section
	// says (TestGoInstall runs that command), in every job.
	for _, job := range []string{"shard", "merge"} {
		install, dir := command(job, "go install"), wf.dir(job, "go install")
		if !strings.HasPrefix(install, installLine+" ") || dir != "tools/mcpcheck" {
			t.Errorf("job %s builds mcpcheck with %q in %q, want %q in tools/mcpcheck", job, install, dir, installLine)
		}
	}
	matrix := wf.Jobs["shard"].Strategy.Matrix["shard"]
	if len(matrix) != 3 || wf.Jobs["merge"].Needs != "shard" {
		t.Fatalf("matrix %v, merge needs %v", matrix, wf.Jobs["merge"].Needs)
	}

	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "fixtures"), 0o755)
	copyFixture(t, "../../examples/demo.yaml", filepath.Join(dir, "fixtures"), "demo.yaml")
	copyFixture(t, "../../examples/faults.yaml", filepath.Join(dir, "fixtures"), "faults.yaml")
	// Each job's step summary, as GitHub gives it.
	summary := filepath.Join(dir, "step-summary.md")
	env := []string{"GITHUB_STEP_SUMMARY=" + summary}
	wf.runMatrix("shard", shardCmd, dir, env)
	os.Remove(summary) // the shard jobs' summaries are their own jobs'
	code, out := wf.run(dir, env, mergeCmd)
	if code != 0 {
		t.Fatalf("%s: exit %d\n%s", mergeCmd, code, out)
	}
	junit, err := os.ReadFile(filepath.Join(dir, "mcpcheck.xml"))
	if err != nil || !bytes.Contains(junit, []byte("<testsuites")) || !bytes.Contains(junit, []byte("Fault lab over stdio")) {
		t.Errorf("the merged JUnit report: %v\n%.500s", err, junit)
	}
	if md, err := os.ReadFile(summary); err != nil || !bytes.Contains(md, []byte("Household revision")) || !bytes.Contains(md, []byte("Fault lab")) {
		t.Errorf("the job summary: %v\n%.500s", err, md)
	}
	merged, err := os.ReadFile(filepath.Join(dir, "mcpcheck.json"))
	if err != nil {
		t.Fatal(err)
	}
	// The whole run, unsharded, from the same place.
	wf.run(dir, env, "mcpcheck --config fixtures --json whole.json")
	whole, err := os.ReadFile(filepath.Join(dir, "whole.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := comparable(t, string(merged)), comparable(t, string(whole)); got != want {
		t.Errorf("the merged report differs from the whole run's:\n%s", lineDiff(got, want))
	}
	if !strings.Contains(out, "PASS total: 2 suites, 2 passed, 0 failed") {
		t.Errorf("merge output:\n%s", out)
	}
}

// words splits a shell line into words, double quotes kept together.
func words(line string) []string {
	var out []string
	for _, w := range regexp.MustCompile(`"[^"]*"|\S+`).FindAllString(line, -1) {
		out = append(out, strings.Trim(w, `"`))
	}
	return out
}

// cli runs mcpcheck as a process of its own (the test binary as the
// command, see TestMain) in dir ("" the package's) with env added to the
// environment, and returns its exit code and output.
func cli(t *testing.T, dir string, env []string, args ...string) (int, string) {
	t.Helper()
	code, out, err := cliRun(dir, env, args...)
	if err != nil {
		t.Fatal(err)
	}
	return code, out
}

// cliRun is cli for a goroutine of a test: the error is returned, not
// reported.
func cliRun(dir string, env []string, args ...string) (int, string, error) {
	return cliRunIn(os.Environ(), dir, env, args...)
}

// cliRunIn is cliRun in the environment base, with env added.
func cliRunIn(base []string, dir string, env []string, args ...string) (int, string, error) {
	exe, err := os.Executable()
	if err != nil {
		return 0, "", err
	}
	// Bounded as runCmd is, and interrupted (as Ctrl-C would: it stops its
	// servers) when the tests have ended.
	ctx, cancel := context.WithTimeout(suiteCtx, runBound)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 30 * time.Second
	cmd.Dir = dir
	cmd.Env = append(append(slices.Clone(base), env...), asCLI+"=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	if ctx.Err() != nil {
		return 0, out.String(), interrupted(ctx)
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.String(), nil
	} else if err != nil {
		return 0, out.String(), err
	}
	return 0, out.String(), nil
}

// A quick check of the real server-everything split in three by tool (each
// shard a process with a server of its own) merges to the unsharded run's
// report.
func TestShardMergeEverything(t *testing.T) {
	parallel(t)
	peerDir(t)
	// The runs are shared (the whole one with TestQuickEverythingStdio),
	// and started ahead: see shared_runs_test.go.
	out := t.TempDir()
	runs := []*wholeRun{everythingSpec(0, 0).get()}
	var paths []string
	for k := 1; k <= 3; k++ {
		w := everythingSpec(k, 3).get()
		runs = append(runs, w)
		if w.err != "" || w.code == 2 {
			t.Fatalf("shard %d/3: exit %d %s\n%s", k, w.code, w.err, w.out)
		}
		p := filepath.Join(out, fmt.Sprintf("shard-%d.json", k))
		if err := os.WriteFile(p, []byte(w.report), 0o600); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	whole := runs[0]
	if whole.err != "" {
		t.Fatalf("the whole run: %s\n%s", whole.err, whole.out)
	}
	merged := filepath.Join(out, "merged.json")
	code, mtext := cli(t, "", nil, append(append([]string{"merge"}, paths...), "--json", merged)...)
	if code != whole.code {
		t.Errorf("merge exit %d, the whole run %d\n%s\n%s", code, whole.code, mtext, whole.out)
	}
	a := []byte(whole.report)
	b, err := os.ReadFile(merged)
	if err != nil {
		t.Fatalf("%v\n%s", err, mtext)
	}
	// server-everything's answers are not all the same length from one
	// call to the next (two suites at once: one step's answer was 464
	// characters in the whole run and 465 in its shard), so the size a
	// step measured is not compared; its verdicts are.
	sizes := regexp.MustCompile(`"responseChars": *\d+`)
	fixed := func(s string) string { return sizes.ReplaceAllString(s, `"responseChars": 0`) }
	if got, want := comparable(t, fixed(string(b))), comparable(t, fixed(string(a))); got != want {
		t.Errorf("the merged report differs from the whole run's:\n%s", lineDiff(got, want))
		// What each part made of the protocol probes, to tell a probe
		// judged otherwise from one not run.
		for i, w := range runs {
			p := filepath.Join(out, fmt.Sprintf("part-%d.json", i))
			os.WriteFile(p, []byte(w.report), 0o600)
			t.Logf("part %d (0: whole): %s", i, probeSteps(t, p))
		}
	}
	var m map[string]any
	json.Unmarshal(a, &m)
	if n := len(m["scenarios"].([]any)); n < 6 {
		t.Errorf("only %d scenarios: the quick check did not run", n)
	}
}

// The protocol probes against the demo's planted protocol defects over
// HTTP: their findings, the score and the verdict merge back from three
// shards to the unsharded run's.
func TestShardMergeProtocol(t *testing.T) {
	parallel(t)
	srv := httptest.NewServer(demo.Handler(demo.Options{ProtocolDefects: true}))
	defer srv.Close()
	args := []string{"--config", "../../examples/protocol.yaml", "--url", srv.URL + "/mcp"}
	whole := runCmd(t, append(args, "--json", "-")...)
	if whole.code != 1 || !strings.Contains(whole.stdout, `"origin": "protocol"`) {
		t.Fatalf("the unsharded run: exit %d, no protocol finding\n%s", whole.code, whole.stderr)
	}
	dir := t.TempDir()
	var paths []string
	for k := 1; k <= 3; k++ {
		p := filepath.Join(dir, fmt.Sprintf("shard-%d.json", k))
		runCmd(t, append(args, "--shard", fmt.Sprintf("%d/3", k), "--json", p)...)
		paths = append(paths, p)
	}
	r := runCmd(t, append(append([]string{"merge"}, paths...), "--json", "-")...)
	if r.code != 1 {
		t.Errorf("merge: exit %d\n%s", r.code, r.stderr)
	}
	if got, want := comparable(t, r.stdout), comparable(t, whole.stdout); got != want {
		t.Errorf("the merged report differs from the whole run's:\n%s", lineDiff(got, want))
	}
}

// probeSteps lists the protocol probes a report ran, with their status,
// outcome and reason, and its protocol findings.
func probeSteps(t *testing.T, path string) string {
	t.Helper()
	var r struct {
		Scenarios []struct {
			Steps []struct {
				ID, Origin, Status, Outcome, Reason string
			}
		}
		Findings []struct{ Kind, Origin, Status string }
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return err.Error()
	}
	var b strings.Builder
	for _, sc := range r.Scenarios {
		for _, st := range sc.Steps {
			if st.Origin == "protocol" && st.Status != "skipped" {
				fmt.Fprintf(&b, "\n  %s %s %s %s", st.ID, st.Status, st.Outcome, st.Reason)
			}
		}
	}
	for _, f := range r.Findings {
		if f.Origin == "protocol" {
			fmt.Fprintf(&b, "\n  finding %s %s", f.Kind, f.Status)
		}
	}
	return b.String()
}
