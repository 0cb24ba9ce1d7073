package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/runner/report"
)

// The daily loop (-v, --last-failed, --retries, -x), run against the real
// demo server over stdio; --watch is in watch_test.go.

// writeFixture writes text as dir/name and returns its path.
func writeFixture(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// readReport reads a JSON report file of one suite.
func readReport(t *testing.T, path string) *report.Report {
	t.Helper()
	reps, err := readReports(path)
	if err != nil || len(reps) != 1 {
		t.Fatalf("reading %s: %v (%d reports)", path, err, len(reps))
	}
	return reps[0]
}

const secretValue = "tok-3f9a1c7e5b2d"

// exchangeFixture has a failing step whose arguments and answer carry a
// supplied credential, a step whose argument is too long to show whole
// (and to send: the tool's inputSchema bounds it), and a passing step.
const exchangeFixture = `name: Exchanges
command: [mcpcheck, demo]
envFromEnv: {DEMO_TOKEN: MCPCHECK_TEST_EXCHANGE_TOKEN}
allowTools: [get_household, propose_task]
scenarios:
  - name: secret in the answer
    steps:
      - id: propose
        tool: propose_task
        arguments: {text: "call ` + secretValue + ` back"}
        expect: {structuredIncludes: {revision: 5}}
  - name: long argument
    steps:
      - id: long
        tool: propose_task
        arguments: {text: "` + "LONG" + `"}
  - name: passing
    steps:
      - {id: read, tool: get_household}
`

// TestVerboseExchanges: -v prints, under each failed step only, the
// request it sent and the answer it got, as indented JSON with the
// credential redacted and a long value cut with a marker; -vv under every
// step. The JSON report carries them with -v and never without; the HTML
// report folds them under failed steps without -v.
func TestVerboseExchanges(t *testing.T) {
	t.Setenv("MCPCHECK_TEST_EXCHANGE_TOKEN", secretValue)
	dir := t.TempDir()
	fixture := writeFixture(t, dir, "x.yaml", strings.Replace(exchangeFixture, "LONG", strings.Repeat("ab", 600), 1))
	jsonFile := filepath.Join(dir, "r.json")

	r := runCmd(t, "--config", fixture, "-v", "--json", jsonFile, "--no-color")
	if r.code != exitFail {
		t.Fatalf("exit %d, want 1\n%s%s", r.code, r.stdout, r.stderr)
	}
	out := r.stdout
	if strings.Contains(out+r.stderr, secretValue) {
		t.Errorf("the credential reached the output:\n%s", out)
	}
	for _, want := range []string{
		"       request: tools/call\n         {\n           \"name\": \"propose_task\",\n           \"arguments\": {\n             \"text\": \"call [redacted] back\"\n           }\n         }\n       answer: result\n",
		`"proposalId": "proposal-1"`,
		"… (723 more characters)\"\n           }\n         }\n       answer: none, the request was not sent\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("-v output lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "request: tools/call"); n != 2 {
		t.Errorf("-v shows %d exchanges, want the 2 failed steps':\n%s", n, out)
	}
	rep := readReport(t, jsonFile)
	ex := rep.Scenarios[0].Steps[0].Exchange
	if ex == nil || ex.Method != "tools/call" || !strings.Contains(ex.Result, `"revision": 0`) || strings.Contains(ex.Params+ex.Result, secretValue) {
		t.Errorf("the JSON report's exchange of the failed step: %+v", ex)
	}
	if long := rep.Scenarios[1].Steps[0].Exchange; long == nil || !long.NotSent || long.Result != "" {
		t.Errorf("the long argument's exchange: %+v", long)
	}
	if rep.Scenarios[2].Steps[0].Exchange != nil {
		t.Errorf("-v kept the passing step's exchange")
	}

	r = runCmd(t, "--config", fixture, "-vv", "--no-color")
	if n := strings.Count(r.stdout, "request: tools/call"); n != 3 {
		t.Errorf("-vv shows %d exchanges, want every step's 3:\n%s", n, r.stdout)
	}

	html := filepath.Join(dir, "r.html")
	r = runCmd(t, "--config", fixture, "--json", jsonFile, "--html", html, "--no-color")
	if strings.Contains(r.stdout, "request: tools/call") {
		t.Errorf("without -v the text report shows exchanges:\n%s", r.stdout)
	}
	if data, _ := os.ReadFile(jsonFile); strings.Contains(string(data), `"exchange"`) {
		t.Errorf("without -v the JSON report carries exchanges")
	}
	page, _ := os.ReadFile(html)
	if n := strings.Count(string(page), `<details class="exchange"><summary>request and answer</summary>`); n != 2 {
		t.Errorf("the HTML report folds %d exchanges, want the 2 failed steps'", n)
	}
	if strings.Contains(string(page), secretValue) {
		t.Errorf("the credential reached the HTML report")
	}
}

const lastFailedFixture = `name: Last failed
command: [mcpcheck, demo]
allowTools: [get_household, propose_task, commit_task]
isolation: scenario
scenarios:
  - name: one
    steps: [{id: read, tool: get_household, expect: {structuredIncludes: {revision: REV}}}]
  - name: two
    steps:
      - {id: propose, tool: propose_task, arguments: {text: Water the plants}}
      - id: commit
        tool: commit_task
        arguments: {proposalId: {$ref: "propose#/structuredContent/proposalId"}, expectedRevision: REV, idempotencyKey: k}
  - name: three
    steps: [{id: read, tool: get_household}]
`

// TestLastFailed: every run leaves its report at .mcpcheck/last-run.json
// beside the fixture; --last-failed runs the scenarios that failed there,
// whole (the $ref'd step that passed runs again), says so first, and runs
// everything, saying so, when nothing failed or no run is recorded.
func TestLastFailed(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	fixture := writeFixture(t, dir, "lf.yaml", strings.ReplaceAll(lastFailedFixture, "REV", "3"))
	last := filepath.Join(dir, ".mcpcheck", "last-run.json")

	r := runCmd(t, "--config", fixture, "--last-failed", "--no-color")
	if r.code != exitFail || !strings.HasPrefix(r.stdout, "--last-failed: no last run at "+last+"; running everything\nFAIL Last failed\n") {
		t.Errorf("with no last run: exit %d\n%s", r.code, r.stdout)
	}
	rep := readReport(t, last)
	if got := []report.Status{rep.Scenarios[0].Status, rep.Scenarios[1].Status, rep.Scenarios[2].Status}; got[0] != report.StatusFailed || got[1] != report.StatusFailed || got[2] != report.StatusPassed {
		t.Fatalf("last run's statuses %v", got)
	}

	r = runCmd(t, "--config", fixture, "--last-failed", "--no-color", "--json", "-")
	if r.code != exitFail || !strings.HasPrefix(r.stderr, "--last-failed: running the 2 scenarios that failed in the last run\n") {
		t.Errorf("rerun of the failures: exit %d\n%s", r.code, r.stderr)
	}
	var again report.Report
	if err := json.Unmarshal([]byte(r.stdout), &again); err != nil {
		t.Fatal(err)
	}
	if sc := again.Scenarios[2]; sc.NotSelected != report.ExcludedLastFailed || sc.Steps[0].Reason != "not selected: it did not fail last time (--last-failed)" {
		t.Errorf("the passing scenario: %+v", sc)
	}
	if st := again.Scenarios[1].Steps; st[0].Status != report.StatusPassed || st[1].Status != report.StatusFailed {
		t.Errorf("the failed scenario ran whole? %+v", st)
	}

	// Fixed: the failures run and pass; then nothing failed.
	writeFixture(t, dir, "lf.yaml", strings.ReplaceAll(lastFailedFixture, "REV", "0"))
	r = runCmd(t, "--config", fixture, "--last-failed", "--no-color")
	if r.code != exitPass || !strings.Contains(r.stdout, "3 passed, 0 failed, 1 skipped") {
		t.Errorf("the fixed failures: exit %d\n%s", r.code, r.stdout)
	}
	r = runCmd(t, "--config", fixture, "--last-failed", "--no-color")
	if r.code != exitPass || !strings.HasPrefix(r.stdout, "--last-failed: nothing failed in the last run; running everything\n") || !strings.Contains(r.stdout, "4 passed, 0 failed, 0 skipped") {
		t.Errorf("nothing failed last time: exit %d\n%s", r.code, r.stdout)
	}

	// Quick mode keeps no last run.
	r = runCmd(t, "--last-failed", "--", "mcpcheck", "demo")
	if r.code != exitBadArgs || !strings.Contains(r.stderr, "quick mode keeps no last run") {
		t.Errorf("quick mode: exit %d\n%s", r.code, r.stderr)
	}
	// A link where .mcpcheck should be is not followed.
	linked := t.TempDir()
	fixture = writeFixture(t, linked, "lf.yaml", strings.ReplaceAll(lastFailedFixture, "REV", "0"))
	outside := t.TempDir()
	os.Symlink(outside, filepath.Join(linked, ".mcpcheck"))
	r = runCmd(t, "--config", fixture)
	if r.code != exitPass || !strings.Contains(r.stderr, "is a symbolic link, not a directory") {
		t.Errorf("linked .mcpcheck: exit %d\n%s", r.code, r.stderr)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("written through the link: %v", entries)
	}
}

// flakyFixture calls the demo's flaky tool, which fails every odd-numbered
// call, counted in a file across server processes. Run one scenario after
// another, the calls are: read-only (1 fails, its retry 2 passes: flaky),
// allowed (3 fails, its retry 4 passes: flaky, though it commits a task,
// because it sets retries itself), mutating (5 fails, and the suite's
// retries do not reach a scenario that calls commit_task), always (6
// answers but not as expected, 7 fails, 8 answers not as expected: failed
// on every run).
const flakyFixture = `name: Flaky
command: [mcpcheck, demo, --flaky, COUNT]
allowTools: [flaky, propose_task, commit_task]
retries: 2
scenarios:
  - name: read-only
    steps: [{id: call, tool: flaky}]
  - name: allowed
    retries: 1
    steps:
      - {id: propose, tool: propose_task, arguments: {text: x}}
      - {id: commit, tool: commit_task, arguments: {proposalId: {$ref: "propose#/structuredContent/proposalId"}, expectedRevision: 0, idempotencyKey: k}}
      - {id: call, tool: flaky}
  - name: mutating
    steps:
      - {id: propose, tool: propose_task, arguments: {text: x}}
      - {id: commit, tool: commit_task, arguments: {proposalId: {$ref: "propose#/structuredContent/proposalId"}, expectedRevision: 0, idempotencyKey: k}}
      - {id: call, tool: flaky}
  - name: always
    steps: [{id: call, tool: flaky, expect: {structuredEquals: {call: 0}}}]
`

// TestRetriesFlaky: a failed scenario runs again on a fresh session; one
// that then passes is flaky in the text, JSON, JUnit (flakyFailure) and
// HTML reports, one that fails every run keeps its earlier failures
// (rerunFailure); a scenario that commits is retried only where it says
// so; flaky alone exits 0, and 1 with --fail-on-flaky.
func TestRetriesFlaky(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	fixture := writeFixture(t, dir, "flaky.yaml", strings.Replace(flakyFixture, "COUNT", filepath.Join(dir, "count"), 1))
	jsonFile, junit, html := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.xml"), filepath.Join(dir, "r.html")
	r := runCmd(t, "--config", fixture, "--no-color", "--json", jsonFile, "--junit", junit, "--html", html)
	if r.code != exitFail {
		t.Fatalf("exit %d, want 1\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		"read-only\n  ok   call  flaky  <dur>\n  FLAKY flaky: passed on run 2 of 2, after failing at call\n",
		"  FLAKY flaky: passed on run 2 of 2, after failing at call\n\nmutating\n",
		"       server said: flaky: call 5 fails (every odd-numbered call does)\n\nalways\n",
		"  RETRIED failed all 3 runs (retried 2 times; earlier runs failed at call, call)\n",
		"; 2 flaky scenarios\n",
	} {
		if !strings.Contains(normalize(r.stdout), want) {
			t.Errorf("the text report lacks %q:\n%s", want, r.stdout)
		}
	}
	rep := readReport(t, jsonFile)
	type got struct {
		flaky    bool
		attempts int
		status   report.Status
	}
	want := []got{{true, 1, report.StatusPassed}, {true, 1, report.StatusPassed}, {false, 0, report.StatusFailed}, {false, 2, report.StatusFailed}}
	for i, w := range want {
		sc := rep.Scenarios[i]
		if g := (got{sc.Flaky, len(sc.Attempts), sc.Status}); g != w {
			t.Errorf("scenario %q: %+v, want %+v", sc.Name, g, w)
		}
	}
	if rep.Summary.Flaky != 2 || rep.Connections != 5 {
		t.Errorf("summary.flaky %d, connections %d; want 2 and 5 (the shared session and one per retry)", rep.Summary.Flaky, rep.Connections)
	}
	if f := rep.Scenarios[0].Attempts[0].Steps[0]; f.Status != report.StatusFailed || f.Outcome != "tool_error" {
		t.Errorf("the failed attempt: %+v", f)
	}

	var doc struct {
		Suites []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name    string    `xml:"name,attr"`
				Failure *struct{} `xml:"failure"`
				Flaky   []struct {
					Type string `xml:"type,attr"`
				} `xml:"flakyFailure"`
				Rerun []struct {
					Type string `xml:"type,attr"`
				} `xml:"rerunFailure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	data, _ := os.ReadFile(junit)
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	counts := map[string][3]int{}
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			if c.Name == "call flaky" {
				failure := 0
				if c.Failure != nil {
					failure = 1
				}
				counts[s.Name] = [3]int{failure, len(c.Flaky), len(c.Rerun)}
			}
		}
	}
	if w := map[string][3]int{"read-only": {0, 1, 0}, "allowed": {0, 1, 0}, "mutating": {1, 0, 0}, "always": {1, 0, 2}}; !mapsEqual(counts, w) {
		t.Errorf("JUnit (failure, flakyFailure, rerunFailure) per scenario: %v, want %v", counts, w)
	}
	page, _ := os.ReadFile(html)
	if n := strings.Count(string(page), `<span class="s-flagged">flaky</span>`); n != 2 {
		t.Errorf("the HTML report marks %d scenarios flaky, want 2", n)
	}

	// Flaky alone passes, unless --fail-on-flaky.
	only := writeFixture(t, dir, "only.yaml", strings.Replace(strings.Split(flakyFixture, "  - name: allowed")[0], "COUNT", filepath.Join(dir, "count2"), 1))
	if r := runCmd(t, "--config", only, "--no-color"); r.code != exitPass || !strings.HasPrefix(r.stdout, "PASS Flaky\n") {
		t.Errorf("flaky only: exit %d\n%s", r.code, r.stdout)
	}
	r = runCmd(t, "--config", only, "--no-color", "--fail-on-flaky")
	if r.code != exitFail || !strings.Contains(r.stdout, "error 1 flaky scenario(s) fail the run (--fail-on-flaky)\n") {
		t.Errorf("--fail-on-flaky: exit %d\n%s", r.code, r.stdout)
	}
	// --retries 0 overrides the fixture's retries.
	if r := runCmd(t, "--config", only, "--no-color", "--retries", "0"); r.code != exitFail || strings.Contains(r.stdout, "FLAKY") {
		t.Errorf("--retries 0: exit %d\n%s", r.code, r.stdout)
	}
}

func mapsEqual(a, b map[string][3]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestFailFast: with -x the first failed scenario stops the run from
// starting another; the rest are in the report, skipped, not run for
// that cause.
func TestFailFast(t *testing.T) {
	dir := t.TempDir()
	fixture := writeFixture(t, dir, "x.yaml", strings.ReplaceAll(lastFailedFixture, "REV", "3"))
	for _, flag := range []string{"-x", "--fail-fast"} {
		r := runCmd(t, "--config", fixture, flag, "--no-color", "--json", "-")
		if r.code != exitFail {
			t.Fatalf("%s: exit %d\n%s", flag, r.code, r.stderr)
		}
		var rep report.Report
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
			t.Fatal(err)
		}
		if rep.Scenarios[0].Status != report.StatusFailed || rep.Scenarios[0].NotRun != "" {
			t.Errorf("%s: the first scenario %+v", flag, rep.Scenarios[0])
		}
		for _, sc := range rep.Scenarios[1:] {
			if sc.NotRun != report.NotRunFailFast || sc.Status != report.StatusSkipped {
				t.Errorf("%s: scenario %q: notRun %q, status %s", flag, sc.Name, sc.NotRun, sc.Status)
			}
		}
		if !regexp.MustCompile(`\n  skip read +get_household\n +not run: an earlier scenario failed \(--fail-fast\)\n`).MatchString(r.stderr) {
			t.Errorf("%s: the text report:\n%s", flag, r.stderr)
		}
	}
	// Without -x every scenario runs.
	if r := runCmd(t, "--config", fixture, "--no-color"); !strings.Contains(r.stdout, "2 passed, 2 failed, 0 skipped") {
		t.Errorf("without -x:\n%s", r.stdout)
	}
}
