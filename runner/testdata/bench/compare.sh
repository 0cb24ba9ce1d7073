#!/bin/sh
# compare.sh runs the whole-process comparison of VERIFICATION-bench.md:
# mcpcheck on the N-step server-everything fixture against the bare go-sdk
# client (shared/bench/gosuite) and the TypeScript SDK script
# (shared/bench/ts-suite.mjs), side by side, rotating the order every round.
#
#   runner/testdata/bench/compare.sh            # from the repository root
#
# Environment (all optional):
#   PEERS      folder whose node_modules holds server-everything 2026.8.31 and
#              @modelcontextprotocol/sdk 1.32.2 (default: the interop tests' cache,
#              filled by `go test ./runner/...` or `npm ci` there)
#   BENCH      shared/bench (default: ../shared/bench next to the repository)
#   OUT        where binaries, fixtures and raw figures go (default: a temp dir)
#   RUNS       rounds of the timing loop (default 7)
#   SPLIT_RUNS rounds of the CPU/RSS loop at 1k and 10k steps (default 5)
#   STEPS      steps of the timing loop (default 10000)
#
# Raw lines land in $OUT/timing.txt and $OUT/split.txt (one per run, see
# rusage/main.go for the fields); summary.sh prints their medians.
set -eu
root=$(git rev-parse --show-toplevel)
here="$root/runner/testdata/bench"
BENCH=${BENCH:-$root/../shared/bench}
OUT=${OUT:-$(mktemp -d)}
RUNS=${RUNS:-7}
SPLIT_RUNS=${SPLIT_RUNS:-5}
STEPS=${STEPS:-10000}
. "$root/runner/testdata/bench/peers.sh"
mkdir -p "$OUT"
echo "OUT=$OUT PEERS=$PEERS"

(cd "$root" && go build -o "$OUT/mcpcheck" ./cmd/mcpcheck && go build -o "$OUT/rusage" ./runner/testdata/bench/rusage)
(cd "$BENCH/gosuite" && go build -o "$OUT/gosuite" .)
for n in 1000 "$STEPS"; do
	"$here/fixture.sh" "$n" "$entry" >"$OUT/suite-$n.yaml"
	"$here/fixture.sh" "$n" "$entry" "$OUT/rusage" -o "$OUT/split-server.txt" -label "mcpcheck-$n-server" -- >"$OUT/suite-$n-split.yaml"
done

# run LABEL FILE CMD... runs one command under rusage, its output discarded;
# peak RSS is polled only when HWM=-hwm (the CPU/RSS loop), so that polling
# never costs the timing loop anything.
HWM=
run() {
	label=$1 file=$2
	shift 2
	"$OUT/rusage" -o "$file" -label "$label" $HWM -- "$@" >/dev/null 2>>"$OUT/stderr.txt" || {
		echo "$label failed; see $OUT/stderr.txt" >&2
		exit 1
	}
}
mc() { run "mcpcheck-$1" "$2" "$OUT/mcpcheck" --config "$OUT/suite-$3.yaml" --quiet; }
go_() { run "gosuite-$1" "$2" "$OUT/gosuite" "$1" "$PEERS"; }
ts() { run "ts-$1" "$2" node "$BENCH/ts-suite.mjs" "$1" "$PEERS"; }

# Warm the page cache and node's compile cache once; not counted.
mc 1000 "$OUT/warmup.txt" 1000
go_ 1000 "$OUT/warmup.txt"
ts 1000 "$OUT/warmup.txt"

echo "timing: $RUNS rounds of $STEPS steps"
for i in $(seq 1 "$RUNS"); do
	case $((i % 3)) in
	1) mc "$STEPS" "$OUT/timing.txt" "$STEPS"; go_ "$STEPS" "$OUT/timing.txt"; ts "$STEPS" "$OUT/timing.txt" ;;
	2) go_ "$STEPS" "$OUT/timing.txt"; ts "$STEPS" "$OUT/timing.txt"; mc "$STEPS" "$OUT/timing.txt" "$STEPS" ;;
	0) ts "$STEPS" "$OUT/timing.txt"; mc "$STEPS" "$OUT/timing.txt" "$STEPS"; go_ "$STEPS" "$OUT/timing.txt" ;;
	esac
done

echo "cpu/rss: $SPLIT_RUNS rounds at 1000 and $STEPS steps"
HWM=-hwm
for i in $(seq 1 "$SPLIT_RUNS"); do
	for n in 1000 "$STEPS"; do
		mc "$n" "$OUT/split.txt" "$n-split"
		GOSUITE_RUSAGE=1 "$OUT/rusage" -o "$OUT/split.txt" -label "gosuite-$n" -hwm -- "$OUT/gosuite" "$n" "$PEERS" 2>>"$OUT/split-gosuite.txt" >/dev/null
		sed -i '$ s/^/gosuite-'"$n"' /' "$OUT/split-gosuite.txt"
		ts "$n" "$OUT/split.txt"
	done
done
"$here/summary.sh" "$OUT"
