// Package demo is the MCP server behind "mcpcheck demo": a household task
// list whose tools have revisions and idempotency keys, the kind of stateful
// contract that mcpcheck fixtures are written to protect. It gives
// mcpcheck's examples and tests a known server, and lets a user try mcpcheck
// before pointing it at a real one. All data is synthetic and held in
// memory.
//
// # Tools
//
// Every tool declares an inputSchema and an outputSchema; both are objects
// with additionalProperties false and every property required, and the SDK
// validates arguments and results against them. A successful result carries
// structuredContent with exactly the keys below, and the same JSON as text
// content for clients that read only text. A refusal is a tool error
// (isError true, a message as text), never a JSON-RPC error; arguments that
// violate the inputSchema are refused the same way.
//
//   - get_household {} → {revision, tasks: [{id, text}]}. Read-only. The
//     revision starts at 0; tasks are listed oldest first with ids task-1,
//     task-2, ... in commit order.
//   - propose_task {text} → {proposalId, revision}. text is not blank and at
//     most 500 characters. Returns proposal-1, proposal-2, ... and the
//     current revision. The household does not change, so the tool is
//     annotated read-only.
//   - commit_task {proposalId, expectedRevision, idempotencyKey} →
//     {revision, replayed}. On the first use of the key, the proposal must
//     exist, be uncommitted and have been made at the current revision, and
//     expectedRevision must be the current revision; then its task is
//     appended, the revision advances by exactly 1, and the result is
//     {revision: new, replayed: false}. Otherwise it is a tool error, and
//     the key stays unused. Once a key has committed, calling again with it
//     (whatever the other arguments) returns that stored result with
//     replayed true and changes nothing. Annotated idempotent and not
//     destructive.
//
// All tools are annotated openWorldHint false: they touch nothing outside
// the server.
//
// # State
//
// Each MCP session has its own household, created empty on the session's
// first tool call and dropped when the session ends: on stdio when the
// client closes stdin, over Streamable HTTP when the client deletes its
// Mcp-Session-Id or sends nothing for 30 minutes. Two sessions never see
// each other's tasks, proposals or keys, even on the same [mcp.Server]. A
// session may make at most 1000 proposals; the next one is a tool error.
// Keys and tasks need no separate bound, since each successful commit uses
// up a proposal.
//
// # Serving
//
// [Run] is the whole "mcpcheck demo" command. Without flags it serves one
// session on stdin and stdout ([ServeStdio]) and exits 0 when stdin closes;
// only JSON-RPC is written to stdout and diagnostics go to stderr. Requests
// read before stdin closes are answered first, so a fixed set of requests
// can be piped in (go-sdk alone would drop those answers). With
// --http ADDR it serves [Handler] at http://ADDR/mcp until the context is
// cancelled (the caller wires SIGINT and SIGTERM to it). ADDR must be
// 127.0.0.1, [::1] or localhost unless --allow-remote is given.
//
// Library users can call [NewServer], [ServeStdio] or [Handler] directly.
//
// # Protocol 2026-07-28
//
// Both 2025-11-25 and 2026-07-28 clients work. A 2026-07-28 client starts
// with server/discover instead of initialize and then sends the protocol
// version with every request. Over stdio (and any other single connection)
// all its requests belong to one server session, so the household persists
// from call to call and 2026-07-28 is negotiated.
//
// Over Streamable HTTP, go-sdk v1.8.0 serves 2026-07-28 only from a handler
// with StreamableHTTPOptions.Stateless set, and a stateless handler runs
// every POST in a fresh temporary session with no Mcp-Session-Id (checked:
// a commit after a proposal then fails with "unknown proposal"). 2026-07-28
// carries no session of its own, so state could only persist if the tools
// took a household handle as an argument, which would change their
// contract. [Handler] is therefore stateful. Its server/discover answer lists
// only 2025-11-25 and older (the SDK's StreamableServerTransport reports
// that it cannot serve 2026-07-28 when stateful), so a go-sdk client asking
// for 2026-07-28 falls back to initialize and negotiates 2025-11-25, and its
// household persists under the Mcp-Session-Id. A request that carries
// 2026-07-28 without that fallback is refused by the SDK with a JSON-RPC
// error of code [mcp.CodeUnsupportedProtocolVersion] that lists the
// supported versions.
//
// # Example
//
// Serve the demo on a loopback port and point a fixture at it:
//
//	mcpcheck demo --http 127.0.0.1:5191
//	# mcpcheck demo: serving Streamable HTTP at http://127.0.0.1:5191/mcp
//
// or let mcpcheck start it over stdio with command: [mcpcheck, demo] in the
// fixture. In Go, connect a client to a fresh server in memory:
//
//	st, ct := mcp.NewInMemoryTransports()
//	if _, err := demo.NewServer(demo.Options{}).Connect(ctx, st, nil); err != nil {
//		return err
//	}
//	cs, err := client.Connect(ctx, ct, nil)
package demo
