package hostile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// The HTTP modes attack what a client reads from an event stream or a
// response body: floods, lines and bodies without end, server requests by
// the thousand, ids that name nothing, and (legacy SSE) an endpoint event
// that points elsewhere. Each serves Streamable HTTP at /mcp and legacy
// HTTP+SSE at /sse (see StreamModes).

// notice is the notification the floods repeat.
var notice = map[string]any{"jsonrpc": "2.0", "method": "notifications/message", "params": map[string]any{"level": "info", "data": "flood"}}

// filler is a run of bytes with no newline, written again and again.
var filler = bytes.Repeat([]byte("x"), 64<<10)

// answer is the honest result of an echo call.
func answer(m *Msg) map[string]any {
	return map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": TextResult("done")}
}

// echo is the one tool of the HTTP modes but odd-ids.
var echo = []Tool{SimpleTool("echo", "Returns its text.", "text")}

func init() {
	honest := func(s *Stream, m *Msg, _ Call) error { return s.Answer(answer(m)) }

	register(Mode{
		Name: "sse-other-origin",
		Doc:  "legacy SSE: the endpoint event names $" + EndpointURLEnv + " (another origin) for the client's POSTs",
		HTTP: func(string) http.Handler { return StreamModes("sse-other-origin", echo, honest, nil) },
	})

	register(Mode{
		Name: "notify-endless",
		Doc:  "answers tools/call with an event stream of notifications that never ends",
		HTTP: func(string) http.Handler {
			return StreamModes("notify-endless", echo, func(s *Stream, m *Msg, _ Call) error {
				for {
					if err := s.Event(notice); err != nil {
						return err
					}
				}
			}, nil)
		},
	})

	register(Mode{
		Name: "notify-250k",
		Doc:  "answers tools/call with 250,000 notifications, then the answer",
		HTTP: func(string) http.Handler {
			return StreamModes("notify-250k", echo, func(s *Stream, m *Msg, _ Call) error {
				for range 250000 {
					if err := s.Event(notice); err != nil {
						return err
					}
				}
				return s.Answer(answer(m))
			}, nil)
		},
	})

	register(Mode{
		Name: "line-endless",
		Doc:  "answers tools/call with an SSE data line that never ends (no newline)",
		HTTP: func(string) http.Handler {
			return StreamModes("line-endless", echo, func(s *Stream, m *Msg, _ Call) error {
				if err := s.Raw([]byte("event: message\ndata: ")); err != nil {
					return err
				}
				for {
					if err := s.Raw(filler); err != nil {
						return err
					}
				}
			}, nil)
		},
	})

	register(Mode{
		Name: "get-line-endless",
		Doc:  "Streamable HTTP: the standalone GET stream is one SSE line that never ends; calls are answered",
		HTTP: func(string) http.Handler {
			return StreamModes("get-line-endless", echo, honest, func(s *Stream) {
				if s.Raw([]byte("data: ")) != nil {
					return
				}
				for s.Raw(filler) == nil {
				}
			})
		},
	})

	register(Mode{
		Name: "get-notify-endless",
		Doc:  "Streamable HTTP: the standalone GET stream carries notifications without end; calls are answered",
		HTTP: func(string) http.Handler {
			return StreamModes("get-notify-endless", echo, honest, func(s *Stream) {
				for s.Event(notice) == nil {
				}
			})
		},
	})

	register(Mode{
		Name: "json-huge",
		Doc:  "answers tools/call with a 200 MB JSON body (legacy SSE: a 200 MB event)",
		HTTP: jsonHuge,
	})

	register(Mode{
		Name: "list-huge",
		Doc:  "Streamable HTTP: answers tools/list with a 200 MB JSON body",
		HTTP: listHuge,
	})

	register(Mode{
		Name: "requests-30k",
		Doc:  "answers tools/call with 30,000 server-to-client ping requests on its stream, then the answer",
		HTTP: func(string) http.Handler {
			return StreamModes("requests-30k", echo, func(s *Stream, m *Msg, _ Call) error {
				for i := range 30000 {
					if err := s.Event(map[string]any{"jsonrpc": "2.0", "id": fmt.Sprintf("hostile-ping-%d", i), "method": "ping"}); err != nil {
						return err
					}
				}
				return s.Answer(answer(m))
			}, nil)
		},
	})

	register(Mode{
		Name: "requests-endless",
		Doc:  "answers tools/call with server-to-client ping requests on its stream, without end",
		HTTP: func(string) http.Handler {
			return StreamModes("requests-endless", echo, func(s *Stream, m *Msg, _ Call) error {
				for i := 0; ; i++ {
					if err := s.Event(map[string]any{"jsonrpc": "2.0", "id": fmt.Sprintf("hostile-ping-%d", i), "method": "ping"}); err != nil {
						return err
					}
				}
			}, nil)
		},
	})

	register(Mode{
		Name: "odd-ids",
		Doc:  "answers tools/call with ids that name no request (null, object, array), or asks a ping with the call's own id first",
		HTTP: oddIDs,
	})
}

// oddIDs answers tools/call with ids that name no request, or asks a
// ping with the call's own id first.
func oddIDs(string) http.Handler {
	h := StreamModes("odd-ids", oddTools, func(s *Stream, m *Msg, call Call) error {
		for _, v := range oddAnswers(m, call) {
			if err := s.Answer(v); err != nil {
				return err
			}
		}
		return nil
	}, nil)
	// Over Streamable HTTP a single answer is a JSON body, as a
	// server without streams would send it.
	mux := http.NewServeMux()
	mux.Handle("/", h)
	mux.Handle("/mcp", Streamable("odd-ids", oddTools, func(w http.ResponseWriter, r *http.Request, m *Msg, call Call) {
		out := oddAnswers(m, call)
		if len(out) == 1 {
			WriteJSON(w, out[0])
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, v := range out {
			b, _ := json.Marshal(v)
			fmt.Fprintf(w, "event: message\ndata: %s\n\n", b)
		}
	}))
	return mux
}

// oddTools are the tools of odd-ids, one a kind of odd id.
var oddTools = []Tool{
	SimpleTool("null_id", "Answers with an error whose id is null."),
	SimpleTool("object_id", "Answers with a result whose id is an object."),
	SimpleTool("array_id", "Answers with a result whose id is an array."),
	SimpleTool("reused_id", "Asks the client for a ping with the call's own id, then answers."),
}

// oddAnswers are what odd-ids sends for a call of one of oddTools.
func oddAnswers(m *Msg, call Call) []map[string]any {
	switch call.Name {
	case "null_id":
		return []map[string]any{{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": -32600, "message": "odd"}}}
	case "object_id":
		return []map[string]any{{"jsonrpc": "2.0", "id": map[string]any{"x": 1}, "result": TextResult("odd")}}
	case "array_id":
		return []map[string]any{{"jsonrpc": "2.0", "id": []any{1}, "result": TextResult("odd")}}
	case "reused_id":
		return []map[string]any{{"jsonrpc": "2.0", "id": m.ID, "method": "ping"}, answer(m)}
	}
	return []map[string]any{answer(m)}
}

// jsonHuge answers tools/call with a 200 MB JSON body (legacy SSE: a
// 200 MB event).
func jsonHuge(string) http.Handler {
	// The text is written in pieces: the server holds 64 KiB, the
	// client is sent 200 MB.
	const size = 200 << 20
	body := func(write func([]byte) error, m *Msg) error {
		id, _ := json.Marshal(m.ID)
		if err := write(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"`, id)); err != nil {
			return err
		}
		for n := 0; n < size; n += len(filler) {
			if err := write(filler); err != nil {
				return err
			}
		}
		return write([]byte(`"}]}}`))
	}
	h := StreamModes("json-huge", echo, func(s *Stream, m *Msg, _ Call) error {
		if err := s.Raw([]byte("event: message\ndata: ")); err != nil {
			return err
		}
		if err := body(s.Raw, m); err != nil {
			return err
		}
		if err := s.Raw([]byte("\n\n")); err != nil {
			return err
		}
		return s.Flush()
	}, nil)
	// Over Streamable HTTP the answer is one application/json body.
	mux := http.NewServeMux()
	mux.Handle("/", h)
	mux.Handle("/mcp", Streamable("json-huge", echo, func(w http.ResponseWriter, r *http.Request, m *Msg, _ Call) {
		w.Header().Set("Content-Type", "application/json")
		_ = body(func(b []byte) error { _, err := w.Write(b); return err }, m)
	}))
	return mux
}

// listHuge answers tools/list with a 200 MB JSON body over Streamable HTTP.
func listHuge(string) http.Handler {
	inner := Streamable("list-huge", echo, func(w http.ResponseWriter, _ *http.Request, m *Msg, _ Call) {
		WriteJSON(w, answer(m))
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, maxInput))
		var m Msg
		if r.Method != http.MethodPost || json.Unmarshal(body, &m) != nil || m.Method != "tools/list" {
			r.Body = io.NopCloser(bytes.NewReader(body))
			inner.ServeHTTP(w, r)
			return
		}
		id, _ := json.Marshal(m.ID)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object"},"description":"`, id)
		for n := 0; n < 200<<20; n += len(filler) {
			if _, err := w.Write(filler); err != nil {
				return
			}
		}
		io.WriteString(w, `"}]}}`)
	})
}
