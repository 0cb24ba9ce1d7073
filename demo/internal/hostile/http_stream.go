package hostile

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
)

// EndpointURLEnv names the URL the legacy SSE form of a mode announces in
// its endpoint event instead of its own message URL: a test points it at a
// second listener of its own, which must never receive a request (the
// client must refuse any origin but the one it was configured with).
const EndpointURLEnv = "HOSTILE_ENDPOINT_URL"

// Stream is the event stream one tools/call is answered on: the POST's own
// text/event-stream response over Streamable HTTP, the session's GET stream
// over legacy SSE. A mode's handler writes to it without knowing which.
type Stream struct {
	ctx context.Context
	w   io.Writer
	f   http.Flusher
}

// Raw writes b as it is, SSE framing included (or not). Writes are
// buffered, as a server that floods would buffer them: Flush sends them.
func (s *Stream) Raw(b []byte) error {
	if _, err := s.w.Write(b); err != nil {
		return err
	}
	return s.ctx.Err()
}

// Flush sends what was written so far.
func (s *Stream) Flush() error {
	if s.f != nil {
		s.f.Flush()
	}
	return s.ctx.Err()
}

// Event writes v as one "message" event.
func (s *Stream) Event(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.Raw(fmt.Appendf(nil, "event: message\ndata: %s\n\n", b))
}

// Answer writes v as one "message" event and sends it at once.
func (s *Stream) Answer(v any) error {
	if err := s.Event(v); err != nil {
		return err
	}
	return s.Flush()
}

// StreamCall answers one tools/call on a stream.
type StreamCall func(s *Stream, m *Msg, call Call) error

// StreamModes serves a mode in both HTTP forms on one listener: Streamable
// HTTP at /mcp (tools/call answered as an event stream; get, when set,
// serves the GET stream, else GET is refused) and legacy HTTP+SSE at /sse,
// whose endpoint event names /message on the same listener, or the URL in
// $HOSTILE_ENDPOINT_URL when it is set.
func StreamModes(name string, tools []Tool, call StreamCall, get func(s *Stream)) http.Handler {
	mux := http.NewServeMux()
	streamable := Streamable(name, tools, func(w http.ResponseWriter, r *http.Request, m *Msg, c Call) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		f, _ := w.(http.Flusher)
		_ = call(&Stream{ctx: r.Context(), w: w, f: f}, m, c)
	})
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && get != nil {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			f, _ := w.(http.Flusher)
			get(&Stream{ctx: r.Context(), w: w, f: f})
			return
		}
		streamable.ServeHTTP(w, r)
	})
	l := &legacySSE{name: name, tools: tools, call: call, sessions: map[string]chan func(*Stream) error{}}
	mux.HandleFunc("/sse", l.stream)
	mux.HandleFunc("/message", l.message)
	return mux
}

// legacySSE is a minimal 2024-11-05 HTTP+SSE server: GET /sse opens a
// session's stream, POST /message?session=ID is answered with 202 and the
// answer goes on the stream.
type legacySSE struct {
	name     string
	tools    []Tool
	call     StreamCall
	seq      atomic.Int64
	mu       sync.Mutex
	sessions map[string]chan func(*Stream) error
}

func (l *legacySSE) stream(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	id := strconv.FormatInt(l.seq.Add(1), 10)
	jobs := make(chan func(*Stream) error, 64)
	l.mu.Lock()
	l.sessions[id] = jobs
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		delete(l.sessions, id)
		l.mu.Unlock()
	}()
	endpoint := "/message?session=" + id
	if u := os.Getenv(EndpointURLEnv); u != "" {
		endpoint = u + "?session=" + id
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	s := &Stream{ctx: r.Context(), w: w, f: f}
	if s.Raw(fmt.Appendf(nil, "event: endpoint\ndata: %s\n\n", endpoint)) != nil || s.Flush() != nil {
		return
	}
	for {
		select {
		case <-r.Context().Done():
			return
		case job := <-jobs:
			if job(s) != nil {
				return
			}
		}
	}
}

func (l *legacySSE) message(w http.ResponseWriter, r *http.Request) {
	l.mu.Lock()
	jobs := l.sessions[r.URL.Query().Get("session")]
	l.mu.Unlock()
	if r.Method != http.MethodPost || jobs == nil {
		http.Error(w, "no such session", http.StatusNotFound)
		return
	}
	var m Msg
	if err := json.NewDecoder(io.LimitReader(r.Body, maxInput)).Decode(&m); err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	w.WriteHeader(http.StatusAccepted)
	if !m.IsRequest() {
		return
	}
	var job func(*Stream) error
	if res, ok := Answer(l.name, l.tools, &m); ok {
		job = func(s *Stream) error { return s.Answer(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": res}) }
	} else if m.Method == "tools/call" {
		job = func(s *Stream) error { return l.call(s, &m, m.ToolCall()) }
	} else {
		job = func(s *Stream) error {
			return s.Answer(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "method not found"}})
		}
	}
	select {
	case jobs <- job:
	case <-r.Context().Done():
	}
}
