package report_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/demo"
	"github.com/mcpcheck/mcpcheck/runner"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

func TestHTMLEscapesHostileStrings(t *testing.T) {
	var b bytes.Buffer
	if err := report.HTML(&b, hostile()); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []string{"<img", "<script>", "<tool>", "<b>bold", "<x/>"} {
		if strings.Contains(page, bad) {
			t.Errorf("page carries raw markup %q", bad)
		}
	}
	for _, want := range []string{"&lt;img src=x onerror=alert(1)&gt;", "&lt;script&gt;alert(&#34;name&#34;)&lt;/script&gt;", "crash resilience", "NOT MET", "&lt;tool&gt;"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// chromium is Debian's headless browser, which .ci/run installs. Without it
// the browser tests skip, saying so, unless MCPCHECK_REQUIRE_INTEROP is set
// (as CI sets it): then its absence fails them.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("MCPCHECK_REQUIRE_INTEROP") != "" {
		t.Fatal("chromium is not installed and MCPCHECK_REQUIRE_INTEROP is set (.ci/run installs it: apt-get install chromium)")
	}
	t.Skip("chromium is not installed (apt-get install chromium; .ci/run does); the HTML report is not rendered")
	return ""
}

// render serves page from a local server that records every request, has
// headless Chromium load it, and returns the DOM Chromium built and the
// paths it asked for besides the page.
func render(t *testing.T, browser string, page func(origin string) []byte) (dom string, stray []string) {
	t.Helper()
	var mu sync.Mutex
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/report.html" {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(body)
			return
		}
		mu.Lock()
		stray = append(stray, r.URL.String())
		mu.Unlock()
		http.NotFound(w, r)
	}))
	defer srv.Close()
	body = page(srv.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+t.TempDir(), "--virtual-time-budget=3000", "--dump-dom", srv.URL+"/report.html")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, errb.String())
	}
	mu.Lock()
	defer mu.Unlock()
	return out.String(), stray
}

// TestHTMLInChromium renders two reports in headless Chromium: a failing
// run of the real demo server over HTTP whose tool error quotes markup the
// fixture sent it, and a report whose server name, tool name, messages and
// findings are markup. Each page renders (Chromium builds the document),
// requests nothing but itself, and shows the markup as text.
func TestHTMLInChromium(t *testing.T) {
	browser := chromium(t)
	t.Run("demo run", func(t *testing.T) {
		dom, stray := render(t, browser, func(origin string) []byte {
			// Relative URLs: were they elements, they would ask this server.
			r := demoRun(t, `<img src="/leak-img"><script>fetch("/leak-js")</script>`)
			var b bytes.Buffer
			if err := report.HTML(&b, r); err != nil {
				t.Fatal(err)
			}
			return b.Bytes()
		})
		if len(stray) > 0 {
			t.Errorf("the page made requests: %v", stray)
		}
		for _, want := range []string{`<span class="verdict fail">FAIL</span>`, "Markup in a server message", "server said: unknown proposal",
			`&lt;img src=\"/leak-img\"&gt;&lt;script&gt;fetch(`, "expected outcome ok, got tool_error", "<summary>"} {
			if !strings.Contains(dom, want) {
				t.Errorf("rendered DOM lacks %q:\n%s", want, dom)
			}
		}
		if strings.Count(dom, "<img") > 0 || strings.Count(dom, "<script") > 0 {
			t.Errorf("server markup became elements:\n%s", dom)
		}
	})
	t.Run("hostile report", func(t *testing.T) {
		dom, stray := render(t, browser, func(string) []byte {
			var b bytes.Buffer
			if err := report.HTML(&b, hostile()); err != nil {
				t.Fatal(err)
			}
			return b.Bytes()
		})
		if len(stray) > 0 {
			t.Errorf("the page made requests: %v", stray)
		}
		for _, want := range []string{"&lt;img src=x onerror=alert(1)&gt;", `&lt;script&gt;alert("name")&lt;/script&gt;`, "&lt;tool&gt; probe slow", "<title>FAIL s — mcpcheck</title>"} {
			if !strings.Contains(dom, want) {
				t.Errorf("rendered DOM lacks %q:\n%s", want, dom)
			}
		}
		if strings.Contains(dom, "<img") || strings.Contains(dom, "<script") || strings.Contains(dom, "<tool>") || strings.Contains(dom, "<x>") {
			t.Errorf("hostile strings became elements:\n%s", dom)
		}
	})
}

// demoRun runs a fixture against the demo server over Streamable HTTP, the
// real SDK on both ends, in which a commit names a proposal that is markup:
// the demo quotes it back in its tool error.
func demoRun(t *testing.T, markup string) *report.Report {
	t.Helper()
	srv := httptest.NewServer(demo.Handler(demo.Options{}))
	t.Cleanup(srv.Close)
	fixture := filepath.Join(t.TempDir(), "markup.yaml")
	os.WriteFile(fixture, []byte(fmt.Sprintf(`name: Markup in a server message
endpoint: %s/mcp
allowTools: [commit_task, get_household]
scenarios:
  - name: Unknown proposal
    steps:
      - {id: read, tool: get_household}
      - id: commit
        tool: commit_task
        arguments: {proposalId: %q, expectedRevision: 0, idempotencyKey: k}
`, srv.URL, markup)), 0o644)
	suite, err := config.Load(fixture, config.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := runner.Run(context.Background(), suite, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Passed || r.Summary.Failed != 1 {
		t.Fatalf("the commit of an unknown proposal did not fail: %+v", r.Summary)
	}
	return r
}
