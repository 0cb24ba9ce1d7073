# peers.sh is sourced by the bench scripts: it sets PEERS (unless given) to
# the interop tests' cache that holds the pinned servers, and entry to
# server-everything's stdio entry point, or exits 2 saying what is missing.
if [ -z "${PEERS:-}" ]; then
	for d in "${XDG_CACHE_HOME:-$HOME/.cache}"/mcpcheck/peers/*/; do
		[ -f "$d.installed" ] && PEERS=${d%/}
	done
fi
entry="${PEERS:?set PEERS (see the header)}/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
[ -f "$entry" ] || { echo "no server-everything under $PEERS" >&2; exit 2; }
