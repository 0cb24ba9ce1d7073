package report_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/demo"
	"github.com/mcpcheck/mcpcheck/runner"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// loadRun loads the real demo over HTTP for a moment: two users, reads
// and proposals, one threshold met and one not.
func loadRun(t *testing.T) *report.Report {
	t.Helper()
	srv := httptest.NewServer(demo.Handler(demo.Options{}))
	t.Cleanup(srv.Close)
	fixture := filepath.Join(t.TempDir(), "load.yaml")
	os.WriteFile(fixture, []byte(fmt.Sprintf(`name: <b>household</b> load
endpoint: %s/mcp
allowTools: [get_household, propose_task]
load:
  thresholds: ["p99<30s", "rps>1000000"]
scenarios:
  - name: read
    steps:
      - {id: household, tool: get_household}
      - {id: propose, tool: propose_task, arguments: {text: books}}
`, srv.URL)), 0o644)
	suite, err := config.Load(fixture, config.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	r, err := runner.Load(ctx, suite, runner.LoadOptions{LoadRun: config.LoadRun{VUs: 2, Duration: 2500 * time.Millisecond, Thresholds: suite.Load.Thresholds}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Load == nil || r.Load.Overall.Calls == 0 || r.Passed {
		t.Fatalf("load report %+v passed %v", r.Load, r.Passed)
	}
	return r
}

// TestLoadHTMLInChromium: the load page renders in headless Chromium, asks
// for nothing but itself, draws both charts as SVG with the series'
// points, and shows the unmet threshold and the suite's markup as text.
func TestLoadHTMLInChromium(t *testing.T) {
	browser := chromium(t)
	r := loadRun(t)
	dom, stray := render(t, browser, func(string) []byte {
		var b bytes.Buffer
		if err := report.HTML(&b, r); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	})
	if len(stray) > 0 {
		t.Errorf("the page made requests: %v", stray)
	}
	for _, want := range []string{`aria-label="latency over time"`, `aria-label="latency by percentile"`, "<polyline", "NOT MET", "rps&gt;1000000", "&lt;b&gt;household&lt;/b&gt; load", `id="verdict" class="fail"`} {
		if !strings.Contains(dom, want) {
			t.Errorf("rendered DOM lacks %q", want)
		}
	}
	if strings.Contains(dom, "<b>household") {
		t.Error("the suite's markup became an element")
	}
	if n := strings.Count(dom, "<svg"); n != 2 {
		t.Errorf("%d SVG charts, want 2", n)
	}
}

// TestLoadJUnitAndMarkdown: a test case per threshold, the unmet one
// failed; the Markdown table escapes the suite's markup.
func TestLoadJUnitAndMarkdown(t *testing.T) {
	r := loadRun(t)
	var b bytes.Buffer
	if err := report.JUnit(&b, r); err != nil {
		t.Fatal(err)
	}
	var doc report.JUnitSuites
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("JUnit: %v\n%s", err, b.String())
	}
	if doc.Tests != 2 || doc.Failures != 1 || len(doc.Suites) != 1 || doc.Suites[0].Cases[1].Failure == nil || doc.Suites[0].Cases[0].Failure != nil {
		t.Errorf("JUnit: %s", b.String())
	}
	b.Reset()
	if err := report.Markdown(&b, r); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{"❌ FAIL", "&lt;b&gt;household&lt;/b&gt;", "| read/household |", "❌ not met"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
}
