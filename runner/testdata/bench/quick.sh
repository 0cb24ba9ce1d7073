#!/bin/sh
# quick.sh times quick mode over server-everything (stdio) with the
# generated cases run through the scheduler (--jobs 4, the default) against
# the same cases run one by one (--jobs 1), alternating which goes first
# each round, and prints each variant's median wall time and the median of
# the rounds' own ratios (jobs 4 / jobs 1; below 1 is faster).
#
#   runner/testdata/bench/quick.sh            # from the repository root
#
# Environment (all optional):
#   PEERS  folder whose node_modules holds the pinned server-everything
#          (default: the interop tests' cache, filled by `go test ./runner/...`)
#   OUT    where the binary and raw figures go (default: a temp dir)
#   RUNS   rounds per variant (default 5)
#   ONLY   run only the variant of this name (see the list below)
#
# Variants (name: extra flags):
#   default:      nothing; the generated valid, fuzz and fidelity cases
#   no-long:      --allow-tools every read-only tool but
#                 trigger-long-running-operation, whose valid call takes 10 s
#                 (the schema's default duration) and bounds the default run
#   concurrency3: --concurrency 3 (independent connections and the crossed-
#                 responses check: many server processes and repeated calls)
#   defects:      not server-everything: examples/defects.yaml, every
#                 generator against the demo's planted defects (a 3 s hang, a
#                 slow tool, lifecycle chains, concurrency 4); exit 1 expected
set -eu
root=$(git rev-parse --show-toplevel)
OUT=${OUT:-$(mktemp -d)}
RUNS=${RUNS:-5}
. "$root/runner/testdata/bench/peers.sh"
mkdir -p "$OUT"
(cd "$root" && go build -o "$OUT/mcpcheck" ./cmd/mcpcheck)
echo "OUT=$OUT PEERS=$PEERS RUNS=$RUNS"

nolong=echo,get-annotated-message,get-env,get-resource-links,get-resource-reference,get-structured-content,get-sum,get-tiny-image

# once VARIANT JOBS: one run, its wall time appended to $OUT/VARIANT-JOBS.txt.
# Exit 1 (a flagged or failed check) is a result, not an error.
once() {
	target="-- node $entry stdio"
	case $1 in
	default) extra= ;;
	no-long) extra="--allow-tools $nolong" ;;
	concurrency3) extra="--concurrency 3" ;;
	defects) extra= target="--config $root/examples/defects.yaml" ;;
	esac
	start=$(date +%s.%N)
	# shellcheck disable=SC2086 # $extra and $target are lists of words
	"$OUT/mcpcheck" --jobs "$2" $extra --json "$OUT/$1-$2.json" $target >/dev/null 2>>"$OUT/stderr.txt" || [ $? -eq 1 ]
	end=$(date +%s.%N)
	echo "$start $end" | awk '{ printf "%.3f\n", $2 - $1 }' >>"$OUT/$1-$2.txt"
}

for v in default no-long concurrency3 defects; do
	[ -n "${ONLY:-}" ] && [ "$ONLY" != "$v" ] && continue
	: >"$OUT/$v-1.txt"
	: >"$OUT/$v-4.txt"
	once "$v" 4 # warm the page cache and node's compile cache; not counted
	: >"$OUT/$v-4.txt"
	for i in $(seq 1 "$RUNS"); do
		if [ $((i % 2)) -eq 1 ]; then once "$v" 1; once "$v" 4; else once "$v" 4; once "$v" 1; fi
	done
	paste "$OUT/$v-4.txt" "$OUT/$v-1.txt" | awk -v v="$v" '
	function med(a, n,   i, j, t) {
		for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	{ n++; p[n] = $1; s[n] = $2; r[n] = $1 / $2 }
	END { printf "%-13s jobs=4 %7.3f s   jobs=1 %7.3f s   ratio %.3f (median of %d rounds)\n", v, med(p, n), med(s, n), med(r, n), n }'
done
