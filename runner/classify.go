package runner

import (
	"context"
	"errors"
	"io"
	"strings"

	"github.com/mcpcheck/mcpcheck/config"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// codeRejectedByTransport is the SDK's code for a request the HTTP transport
// could not deliver (connection dropped, 5xx, 429): a transport failure, not
// an answer from the server.
const codeRejectedByTransport = -32005

// classification is what became of one call.
type classification struct {
	Outcome config.Outcome
	Code    *int64
	// Detail is server-provided text (an error message) for the human report.
	Detail string
}

// classify maps what a call returned to an outcome class. It is the
// one place that tells apart tool errors, protocol errors, timeouts, dead
// transports, lost sessions, broken and oversized messages (input_rejected
// and output_invalid are decided before and after the call, against the
// tool's schemas). The order of the checks matters (see SDK_NOTES §2):
// broken messages the SDK tolerates first (it lets an error win over a
// result and reads a response with neither as EOF, so only the tap can
// tell), and a stdio request the server never took (the SDK reports it as
// the call's deadline); then a message over maxMessageBytes (a stdio line,
// an HTTP body, an SSE line or event: over HTTP the SDK keeps only the
// words of the error, so the tap says so), the call's own
// deadline, the SDK's sentinel errors, JSON-RPC errors, EOF, and decoding
// failures.
func classify(callCtx context.Context, rep *reply, err error, tp *tap) classification {
	if err != nil {
		// A message over maxMessageBytes was cut off where it passed the
		// bound; whatever the SDK then said is about the cut, not the server.
		if errors.Is(err, errOversized) {
			return classification{Outcome: config.OutcomeOversizedResponse, Detail: err.Error()}
		}
		if cut := tp.oversizedErr(); cut != nil {
			return classification{Outcome: config.OutcomeOversizedResponse, Detail: cut.Error()}
		}
	}
	if m := tp.Malformed(); m != "" {
		return classification{Outcome: config.OutcomeMalformedResponse, Detail: m}
	}
	// A stdio request the server never took: the SDK reports the call's
	// deadline, but the connection is gone (see stdioConn.Write).
	if stuck := tp.Stuck(); stuck != nil {
		return classification{Outcome: config.OutcomeTransportClosed, Detail: stuck.Error()}
	}
	if err == nil {
		if rep != nil && rep.isError {
			return classification{Outcome: config.OutcomeToolError, Detail: rep.text}
		}
		return classification{Outcome: config.OutcomeOK}
	}
	if callCtx.Err() != nil && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)) {
		return classification{Outcome: config.OutcomeTimeout}
	}
	if errors.Is(err, mcp.ErrSessionMissing) {
		return classification{Outcome: config.OutcomeSessionLost, Detail: err.Error()}
	}
	if errors.Is(err, mcp.ErrConnectionClosed) {
		// Once the SDK has seen a 404 on any stream of an HTTP session it
		// fails the connection, and later calls no longer wrap
		// ErrSessionMissing; only the words remain.
		if strings.Contains(err.Error(), "session not found") {
			return classification{Outcome: config.OutcomeSessionLost, Detail: err.Error()}
		}
		return classification{Outcome: config.OutcomeTransportClosed, Detail: err.Error()}
	}
	var we *jsonrpc.Error
	if errors.As(err, &we) {
		if we.Code == codeRejectedByTransport {
			return classification{Outcome: config.OutcomeTransportClosed, Detail: we.Message}
		}
		code := we.Code
		return classification{Outcome: config.OutcomeProtocolError, Code: &code, Detail: we.Message}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return classification{Outcome: config.OutcomeTransportClosed, Detail: err.Error()}
	}
	msg := err.Error()
	for _, s := range malformedSigns {
		if strings.Contains(msg, s) {
			return classification{Outcome: config.OutcomeMalformedResponse, Detail: msg}
		}
	}
	return classification{Outcome: config.OutcomeTransportClosed, Detail: msg}
}

// malformedSigns are the SDK's words for a message that broke JSON-RPC or
// MCP framing (it exposes no sentinel for them).
var malformedSigns = []string{
	"invalid message version tag",
	"unrecognized content type",
	"failed to decode",
	"invalid character",
	"unexpected end of JSON",
	"cannot unmarshal",
	"unmarshal",
	"invalid message",
}

// errOversized is a message from the server that is larger than the
// suite's maxMessageBytes: a stdio line, an HTTP response body, an SSE line
// or event. The reader that notices it stops there and holds nothing more
// of it, so a server cannot make mcpcheck allocate without bound; the call
// in flight ends as oversized_response (see classify). Wherever the SDK
// turns the error into text (over HTTP it fails its connection with %v),
// the reader also marks the call's tap, so the outcome never depends on
// the SDK's words.
var errOversized = errors.New("a message from the server is larger than maxMessageBytes")

// messageLimit is the suite's bound on one message from the server; a
// suite built in code without one gets the documented default.
func messageLimit(s *config.Suite) int {
	if s == nil || s.MaxMessageBytes <= 0 {
		return config.DefaultMaxMessageBytes
	}
	return s.MaxMessageBytes
}
