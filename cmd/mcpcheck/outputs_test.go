package main

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpcheck/mcpcheck/demo"
)

// The JUnit document as a consumer reads it back.
type (
	junitDoc struct {
		XMLName  xml.Name `xml:"testsuites"`
		Name     string   `xml:"name,attr"`
		Tests    int      `xml:"tests,attr"`
		Failures int      `xml:"failures,attr"`
		Skipped  int      `xml:"skipped,attr"`
		Suites   []struct {
			Name       string `xml:"name,attr"`
			Tests      int    `xml:"tests,attr"`
			Failures   int    `xml:"failures,attr"`
			Skipped    int    `xml:"skipped,attr"`
			Time       string `xml:"time,attr"`
			Timestamp  string `xml:"timestamp,attr"`
			Properties []struct {
				Name  string `xml:"name,attr"`
				Value string `xml:"value,attr"`
			} `xml:"properties>property"`
			Cases []struct {
				Name      string `xml:"name,attr"`
				Classname string `xml:"classname,attr"`
				Time      string `xml:"time,attr"`
				Failure   *struct {
					Message string `xml:"message,attr"`
					Type    string `xml:"type,attr"`
					Body    string `xml:",chardata"`
				} `xml:"failure"`
				Skipped *struct {
					Message string `xml:"message,attr"`
				} `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	// stepsReport is the part of the JSON report the outputs are held to.
	stepsReport struct {
		Suite     string
		Scenarios []struct {
			Name  string
			Steps []struct{ ID, Status, Reason string }
		}
	}
)

// readJUnit parses a JUnit file and holds it to its own counts: every
// suite's tests, failures and skipped are its testcases', the document's
// the sum of its suites'.
func readJUnit(t *testing.T, path string) junitDoc {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc junitDoc
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("JUnit is not XML: %v\n%s", err, data)
	}
	var tests, failures, skipped int
	for _, s := range doc.Suites {
		var f, k int
		for _, c := range s.Cases {
			if c.Name == "" || c.Classname == "" || c.Time == "" {
				t.Errorf("suite %q: a testcase lacks name, classname or time: %+v", s.Name, c)
			}
			if c.Failure != nil {
				f++
				if c.Failure.Message == "" || c.Failure.Type == "" || strings.TrimSpace(c.Failure.Body) == "" {
					t.Errorf("suite %q case %q: failure without message, type or body: %+v", s.Name, c.Name, c.Failure)
				}
			}
			if c.Skipped != nil {
				k++
				if c.Skipped.Message == "" {
					t.Errorf("suite %q case %q: skipped without a reason", s.Name, c.Name)
				}
			}
		}
		if s.Tests != len(s.Cases) || s.Failures != f || s.Skipped != k || s.Time == "" {
			t.Errorf("suite %q says tests=%d failures=%d skipped=%d time=%q; its testcases: %d, %d, %d", s.Name, s.Tests, s.Failures, s.Skipped, s.Time, len(s.Cases), f, k)
		}
		tests, failures, skipped = tests+s.Tests, failures+s.Failures, skipped+s.Skipped
	}
	if doc.Tests != tests || doc.Failures != failures || doc.Skipped != skipped {
		t.Errorf("testsuites says %d/%d/%d, its suites add up to %d/%d/%d", doc.Tests, doc.Failures, doc.Skipped, tests, failures, skipped)
	}
	return doc
}

// sameSteps holds the JUnit document to the JSON report of the same run: a
// suite per scenario, in order, a case per step with its status.
func sameSteps(t *testing.T, doc junitDoc, jsonReport string) {
	t.Helper()
	var rep stepsReport
	if err := json.Unmarshal([]byte(jsonReport), &rep); err != nil {
		t.Fatal(err)
	}
	if doc.Name != rep.Suite || len(doc.Suites) < len(rep.Scenarios) {
		t.Fatalf("JUnit %q has %d suites; the report %q has %d scenarios", doc.Name, len(doc.Suites), rep.Suite, len(rep.Scenarios))
	}
	for i, sc := range rep.Scenarios {
		s := doc.Suites[i]
		if s.Name != sc.Name || len(s.Cases) != len(sc.Steps) {
			t.Errorf("suite %d is %q with %d cases; scenario %q has %d steps", i, s.Name, len(s.Cases), sc.Name, len(sc.Steps))
			continue
		}
		for j, st := range sc.Steps {
			c := s.Cases[j]
			status := "passed"
			switch {
			case c.Failure != nil:
				status = "failed"
			case c.Skipped != nil:
				status = "skipped"
				if c.Skipped.Message != st.Reason {
					t.Errorf("%s/%s: skipped %q, the report says %q", sc.Name, st.ID, c.Skipped.Message, st.Reason)
				}
			}
			if status != st.Status || !strings.HasPrefix(c.Name, st.ID+" ") || c.Classname != rep.Suite+"."+sc.Name {
				t.Errorf("%s/%s: case %q (%s) %s; the report says %s", sc.Name, st.ID, c.Name, c.Classname, status, st.Status)
			}
		}
	}
}

var (
	junitTimes   = regexp.MustCompile(`\b(time|timestamp)="[^"]*"`)
	junitTimeFmt = regexp.MustCompile(`^\d+\.\d{3}$`)
)

var startedAt = regexp.MustCompile(`started \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC`)

// normalizeHTML replaces durations and the start time for golden files.
func normalizeHTML(s string) string {
	return startedAt.ReplaceAllString(normalize(s), "started <time>")
}

// normalizeJUnit replaces times and timestamps for golden files.
func normalizeJUnit(s string) string { return junitTimes.ReplaceAllString(s, `$1="<t>"`) }

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestReportFiles writes every report file from the fixtures the text
// goldens use, holds each to the JSON report of the same run and to its
// golden file.
func TestReportFiles(t *testing.T) {
	parallel(t)
	for _, tc := range []struct{ name, fixture string }{
		{"demo", "../../examples/demo.yaml"},
		{"failing", "testdata/failing.yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			junit, summary, html := filepath.Join(dir, "report.xml"), filepath.Join(dir, "summary.md"), filepath.Join(dir, "report.html")
			r := runCmd(t, "--config", tc.fixture, "--json", "-", "--junit", junit, "--summary", summary, "--html", html)
			if r.code != map[string]int{"demo": 0, "failing": 1}[tc.name] {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			doc := readJUnit(t, junit)
			sameSteps(t, doc, r.stdout)
			for _, s := range doc.Suites {
				if s.Timestamp == "" || !junitTimeFmt.MatchString(s.Time) {
					t.Errorf("suite %q: time %q timestamp %q", s.Name, s.Time, s.Timestamp)
				}
			}
			golden(t, tc.name+".junit.golden", normalizeJUnit(readFile(t, junit)))
			golden(t, tc.name+".summary.golden", normalize(readFile(t, summary)))
			golden(t, tc.name+".html.golden", normalizeHTML(readFile(t, html)))
		})
	}
}

// TestReportFilesQuick writes the report files of a quick check against the
// demo's defects: a score under its threshold is a failed testcase of the
// scores suite.
func TestReportFilesQuick(t *testing.T) {
	srv := httptest.NewServer(demo.Handler(demo.Options{Defects: true}))
	defer srv.Close()
	t.Setenv("GITHUB_ACTIONS", "true")
	dir := t.TempDir()
	junit, summary, html := filepath.Join(dir, "quick.xml"), filepath.Join(dir, "quick.md"), filepath.Join(dir, "quick.html")
	r := runCmd(t, "--url", srv.URL+"/mcp", "--allow-tools", "lookup_city,convert_units", "--fail-under", "100", "--json", "-", "--junit", junit, "--summary", summary, "--html", html)
	if r.code != 1 {
		t.Fatalf("exit %d, want 1 (convert_units crashes on wrong types)\n%s", r.code, r.stderr)
	}
	doc := readJUnit(t, junit)
	sameSteps(t, doc, r.stdout)
	var scores bool
	for _, s := range doc.Suites {
		if s.Name != "scores" {
			continue
		}
		scores = true
		for _, c := range s.Cases {
			if c.Name == "crash resilience" && (c.Failure == nil || !strings.Contains(c.Failure.Message, "fail-under 100: NOT MET")) {
				t.Errorf("crash resilience under its threshold is not a failure: %+v", c)
			}
		}
	}
	if !scores {
		t.Errorf("no scores suite in %+v", doc)
	}
	// Generated steps have no fixture line: annotated without a place.
	if !strings.Contains(r.stderr, "\n::error title=mcpcheck%3A generated%3A convert_units / ") || !strings.Contains(r.stderr, "\n::error title=mcpcheck%3A scores / crash resilience::") {
		t.Errorf("quick mode annotations missing:\n%s", r.stderr)
	}
	md := readFile(t, summary)
	for _, want := range []string{"### ❌ FAIL: ", "#### Failing steps", "convert\\_units", "#### Scores", "| ❌ | crash resilience | "} {
		if !strings.Contains(md, want) {
			t.Errorf("summary lacks %q:\n%s", want, md)
		}
	}
}

// TestStepSummary: under GitHub Actions the Markdown summary is appended to
// $GITHUB_STEP_SUMMARY, after what other steps wrote; --summary FILE writes
// FILE instead.
func TestStepSummary(t *testing.T) {
	dir := t.TempDir()
	step := filepath.Join(dir, "step_summary.md")
	os.WriteFile(step, []byte("# An earlier step\n"), 0o644)
	t.Setenv("GITHUB_STEP_SUMMARY", step)
	for range 2 {
		if r := runCmd(t, "--config", "testdata/failing.yaml"); r.code != 1 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
	}
	got := readFile(t, step)
	if !strings.HasPrefix(got, "# An earlier step\n### ❌ FAIL: Failures are reported with paths") || strings.Count(got, "#### Failing steps") != 2 {
		t.Errorf("step summary not appended twice after the earlier step:\n%s", got)
	}
	own := filepath.Join(dir, "own.md")
	if r := runCmd(t, "--config", "../../examples/demo.yaml", "--summary", own); r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if !strings.HasPrefix(readFile(t, own), "### ✅ PASS: ") || readFile(t, step) != got {
		t.Errorf("--summary FILE did not replace the step summary as the destination")
	}
}

// TestOutputPathsFailFast: a report file that cannot be created is exit 2
// before anything runs.
func TestOutputPathsFailFast(t *testing.T) {
	for _, flag := range []string{"--junit", "--summary", "--html"} {
		r := runCmd(t, "--config", "../../examples/demo.yaml", flag, "/nonexistent/dir/out")
		if r.code != 2 || !strings.Contains(r.stderr, flag+": ") || r.stdout != "" {
			t.Errorf("%s to a missing directory: exit %d stdout %q stderr %q", flag, r.code, r.stdout, r.stderr)
		}
		// A run that cannot start (a missing credential) leaves no empty file.
		cred := filepath.Join(t.TempDir(), "cred.yaml")
		os.WriteFile(cred, []byte("name: n\nendpoint: https://example.com/mcp\nheadersFromEnv: {Authorization: MCPCHECK_TEST_UNSET_TOKEN}\nallowTools: [t]\nscenarios: [{name: s, steps: [{tool: t}]}]\n"), 0o644)
		out := filepath.Join(t.TempDir(), "out")
		r = runCmd(t, "--config", cred, flag, out)
		if _, err := os.Stat(out); r.code != 2 || err == nil {
			t.Errorf("%s with a missing credential: exit %d, file left behind: %v", flag, r.code, err == nil)
		}
		r = runCmd(t, "--config", "../../examples/demo.yaml", flag, "--quiet")
		if r.code != 2 || !strings.Contains(r.stderr, "takes a file") {
			t.Errorf("%s followed by a flag: exit %d stderr %q", flag, r.code, r.stderr)
		}
	}
}

// TestGitHubActionsAnnotations: as a GitHub Actions step, each failing step
// is a workflow command at its fixture line, after the human report (on
// stderr when the JSON has stdout).
func TestGitHubActionsAnnotations(t *testing.T) {
	t.Setenv("GITHUB_ACTIONS", "true")
	r := runCmd(t, "--config", "testdata/failing.yaml", "--json", "-")
	if r.code != 1 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	validReport(t, r.stdout)
	var cmds []string
	for _, l := range strings.Split(r.stderr, "\n") {
		if strings.HasPrefix(l, "::") {
			cmds = append(cmds, l)
		}
	}
	want := []string{
		"::error file=testdata/failing.yaml,line=8,col=9,title=mcpcheck%3A Wrong expectations / initial::structuredEquals /owner: missing key%0A  expected: \"nobody\"%0AstructuredEquals /revision: value differs%0A  expected: 1%0A  actual:   0",
		"::error file=testdata/failing.yaml,line=18,col=9,title=mcpcheck%3A Tool error where success was expected / stale::outcome: expected outcome ok, got tool_error%0Aserver said: revision conflict: expectedRevision is 7 but the household is at revision 0",
	}
	if strings.Join(cmds, "\n") != strings.Join(want, "\n") {
		t.Errorf("annotations:\n%s\nwant:\n%s", strings.Join(cmds, "\n"), strings.Join(want, "\n"))
	}
	if !strings.HasPrefix(r.stderr, "FAIL ") {
		t.Errorf("the human report does not come first:\n%s", r.stderr)
	}
	t.Setenv("GITHUB_ACTIONS", "")
	if r := runCmd(t, "--config", "testdata/failing.yaml"); strings.Contains(r.stdout, "::error") {
		t.Errorf("annotations outside GitHub Actions:\n%s", r.stdout)
	}
}

func TestReportFilesQuickHTML(t *testing.T) {
	parallel(t)
	srv := httptest.NewServer(demo.Handler(demo.Options{Defects: true}))
	defer srv.Close()
	html := filepath.Join(t.TempDir(), "quick.html")
	r := runCmd(t, "--url", srv.URL+"/mcp", "--allow-tools", "lookup_city,convert_units", "--html", html)
	if r.code != 1 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	page := readFile(t, html)
	// Scores, the generated scenarios with their failures expanded, and the
	// tool list saying which tools were called and which skipped and why.
	for _, want := range []string{"<h2>Scores</h2>", "crash resilience", "generated: convert_units", "<details open>",
		"<tr><td>convert_units</td><td>called</td>", "<td>create_note</td><td>skipped</td><td>"} {
		if !strings.Contains(page, want) {
			t.Errorf("quick HTML lacks %q", want)
		}
	}
}

// consumerReport is what test-results-parser, a JUnit reader CI reporting
// tools use (pinned in package.json), makes of a JUnit file.
type consumerReport struct {
	Name                    string
	Passed, Failed, Skipped int
	Status                  string
	Suites                  []struct {
		Name     string
		Metadata map[string]string
		Cases    []struct {
			Name, Status, Failure string
			StackTrace            string `json:"stack_trace"`
		}
	}
}

// TestJUnitReadByConsumer reads the JUnit report of a failing fixture run
// and of a quick check back with test-results-parser: its counts, statuses,
// failure messages and properties are the report's.
func TestJUnitReadByConsumer(t *testing.T) {
	parallel(t)
	dir := peerDir(t)
	srv := httptest.NewServer(demo.Handler(demo.Options{Defects: true}))
	defer srv.Close()
	for name, args := range map[string][]string{
		"fixture": {"--config", "testdata/failing.yaml"},
		"quick":   {"--url", srv.URL + "/mcp", "--allow-tools", "lookup_city,convert_units", "--fail-under", "100"},
	} {
		t.Run(name, func(t *testing.T) {
			junit := filepath.Join(t.TempDir(), "report.xml")
			r := runCmd(t, append(args, "--json", "-", "--junit", junit)...)
			if r.code != 1 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			var rep struct {
				Suite   string
				Summary struct {
					Passed, Failed, Skipped int
					Scores                  []struct {
						Percent *float64
						Met     *bool
					}
				}
				Server    struct{ Name, Version string }
				Scenarios []struct {
					Behaviour []struct{ Status, Rule string }
				}
			}
			json.Unmarshal([]byte(r.stdout), &rep)
			script := `const {parse} = require(process.argv[1]); console.log(JSON.stringify(parse({type: "junit", files: [process.argv[2]]})))`
			out, err := exec.Command("node", "-e", script, filepath.Join(dir, "node_modules", "test-results-parser"), junit).Output()
			if err != nil {
				t.Fatalf("test-results-parser: %v", err)
			}
			var got consumerReport
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			// Steps, plus the scores: failed when unmet, skipped when n/a.
			want := [3]int{rep.Summary.Passed, rep.Summary.Failed, rep.Summary.Skipped}
			for _, sc := range rep.Summary.Scores {
				switch {
				case sc.Met != nil && !*sc.Met:
					want[1]++
				case sc.Percent == nil:
					want[2]++
				default:
					want[0]++
				}
			}
			// And the behaviour checks' claims: failed when violated (a retry's
			// is a flag), skipped when not verifiable.
			for _, sc := range rep.Scenarios {
				for _, b := range sc.Behaviour {
					switch {
					case b.Status == "violated" && b.Rule != "retry":
						want[1]++
					case b.Status == "notVerifiable":
						want[2]++
					default:
						want[0]++
					}
				}
			}
			if name == "quick" && len(rep.Summary.Scores) == 0 {
				t.Fatal("the quick check has no scores")
			}
			if got.Name != rep.Suite || got.Status != "FAIL" || [3]int{got.Passed, got.Failed, got.Skipped} != want {
				t.Errorf("read back as %q %s %d/%d/%d, want %q FAIL %v", got.Name, got.Status, got.Passed, got.Failed, got.Skipped, rep.Suite, want)
			}
			failures := 0
			for _, s := range got.Suites {
				if s.Metadata["server.name"] != rep.Server.Name || s.Metadata["protocolVersion"] == "" {
					t.Errorf("suite %q properties %v", s.Name, s.Metadata)
				}
				for _, c := range s.Cases {
					if c.Status == "FAIL" {
						failures++
						if c.Failure == "" || c.StackTrace == "" {
							t.Errorf("%s / %s: failure without message or body: %+v", s.Name, c.Name, c)
						}
					}
				}
			}
			if failures != want[1] {
				t.Errorf("%d failed cases read back, want %d", failures, want[1])
			}
		})
	}
}

// TestReportFilesTwoProtocols: under two protocol versions each scenario's
// test suite is named and marked with the version it ran under.
func TestReportFilesTwoProtocols(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	junit, html := filepath.Join(dir, "report.xml"), filepath.Join(dir, "report.html")
	r := runCmd(t, "--config", "../../examples/demo.yaml", "--protocol", "2025-11-25", "--protocol", "2026-07-28", "--junit", junit, "--html", html)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	doc := readJUnit(t, junit)
	var got []string
	for _, s := range doc.Suites {
		for _, p := range s.Properties {
			if p.Name == "protocolVersion" {
				got = append(got, s.Name+" → "+p.Value)
			}
		}
	}
	want := []string{"One approved task [2025-11-25] → 2025-11-25", "One approved task [2026-07-28] → 2026-07-28"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("suites and their protocol versions:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if page := readFile(t, html); !strings.Contains(page, "One approved task [2026-07-28]") {
		t.Errorf("the HTML page does not name the second pass's scenario")
	}
}

// TestReportFilesRedactAndEscape runs a fixture against a careless go-sdk
// server over Streamable HTTP: its whoami tool sends the Authorization
// header back in its error text and structured content, and one of its
// tools is named with markup. No output (human, JSON, JUnit, summary, HTML,
// annotations) carries the credential, and the markup is escaped.
func TestReportFilesRedactAndEscape(t *testing.T) {
	const secret = "sekrit-token-value-42"
	s := mcp.NewServer(&mcp.Implementation{Name: "careless", Version: "1.0.0"}, nil)
	s.AddTool(&mcp.Tool{Name: "whoami", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			auth := req.Extra.Header.Get("Authorization")
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "you sent " + auth}}, StructuredContent: map[string]any{"auth": auth}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "<b>bold</b>", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	defer srv.Close()
	t.Setenv("MCPCHECK_TEST_AUTH", "Bearer "+secret)
	t.Setenv("GITHUB_ACTIONS", "true")
	dir := t.TempDir()
	fixture := filepath.Join(dir, "careless.yaml")
	os.WriteFile(fixture, []byte(`name: Careless server
endpoint: `+srv.URL+`/mcp
headersFromEnv: {Authorization: MCPCHECK_TEST_AUTH}
allowTools: [whoami]
scenarios:
  - name: Who am I
    steps:
      - id: who
        tool: whoami
        expect: {structuredEquals: {auth: nobody}}
`), 0o644)
	files := map[string]string{"junit": filepath.Join(dir, "r.xml"), "summary": filepath.Join(dir, "r.md"), "html": filepath.Join(dir, "r.html")}
	r := runCmd(t, "--config", fixture, "--json", "-", "--junit", files["junit"], "--summary", files["summary"], "--html", files["html"])
	if r.code != 1 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	all := map[string]string{"stdout": r.stdout, "stderr": r.stderr}
	for name, path := range files {
		all[name] = readFile(t, path)
	}
	for name, text := range all {
		if strings.Contains(text, secret) {
			t.Errorf("%s carries the credential:\n%s", name, text)
		}
	}
	// The failure is there, with the value redacted where values are shown.
	for _, name := range []string{"junit", "html", "stderr"} {
		if !strings.Contains(all[name], "[redacted]") || !strings.Contains(all[name], "structuredEquals /auth") {
			t.Errorf("%s lacks the redacted failure:\n%s", name, all[name])
		}
	}
	if !strings.Contains(all["html"], "<td>&lt;b&gt;bold&lt;/b&gt;</td>") || strings.Contains(all["html"], "<b>bold") {
		t.Errorf("the markup tool name is not escaped in the tool list")
	}
}
