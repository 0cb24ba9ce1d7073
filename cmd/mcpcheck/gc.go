package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// minMemoryLimit is the smallest soft memory limit the collector is given.
//
// Why set a policy at all: the go-sdk allocates ~129 KB of garbage per tool
// call (fresh JSON decoder buffers) while a run keeps its suite, plan and
// growing report live, so at the default GOGC=100 every few calls start a
// cycle that rescans the whole live heap; on a 10,000-step suite that was
// over a quarter of mcpcheck's CPU. With the percentage rule off and a soft
// memory limit instead, the collector runs only when the heap nears the
// limit: a handful of cycles per run, at a peak that is the limit, measured
// side by side in VERIFICATION.md.
const minMemoryLimit = 96 << 20

// setGCPolicy turns the percentage rule off and sets a soft memory limit of
// minMemoryLimit or four times the live heap after loading (a very large
// suite would otherwise leave the collector no room and make it run
// continuously), once, at the start of a run. A user who set GOGC or
// GOMEMLIMIT keeps their own policy.
func setGCPolicy() {
	if _, set := os.LookupEnv("GOGC"); set {
		return
	}
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		return
	}
	runtime.GC() // drop the loader's garbage so the reading is the live heap
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	limit := uint64(minMemoryLimit)
	if sample[0].Value.Kind() == metrics.KindUint64 {
		limit = max(limit, 4*sample[0].Value.Uint64())
	}
	debug.SetMemoryLimit(int64(limit))
	debug.SetGCPercent(-1)
}
