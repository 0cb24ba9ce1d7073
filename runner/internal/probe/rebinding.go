package probe

import (
	"bytes"
	"net/http"
	"net/url"
	"strings"
)

// Two HTTP probes the official conformance suite also makes:
//
//   - foreign-host: a POST whose Host header names another site, as a
//     browser sends it after DNS rebinding (a page on evil.example whose
//     name now resolves to 127.0.0.1). A server on a loopback address
//     SHOULD refuse it, as it refuses a foreign Origin (go-sdk servers
//     answer 403 to the Host and, without the demo's guard, 200 to the
//     Origin: each probe sees a different half). Planned only when the
//     endpoint is a loopback address: a public server is reachable anyway,
//     and its front end routes by Host.
//   - sse-priming: a request answered with an SSE stream SHOULD begin with
//     a priming event, an event id with empty data, so that the client can
//     resume the stream with Last-Event-ID (2025-11-25 basic/transports,
//     SEP-1699). An answer in JSON has no stream to prime and passes. A
//     retry field is asked for before the server closes a stream early,
//     which a probe cannot provoke: it is not judged.

// foreignHost is the Host the foreign-host probe sends.
const foreignHost = "mcpcheck-foreign.example"

// sseHeadMax bounds what Exchange.SSEHead keeps of a stream.
const sseHeadMax = 4 << 10

// Loopback reports whether an endpoint URL names a loopback host.
func Loopback(endpoint string) bool {
	u, err := url.Parse(endpoint)
	if err != nil {
		return false
	}
	h := u.Hostname()
	return strings.EqualFold(h, "localhost") || h == "::1" || strings.HasPrefix(h, "127.")
}

// rebindingProbes are the two probes above, for t.
func rebindingProbes(t Target) []Probe {
	var out []Probe
	if t.Loopback {
		m, id := request("foreign-host", "ping", "")
		out = append(out, Probe{Name: "foreign-host", Message: m, ID: id, Reference: "basic/transports (security: DNS rebinding)",
			Edit: func(h http.Header) { h.Set("Host", foreignHost) }, Judge: refusedHost})
	}
	if t.Version >= "2025-11-25" {
		m, id := request("sse-priming", "ping", "")
		out = append(out, Probe{Name: "sse-priming", Message: m, ID: id, Reference: "basic/transports (sending messages: SSE priming event)", Judge: primed})
	}
	return out
}

// refusedHost: a request for another site's name is refused (any 4xx;
// go-sdk answers 403, others 421 or 400); serving it is a risk.
func refusedHost(e *Exchange) Verdict {
	v := status("refused, HTTP 4xx (DNS rebinding protection: the Host is not this server's)", Note, func(s int) bool { return s >= 400 && s < 500 })(e)
	if v.Level == Note && e.Status < 300 {
		v.Got += ": a web page whose name was rebound to this address could reach this server through the browser"
		v.Risk = true
	}
	return v
}

// primed: an SSE answer begins with an event that has an id and empty
// data.
func primed(e *Exchange) Verdict {
	const want = "an SSE stream that begins with a priming event (an event id, empty data), or a JSON answer"
	if v, ok := died(e, want); ok {
		return v
	}
	switch {
	case e.Status >= 300 || e.Reply() == nil:
		return judged(Note, want, e)
	case e.SSEHead == nil:
		return Verdict{Level: Pass, Expected: want, Got: "a JSON answer (no stream to prime)"}
	}
	id, data := firstEvent(e.SSEHead)
	switch {
	case id && !data:
		return Verdict{Level: Pass, Expected: want, Got: "a priming event first"}
	case id:
		return Verdict{Level: Note, Expected: want, Got: "an SSE stream whose first event carries data (no priming event): a client that loses it cannot resume before the answer"}
	}
	return Verdict{Level: Note, Expected: want, Got: "an SSE stream whose first event has no id (no priming event): a client that loses the stream cannot resume it"}
}

// firstEvent reports whether the first event of an SSE stream's head has
// an id field, and a data field that is not empty. Comment lines are
// skipped.
func firstEvent(head []byte) (id, data bool) {
	for _, line := range bytes.Split(head, []byte("\n")) {
		line = bytes.TrimRight(line, "\r")
		switch {
		case len(line) == 0:
			if id || data {
				return id, data
			}
		case line[0] == ':':
		case bytes.HasPrefix(line, []byte("id:")):
			id = len(bytes.TrimSpace(line[3:])) > 0
		case bytes.HasPrefix(line, []byte("data:")):
			data = data || len(bytes.TrimSpace(line[5:])) > 0
		}
	}
	return id, data
}
