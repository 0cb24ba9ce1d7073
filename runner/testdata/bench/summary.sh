#!/bin/sh
# summary.sh OUT prints medians of the raw figures compare.sh left in OUT:
# wall time (and the median of each round's own ratio, which cancels drift
# between rounds), CPU split between client and server, per-step figures and the
# client's own peak RSS, plus the wall-time ratios of mcpcheck to the bare
# go-sdk client and to the TypeScript SDK script.
set -eu
out=$1
awk '
function med(list,   n, a, i, j, t) {
	n = split(list, a, " ")
	for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > t + 0; j--) a[j + 1] = a[j]; a[j + 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function kv(line, arr,   n, f, i, p) {
	delete arr
	n = split(line, f, " ")
	for (i = 1; i <= n; i++) { p = index(f[i], "="); if (p) arr[substr(f[i], 1, p - 1)] = substr(f[i], p + 1) }
}
function add(key, v) { vals[key] = vals[key] " " v; keys[key] = 1 }
FILENAME ~ /timing.txt$/ { kv($0, r); split(r["label"], lp, "-"); round[lp[1]] = r["wall_s"]; if (FNR % 3 == 0) { add("timing round-ratio mcpcheck/gosuite", round["mcpcheck"] / round["gosuite"]); add("timing round-ratio mcpcheck/ts", round["mcpcheck"] / round["ts"]) }
	add("timing " r["label"] " wall_s", r["wall_s"]); add("timing " r["label"] " hwm_kb", r["hwm_kb"]); add("timing " r["label"] " cpu_s", r["cpu_s"]); next }
FILENAME ~ /split-server.txt$/ { kv($0, r); k = r["label"]; srv[k, ++ns[k]] = r["cpu_s"] + r["self_cpu_s"]; srvonly[k, ns[k]] = r["cpu_s"]; next }
FILENAME ~ /split-gosuite.txt$/ { # gosuite-N client cpu 0.123s, server cpu 0.456s
	add("split " $1 " client_cpu_s", $4 + 0); add("split " $1 " server_cpu_s", $7 + 0); next }
FILENAME ~ /split.txt$/ { kv($0, r); l = r["label"]
	add("split " l " wall_s", r["wall_s"]); add("split " l " hwm_kb", r["hwm_kb"]); add("split " l " total_cpu_s", r["cpu_s"])
	if (l ~ /^mcpcheck-/) { k = l "-server"; i = ++nm[l]; add("split " l " client_cpu_s", r["cpu_s"] - srv[k, i]); add("split " l " server_cpu_s", srvonly[k, i]) }
	next }
END {
	n = 0
	for (k in keys) sorted[++n] = k
	for (i = 2; i <= n; i++) { t = sorted[i]; for (j = i - 1; j >= 1 && sorted[j] > t; j--) sorted[j + 1] = sorted[j]; sorted[j + 1] = t }
	for (i = 1; i <= n; i++) { m[sorted[i]] = med(vals[sorted[i]]); printf "%-45s median %10.4f   of%s\n", sorted[i], m[sorted[i]], vals[sorted[i]] }
	print ""
	for (k in m) if (k ~ /^timing mcpcheck-[0-9]+ wall_s$/) { split(k, p, " "); steps = substr(p[2], 10)
		printf "wall ratio mcpcheck/gosuite at %d steps: %.3f\n", steps, m[k] / m["timing gosuite-" steps " wall_s"]
		printf "wall ratio mcpcheck/ts      at %d steps: %.3f\n", steps, m[k] / m["timing ts-" steps " wall_s"]
		printf "wall ratio gosuite/ts       at %d steps: %.3f\n", steps, m["timing gosuite-" steps " wall_s"] / m["timing ts-" steps " wall_s"]
		big = steps }
	if (big) for (c = 1; c <= 3; c++) { who = c == 1 ? "mcpcheck" : c == 2 ? "gosuite" : "ts"
		a = "split " who "-1000 "; b = "split " who "-" big " "
		printf "%-8s per step (10k-1k)/%d: wall %.1f us", who, big - 1000, (m[b "wall_s"] - m[a "wall_s"]) / (big - 1000) * 1e6
		if ((b "client_cpu_s") in m) printf ", client cpu %.1f us, server cpu %.1f us", (m[b "client_cpu_s"] - m[a "client_cpu_s"]) / (big - 1000) * 1e6, (m[b "server_cpu_s"] - m[a "server_cpu_s"]) / (big - 1000) * 1e6
		printf ", total cpu %.1f us", (m[b "total_cpu_s"] - m[a "total_cpu_s"]) / (big - 1000) * 1e6
		if ((b "client_cpu_s") in m) printf "; whole run client cpu/step %.1f us", m[b "client_cpu_s"] / big * 1e6
		printf "; own peak RSS %d kB at 1k, %d kB at %d\n", m[a "hwm_kb"], m[b "hwm_kb"], big }
}' "$out/split-server.txt" "$out/split-gosuite.txt" "$out/timing.txt" "$out/split.txt"
