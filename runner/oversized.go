package runner

import (
	"errors"

	"github.com/mcpcheck/mcpcheck/config"
)

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
