package report

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"strings"

	"github.com/mcpcheck/mcpcheck/runner/internal/hist"
)

// loadHTML is a load report as one static page: the verdict, the
// thresholds, the steps' table, and two charts drawn as inline SVG from
// numbers alone (no server string reaches the SVG): latency over time
// (p50, p95, p99 of each window, calls per window as bars) and the
// latency at each percentile of the whole run.
func loadHTML(w io.Writer, r *Report) error {
	l := r.Load
	page := loadPage{Title: r.Suite, Target: targetLine(r), Shape: loadShape(l), Passed: r.Passed, Aborted: l.Aborted,
		Over: template.HTML(overTime(l)), Percentiles: template.HTML(percentileChart(l))}
	if r.Failure != nil {
		page.Failure = string(r.Failure.Stage) + ": " + r.Failure.Message
	}
	for i := range l.Steps {
		page.Rows = append(page.Rows, loadRowOf(l.Steps[i].Scenario+"/"+l.Steps[i].Step, &l.Steps[i]))
	}
	page.Rows = append(page.Rows, loadRowOf("all", &l.Overall))
	for _, th := range l.Thresholds {
		actual := num(th.Actual) + " " + th.Unit
		if th.Reason != "" {
			actual = th.Reason
		}
		page.Thresholds = append(page.Thresholds, loadThreshold{Rule: th.Rule, Actual: actual, Met: th.Met})
	}
	return loadTemplate.Execute(w, page)
}

type loadPage struct {
	Title, Target, Shape, Aborted, Failure string
	Passed                                 bool
	Thresholds                             []loadThreshold
	Rows                                   []loadRow
	Over, Percentiles                      template.HTML
}

type loadThreshold struct {
	Rule, Actual string
	Met          bool
}

type loadRow struct {
	Name, Calls, Errors, RPS, P50, P90, P95, P99, Max string
}

func loadRowOf(name string, s *LoadStats) loadRow {
	return loadRow{Name: name, Calls: fmt.Sprint(s.Calls), Errors: fmt.Sprint(s.Errors), RPS: num(s.RPS),
		P50: msText(s.Latency.P50), P90: msText(s.Latency.P90), P95: msText(s.Latency.P95), P99: msText(s.Latency.P99), Max: msText(s.Latency.Max)}
}

// Chart geometry (SVG user units).
const (
	chartW, chartH         = 720.0, 260.0
	padL, padR, padT, padB = 64.0, 32.0, 16.0, 36.0
)

// overTime draws the windows: bars of calls (right scale), lines of p50,
// p95 and p99 (left scale, ms).
func overTime(l *LoadResult) string {
	ws := l.Series.Windows
	if len(ws) == 0 {
		return `<p class="muted">No window was closed: the run was shorter than one window.</p>`
	}
	var top float64
	var calls uint64
	for _, w := range ws {
		top = math.Max(top, w.P99)
		calls = max(calls, w.Calls)
	}
	top = niceCeil(top)
	end := float64(ws[len(ws)-1].AtMs)
	x := func(ms int64) float64 { return padL + (chartW-padL-padR)*float64(ms)/math.Max(end, 1) }
	y := func(v float64) float64 { return chartH - padB - (chartH-padT-padB)*v/math.Max(top, 1e-9) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %.0f %.0f" role="img" aria-label="latency over time">`, chartW, chartH)
	axes(&b, top, "ms", fmt.Sprintf("%.0f s", end/1000))
	barW := math.Max((chartW-padL-padR)/float64(len(ws))-1, 1)
	for _, w := range ws {
		h := (chartH - padT - padB) * 0.35 * float64(w.Calls) / math.Max(float64(calls), 1)
		fmt.Fprintf(&b, `<rect class="calls" x="%.1f" y="%.1f" width="%.1f" height="%.1f"><title>%d calls, %d errors</title></rect>`, x(w.AtMs)-barW, chartH-padB-h, barW, h, w.Calls, w.Errors)
	}
	for _, line := range []struct {
		class string
		v     func(LoadWindow) float64
	}{{"p50", func(w LoadWindow) float64 { return w.P50 }}, {"p95", func(w LoadWindow) float64 { return w.P95 }}, {"p99", func(w LoadWindow) float64 { return w.P99 }}} {
		var pts []string
		for _, w := range ws {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(w.AtMs), y(line.v(w))))
		}
		fmt.Fprintf(&b, `<polyline class="%s" points="%s"/>`, line.class, strings.Join(pts, " "))
	}
	legend(&b, []string{"p50", "p95", "p99", "calls"})
	b.WriteString(`</svg>`)
	return b.String()
}

// percentileChart draws the whole run's latency at each percentile, on an
// axis that spreads the tail (50, 90, 99, 99.9, 99.99).
func percentileChart(l *LoadResult) string {
	h, err := hist.Decode(l.Overall.Histogram)
	if err != nil || h.Count() == 0 {
		return `<p class="muted">No call was measured.</p>`
	}
	top := niceCeil(float64(h.Max()) / 1000)
	// x is -log10(1-q): 0 at the median's left edge, 4 at 99.99.
	const span = 4.0
	x := func(q float64) float64 {
		return padL + (chartW-padL-padR)*math.Min(-math.Log10(1-q), span)/span
	}
	y := func(v float64) float64 { return chartH - padB - (chartH-padT-padB)*v/math.Max(top, 1e-9) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %.0f %.0f" role="img" aria-label="latency by percentile">`, chartW, chartH)
	axes(&b, top, "ms", "")
	var pts []string
	for i := 0; i <= 200; i++ {
		q := 1 - math.Pow(10, -span*float64(i)/200)
		q = math.Min(q, 1-1e-9)
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(q), y(float64(h.Quantile(q))/1000)))
	}
	fmt.Fprintf(&b, `<polyline class="p99" points="%s"/>`, strings.Join(pts, " "))
	for _, m := range []struct {
		q     float64
		label string
	}{{0, "0"}, {0.9, "90"}, {0.99, "99"}, {0.999, "99.9"}, {0.9999, "99.99"}} {
		fmt.Fprintf(&b, `<text class="tick" x="%.1f" y="%.1f" text-anchor="middle">%s %%</text>`, x(m.q), chartH-padB+16, m.label)
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// axes draws the frame and the left scale up to top.
func axes(b *strings.Builder, top float64, unit, endLabel string) {
	fmt.Fprintf(b, `<line class="axis" x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f"/>`, padL, padT, padL, chartH-padB)
	fmt.Fprintf(b, `<line class="axis" x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f"/>`, padL, chartH-padB, chartW-padR, chartH-padB)
	for i := 0; i <= 4; i++ {
		v := top * float64(i) / 4
		yy := chartH - padB - (chartH-padT-padB)*float64(i)/4
		fmt.Fprintf(b, `<line class="grid" x1="%.0f" y1="%.1f" x2="%.0f" y2="%.1f"/><text class="tick" x="%.0f" y="%.1f" text-anchor="end">%s %s</text>`,
			padL, yy, chartW-padR, yy, padL-6, yy+4, num(math.Round(v*100)/100), unit)
	}
	if endLabel != "" {
		fmt.Fprintf(b, `<text class="tick" x="%.0f" y="%.0f" text-anchor="end">%s</text>`, chartW-padR, chartH-padB+16, endLabel)
	}
}

func legend(b *strings.Builder, names []string) {
	for i, n := range names {
		xx := padL + 10 + float64(i)*70
		fmt.Fprintf(b, `<rect class="key %s" x="%.0f" y="%.0f" width="12" height="4"/><text class="tick" x="%.0f" y="%.0f">%s</text>`, n, xx, padT+2, xx+16, padT+7, n)
	}
}

// niceCeil rounds v up to 1, 2 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}

var loadTemplate = template.Must(template.New("load").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>{{if .Passed}}PASS{{else}}FAIL{{end}} {{.Title}} (load) — mcpcheck</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:60em;padding:0 1em;color:#222}
.pass{color:#1a7f37}.fail{color:#cf222e}.muted{color:#666}
table{border-collapse:collapse;margin:1em 0}td,th{padding:.25em .6em;border-bottom:1px solid #ddd;text-align:right}td:first-child,th:first-child{text-align:left}
svg.chart{width:100%;height:auto;max-width:720px;display:block;margin:1em 0}
.axis{stroke:#444}.grid{stroke:#e5e5e5}.tick{font-size:11px;fill:#555}
polyline{fill:none;stroke-width:1.6}.p50{stroke:#1f77b4}.p95{stroke:#ff7f0e}.p99{stroke:#d62728}
rect.calls,rect.key.calls{fill:#c8d6e5}rect.key.p50{fill:#1f77b4}rect.key.p95{fill:#ff7f0e}rect.key.p99{fill:#d62728}
</style></head><body>
<h1 id="verdict" class="{{if .Passed}}pass{{else}}fail{{end}}">{{if .Passed}}PASS{{else}}FAIL{{end}} {{.Title}} <small>(load)</small></h1>
<p>{{.Target}}<br>{{.Shape}}</p>
{{if .Failure}}<p class="fail">{{.Failure}}</p>{{end}}
{{if .Aborted}}<p class="fail">Stopped early: {{.Aborted}}</p>{{end}}
<h2>Thresholds</h2>
<table id="thresholds"><tr><th>rule</th><th>actual</th><th>verdict</th></tr>
{{range .Thresholds}}<tr class="{{if .Met}}pass{{else}}fail{{end}}"><td>{{.Rule}}</td><td>{{.Actual}}</td><td>{{if .Met}}met{{else}}NOT MET{{end}}</td></tr>
{{end}}</table>
<h2>Steps</h2>
<table id="steps"><tr><th>step</th><th>calls</th><th>errors</th><th>calls/s</th><th>p50</th><th>p90</th><th>p95</th><th>p99</th><th>max</th></tr>
{{range .Rows}}<tr><td>{{.Name}}</td><td>{{.Calls}}</td><td>{{.Errors}}</td><td>{{.RPS}}</td><td>{{.P50}}</td><td>{{.P90}}</td><td>{{.P95}}</td><td>{{.P99}}</td><td>{{.Max}}</td></tr>
{{end}}</table>
<h2>Latency over time</h2>
{{.Over}}
<h2>Latency by percentile</h2>
{{.Percentiles}}
</body></html>
`))
