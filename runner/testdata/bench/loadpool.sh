#!/bin/sh
# loadpool.sh measures `mcpcheck load` against the bare go-sdk goroutine
# pool (pool/main.go) making the same calls to the same Streamable HTTP
# server, in alternating rounds (the order swaps every round, so drift on a
# shared machine hits both), and prints the medians and the median of the
# per-round ratios mcpcheck/pool.
#
#   runner/testdata/bench/loadpool.sh demo        # the demo's get_household
#   runner/testdata/bench/loadpool.sh everything  # server-everything's echo
#
# Environment (all optional): VUS (default 4), DURATION (default 10s), RUNS
# (rounds, default 5), OUT (binaries, fixtures, raw lines; default a temp
# dir), PORT (default 18733), PEERS (see peers.sh; everything only),
# POOL_FLAGS (e.g. -sdk-defaults).
# Raw lines land in $OUT/rounds.txt: label, calls/s, this process's CPU per
# call (µs; mcpcheck's from wait4, so it includes the start and the report).
set -eu
target=${1:?demo or everything}
root=$(git rev-parse --show-toplevel)
POOL_FLAGS=${POOL_FLAGS:-} VUS=${VUS:-4} DURATION=${DURATION:-10s} RUNS=${RUNS:-5} PORT=${PORT:-18733}
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
(cd "$root" && go build -o "$OUT/mcpcheck" ./cmd/mcpcheck && go build -o "$OUT/pool" ./runner/testdata/bench/pool)
url="http://127.0.0.1:$PORT/mcp"
case $target in
demo)
	"$OUT/mcpcheck" demo --http "127.0.0.1:$PORT" >"$OUT/server.log" 2>&1 &
	tool=get_household args='{}' pool_check="-want-key revision"
	expect='expect: {structuredIncludes: {revision: 0}}'
	;;
everything)
	. "$root/runner/testdata/bench/peers.sh"
	PORT=$PORT node "$entry" streamableHttp >"$OUT/server.log" 2>&1 &
	tool=echo args='{"message":"hi"}' pool_check="-want-text Echo:"
	expect='arguments: {message: hi}, expect: {text: {contains: ["Echo:"]}}'
	;;
*) echo "loadpool.sh: demo or everything" >&2; exit 2 ;;
esac
server=$!
trap 'kill $server 2>/dev/null' EXIT
cat >"$OUT/load.yaml" <<YAML
name: load-$target
endpoint: $url
protocolVersion: "2025-11-25"
allowTools: [$tool]
scenarios:
  - name: $tool
    steps:
      - {id: call, tool: $tool, $expect}
YAML
i=0
until curl -s -o /dev/null "$url" 2>/dev/null || [ $i -ge 50 ]; do sleep 0.2; i=$((i + 1)); done

pool() {
	"$OUT/pool" $POOL_FLAGS -url "$url" -vus "$VUS" -duration "$DURATION" -tool "$tool" -args "$args" $pool_check |
		awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } print "pool", v["rps"], v["cpu_us_per_call"], v["errors"] }'
}
mc() {
	/usr/bin/time -f '%U %S' -o "$OUT/time.txt" "$OUT/mcpcheck" load --config "$OUT/load.yaml" --vus "$VUS" --duration "$DURATION" --json "$OUT/load.json" --quiet >/dev/null
	python3 - "$OUT/load.json" "$OUT/time.txt" <<'PY'
import json, sys
o = json.load(open(sys.argv[1]))["load"]["overall"]
u, s = map(float, open(sys.argv[2]).read().split()[-2:])
print("mcpcheck", o["rps"], round((u + s) * 1e6 / max(o["calls"], 1), 1), o["errors"])
PY
}
for r in $(seq "$RUNS"); do
	if [ $((r % 2)) -eq 1 ]; then pool; mc; else mc; pool; fi
done | tee "$OUT/rounds.txt"
awk '
function median(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t } return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
$1 == "pool" { p[++np] = $2; pc[np] = $3 }
$1 == "mcpcheck" { m[++nm] = $2; mcu[nm] = $3 }
END {
	for (i = 1; i <= nm && i <= np; i++) { ratio[i] = m[i] / p[i]; cratio[i] = mcu[i] / pc[i] }
	n = (nm < np ? nm : np)
	printf "rounds %d: calls/s pool %.1f, mcpcheck %.1f; ratio mcpcheck/pool %.3f (median of rounds)\n", n, median(p, np), median(m, nm), median(ratio, n)
	printf "CPU per call (us): pool %.1f, mcpcheck %.1f; ratio %.3f\n", median(pc, np), median(mcu, nm), median(cratio, n)
}' "$OUT/rounds.txt"
