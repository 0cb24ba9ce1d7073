package main

import (
	"os"
	"runtime"
	"runtime/debug"
)

// gcBudget is roughly how much garbage may pile up between two collections
// during a run.
//
// Why tune the collector at all: the go-sdk allocates ~129 KB of garbage per
// tool call (fresh JSON decoder buffers), while mcpcheck keeps the whole
// loaded fixture live. With the default GOGC=100 every cycle rescans that
// fixture after only ~1× its size of new garbage, so a 10,000-step run spent
// about twice the bare SDK client's CPU on GC (VERIFICATION.md, performance).
// Giving each cycle a fixed budget of new garbage makes GC work per call
// independent of the fixture's size while bounding the extra memory.
const gcBudget = 48 << 20

// tuneGC sets the GC percentage so that a cycle starts after about gcBudget
// of new garbage, within 100..800 %, unless the user set GOGC themselves. It
// runs once, after the fixture is loaded, when the live heap is known.
func tuneGC() {
	if _, set := os.LookupEnv("GOGC"); set {
		return
	}
	runtime.GC() // drop the loader's garbage and measure what stays live
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	live := max(ms.HeapAlloc, 1<<20)
	pct := int(100 * gcBudget / live)
	debug.SetGCPercent(min(max(pct, 100), 800))
}
