package demo

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The demo serves both protocol eras: 2025-11-25 (initialize, sessions) and
// 2026-07-28 (server/discover, a version in every request's _meta, no
// sessions), as go-sdk v1.8.0 does, over stdio and (Options.Stateless) over
// stateless Streamable HTTP; the stateful HTTP handler serves 2025-11-25
// and older only (see Handler).
//
// With Options.Ask (and with Options.ProtocolDefects) it adds ask_assignee,
// a tool that asks the client for input: a multi-round-trip request. Under
// 2026-07-28 its first answer is an input-required result (an elicitation
// of the assignee's name and an opaque requestState); the client retries
// with its answer and the state. Under 2025-11-25 the SDK turns the same
// handler into a server-to-client elicitation/create. The requestState is
// the demo's own: a fresh nonce and the task, signed with a key of the
// process, good for one retry. A retry with a state that was changed, or
// with one already used, is refused with -32602; a client that did not
// declare elicitation gets -32021 (missing client capability) before
// anything is asked.

// askTool is the tool's name.
const askTool = "ask_assignee"

// maxUsedStates bounds the used requestState nonces remembered; past it
// they are forgotten all at once (a replay of one of them is then taken).
const maxUsedStates = 4096

var askInputSchema = json.RawMessage(`{
	"type": "object",
	"properties": {
		"task": {"type": "string", "minLength": 1, "maxLength": 200, "description": "The task to find someone for."}
	},
	"required": ["task"],
	"additionalProperties": false
}`)

var askOutputSchema = json.RawMessage(`{
	"type": "object",
	"properties": {
		"task": {"type": "string"},
		"assignee": {"type": "string", "description": "Who the user named; empty when the user declined."},
		"answered": {"type": "boolean"}
	},
	"required": ["task", "assignee", "answered"],
	"additionalProperties": false
}`)

// asker signs and checks ask_assignee's request states.
type asker struct {
	key []byte
	// lax (protocol defects) skips the checks: any state is taken, again
	// and again, and a client without elicitation is asked anyway.
	lax  bool
	mu   sync.Mutex
	used map[string]bool // nonces of states already answered
}

func newAsker(lax bool) *asker {
	key := make([]byte, 32)
	rand.Read(key)
	return &asker{key: key, lax: lax, used: map[string]bool{}}
}

// state is a signed requestState for task: nonce.task.mac, the task
// base64url-encoded.
func (a *asker) state(task string) string {
	n := make([]byte, 12)
	rand.Read(n)
	body := hex.EncodeToString(n) + "." + base64.RawURLEncoding.EncodeToString([]byte(task))
	return body + "." + a.mac(body)
}

func (a *asker) mac(body string) string {
	m := hmac.New(sha256.New, a.key)
	m.Write([]byte(body))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// take checks a state sent back for task and uses it up; it says why the
// state is refused, or "".
func (a *asker) take(state, task string) string {
	if a.lax {
		return ""
	}
	i := strings.LastIndexByte(state, '.')
	if i < 0 || !hmac.Equal([]byte(a.mac(state[:i])), []byte(state[i+1:])) {
		return "requestState was not issued by this server (or was changed)"
	}
	nonce, enc, _ := strings.Cut(state[:i], ".")
	if t, err := base64.RawURLEncoding.DecodeString(enc); err != nil || string(t) != task {
		return "requestState belongs to another task"
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.used[nonce] {
		return "requestState was already answered"
	}
	if len(a.used) >= maxUsedStates {
		a.used = map[string]bool{}
	}
	a.used[nonce] = true
	return ""
}

func addAsk(s *mcp.Server, a *asker) {
	s.AddTool(&mcp.Tool{
		Name:  askTool,
		Title: "Ask for an assignee",
		Description: "Asks the user (through the client's elicitation) who should do a task, and returns the name. " +
			"Changes nothing; needs a client that declares elicitation.",
		InputSchema:  askInputSchema,
		OutputSchema: askOutputSchema,
		Annotations:  &mcp.ToolAnnotations{Title: "Ask for an assignee", ReadOnlyHint: true},
	}, a.handle)
}

func (a *asker) handle(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct {
		Task string `json:"task"`
	}
	if err := json.Unmarshal(req.Params.Arguments, &in); err != nil || strings.TrimSpace(in.Task) == "" || len(in.Task) > 200 {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "task: a non-blank string of at most 200 characters is required"}
	}
	if caps := req.ClientCapabilities(); !a.lax && (caps == nil || caps.Elicitation == nil) {
		// Spelled out: mcp.ClientCapabilities always writes "roots".
		data := json.RawMessage(`{"requiredCapabilities":{"elicitation":{}}}`)
		return nil, &jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapabilities, Message: "ask_assignee needs a client that declares elicitation", Data: data}
	}
	if len(req.Params.InputResponses) == 0 && req.Params.RequestState == "" {
		return &mcp.CallToolResult{
			InputRequests: mcp.InputRequestMap{"assignee": &mcp.ElicitParams{
				Message: "Who should do this task: " + in.Task + "?",
				RequestedSchema: map[string]any{
					"type":       "object",
					"properties": map[string]any{"name": map[string]any{"type": "string", "description": "The assignee's name."}},
					"required":   []string{"name"},
				},
			}},
			RequestState: a.state(in.Task),
		}, nil
	}
	if why := a.take(req.Params.RequestState, in.Task); why != "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: why}
	}
	out := map[string]any{"task": in.Task, "assignee": "", "answered": false}
	text := "Nobody was named for: " + in.Task
	if r, ok := req.Params.InputResponses["assignee"].(*mcp.ElicitResult); ok && r.Action == "accept" {
		if name, ok := r.Content["name"].(string); ok && strings.TrimSpace(name) != "" {
			out["assignee"], out["answered"] = name, true
			text = name + " will do: " + in.Task
		}
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: out}, nil
}
