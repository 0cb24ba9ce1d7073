// Package probe holds the protocol probes, which test the layer below a
// server's tools: its SDK and transport. Each probe is one raw JSON-RPC message (or one HTTP request)
// that a server must survive, judged against the pinned protocol version,
// and each is followed by an observer (ping, or tools/list where ping is
// unknown) that shows whether the server still works. A stdio server that
// died is a failure of the probe that killed it, and is relaunched; an HTTP
// server that went away ends the run early. A MUST of the spec that is
// broken fails the probe; a SHOULD that is not followed is a note. Only
// read-only tools are called.
//
// Under 2026-07-28, which has no handshake and no sessions, the probes are
// the revision's own (Era, era.go): each sends the requests it needs, with
// the revision's _meta, on a connection that never initializes.
//
// This package plans the probes (Catalogue, Cancellation, Era), judges their
// answers (each Probe's Judge), and speaks to the server through raw
// connections of its own (Stdio, HTTP): JSON-RPC written byte for byte,
// malformed on purpose where a probe asks for it. The runner schedules
// them as steps and reports their verdicts.
package probe
