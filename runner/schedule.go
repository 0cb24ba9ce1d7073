package runner

import (
	"cmp"
	"context"
	"slices"
	"sync"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// schedule runs the plan's scenarios, up to the suite's concurrency at
// once, on the shared session or (isolation: scenario or step) on sessions
// of their own. Results land in the report by scenario index, so finish
// order never shows.
//
// allAtOnce scenarios put load on the server on purpose; they start once
// every other scenario has finished, so their load disturbs nothing else
// (the latency probes above all). Among themselves, those on sessions of
// their own run up to the concurrency at once too, the one whose tools made
// the longest call so far first, so that a slow tool's load does not start
// last and hold the run up alone; one on the shared session runs alone,
// after them. Then the scenarios planned to run last (scenario.last), one
// at a time: nothing else of the run is in flight while they run. Behaviour
// checks run last of all, one at a time.
func (r *runState) schedule(ctx context.Context, shared *link) {
	r.extra = make(chan struct{}, max(r.suite.Concurrency, 1))
	var first, isolated, alone, last, serial []*scenario
	for _, sc := range r.plan {
		switch {
		case sc.excluded != "":
			if r.opts.OnScenario != nil {
				r.opts.OnScenario(sc.index, r.rep.Scenarios[sc.index])
			}
		case sc.last:
			last = append(last, sc)
		case sc.behaviour != nil:
			serial = append(serial, sc)
		case sc.mode != allAtOnce:
			first = append(first, sc)
		case sc.isolation != config.IsolationShared:
			isolated = append(isolated, sc)
		default:
			alone = append(alone, sc)
		}
	}
	r.pool(ctx, shared, first)
	r.pool(ctx, shared, r.longestFirst(isolated))
	for _, sc := range alone {
		r.startScenario(ctx, sc, shared)
	}
	// Then the scenarios that must have the server to themselves, in plan
	// order.
	for _, sc := range last {
		r.startScenario(ctx, sc, shared)
	}
	// Behaviour checks observe state that other sessions (over stdio,
	// other processes sharing a file) could change: one at a time, last.
	if len(serial) > 0 {
		r.knownObservers(serial[0].behaviour.health)
	}
	for _, sc := range serial {
		r.startScenario(ctx, sc, shared)
	}
	r.checkClosers.Wait()
}

// longestFirst orders scenarios by the longest call seen so far to any
// tool they call, longest first. Only the order of running changes.
func (r *runState) longestFirst(list []*scenario) []*scenario {
	longest := map[string]float64{}
	for i := range r.rep.Scenarios {
		for j := range r.rep.Scenarios[i].Steps {
			st := &r.rep.Scenarios[i].Steps[j]
			longest[st.Tool] = max(longest[st.Tool], st.DurationMs)
		}
	}
	est := func(sc *scenario) float64 {
		var d float64
		for j := range sc.steps {
			d = max(d, longest[sc.steps[j].call.name])
		}
		return d
	}
	out := slices.Clone(list)
	slices.SortStableFunc(out, func(a, b *scenario) int { return cmp.Compare(est(b), est(a)) })
	return out
}

// pool runs the scenarios of list, up to the suite's concurrency at once.
func (r *runState) pool(ctx context.Context, shared *link, list []*scenario) {
	n := max(r.suite.Concurrency, 1)
	jobs := make(chan *scenario)
	var wg sync.WaitGroup
	for range min(n, len(list)) {
		wg.Go(func() {
			for sc := range jobs {
				r.startScenario(ctx, sc, shared)
			}
		})
	}
	for _, sc := range list {
		jobs <- sc
	}
	close(jobs)
	wg.Wait()
}

// # Retries and fail-fast
//
// A fixture scenario that fails runs again, on a fresh session (a link of
// its own: over stdio a new server process), up to its retries; the
// attempts that failed are kept in the scenario's result (Attempts), and
// its steps are the last attempt's. A scenario that passes on a retry is
// flaky (Report.Tally marks it from the data). Who may be retried is a
// rule about side effects: a rerun repeats every call, so the suite's
// retries (retries:, --retries) reach only scenarios whose tools are all
// annotated readOnlyHint: true and that run their steps in order; a
// scenario that sets retries itself is the fixture's word that a rerun is
// safe, whatever it calls. Generated scenarios are never retried: their
// scores judge the server as it answered.
//
// While a scenario may still be retried its steps are not reported as they
// end (Options.OnStep): a step reported final must stay final, so a
// retried scenario is reported whole, once its last attempt ends.
//
// With Options.FailFast, the first scenario that fails (after its
// retries) stops the run from starting any other: those are skipped, their
// NotRun saying so. Scenarios already in flight finish.

// reasonFailFast is the skip reason of the scenarios -x leaves out.
const reasonFailFast = "not run: an earlier scenario failed (--fail-fast)"

// retries is how many times sc may run again after failing.
func (r *runState) retries(sc *scenario) int {
	if sc.index >= len(r.suite.Scenarios) || sc.mode != inOrder {
		return 0
	}
	if n := r.suite.Scenarios[sc.index].Retries; n != nil {
		return *n
	}
	if r.suite.Retries == 0 {
		return 0
	}
	for j := range sc.steps {
		c := &sc.steps[j].call
		if c.kind != config.KindTool {
			continue // reads, lists, pings: a fresh session forgets the rest
		}
		if t, ok := r.tools[c.name]; !ok || !isReadOnly(t) {
			return 0
		}
	}
	return r.suite.Retries
}

// startScenario runs sc unless a failure stopped the run (FailFast), again
// on a fresh session while it fails and has retries left, and records a
// failure for FailFast.
func (r *runState) startScenario(ctx context.Context, sc *scenario, shared *link) {
	if r.opts.FailFast != nil && r.opts.FailFast.Load() {
		res := &r.rep.Scenarios[sc.index]
		res.NotRun = report.NotRunFailFast
		skipFrom(res.Steps, 0, reasonFailFast)
		if r.opts.OnScenario != nil {
			r.opts.OnScenario(sc.index, visible(r.red, *res))
		}
		return
	}
	n := r.retries(sc)
	if n == 0 {
		r.runScenario(ctx, sc, shared)
	} else {
		r.runRetrying(ctx, sc, shared, n)
	}
	if r.opts.FailFast != nil && failedSteps(r.rep.Scenarios[sc.index].Steps) {
		r.opts.FailFast.Store(true)
	}
}

// runRetrying runs sc up to 1+n times, each retry on a link of its own,
// until an attempt passes; the hooks hear of it once, at the end.
func (r *runState) runRetrying(ctx context.Context, sc *scenario, shared *link, n int) {
	sc.muted = true
	res := &r.rep.Scenarios[sc.index]
	for attempt := 0; ; attempt++ {
		if attempt == 0 {
			r.runScenario(ctx, sc, shared)
		} else {
			l := &link{tmp: r.scenarioScratch()}
			r.runScenario(ctx, sc, l)
			l.close(r)
		}
		if !failedSteps(res.Steps) || attempt == n || ctx.Err() != nil {
			break
		}
		res.Attempts = append(res.Attempts, report.Attempt{Steps: slices.Clone(res.Steps)})
		for j := range sc.steps {
			res.Steps[j] = sc.steps[j].result()
			res.Steps[j].Status, res.Steps[j].Reason = report.StatusSkipped, reasonNotRun
		}
	}
	sc.muted = false
	for j := range sc.steps {
		r.stepDone(sc, j)
	}
	if r.opts.OnScenario != nil {
		r.opts.OnScenario(sc.index, visible(r.red, *res))
	}
}

// failedSteps reports whether any of steps failed.
func failedSteps(steps []report.StepResult) bool {
	return slices.ContainsFunc(steps, func(st report.StepResult) bool { return st.Status == report.StatusFailed })
}
