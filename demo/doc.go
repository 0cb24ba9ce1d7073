// Package demo is the MCP server behind "mcpcheck demo": a household task
// list whose tools have revisions and idempotency keys, the kind of
// stateful contract that mcpcheck fixtures are written to protect. It gives
// mcpcheck's examples and tests a known server, and lets a user try
// mcpcheck before pointing it at a real one. All data is synthetic, held in
// memory per MCP session, and dropped when the session ends.
//
// [NewServer] returns the server that [Options] describe; [ServeStdio]
// serves one session as newline-delimited JSON-RPC, [Handler] serves
// Streamable HTTP at /mcp, and [Run] is the whole "mcpcheck demo" command.
// Every tool declares a strict inputSchema, and an outputSchema when it
// returns structuredContent (as JSON text too, except tidy_household). A
// tool refuses, bad arguments included, with a tool error (isError true)
// unless that is its fault or defect; other requests, with JSON-RPC errors.
//
// # Household
//
// get_household reads the task list and its revision; propose_task records
// a task proposed at the current revision; commit_task appends it if the
// proposal and expectedRevision are still current, and a repeated
// idempotencyKey replays the first result (see household.commit);
// tidy_household sends progress and log messages. household://tasks is the
// list (subscribers hear of each commit), household://tasks/{id} a task,
// household://about the summary; the prompt plan_chores and completions of
// its arguments and of task ids come too. Without the profiles, that is all.
//
// # Fault profile
//
// With --faults ([Options].Faults) the server also lists tools that
// misbehave on request, one failure class per tool, so that a fixture can
// pin down how a client handles each: ping (the observer),
// protocol_ping_liveness, delay, hang, tool_error, protocol_error,
// bad_output, local_ref and remote_ref on every transport; disconnect,
// malformed_message and duplicate_response over stdio and HTTP;
// response_after_cancellation and crash over stdio; session_loss over HTTP.
// Each is described where faults.go adds it; rawfault.go is the layer under
// the SDK that writes what the SDK would not.
//
// # Defects profile
//
// With --defects ([Options].Defects) the server also lists 33 tools (and
// the pantry's 8, defects_behaviour.go, for the behaviour checks) that
// look like an ordinary server's, each with one planted defect that one of
// mcpcheck's generated checks must catch (schema fuzzing and enforcement,
// output fidelity, latency and size, resource lifecycle, concurrency), or
// a control that none may flag; two families answer only to input another
// of their tools offers. Each defect is described at the code that plants
// it, in defects.go, defects_offered.go, records.go and blindspots.go (a
// tool that fails calls without _meta, an error reported as success). The
// two profiles combine. With --banner, the stdio server also writes lines
// on stdout that are not JSON-RPC (banner.go).
//
// # Tasks and apps profiles
//
// With --tasks ([Options].Tasks) it has two tools that run as tasks and the
// task methods, answered by a layer in front of the SDK (tasks.go: go-sdk
// v1.8.0 has no tasks); with --apps ([Options].Apps) an MCP App, a tool
// whose UI is a ui:// resource (apps.go). --protocol-defects plants task
// defects, --defects a malformed app.
//
// # Protocol versions and go-sdk v1.8.0
//
// Both 2025-11-25 and 2026-07-28 clients work. Over stdio a 2026-07-28
// client gets 2026-07-28; over Streamable HTTP [Handler] is stateful, so
// that a household persists, and a go-sdk client asking for 2026-07-28
// negotiates 2025-11-25 ([Handler] says why). Under 2026-07-28, as go-sdk
// has it, a subscription is a subscriptions/listen stream and the log level
// is each request's _meta (logging/setLevel is accepted to no effect).
//
// Two SDK behaviours shape this package's tests: ClientSession.Close waits
// for the client's own calls in flight to end (by their contexts, if never
// answered) before it closes the transport (over HTTP, before the DELETE);
// and over Streamable HTTP the server's notifications/cancelled for a
// server-to-client request that timed out inside a tool call goes to that
// call's stream, and is lost if the call has been answered.
//
// # Example
//
// Serve the demo on a loopback port and point a fixture at it, or let
// mcpcheck start it over stdio with command: [mcpcheck, demo]:
//
//	mcpcheck demo --http 127.0.0.1:5191
//	# mcpcheck demo: serving Streamable HTTP at http://127.0.0.1:5191/mcp
//
// In Go, connect a client to a fresh server in memory (the package example
// does it in full):
//
//	st, ct := mcp.NewInMemoryTransports()
//	if _, err := demo.NewServer(demo.Options{}).Connect(ctx, st, nil); err != nil {
//		return err
//	}
//	cs, err := client.Connect(ctx, ct, nil)
package demo
