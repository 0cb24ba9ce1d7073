// Package demo is the MCP server behind "mcpcheck demo": a household task
// list whose tools have revisions and idempotency keys, the kind of stateful
// contract that mcpcheck fixtures are written to protect. It gives
// mcpcheck's examples and tests a known server, and lets a user try mcpcheck
// before pointing it at a real one. All data is synthetic and held in
// memory. Two optional profiles add tools for testing mcpcheck itself: the
// fault profile misbehaves on request, one failure class per tool; the
// defects profile looks like an ordinary server with one planted defect per
// tool, for mcpcheck's generated checks to find.
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
// 127.0.0.1, [::1] or localhost unless --allow-remote is given. With
// --faults, either transport also serves the fault tools (see "Fault
// profile" below), and with --defects the defects profile's tools (see
// "Defects profile"); the two combine.
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
// # Fault profile
//
// With --faults ([Options].Faults) the server also lists tools that
// misbehave on request, one failure class per tool, so that a fixture can
// pin down how a client handles each. Without it (and without --defects)
// the tool list is exactly the household's three tools.
//
// Every fault tool declares an inputSchema (additionalProperties false, with
// bounds), and an outputSchema exactly when it returns structuredContent;
// arguments outside the inputSchema are a tool error. ping, delay, hang,
// local_ref and remote_ref are annotated read-only; all are openWorldHint
// false. Results carry their structuredContent as text too.
//
// Tools on every transport ([NewServer], stdio and Streamable HTTP):
//
//   - ping {} → {status: "ok", timestamp}, the time in RFC 3339, UTC. The
//     observer: call it after a fault to see whether the session still works.
//   - protocol_ping_liveness {pingAfterMs 0..30000, livenessTimeoutMs
//     1..30000, completionDelayMs 0..30000 = 0, closeOnFailure = false} →
//     {status, protocolPing: {outcome}, transport: {outcome}}. It waits
//     pingAfterMs, sends the client a protocol ping request and waits at
//     most livenessTimeoutMs for the answer. The ping outcome is success;
//     unsupported (the client answered -32601, or the call is under
//     2026-07-28, which has no server-to-client requests: then no ping is
//     sent); invalid_response (any other error); or timeout. On success it
//     waits completionDelayMs and answers status protocol_ping_succeeded,
//     transport retained. Otherwise the result is protocol_ping_failed with
//     isError true; with closeOnFailure, over Streamable HTTP it closes this
//     request's stream instead (transport closed, as for disconnect, so
//     the result is never seen), and elsewhere it reports transport
//     closure_unavailable, since a stdio connection is shared with every
//     other call. Cancelling the call is not a failure: it just ends it.
//   - delay {delayMs 0..30000} → {delayedMs} after that long.
//   - hang {} never answers. Cancelling the call stops its handler at once;
//     over stdio and Streamable HTTP no response is sent then either.
//   - tool_error {} → a result with isError true and a text message.
//   - protocol_error {} → a JSON-RPC error, code -32603, instead of a result.
//   - bad_output {} → structuredContent {"id": "not-an-int"}, which breaks
//     its own outputSchema ({id: integer}).
//   - local_ref {item: {name}} → {name}. Its inputSchema refers to
//     #/$defs/item, a local $ref.
//   - remote_ref {item?} → {ok: true}. The schema of item is
//     {"$ref": "http://127.0.0.1:9/schema.json"} ([Options].RemoteRefURL), a
//     remote $ref that a client must refuse to fetch; the server ignores
//     item.
//
// Tools that need the transport's help, and come only with it:
//
//   - disconnect {} (stdio, HTTP) closes the transport while its own call
//     is in flight. Over stdio the connection ends: nothing more is written,
//     the other calls are cancelled, [ServeStdio] returns nil and
//     "mcpcheck demo" exits 0, which closes stdout. Over Streamable HTTP only
//     this POST's connection is dropped, after the status line and SSE
//     headers; the listener, the session and other sessions stay up.
//   - malformed_message {variant} (stdio, HTTP) answers with exactly one
//     response that breaks JSON-RPC, with this call's id: missing-jsonrpc
//     {"id", "result"}; invalid-jsonrpc-version {"jsonrpc": "1.0", ...};
//     result-with-error {"jsonrpc": "2.0", "id", "result", "error": {code
//     -32603}}. The result is {variant}. Later responses are normal.
//   - duplicate_response {} (stdio, HTTP) → {status: "duplicated"}, sent
//     twice with the same id (two lines, or two SSE message events).
//   - response_after_cancellation {} (stdio) waits up to 5s for the client
//     to cancel the call, then sends one late result for it, {status:
//     "late_result_after_cancellation"}; without a cancellation in time it
//     answers with a tool error instead.
//   - session_loss {activation: during_request | after_response} (HTTP)
//     invalidates the calling session: from then on every request with its
//     Mcp-Session-Id gets 404 "session not found"; its other fault calls
//     stop, the session is closed and its household dropped. during_request
//     ends this call's stream without a result; after_response first answers
//     {status: "session_lost_after_response"}. Other sessions are untouched.
//   - crash {} (stdio) writes "mcpcheck demo: crash tool called; exiting with
//     status 3" to stderr and ends the process with exit status 3 while the
//     call is in flight. It ends the process of any caller of [ServeStdio].
//
// Served by [NewServer] over another transport, the tools of the second
// list are not listed; on a server whose transport layer cannot reach a call
// (a JSON-RPC batch, say) they answer with a tool error.
//
// The tools that wait or act on their own request (protocol_ping_liveness,
// delay, hang and the transport ones) are activations: at most 128 may be in
// flight on one server (one stdio connection, or one [Handler] for all its
// sessions), and the next is a tool error. Their waits end when the client
// cancels the call, and when the call's transport goes away: its HTTP
// request ends, its session is deleted or lost, the stdio connection closes,
// or "mcpcheck demo --http" shuts down. (The SDK's session Close waits for
// the calls in flight, so a hang would otherwise hold a DELETE forever.)
// Over stdio, hang and response_after_cancellation are not among the
// requests answered before the end of input; other calls get up to 5s.
//
// The transport ones are implemented under the SDK: over stdio by a
// Connection around the SDK's IOTransport that shares one locked writer
// with it, over Streamable HTTP by middleware in front of the SDK's handler
// that passes each POST carrying such a call through with a ResponseWriter
// of its own, rewriting the SSE event of that call's response. The layer
// hands the call to its handler in RequestExtra.Header
// (Mcpcheck-Demo-Activation; a client-supplied value is removed).
//
// # What a go-sdk v1.8.0 client observes
//
// Checked by this package's tests, for ClientSession.CallTool and then a
// call of ping on the same session (observer). "jsonrpc.Error N" means
// errors.As finds a *jsonrpc.Error with code N; errors that name no class
// match none of io.EOF, mcp.ErrConnectionClosed, mcp.ErrSessionMissing,
// context.DeadlineExceeded and *jsonrpc.Error.
//
//   - ping, delay, local_ref, remote_ref, protocol_ping_liveness: a result;
//     observer works. bad_output: a result too, since the client does not
//     validate structuredContent.
//   - tool_error: a result with IsError true; observer works.
//   - protocol_error: jsonrpc.Error -32603, `calling "tools/call":
//     protocol_error: ...`; observer works.
//   - hang, response_after_cancellation: the caller's context error, bare
//     (context.DeadlineExceeded); observer works. The late result is read
//     and silently dropped by the client.
//   - disconnect over stdio: io.EOF, `calling "tools/call": EOF`; observer:
//     mcp.ErrConnectionClosed; Close returns nil (exit status 0).
//   - disconnect over HTTP: `calling "tools/call": request terminated without
//     response`, no class; observer works.
//   - malformed_message missing-jsonrpc and invalid-jsonrpc-version over
//     stdio: `calling "tools/call": invalid message version tag ""; expected
//     "2.0"` (or "1.0"), no class; the client's connection is dead, observer:
//     mcp.ErrConnectionClosed. Over HTTP the same but `calling "tools/call":
//     sending "tools/call": failed to decode event: invalid message version
//     tag ...`.
//   - malformed_message result-with-error: the error wins, jsonrpc.Error
//     -32603; observer works. duplicate_response: the first copy is the
//     result, the second is dropped silently; observer works.
//   - session_loss during_request: `calling "tools/call": request terminated
//     without response`, no class; after_response: the result. Then the
//     first call on the session gets mcp.ErrSessionMissing (`... failed to
//     connect (session ID: X): session not found`); every later one, or the
//     first once the client's standalone SSE stream has failed to reconnect
//     (1 to 2 s later), gets mcp.ErrConnectionClosed, whose message ends in
//     "session not found" but which does not match ErrSessionMissing. Close
//     then sends no DELETE.
//   - crash: io.EOF, `calling "tools/call": EOF`; observer:
//     mcp.ErrConnectionClosed; Close returns an *exec.ExitError, exit status
//     3.
//   - A tool this transport does not list: jsonrpc.Error -32602, `unknown
//     tool "x"`.
//
// Other go-sdk v1.8.0 facts found on the way:
//
//   - The server writes a handler's result even after the call was
//     cancelled, and a call cancelled before its handler runs gets an error
//     response from the SDK itself.
//   - jsonrpc.Request.Extra, when it holds a *mcp.RequestExtra, is the one
//     value a Connection can pass to a tool handler with a request; over
//     Streamable HTTP its Header is the POST's header.
//   - ServerSession.Close waits for the handlers in flight; a failed read on
//     the session's connection cancels their contexts instead.
//   - ClientSession.Close waits until the client's own calls in flight have
//     ended (by their contexts, if never answered) before it closes the
//     transport; over HTTP, only then is the DELETE sent.
//   - Over Streamable HTTP the server's notifications/cancelled for a
//     server-to-client request that timed out inside a tool call is routed
//     to that call's stream and is lost if the call has been answered, so
//     the client never hears of it.
//   - The SDK's Streamable HTTP handler sends a call's status line and SSE
//     headers only with the stream's first event; a POST stream that ends,
//     or whose connection drops, without the response makes the client
//     report "request terminated without response" and keep the session.
//
// # Defects profile
//
// With --defects ([Options].Defects) the server also lists 26 tools that
// look like an ordinary server's. Each plants one defect that one of
// mcpcheck's generated checks must catch, or is a control that none may
// flag. Without it the tool list is what the other flags give; it combines
// with --faults. Every transport lists every defects tool ([NewServer], stdio
// and Streamable HTTP); only what parse_date's crash does depends on the
// transport.
//
// The contracts are correct: every tool declares a strict inputSchema
// (additionalProperties false, bounded strings and numbers) and an
// outputSchema exactly when it returns structuredContent (all but
// weather_report, list_reminders, echo_profile and export_catalog, which
// answer text). The annotations are honest: all are openWorldHint false;
// all are readOnlyHint true except the create_ tools (destructiveHint
// false) and the delete_ tools (destructiveHint true, idempotentHint true).
// Arguments outside the inputSchema are a tool error: the SDK checks them
// for most tools, while convert_units, parse_date, search_notes and
// exchange_rate check their own by hand, and what those forgot to check is
// their defect. The checks named below are mcp-fuzz's and
// mcp-reality-check's, as runner/generate implements them; this package's
// tests run its building blocks against the tools (FuzzCases, Refusal,
// EchoMismatch, Outliers, Groups, Links, ExtractID, Values.Distinct).
//
// Schema fuzzing. The valid call succeeds; a missing-required or wrong-type
// call must be a tool error (or JSON-RPC -32602) to count as graceful.
//
//   - lookup_city {city, country?} → {city, country, country_code,
//     timezone, latitude, longitude, population}. Control: every bad input
//     is a tool error, as is an unknown city. country picks between cities
//     of the same name (London, GB or CA) and is otherwise ignored, as a
//     geocoder returns its best match.
//   - convert_units {value, from, to} (from and to: km, m, cm, mm, mi, yd,
//     ft, in) → {value, from, to, result}. A value that is not a number
//     (the wrong-type call sends a string) is a JSON-RPC error -32603,
//     "internal error: interface conversion: interface {} is string, not
//     float64": the wrong-type case for value is not graceful.
//   - parse_date {date (format date)} → {date, weekday, day_of_year,
//     iso_week}. A call without date crashes the server: over stdio the
//     process writes "mcpcheck demo: parse_date was called without a date
//     and crashed; exiting with status 2" to stderr and exits with status
//     2; over Streamable HTTP this request's connection is dropped, as the
//     disconnect fault tool does, and the session survives; served by
//     [NewServer], the calling session is closed. The missing-required case
//     ends in transport_closed, and the runner must relaunch (or reconnect)
//     and go on. A date of the wrong type or shape is a tool error.
//   - search_notes {query, limit? (1..50, default 10)} → {query, total,
//     results: [{note_id, title}]}, the session's notes that are not deleted
//     whose title or body holds the query, oldest first. A limit that is not
//     a number makes the call hang until the client cancels it (then
//     nothing is sent over stdio and Streamable HTTP) or its transport goes
//     away: the wrong-type case for limit times out. Such calls count
//     against the bound of 128 activations (see "Fault profile").
//
// Output fidelity, on a successful valid call:
//
//   - weather_report {city} → isError false and the text "I'm sorry, but
//     I can't access live weather data for CITY right now. Please check a
//     local weather service for the latest conditions.": a disguised
//     refusal, matched by the phrase "I'm sorry, but I can't". It names the
//     city, so it draws no echo note.
//   - list_reminders {} → isError false with no content items and no
//     structuredContent: empty content on success.
//   - exchange_rate {from, to} (USD, EUR, GBP, JPY, CAD, CHF, AUD) →
//     declares {from, to, rate: number, as_of: date} but sends rate as a
//     string ("0.9200"): structuredContent fails the outputSchema at /rate.
//     The go-sdk client does not check it.
//   - echo_profile {name} → a profile summary as text that never mentions
//     the name: an echo-mismatch note, not a failure.
//   - get_forecast {city, days? (1..5, default 3)} → {city, daily: [{date,
//     summary, high_c, low_c, precipitation_chance}]} with a text summary
//     that names the city. Control: no check flags it.
//
// Latency and response size, by mcp-fuzz's two-signal rule over the valid
// calls (absolute 5,000 ms and 20,000 characters; relative 3× the median
// above 100 ms and 1,000 characters):
//
//   - slow_search {query} → {query, results: [{title, url}]}, correct but
//     after 1,200 ms: slow, relative to the others (which answer in about a
//     millisecond; ticket_counter's 50 ms stays under the floor), and under
//     the absolute threshold.
//   - export_catalog {} → 60,000 characters of text (500 lines of 120):
//     bloated, by the absolute threshold. Every other tool's valid result
//     is under 1,000 characters as JSON, so none is a relative outlier.
//
// Resource lifecycle. These tools are not read-only. They group by name
// (create_/get_/delete_ RESOURCE, id property RESOURCE_id), and a create
// result carries {RESOURCE_id} at the top level: a random UUID.
//
//   - create_note {title, body} → {note_id, title}; get_note {note_id} →
//     {note_id, title, body}; delete_note {note_id} → {deleted: true}. A
//     stale read: delete_note only marks the note deleted and get_note
//     still returns it, so create → read → delete → read does not end in a
//     tool error. (A second delete_note is a tool error, and search_notes
//     and counter_snapshot leave the note out.)
//   - create_label {name} → {label_id}; get_label {label_id} → {label_id,
//     name}; delete_label {label_id} → {deleted: true}. Control: after the
//     delete, get_label is a tool error, "label not found: ID".
//   - create_folder {name} → {folder_id}; get_folder, delete_folder as for
//     labels; create_file {folder_id, name} → {file_id}, in a folder that
//     must exist; get_file {file_id} → {file_id, folder_id, name};
//     delete_file. Each lifecycle is correct, but deleting a folder leaves
//     its files, which stay readable and still name it: the cross-resource
//     (orphan) observation for the link folder → file.
//
// A session holds at most 1000 notes, labels, folders and files together
// (deleted notes count, since they are kept); the next create is a tool
// error. Reading or deleting an unknown id is a tool error, "KIND not
// found: ID".
//
// Concurrency. These tools are read-only.
//
//   - counter_snapshot {} → {notes, labels, folders, files} held by the
//     session. Control: safe under any concurrency.
//   - shared_cache_get {key} → {key, value}. Crossed responses: each call
//     puts its key in one slot of the session, waits 20 ms for the
//     (simulated) fetch and answers for the key then in the slot, so calls
//     that overlap on a session are all answered for the latest one's key.
//     One at a time it is always right, and sessions never interfere.
//     Sending distinct keys at once on one session catches it.
//   - ticket_counter {} → {now_serving} (1, plus 1 per minute since the
//     server started). Every call holds one lock for 50 ms, and a call that
//     cannot take it within 20 ms is a tool error, "busy: ...". One at a
//     time it always succeeds; called at once on independent connections,
//     some calls fail on identical input. The lock is shared by the
//     servers of a process and, through flock(2) on the file
//     mcpcheck-demo-UID-ticket_counter.lock in the temporary directory
//     (TMPDIR moves it), by the user's demo processes, so that independent
//     connections contend over stdio too, where each is a process of its
//     own. Where there is no flock (not Unix), the lock is per process.
//
// State (records and the cache slot) is per session and dropped with it, as
// the household is.
//
// What a go-sdk v1.8.0 client observes, checked by this package's tests for
// each transport, followed by a call of counter_snapshot on the same
// session (observer):
//
//   - Valid calls, bad input that the tools handle and the ticket_counter
//     "busy": results, with IsError true for the tool errors; observer
//     works. shared_cache_get under overlap: results for the wrong key.
//     list_reminders: a result with no content and no structuredContent.
//     exchange_rate: a result whose rate is a string.
//   - convert_units with a value that is not a number: jsonrpc.Error
//     -32603, `calling "tools/call": internal error: interface conversion:
//     interface {} is string, not float64`; observer works.
//   - search_notes with a limit that is not a number: the caller's context
//     error, bare (context.DeadlineExceeded); observer works.
//   - parse_date without date, over stdio: io.EOF, `calling "tools/call":
//     EOF`; observer: mcp.ErrConnectionClosed; Close returns an
//     *exec.ExitError, exit status 2. In memory ([NewServer]): the same
//     io.EOF, then mcp.ErrConnectionClosed. Over Streamable HTTP: `calling
//     "tools/call": request terminated without response`, no class;
//     observer works.
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
