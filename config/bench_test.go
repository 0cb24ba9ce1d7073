package config

import (
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// benchFixture is the text runner/testdata/bench/fixture.sh writes for n
// steps: one scenario of n server-everything calls, each
// {id: sN, tool: get-structured-content, arguments: {location: <city>},
// expect: {structuredIncludes: {}}}.
func benchFixture(n int) []byte {
	cities := []string{"New York", "Chicago", "Los Angeles"}
	var b strings.Builder
	fmt.Fprintf(&b, "name: suite-%d\n", n)
	b.WriteString(`command: ["node", "/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js", "stdio"]` + "\n")
	b.WriteString("protocolVersion: \"2025-11-25\"\nallowTools: [get-structured-content]\nscenarios:\n")
	fmt.Fprintf(&b, "  - name: get-structured-content x %d\n    steps:\n", n)
	for i := range n {
		fmt.Fprintf(&b, "      - {id: s%d, tool: get-structured-content, arguments: {location: %s}, expect: {structuredIncludes: {}}}\n", i+1, cities[i%3])
	}
	return []byte(b.String())
}

// 500 steps is a real-sized suite; 10,000 is the load target's fixture.
func BenchmarkParse500(b *testing.B) { benchParse(b, 500) }
func BenchmarkParse1k(b *testing.B)  { benchParse(b, 1000) }
func BenchmarkParse10k(b *testing.B) { benchParse(b, 10000) }

// benchParse times Parse of the n-step fixture and reports, besides
// -benchmem's figures, two memory figures measured once before the timed
// loop: peak-heap-MB, the most heap (live and not yet collected) seen while
// one Parse ran, and live-B/step, what the returned Suite keeps alive.
func benchParse(b *testing.B, n int) {
	data := benchFixture(n)
	peak, live := parseMemory(b, data)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Parse("suite.yaml", data, noEnv); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/step")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(live)/float64(n), "live-B/step")
}

// heapBytes is the heap held by objects, live or not yet swept: what the
// heap (and so the RSS) must hold at that moment. runtime/metrics reads it
// without stopping the world.
func heapBytes(s []metrics.Sample) uint64 {
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// parseMemory parses data once after a full collection. peak is the largest
// heap seen by a goroutine sampling it every 20µs while Parse runs; live is
// how much more heap is reachable after another collection with the Suite
// kept alive.
func parseMemory(tb testing.TB, data []byte) (peak, live uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	// The schema is compiled once per process; that is not the fixture's cost.
	if _, _, err := compiledSchema(); err != nil {
		tb.Fatal(err)
	}
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.HeapAlloc

	var stop atomic.Bool
	var max atomic.Uint64
	done := make(chan struct{})
	go func() {
		defer close(done)
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		for !stop.Load() {
			if h := heapBytes(s); h > max.Load() {
				max.Store(h)
			}
			time.Sleep(20 * time.Microsecond)
		}
	}()
	s, err := Parse("suite.yaml", data, noEnv)
	if h := heapBytes(sample); h > max.Load() {
		max.Store(h)
	}
	stop.Store(true)
	<-done
	if err != nil {
		tb.Fatal(err)
	}
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	// Both were counted before: neither may be collected before the count.
	runtime.KeepAlive(s)
	runtime.KeepAlive(data)
	return max.Load(), ms.HeapAlloc - before
}

// TestParseMemory parses the benchmark fixture and checks that what the
// loaded suite keeps alive stays small per step (0.3–0.4 KB measured; the
// bound, 16 KiB, is 40× that, so GC noise never fails it). It reports the figures
// for VERIFICATION.md; MCPCHECK_PARSE_STEPS sets the size (default 500):
//
//	MCPCHECK_PARSE_STEPS=10000 go test -run TestParseMemory -v ./config/
//	GODEBUG=gctrace=1 MCPCHECK_PARSE_STEPS=10000 go test -run TestParseMemory -v ./config/
func TestParseMemory(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("MCPCHECK_PARSE_STEPS"))
	if n <= 0 {
		n = 500
	}
	data := benchFixture(n)
	start := time.Now()
	peak, live := parseMemory(t, data)
	if perStep := float64(live) / float64(n); perStep > 16<<10 {
		t.Errorf("the loaded suite keeps %.0f B a step alive, want under 16 KiB", perStep)
	}
	if peak == 0 {
		t.Error("the heap sampler saw nothing")
	}
	t.Logf("%d steps: parse %v, peak heap %.1f MB, live %d B (%.0f B/step), VmHWM %s",
		n, time.Since(start).Round(time.Millisecond), float64(peak)/(1<<20), live, float64(live)/float64(n), vmHWM())
}

// vmHWM is this process's peak resident set size as Linux reports it.
func vmHWM() string {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}
