#!/bin/sh
# profile.sh BINARY PROFILE prints where a CPU profile of the runner
# benchmarks spends its time, by category: the fixture load, the runner's
# own per-step work (everything under runStep except the SDK call), the
# SDK's call and read paths, the garbage collector and the scheduler. Each
# figure is the sum of samples under the category's frames (categories
# overlap where one stack passes through two of them).
#
#   go test -run '^$' -bench 'DemoStdio/impl=runner' -benchtime 20x \
#     -cpuprofile /tmp/demo.cpu -o /tmp/runner.test ./runner/
#   runner/testdata/bench/profile.sh /tmp/runner.test /tmp/demo.cpu
set -eu
bin=$1 prof=$2
go tool pprof -top -nodecount=1 "$bin" "$prof" 2>/dev/null | grep -E '^(Duration|Showing nodes)' | head -1
cat_() {
	printf '%-46s ' "$1"
	go tool pprof -top -nodecount=100000 -focus="$2" ${3:+-ignore="$3"} "$bin" "$prof" 2>/dev/null |
		sed -n 's/^Showing nodes accounting for \([^,]*\), \([0-9.]*%\) of \(.*\) total$/\1  \2 of \3/p'
}
cat_ "config.Parse (loading the fixture)" 'config\.Parse'
cat_ "runner per-step work (runStep minus CallTool)" 'runner\.\(\*runState\)\.runStep' 'CallTool'
cat_ "  decodeResult (raw result for assertions)" 'runner\.decodeResult'
cat_ "  input/output schema validation" 'runner\.checkArguments|runner\.checkOutput'
cat_ "  assertions (checkers)" 'assert\.'
cat_ "  redaction and Clean" 'runner\.\(\*redactor\)|runner\.Clean'
cat_ "runner tapConn (excluding the SDK's ioConn)" 'runner\.\(\*tapConn\)' 'ioConn'
cat_ "SDK CallTool (encode, send, await, decode)" 'ClientSession\)\.CallTool'
cat_ "SDK read loop (readIncoming, DecodeMessage)" 'jsonrpc2\.\(\*Connection\)\.readIncoming'
cat_ "SDK stdio reader goroutine" 'mcp\.newIOConnLimited\.func1'
cat_ "GC marking (background workers + assists)" 'gcBgMarkWorker|gcAssistAlloc'
cat_ "GC sweeping + scavenging" 'bgsweep|bgscavenge|scavenge'
cat_ "scheduler (schedule, findRunnable)" 'runtime\.schedule$|findRunnable'
cat_ "report writers (report.Text / JSON)" 'report\.Text|report\.JSON'
