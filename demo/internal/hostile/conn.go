package hostile

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// maxInput bounds one message the hostile server reads: it is a test
// server, but an unbounded read is a bug wherever it is.
const maxInput = 16 << 20

// Msg is one JSON-RPC message from the client.
type Msg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	// Result and Error are set on the client's answers to server requests.
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

// IsRequest reports whether m is a request (it has a method and an id).
func (m *Msg) IsRequest() bool { return m.Method != "" && len(m.ID) > 0 }

func jsonUnmarshal(b []byte, v any) error {
	if len(b) == 0 {
		return nil
	}
	return json.Unmarshal(b, v)
}

// Call is a tools/call request's name and arguments.
type Call struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// ToolCall decodes m's params as a tools/call.
func (m *Msg) ToolCall() Call {
	var c Call
	_ = json.Unmarshal(m.Params, &c)
	return c
}

// Tool is one entry of tools/list.
type Tool map[string]any

// SimpleTool is a tool with an object input schema of string properties.
func SimpleTool(name, description string, props ...string) Tool {
	p := map[string]any{}
	for _, n := range props {
		p[n] = map[string]any{"type": "string"}
	}
	return Tool{"name": name, "description": description, "inputSchema": map[string]any{"type": "object", "properties": p}}
}

// Conn is newline-delimited JSON-RPC over a reader and a writer (stdio).
type Conn struct {
	r  *bufio.Reader
	mu sync.Mutex
	w  io.Writer
}

// NewConn reads from in and writes to out.
func NewConn(in io.Reader, out io.Writer) *Conn {
	return &Conn{r: bufio.NewReaderSize(in, 64<<10), w: out}
}

// Read returns the next message; io.EOF when the input ends.
func (c *Conn) Read() (*Msg, error) {
	for {
		var line []byte
		for {
			chunk, err := c.r.ReadSlice('\n')
			line = append(line, chunk...)
			if len(line) > maxInput {
				return nil, fmt.Errorf("hostile: a line over %d bytes", maxInput)
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			if err != nil {
				return nil, err
			}
			break
		}
		if strings.TrimSpace(string(line)) == "" {
			continue
		}
		var m Msg
		if err := json.Unmarshal(line, &m); err != nil {
			continue // the client is not under test here
		}
		return &m, nil
	}
}

// WriteRaw writes b as it is (no newline is added).
func (c *Conn) WriteRaw(b []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err := c.w.Write(b)
	return err
}

// Send writes v as one JSON line.
func (c *Conn) Send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return c.WriteRaw(append(b, '\n'))
}

// Reply answers the request with id.
func (c *Conn) Reply(id json.RawMessage, result any) error {
	return c.Send(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

// EchoResult is the honest answer of an echo tool to call: its text
// argument back as the one text block.
func EchoResult(call Call) map[string]any {
	var args struct {
		Text string `json:"text"`
	}
	_ = jsonUnmarshal(call.Arguments, &args)
	return TextResult(args.Text)
}

// TextResult is a tools/call result with one text block.
func TextResult(text string) map[string]any {
	return map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}}
}

// Handler answers one tools/call on a stdio Conn; Loop answers everything
// else.
type Handler func(c *Conn, m *Msg, call Call) error

// Requests passes each request from the client to f, in order, ignoring
// notifications and answers, until the input ends (nil), f fails or ctx
// ends.
func (c *Conn) Requests(ctx context.Context, f func(m *Msg) error) error {
	for ctx.Err() == nil {
		m, err := c.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if !m.IsRequest() {
			continue
		}
		if err := f(m); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// Loop answers the handshake (initialize, ping, tools/list with tools),
// ignores notifications and answers, and passes each tools/call to call.
// It returns nil when the input ends.
func (c *Conn) Loop(ctx context.Context, name string, tools []Tool, call Handler) error {
	return c.Requests(ctx, func(m *Msg) error {
		if res, ok := Answer(name, tools, m); ok {
			return c.Reply(m.ID, res)
		}
		if m.Method == "tools/call" {
			return call(c, m, m.ToolCall())
		}
		return c.Send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "method not found"}})
	})
}

// Answer is the result of the requests every mode answers alike
// (initialize, ping, tools/list), and false for any other.
func Answer(name string, tools []Tool, m *Msg) (any, bool) {
	switch m.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(m.Params, &p)
		v := p.ProtocolVersion
		if v == "" || v == "2026-07-28" {
			v = "2025-11-25"
		}
		return map[string]any{
			"protocolVersion": v,
			"capabilities":    map[string]any{"tools": map[string]any{}},
			"serverInfo":      map[string]any{"name": "hostile-" + name, "version": "0.0.0"},
		}, true
	case "ping":
		return map[string]any{}, true
	case "tools/list":
		if tools == nil {
			tools = []Tool{}
		}
		return map[string]any{"tools": tools}, true
	}
	return nil, false
}

// HTTPHandler answers one tools/call over Streamable HTTP: it writes the
// whole HTTP response itself.
type HTTPHandler func(w http.ResponseWriter, r *http.Request, m *Msg, call Call)

// Streamable serves a minimal Streamable HTTP endpoint at /mcp: the
// handshake and tools/list as JSON responses, notifications with 202, and
// each tools/call through call. There are no sessions and no GET stream.
func Streamable(name string, tools []Tool, call HTTPHandler) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodPost:
		case http.MethodDelete:
			w.WriteHeader(http.StatusOK)
			return
		default:
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		var m Msg
		if err := json.NewDecoder(io.LimitReader(r.Body, maxInput)).Decode(&m); err != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		if !m.IsRequest() {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		if res, ok := Answer(name, tools, &m); ok {
			WriteJSON(w, map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": res})
			return
		}
		if m.Method == "tools/call" {
			call(w, r, &m, m.ToolCall())
			return
		}
		WriteJSON(w, map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "method not found"}})
	})
	return mux
}

// WriteJSON writes v as an application/json response.
func WriteJSON(w http.ResponseWriter, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}
