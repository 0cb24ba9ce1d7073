// Package record turns a real client's MCP session, watched message by
// message as a proxy forwards it, into a fixture that replays it.
//
// A [Session] is fed every JSON-RPC message (or batch) each side sent,
// unchanged; [Session.Fixture] writes one scenario with a step per
// tools/call, resources/read, prompts/get and completion/complete the
// client made, in the order it made them, each expecting its recorded
// answer as a golden answer (expect.snapshot), and the answers
// themselves. A string argument that an earlier answer held, and that no
// earlier request sent, becomes a $ref into that answer.
package record

import (
	"bytes"
	"encoding/json"
	"sync"
)

// protocolMeta is the _meta key of a request's protocol version.
const protocolMeta = "io.modelcontextprotocol/protocolVersion"

// call is one client request and its answer.
type call struct {
	method string
	params json.RawMessage
	// result is the answer's result; code the error's when it failed.
	result   json.RawMessage
	code     *int64
	answered bool
}

// Session is what one proxied session said, safe for concurrent use.
type Session struct {
	mu      sync.Mutex
	calls   []*call
	pending map[string]*call // by request id (its JSON text)
	// protocol is the version the server answered initialize with, or the
	// one the client's requests name (2026-07-28).
	protocol string
}

// New returns an empty session.
func New() *Session { return &Session{pending: map[string]*call{}} }

type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code int64 `json:"code"`
	} `json:"error"`
}

// each calls f with the message or every message of a batch.
func each(data []byte, f func(message)) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return
	}
	if data[0] == '[' {
		var batch []message
		if json.Unmarshal(data, &batch) == nil {
			for _, m := range batch {
				f(m)
			}
		}
		return
	}
	var m message
	if json.Unmarshal(data, &m) == nil {
		f(m)
	}
}

// Client records a message the client sent: its requests. Its answers to
// the server's own requests (sampling, roots, ...) are not steps.
func (s *Session) Client(data []byte) {
	each(data, func(m message) {
		if m.Method == "" || len(m.ID) == 0 || string(m.ID) == "null" {
			return
		}
		var meta struct {
			Meta map[string]any `json:"_meta"`
		}
		json.Unmarshal(m.Params, &meta)
		s.mu.Lock()
		defer s.mu.Unlock()
		// Under 2026-07-28 every request names its version (no initialize).
		if v, ok := meta.Meta[protocolMeta].(string); ok {
			s.protocol = v
		}
		c := &call{method: m.Method, params: m.Params}
		s.calls = append(s.calls, c)
		s.pending[string(m.ID)] = c
	})
}

// Pending is how many of the client's requests the server has not answered.
func (s *Session) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.pending)
}

// Server records a message the server sent: answers to the client's
// requests.
func (s *Session) Server(data []byte) {
	each(data, func(m message) {
		if m.Method != "" || len(m.ID) == 0 {
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		c, ok := s.pending[string(m.ID)]
		if !ok {
			return
		}
		delete(s.pending, string(m.ID))
		c.answered = true
		if m.Error != nil {
			code := m.Error.Code
			c.code = &code
			return
		}
		c.result = m.Result
		if c.method == "initialize" {
			var ir struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			json.Unmarshal(m.Result, &ir)
			s.protocol = ir.ProtocolVersion
		}
	})
}
