package runner

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/runner/internal/hist"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// joinWindows halves the series by joining adjacent windows (exactly: the
// histograms merge).
func joinWindows(ws []report.LoadWindow) []report.LoadWindow {
	var out []report.LoadWindow
	for i := 0; i < len(ws); i += 2 {
		w := ws[i]
		if i+1 < len(ws) {
			w = mergeWindow(w, ws[i+1])
		}
		out = append(out, w)
	}
	return out
}

func mergeWindow(a, b report.LoadWindow) report.LoadWindow {
	ha, err1 := hist.Decode(a.Histogram)
	hb, err2 := hist.Decode(b.Histogram)
	if err1 != nil || err2 != nil || ha.Merge(hb) != nil {
		return a
	}
	w := report.LoadWindow{AtMs: max(a.AtMs, b.AtMs), Calls: a.Calls + b.Calls, Errors: a.Errors + b.Errors, Histogram: ha.Encode()}
	w.Fill(ha)
	return w
}

// result is the run's LoadResult, thresholds judged.
func (lr *loadRun) result(o *LoadOptions) *report.LoadResult {
	elapsed := time.Since(lr.start)
	if lr.sh.duration > 0 {
		elapsed = min(elapsed, lr.sh.duration+time.Second) // the last calls drain after the end
	}
	res := &report.LoadResult{Model: "closed", VUs: lr.sh.vus, Stages: o.StagesText, Segment: o.Segment,
		PlannedMs: lr.sh.duration.Milliseconds(), ElapsedMs: elapsed.Milliseconds(), Iterations: lr.iterations.Load(), Dropped: lr.dropped.Load(),
		SessionsOpened: lr.opened.Load(), SessionsFailed: lr.failedOpens.Load(),
		Series: report.LoadSeries{WindowMs: lr.width.Milliseconds(), Windows: lr.series}}
	if lr.sh.rate > 0 {
		res.Model, res.VUs, res.Rate, res.MaxVUs = "open", 0, lr.sh.rate, lr.sh.maxVUs
	}
	res.Aborted = lr.stopped
	var hs []*hist.H
	for k, sc := range lr.plan {
		for j := range sc.steps {
			ls := lr.steps[k][j]
			st := statsOf(ls.h, ls.calls, ls.errors, ls.failed, ls.outcomes, elapsed)
			st.Scenario, st.Step, st.Target = sc.name, sc.steps[j].spec.ID, sc.steps[j].call.name
			res.Steps = append(res.Steps, st)
			hs = append(hs, ls.h)
		}
	}
	res.Overall = joinStats(res.Steps, elapsed)
	res.Thresholds, res.Passed = judgeThresholds(lr.sh.thresholds, res)
	if res.Aborted != "" && res.Aborted != "interrupted" {
		res.Passed = false
	}
	return res
}

func pct(f float64) string { return strconv.FormatFloat(f*100, 'g', 4, 64) + " %" }

func statsOf(h *hist.H, calls, errs, failed uint64, outcomes map[config.Outcome]uint64, elapsed time.Duration) report.LoadStats {
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

// joinStats is the measurements of several sets of calls together.
func joinStats(parts []report.LoadStats, elapsed time.Duration) report.LoadStats {
	h := hist.New(loadBits)
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
	return statsOf(h, calls, errs, failed, outcomes, elapsed)
}

// judgeThresholds judges each rule on the calls it names; with no rule,
// the run passes when every call passed (a load run checks expectations
// like any run; `errors<1%` tolerates some).
func judgeThresholds(rules []config.Threshold, res *report.LoadResult) ([]report.ThresholdResult, bool) {
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
	stats := joinStats(parts, time.Duration(res.ElapsedMs)*time.Millisecond)
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

func strings2(scenario, step string) string {
	if step == "" {
		return scenario
	}
	return scenario + "/" + step
}

// sleepCtx waits d or until ctx ends; false when ctx ended.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// mergeLoad joins the load results of a run's segments: counts and
// histograms add exactly; the elapsed time is the longest segment's, so
// rates add; thresholds are judged again on the whole.
func mergeLoad(parts []*report.LoadResult, rules []config.Threshold) (*report.LoadResult, error) {
	if len(parts) == 0 {
		return nil, nil
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
		if p.Model != out.Model {
			return nil, fmt.Errorf("%w: one part is a %s-model load, another %s", ErrMerge, out.Model, p.Model)
		}
		for _, st := range p.Steps {
			key := st.Scenario + "\x00" + st.Step
			i, ok := byKey[key]
			if !ok {
				byKey[key] = len(out.Steps)
				out.Steps = append(out.Steps, st)
				continue
			}
			joined := joinStats([]report.LoadStats{out.Steps[i], st}, 0)
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
	out.Overall = joinStats(out.Steps, elapsed)
	out.Series.Windows = mergeSeries(windows)
	out.Thresholds, out.Passed = judgeThresholds(rules, &out)
	if out.Aborted != "" && out.Aborted != "interrupted" {
		out.Passed = false
	}
	return &out, nil
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
			m := mergeWindow(*w, s[i])
			w = &m
		}
		out = append(out, *w)
	}
	return out
}

// rulesOf reads back the thresholds of a load report (the default rule is
// not one).
func rulesOf(res *report.LoadResult) ([]config.Threshold, error) {
	var out []config.Threshold
	for _, t := range res.Thresholds {
		if t.Default {
			continue
		}
		r, err := config.ParseThreshold(t.Rule)
		if err != nil {
			return nil, fmt.Errorf("%w: threshold %q: %v", ErrMerge, t.Rule, err)
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Text < out[j].Text })
	return slices.CompactFunc(out, func(a, b config.Threshold) bool { return a.Text == b.Text }), nil
}

// mergeLoadReports joins the reports of a load run's segments (--segment
// K/N): one segment each, of the same split and suite, with the same
// thresholds.
func mergeLoadReports(parts []Part, allowPartial bool) (*report.Report, error) {
	first := parts[0]
	var rules []config.Threshold
	seen := map[int]string{}
	total := 0
	loads := make([]*report.LoadResult, 0, len(parts))
	for i, p := range parts {
		l := p.Report.Load
		if l == nil {
			return nil, fmt.Errorf("%w: %s is a load report and %s is not", ErrMerge, first.Source, p.Source)
		}
		if l.Segment == nil {
			return nil, fmt.Errorf("%w: %s is not a segment's report (run mcpcheck load with --segment K/N)", ErrMerge, p.Source)
		}
		if err := sameSuite(first, p); err != nil {
			return nil, err
		}
		if i == 0 {
			total = l.Segment.Total
		} else if l.Segment.Total != total {
			return nil, fmt.Errorf("%w: %s is segment %s and %s segment %s: segments of different splits", ErrMerge, first.Source, first.Report.Load.Segment, p.Source, l.Segment)
		}
		if prev, ok := seen[l.Segment.Index]; ok {
			return nil, fmt.Errorf("%w: %s and %s are both segment %s", ErrMerge, prev, p.Source, l.Segment)
		}
		seen[l.Segment.Index] = p.Source
		r, err := rulesOf(l)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			rules = r
		} else if !slices.EqualFunc(rules, r, func(a, b config.Threshold) bool { return a.Text == b.Text }) {
			return nil, fmt.Errorf("%w: %s and %s judge different thresholds", ErrMerge, first.Source, p.Source)
		}
		loads = append(loads, l)
	}
	if len(seen) < total && !allowPartial {
		return nil, fmt.Errorf("%w: %d of %d segments given (%s); --allow-partial merges what there is", ErrMerge, len(seen), total, sources(parts))
	}
	m, err := clone(first.Report)
	if err != nil {
		return nil, err
	}
	if m.Load, err = mergeLoad(loads, rules); err != nil {
		return nil, err
	}
	m.Connections, m.Summary.DurationMs = 0, 0
	for _, p := range parts {
		m.Connections += p.Report.Connections
		m.Summary.DurationMs = max(m.Summary.DurationMs, p.Report.Summary.DurationMs)
		if m.Failure == nil {
			m.Failure = p.Report.Failure
		}
	}
	m.Tally()
	m.Passed = m.Failure == nil && m.Load.Passed
	return m, nil
}
func usToMs(v float64) float64 { return math.Round(v) / 1000 }
