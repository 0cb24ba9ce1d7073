// Package loadstat is the arithmetic of a load run's measurements: the
// statistics of a set of calls from their latency histogram, the exact join
// of several sets (steps into the whole run, segments into one report), the
// per-second series, and the thresholds judged on them.
package loadstat

import (
	"math"
	"strconv"
	"time"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/runner/internal/hist"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// Bits is the resolution of a step's latency histogram (0.8 %).
const Bits = 8

// JoinWindows halves the series by joining adjacent windows (exactly: the
// histograms merge).
func JoinWindows(ws []report.LoadWindow) []report.LoadWindow {
	var out []report.LoadWindow
	for i := 0; i < len(ws); i += 2 {
		w := ws[i]
		if i+1 < len(ws) {
			w = MergeWindow(w, ws[i+1])
		}
		out = append(out, w)
	}
	return out
}

// MergeWindow is two windows as one: counts add, histograms merge, and
// the later end is kept.
func MergeWindow(a, b report.LoadWindow) report.LoadWindow {
	ha, err1 := hist.Decode(a.Histogram)
	hb, err2 := hist.Decode(b.Histogram)
	if err1 != nil || err2 != nil || ha.Merge(hb) != nil {
		return a
	}
	w := report.LoadWindow{AtMs: max(a.AtMs, b.AtMs), Calls: a.Calls + b.Calls, Errors: a.Errors + b.Errors, Histogram: ha.Encode()}
	w.Fill(ha)
	return w
}

// Stats is the measurements of a set of calls: counts, outcomes (an
// outcome not reached as "not_sent"), latency from h, calls per second.
func Stats(h *hist.H, calls, errs, failed uint64, outcomes map[config.Outcome]uint64, elapsed time.Duration) report.LoadStats {
	st := report.LoadStats{Calls: calls, Errors: errs, Failed: failed, Outcomes: map[string]uint64{}, Latency: report.LatencyOf(h), Histogram: h.Encode()}
	for o, n := range outcomes {
		key := string(o)
		if key == "" {
			key = "not_sent"
		}
		st.Outcomes[key] += n
	}
	if s := elapsed.Seconds(); s > 0 {
		st.RPS = math.Round(float64(calls)/s*100) / 100
	}
	return st
}

// Join is the measurements of several sets of calls together.
func Join(parts []report.LoadStats, elapsed time.Duration) report.LoadStats {
	h := hist.New(Bits)
	var calls, errs, failed uint64
	outcomes := map[config.Outcome]uint64{}
	for _, p := range parts {
		if ph, err := hist.Decode(p.Histogram); err == nil {
			h.Merge(ph)
		}
		calls, errs, failed = calls+p.Calls, errs+p.Errors, failed+p.Failed
		for o, n := range p.Outcomes {
			outcomes[config.Outcome(o)] += n
		}
	}
	st := Stats(h, calls, errs, failed, outcomes, elapsed)
	for _, p := range parts {
		if p.FirstError != nil {
			st.FirstError = p.FirstError
			break
		}
	}
	return st
}

// Verdict judges res: it passes when every threshold holds and the error
// bound did not abort it (an interrupted run is judged on what it did).
func Verdict(res *report.LoadResult, rules []config.Threshold) {
	res.Thresholds, res.Passed = judge(rules, res)
	if res.Aborted != "" && res.Aborted != "interrupted" {
		res.Passed = false
	}
}

// judge judges each rule on the calls it names; with no rule,
// the run passes when every call passed (a load run checks expectations
// like any run; `errors<1%` tolerates some).
func judge(rules []config.Threshold, res *report.LoadResult) ([]report.ThresholdResult, bool) {
	if len(rules) == 0 {
		t, _ := config.ParseThreshold("errors<=0")
		out := judgeOne(t, res)
		out.Default = true
		out.Rule = "every call passes (no threshold given)"
		return []report.ThresholdResult{out}, out.Met
	}
	all := true
	out := make([]report.ThresholdResult, 0, len(rules))
	for _, t := range rules {
		tr := judgeOne(t, res)
		all = all && tr.Met
		out = append(out, tr)
	}
	return out, all
}

func judgeOne(t config.Threshold, res *report.LoadResult) report.ThresholdResult {
	tr := report.ThresholdResult{Rule: t.Text}
	var parts []report.LoadStats
	for _, st := range res.Steps {
		if (t.Scenario == "" || st.Scenario == t.Scenario) && (t.Step == "" || st.Step == t.Step) {
			parts = append(parts, st)
		}
	}
	if len(parts) == 0 {
		tr.Reason = "no call matches " + strconv.Quote(strings2(t.Scenario, t.Step))
		return tr
	}
	stats := Join(parts, time.Duration(res.ElapsedMs)*time.Millisecond)
	if stats.Calls == 0 {
		tr.Reason = "no call was made"
		return tr
	}
	var actual, want float64
	switch q, latency := t.Quantile(); {
	case latency:
		h, _ := hist.Decode(stats.Histogram)
		v := float64(h.Quantile(q))
		switch t.Metric {
		case "avg":
			v = h.Mean()
		case "max":
			v = float64(h.Max())
		}
		actual, want, tr.Unit = usToMs(v), usToMs(t.Value), "ms"
	case t.Metric == "errors" && t.Count:
		actual, want, tr.Unit = float64(stats.Errors), t.Value, "calls"
	case t.Metric == "errors":
		actual, want, tr.Unit = math.Round(float64(stats.Errors)/float64(stats.Calls)*1e6)/1e4, t.Value*100, "%"
	default:
		actual, want, tr.Unit = stats.RPS, t.Value, "calls/s"
	}
	tr.Actual = actual
	tr.Met = (config.Threshold{Op: t.Op, Value: want}).Met(actual)
	return tr
}

// strings2 is a threshold's scenario and step as a rule names them.
func strings2(scenario, step string) string {
	if step == "" {
		return scenario
	}
	return scenario + "/" + step
}

// Merge joins the load results of a run's segments: counts and
// histograms add exactly; the elapsed time is the longest segment's, so
// rates add; thresholds are judged again on the whole.
func Merge(parts []*report.LoadResult, rules []config.Threshold) *report.LoadResult {
	if len(parts) == 0 {
		return nil
	}
	out := *parts[0]
	out.Segment, out.Steps, out.Aborted = nil, nil, ""
	out.Iterations, out.Dropped, out.SessionsOpened, out.SessionsFailed, out.VUs, out.Rate, out.MaxVUs = 0, 0, 0, 0, 0, 0, 0
	byKey := map[string]int{}
	var windows [][]report.LoadWindow
	for _, p := range parts {
		out.ElapsedMs = max(out.ElapsedMs, p.ElapsedMs)
		out.Iterations += p.Iterations
		out.Dropped += p.Dropped
		out.SessionsOpened += p.SessionsOpened
		out.SessionsFailed += p.SessionsFailed
		out.VUs += p.VUs
		out.Rate += p.Rate
		out.MaxVUs += p.MaxVUs
		if p.Aborted != "" && out.Aborted == "" {
			out.Aborted = p.Aborted
		}
		for _, st := range p.Steps {
			key := st.Scenario + "\x00" + st.Step
			i, ok := byKey[key]
			if !ok {
				byKey[key] = len(out.Steps)
				out.Steps = append(out.Steps, st)
				continue
			}
			joined := Join([]report.LoadStats{out.Steps[i], st}, 0)
			joined.Scenario, joined.Step, joined.Target = st.Scenario, st.Step, st.Target
			out.Steps[i] = joined
		}
		windows = append(windows, p.Series.Windows)
	}
	elapsed := time.Duration(out.ElapsedMs) * time.Millisecond
	for i := range out.Steps {
		if s := elapsed.Seconds(); s > 0 {
			out.Steps[i].RPS = math.Round(float64(out.Steps[i].Calls)/s*100) / 100
		}
	}
	out.Overall = Join(out.Steps, elapsed)
	out.Series.Windows = mergeSeries(windows)
	Verdict(&out, rules)
	return &out
}

// mergeSeries adds the segments' windows position by position (each
// segment's series counts from its own start).
func mergeSeries(all [][]report.LoadWindow) []report.LoadWindow {
	n := 0
	for _, s := range all {
		n = max(n, len(s))
	}
	out := make([]report.LoadWindow, 0, n)
	for i := range n {
		var w *report.LoadWindow
		for _, s := range all {
			if i >= len(s) {
				continue
			}
			if w == nil {
				c := s[i]
				w = &c
				continue
			}
			m := MergeWindow(*w, s[i])
			w = &m
		}
		out = append(out, *w)
	}
	return out
}

func usToMs(v float64) float64 { return math.Round(v) / 1000 }
