package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// LoadRun is a fixture's `load:` block: how `mcpcheck load` repeats its
// scenarios, and the thresholds that decide its exit code. Flags override
// each setting; thresholds from flags are added to the fixture's.
type LoadRun struct {
	// VUs is the number of virtual users of the closed model: each runs the
	// scenarios over and over, one iteration after another.
	VUs int
	// Rate, when set, is the open model: iterations start at this many per
	// second whatever the server's pace (at most MaxVUs at once).
	Rate   float64
	MaxVUs int
	// Duration bounds the run; Iterations, when set, ends it after that
	// many iterations (whichever comes first).
	Duration   time.Duration
	Iterations int
	// Stages ramp the users (or the rate) linearly to each target in turn.
	Stages []LoadStage
	// Thresholds decide the verdict: each one unmet fails the run.
	Thresholds []Threshold
	// AbortOnErrors, when above 0, stops the run at once when the share of
	// failed calls passes it (a fraction, 0.05 for 5 %), once 20 calls have
	// been made.
	AbortOnErrors float64
}

// LoadStage is one stage of a ramp: reach Target over Duration.
type LoadStage struct {
	Duration time.Duration
	Target   float64
}

// ParseStages reads a ramp written as k6 writes it: "30s:10,1m:50,30s:0"
// (DURATION:TARGET, comma separated).
func ParseStages(s string) ([]LoadStage, error) {
	var out []LoadStage
	for _, part := range strings.Split(s, ",") {
		d, t, ok := strings.Cut(strings.TrimSpace(part), ":")
		if !ok {
			return nil, fmt.Errorf("stage %q: want DURATION:TARGET, e.g. 30s:10", part)
		}
		dur, err := time.ParseDuration(d)
		if err != nil || dur <= 0 {
			return nil, fmt.Errorf("stage %q: %q is not a positive duration (30s, 1m)", part, d)
		}
		target, err := strconv.ParseFloat(t, 64)
		if err != nil || target < 0 || math.IsInf(target, 0) || target > 1e6 {
			return nil, fmt.Errorf("stage %q: %q is not a target from 0 to 1000000", part, t)
		}
		out = append(out, LoadStage{Duration: dur, Target: target})
	}
	return out, nil
}

// Threshold is one rule of a load run's verdict, as written:
// "[SCENARIO[/STEP]:] METRIC OP VALUE".
//
//   - METRIC is a latency (p50, p90, p95, p99, p99.9, max, avg) compared
//     with a duration (300ms, 1.5s, 800us); `errors`, the share of failed
//     calls, compared with a percentage (1%) or a count (errors<5);
//     `rps`, calls per second, compared with a number.
//   - OP is <, <=, > or >=.
//   - Without a scenario it applies to every call of the run; with one, to
//     that scenario's calls; with SCENARIO/STEP, to that step's.
type Threshold struct {
	Text     string
	Scenario string
	Step     string
	Metric   string
	Op       string
	// Value is microseconds for a latency, a fraction (0.01) or a count
	// for errors (Count), calls per second for rps.
	Value float64
	Count bool
}

// latencyMetrics are the latency metrics a threshold may name, with the
// quantile each reads (1 for max, 0 for the mean).
var latencyMetrics = map[string]float64{"p50": 0.5, "p90": 0.9, "p95": 0.95, "p99": 0.99, "p99.9": 0.999, "max": 1, "avg": 0, "med": 0.5}

// Quantile is the quantile a latency threshold reads (0: the mean), and
// whether the metric is a latency.
func (t Threshold) Quantile() (float64, bool) {
	q, ok := latencyMetrics[t.Metric]
	return q, ok
}

// Met reports whether actual (in the threshold's unit) meets the rule.
func (t Threshold) Met(actual float64) bool {
	switch t.Op {
	case "<":
		return actual < t.Value
	case "<=":
		return actual <= t.Value
	case ">":
		return actual > t.Value
	}
	return actual >= t.Value
}

// ParseThreshold reads one rule (see [Threshold]).
func ParseThreshold(s string) (Threshold, error) {
	t := Threshold{Text: strings.TrimSpace(s)}
	rule := t.Text
	if target, rest, ok := strings.Cut(rule, ":"); ok {
		t.Scenario, t.Step, _ = strings.Cut(strings.TrimSpace(target), "/")
		t.Scenario, t.Step = strings.TrimSpace(t.Scenario), strings.TrimSpace(t.Step)
		if t.Scenario == "" {
			return t, fmt.Errorf("threshold %q: name a scenario before the colon, or leave the colon out", s)
		}
		rule = rest
	}
	i := strings.IndexAny(rule, "<>")
	if i < 0 {
		return t, fmt.Errorf("threshold %q: want METRIC OP VALUE, e.g. p95<300ms or errors<1%%", s)
	}
	t.Metric = strings.ToLower(strings.TrimSpace(rule[:i]))
	t.Op = rule[i : i+1]
	val := rule[i+1:]
	if strings.HasPrefix(val, "=") {
		t.Op += "="
		val = val[1:]
	}
	val = strings.TrimSpace(val)
	_, latency := latencyMetrics[t.Metric]
	switch {
	case latency:
		d, err := time.ParseDuration(val)
		if err != nil || d < 0 {
			return t, fmt.Errorf("threshold %q: %s compares with a duration (300ms, 1.5s), not %q", s, t.Metric, val)
		}
		t.Value = float64(d.Microseconds())
	case t.Metric == "errors":
		if p, ok := strings.CutSuffix(val, "%"); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
			if err != nil || f < 0 || f > 100 {
				return t, fmt.Errorf("threshold %q: %q is not a percentage from 0 to 100", s, val)
			}
			t.Value = f / 100
		} else {
			n, err := strconv.ParseUint(val, 10, 32)
			if err != nil {
				return t, fmt.Errorf("threshold %q: errors compares with a percentage (1%%) or a count (5), not %q", s, val)
			}
			t.Value, t.Count = float64(n), true
		}
	case t.Metric == "rps":
		f, err := strconv.ParseFloat(val, 64)
		if err != nil || f < 0 || math.IsInf(f, 0) {
			return t, fmt.Errorf("threshold %q: rps compares with a number of calls per second, not %q", s, val)
		}
		t.Value = f
	default:
		names := []string{"p50", "p90", "p95", "p99", "p99.9", "max", "avg", "errors", "rps"}
		hint := ""
		if sug := Suggest(t.Metric, names); sug != "" {
			hint = "; did you mean " + sug + "?"
		}
		return t, fmt.Errorf("threshold %q: unknown metric %q (one of %s)%s", s, t.Metric, strings.Join(names, ", "), hint)
	}
	return t, nil
}

// decodeLoad reads a schema-valid `load:` block, recording bad rules at
// their position.
func decodeLoad(n *node, errs *errList) *LoadRun {
	l := &LoadRun{
		VUs:        n.intAt("vus", 0),
		MaxVUs:     n.intAt("maxVUs", 0),
		Iterations: n.intAt("iterations", 0),
		Duration:   time.Duration(n.intAt("durationMs", 0)) * time.Millisecond,
	}
	if v := n.value("rate"); v != nil {
		l.Rate, _ = strconv.ParseFloat(v.str, 64)
	}
	if v := n.value("abortOnErrorsPercent"); v != nil {
		f, _ := strconv.ParseFloat(v.str, 64)
		l.AbortOnErrors = f / 100
	}
	if v := n.value("stages"); v != nil {
		st, err := ParseStages(strValue(v))
		if err != nil {
			errs.at(v.pos, "load.stages: %v", err)
		}
		l.Stages = st
	}
	for _, item := range n.value("thresholds").itemsOrNil() {
		t, err := ParseThreshold(strValue(item))
		if err != nil {
			errs.at(item.pos, "load.thresholds: %v", err)
			continue
		}
		l.Thresholds = append(l.Thresholds, t)
	}
	return l
}
