package report_test

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/demo"
	"github.com/mcpcheck/mcpcheck/runner"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// TestHTMLSeveralSuitesInChromium: on a page of several suites, a long
// passing one first, the whole run's verdict (FAIL), its counts and the
// "failures only" filter come first, as Chromium lays the page out: the
// red verdict is drawn at the top of the page, not below the passing
// suite. With the filter on (the checkbox checked; CSS only, the page runs
// no script) what passed, and the tool list and notes, are not drawn: the
// page is much shorter, and the
// failure is still there.
func TestHTMLSeveralSuitesInChromium(t *testing.T) {
	browser := chromium(t)
	pass, fail := passingDemoRun(t), demoRun(t, "plain")
	var b bytes.Buffer
	if err := report.HTML(&b, pass, fail); err != nil {
		t.Fatal(err)
	}
	page := b.Bytes()
	dom, stray := render(t, browser, func(string) []byte { return page })
	if len(stray) > 0 {
		t.Errorf("the page made requests: %v", stray)
	}
	header, first := strings.Index(dom, `<header class="total">`), strings.Index(dom, `<section class="suite`)
	filter := strings.Index(dom, `<input type="checkbox" id="failures-only"`)
	if header < 0 || first < 0 || filter < 0 || !(header < filter && filter < first) {
		t.Fatalf("header at %d, filter at %d, first suite at %d: want the header, then the filter, then the suites\n%s", header, filter, first, dom)
	}
	top := dom[header:first]
	for _, want := range []string{`<span class="verdict fail">FAIL</span>2 suites: 1 passed, 1 failed`, "Total steps: ", " passed, 1 failed, ", `href="#suite-2"`, "failures only"} {
		if !strings.Contains(top, want) {
			t.Errorf("the top of the page lacks %q:\n%s", want, top)
		}
	}

	all := screenshot(t, browser, page)
	only := screenshot(t, browser, bytes.Replace(page, []byte(`id="failures-only"`), []byte(`id="failures-only" checked`), 1))
	if y := firstRow(all, isRed); y < 0 || y > 120 {
		t.Errorf("the FAIL verdict is drawn at y=%d; want it within the first 120 px", y)
	}
	hAll, hOnly := lastRow(all), lastRow(only)
	if hOnly <= 0 || hOnly*3 > hAll*2 {
		t.Errorf("with failures only the page is %d px high, without %d: want less than two thirds", hOnly, hAll)
	}
	if y := lastRowWhere(only, isRed); y < 150 {
		t.Errorf("with failures only no failure is drawn below the header (last red row %d)", y)
	}
}

// passingDemoRun runs examples/demo.yaml against the demo server over
// Streamable HTTP: a suite of several passing scenarios.
func passingDemoRun(t *testing.T) *report.Report {
	t.Helper()
	srv := httptest.NewServer(demo.Handler(demo.Options{}))
	t.Cleanup(srv.Close)
	suite, err := config.Load("../../examples/demo.yaml", config.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	suite.Command, suite.Cwd, suite.Endpoint = nil, "", srv.URL+"/mcp"
	r, err := runner.Run(context.Background(), suite, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Passed || r.Summary.Passed < 5 {
		t.Fatalf("examples/demo.yaml: passed %v, %+v", r.Passed, r.Summary)
	}
	return r
}

// screenshot has headless Chromium draw page in a tall window and returns
// the image.
func screenshot(t *testing.T, browser string, page []byte) image.Image {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(page)
	}))
	defer srv.Close()
	dir := t.TempDir()
	shot := filepath.Join(dir, "page.png")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--window-size=1000,5000", "--screenshot="+shot, srv.URL+"/report.html")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, errb.String())
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// isRed is the FAIL badge's colour (#cf222e), give or take anti-aliasing.
func isRed(r, g, b uint32) bool { return r > 0xb0 && g < 0x50 && b < 0x60 }

func isInk(r, g, b uint32) bool { return r < 0xf0 || g < 0xf0 || b < 0xf0 }

func rgb(img image.Image, x, y int) (uint32, uint32, uint32) {
	r, g, b, _ := img.At(x, y).RGBA()
	return r >> 8, g >> 8, b >> 8
}

func rowHas(img image.Image, y int, want func(r, g, b uint32) bool) bool {
	bd := img.Bounds()
	for x := bd.Min.X; x < bd.Max.X; x++ {
		if want(rgb(img, x, y)) {
			return true
		}
	}
	return false
}

// firstRow is the first row with a pixel that want accepts (-1: none).
func firstRow(img image.Image, want func(r, g, b uint32) bool) int {
	bd := img.Bounds()
	for y := bd.Min.Y; y < bd.Max.Y; y++ {
		if rowHas(img, y, want) {
			return y
		}
	}
	return -1
}

// lastRowWhere is the last row with a pixel that want accepts (-1: none).
func lastRowWhere(img image.Image, want func(r, g, b uint32) bool) int {
	bd := img.Bounds()
	for y := bd.Max.Y - 1; y >= bd.Min.Y; y-- {
		if rowHas(img, y, want) {
			return y
		}
	}
	return -1
}

// lastRow is the last row anything is drawn in: the page's height.
func lastRow(img image.Image) int { return lastRowWhere(img, isInk) }
