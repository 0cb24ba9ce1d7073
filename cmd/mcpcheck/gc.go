package main

import (
	"os"
	"runtime/debug"
)

// minMemoryLimit is the smallest soft memory limit the collector is given.
//
// Why set a policy at all: the go-sdk allocates ~129 KB of garbage per tool
// call (fresh JSON decoder buffers) while a run keeps its suite, plan and
// growing report live, so at the default GOGC=100 every few calls start a
// cycle that rescans the whole live heap; on a 10,000-step suite that was
// over a quarter of mcpcheck's CPU, and loading the fixture itself (the YAML
// reader's node tree) paid for a dozen cycles more. With the percentage rule
// off and a soft memory limit instead, the collector runs only when the heap
// nears the limit: a handful of cycles per run. Measured side by side in
// VERIFICATION.md.
const minMemoryLimit = 96 << 20

// loadFactor is about how much heap loading a fixture takes per byte of
// fixture text at its peak (the YAML node tree, the document the schema
// validator walks), measured at ~50×; a limit below it would make the
// collector run continuously while a very large fixture loads.
const loadFactor = 64

// setGCPolicy turns the percentage rule off and sets a soft memory limit of
// minMemoryLimit, or loadFactor times the size of the fixture about to be
// loaded when that is more, once, at the start of a run. A user who set
// GOGC or GOMEMLIMIT keeps their own policy.
func setGCPolicy(fixture string) {
	if _, set := os.LookupEnv("GOGC"); set {
		return
	}
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		return
	}
	limit := int64(minMemoryLimit)
	if fixture != "" {
		if st, err := os.Stat(fixture); err == nil {
			limit = max(limit, loadFactor*st.Size())
		}
	}
	debug.SetMemoryLimit(limit)
	debug.SetGCPercent(-1)
}
