package runner

import (
	"cmp"
	"context"
	"slices"
	"sync"

	"github.com/mcpcheck/mcpcheck/config"
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
// after them. Behaviour checks run last, one at a time.
func (r *runState) schedule(ctx context.Context, shared *link) {
	r.extra = make(chan struct{}, max(r.suite.Concurrency, 1))
	var first, isolated, alone, serial []*scenario
	for _, sc := range r.plan {
		switch {
		case sc.excluded != "":
			if r.opts.OnScenario != nil {
				r.opts.OnScenario(sc.index, r.rep.Scenarios[sc.index])
			}
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
