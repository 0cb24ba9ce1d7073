package report_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/demo"
	"github.com/mcpcheck/mcpcheck/runner"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// TestHTMLLoopInChromium renders, in headless Chromium, a run of the real
// demo over HTTP with the exchanges of failed steps kept and a scenario
// retried: the failed step's request and answer are folded (a closed
// details element) with the markup its arguments carry shown as text, and
// the flaky scenario is marked flaky with how its runs went.
func TestHTMLLoopInChromium(t *testing.T) {
	browser := chromium(t)
	dir := t.TempDir()
	srv := httptest.NewServer(demo.Handler(demo.Options{FlakyFile: filepath.Join(dir, "count")}))
	t.Cleanup(srv.Close)
	fixture := filepath.Join(dir, "loop.yaml")
	os.WriteFile(fixture, []byte(fmt.Sprintf(`name: Loop
endpoint: %s/mcp
allowTools: [commit_task, flaky]
retries: 1
scenarios:
  - name: Flaky call
    steps: [{id: call, tool: flaky}]
  - name: Unknown proposal
    steps:
      - id: commit
        tool: commit_task
        arguments: {proposalId: "<img src=/leak-img>", expectedRevision: 0, idempotencyKey: k}
`, srv.URL)), 0o644)
	suite, err := config.Load(fixture, config.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := runner.Run(context.Background(), suite, runner.Options{Exchanges: runner.ExchangeFailed})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Scenarios[0].Flaky || r.Scenarios[1].Status != report.StatusFailed || len(r.Scenarios[1].Attempts) != 0 {
		t.Fatalf("flaky %v, unknown proposal %s with %d attempts", r.Scenarios[0].Flaky, r.Scenarios[1].Status, len(r.Scenarios[1].Attempts))
	}
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
	for _, want := range []string{
		`<span class="s-flagged">flaky</span> Flaky call</summary>`,
		"flaky: passed on run 2 of 2, after failing at call",
		`<details class="exchange"><summary>request and answer</summary><pre>request: tools/call`,
		`"proposalId": "&lt;img src=/leak-img&gt;"`,
		`answer: result`,
		`"isError": true`,
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("rendered DOM lacks %q:\n%s", want, dom)
		}
	}
	if regexp.MustCompile(`<details class="exchange" open`).MatchString(dom) || strings.Contains(dom, "<img") {
		t.Errorf("an exchange is unfolded, or markup became an element:\n%s", dom)
	}
	if n := strings.Count(dom, `class="exchange"`); n != 1 {
		t.Errorf("%d exchanges shown, want the failed step's one", n)
	}
}
