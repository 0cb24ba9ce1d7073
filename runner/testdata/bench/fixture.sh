#!/bin/sh
# fixture.sh N ENTRY [PREFIX...] prints the benchmark fixture of
# shared/bench/README.md: one scenario of N steps, each
#   {tool: get-structured-content, arguments: {location: <city>}, expect: {structuredIncludes: {}}}
# with the city cycling New York, Chicago, Los Angeles, against
# server-everything at ENTRY (…/server-everything/dist/index.js) over stdio.
# PREFIX words go in front of the server command (compare.sh puts the
# rusage wrapper there to measure the server's CPU on its own).
set -eu
n=$1 entry=$2
shift 2
cmd=""
for w in "$@" node "$entry" stdio; do
	cmd="$cmd${cmd:+, }\"$w\""
done
cat <<HEAD
name: suite-$n
command: [$cmd]
protocolVersion: "2025-11-25"
allowTools: [get-structured-content]
scenarios:
  - name: get-structured-content x $n
    steps:
HEAD
awk -v n="$n" 'BEGIN {
	split("New York,Chicago,Los Angeles", city, ",")
	for (i = 0; i < n; i++)
		printf "      - {id: s%d, tool: get-structured-content, arguments: {location: %s}, expect: {structuredIncludes: {}}}\n", i + 1, city[i % 3 + 1]
}'
