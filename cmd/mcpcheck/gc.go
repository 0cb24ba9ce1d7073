package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// gcBudget is about how much new garbage may pile up between two
// collections during a run.
//
// Why tune the collector at all: the go-sdk allocates ~129 KB of garbage per
// tool call (fresh JSON decoder buffers), while the run keeps the fixture,
// the plan and the growing report live. At GOGC=100 a cycle starts after 1×
// the live heap of new garbage and rescans the whole live heap, so GC work
// per call grows with the fixture. A fixed budget per cycle makes it shrink
// instead, and bounds memory at about live + budget, whatever the size of
// the fixture (VERIFICATION.md, performance).
const gcBudget = 16 << 20

// minHeap is the Go runtime's minimum heap goal at GOGC=100; it scales with
// the GC percentage.
const minHeap = 4 << 20

// gcPercent is the GC percentage that gives a heap goal of about
// live + gcBudget: the goal is live×(1+pct/100) but never below
// minHeap×pct/100, so pct is bounded by both, within 100..800.
func gcPercent(live uint64) int {
	live = max(live, 1<<20)
	pct := min(100*gcBudget/live, 100*(live+gcBudget)/minHeap)
	return int(min(max(pct, 100), 800))
}

// tuneGC keeps the GC percentage at gcPercent of the live heap while a run
// goes on, re-reading the live heap four times a second, unless the user set
// GOGC themselves. The returned func stops it.
func tuneGC() (stop func()) {
	if _, set := os.LookupEnv("GOGC"); set {
		return func() {}
	}
	runtime.GC() // drop the loader's garbage so the first reading is true
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	last := -1
	adjust := func() {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return
		}
		if pct := gcPercent(sample[0].Value.Uint64()); pct != last {
			debug.SetGCPercent(pct)
			last = pct
		}
	}
	adjust()
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				adjust()
			}
		}
	}()
	return func() { close(done) }
}
