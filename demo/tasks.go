package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tasks profile (Options.Tasks, "mcpcheck demo --tasks"): two tools that run
// as tasks (2025-11-25, basic/utilities/tasks) — plan_week
// (execution.taskSupport "optional": a plain call answers at once, a task
// call runs in the background) and export_household ("required": a plain
// call is refused with -32601, as the spec says a server MUST) — and the
// tasks capability {list, cancel, requests.tools.call}.
//
// go-sdk v1.8.0 has no tasks: its Tool has no execution, its capabilities
// no tasks, and it answers tasks/* with "method not found". So a layer in
// front of the SDK, on the wire, does what the SDK cannot: it adds
// execution and the capability to the tools/list and initialize answers,
// and answers tools/call with a task field and tasks/get, tasks/result,
// tasks/cancel and tasks/list itself, from a store of its own (per stdio
// process; per Mcp-Session-Id over HTTP). The plain calls go to the SDK's
// handlers like any other tool's.
//
// With ProtocolDefects as well, four task defects are planted: tasks/get
// of an unknown id answers a made-up working task (the spec: -32602),
// tasks/get of a real one leaves out ttl (the spec: MUST include it),
// tasks/cancel of a finished task is accepted (the spec: -32602), and
// export_household called plainly answers -32603, an internal error,
// instead of -32601.

// taskTools are the task-capable tools and their taskSupport.
var taskTools = map[string]string{"plan_week": "optional", "export_household": "required"}

// taskWork is how long each task tool works before it answers.
const taskWork = 300 * time.Millisecond

// taskPoll is the pollInterval the demo's tasks suggest.
const taskPoll = 50

// addTaskTools registers the task tools' plain calls with the SDK.
func addTaskTools(s *mcp.Server, defects bool) {
	s.AddTool(&mcp.Tool{
		Name:        "plan_week",
		Description: "Plans the household's chores over the next days (takes a moment: may be called as a task).",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"days":{"type":"integer","minimum":1,"maximum":7,"description":"How many days to plan."}},"required":["days"],"additionalProperties":false}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true},
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return taskToolResult("plan_week", req.Params.Arguments), nil
	})
	s.AddTool(&mcp.Tool{
		Name:        "export_household",
		Description: "Exports the household as a report. Long-running: only as a task.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"format":{"type":"string","enum":["text","csv"]}},"required":["format"],"additionalProperties":false}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true},
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if defects {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error"}
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: `export_household requires task augmentation (execution.taskSupport is "required")`}
	})
}

// taskToolResult is what a task tool answers for args. The arguments are
// held to the inputSchema's shape (no other property, the right types):
// the SDK does not check a raw handler's.
func taskToolResult(name string, args json.RawMessage) *mcp.CallToolResult {
	var known map[string]json.RawMessage
	if json.Unmarshal(args, &known) != nil {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "the arguments must be an object"}}}
	}
	for k := range known {
		if (name == "plan_week" && k != "days") || (name == "export_household" && k != "format") {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "unexpected argument " + strconv.Quote(k)}}}
		}
	}
	switch name {
	case "plan_week":
		var a struct {
			Days int `json:"days"`
		}
		json.Unmarshal(args, &a)
		if a.Days < 1 || a.Days > 7 {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "days must be 1 to 7"}}}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("Planned %d days of chores.", a.Days)}},
			StructuredContent: map[string]any{"days": a.Days}}
	default:
		var a struct {
			Format string `json:"format"`
		}
		json.Unmarshal(args, &a)
		if a.Format != "text" && a.Format != "csv" {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "format must be text or csv"}}}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Household export (" + a.Format + "): 0 tasks."}}}
	}
}

// taskStore holds the tasks of one server.
type taskStore struct {
	defects bool
	asker   *taskAsker // with Ask over stdio: tasks ask the client (taskask.go)
	mu      sync.Mutex
	seq     int
	tasks   map[string]*demoTask // by session + "/" + task id
}

type demoTask struct {
	id, status string
	created    time.Time
	updated    time.Time
	result     []byte        // the CallToolResult, once completed
	done       chan struct{} // closed at a terminal status
	stop       chan struct{} // closed by tasks/cancel
}

func newTaskStore(defects bool) *taskStore {
	return &taskStore{defects: defects, tasks: map[string]*demoTask{}}
}

// maxDemoTasks bounds a store: a client that creates tasks without end
// gets -32603 beyond it. maxWaiting bounds the task requests answered at
// once over stdio.
const (
	maxDemoTasks = 1000
	maxWaiting   = 256
)

// taskRequest is what the layer reads of a request.
type taskRequest struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Task      json.RawMessage `json:"task"`
		TaskID    string          `json:"taskId"`
	} `json:"params"`
}

// claims decodes msg and reports whether the layer answers it.
func claims(msg []byte) (*taskRequest, bool) {
	if !bytes.Contains(msg, []byte(`"tasks/`)) && !bytes.Contains(msg, []byte(`"task"`)) {
		return nil, false
	}
	var r taskRequest
	if json.Unmarshal(msg, &r) != nil || len(r.ID) == 0 {
		return nil, false
	}
	switch r.Method {
	case "tasks/get", "tasks/result", "tasks/cancel", "tasks/list":
		return &r, true
	case "tools/call":
		return &r, len(r.Params.Task) > 0 && string(r.Params.Task) != "null"
	}
	return nil, false
}

// answer answers a claimed request of session; tasks/result waits (within
// ctx) for its task to end.
func (s *taskStore) answer(ctx context.Context, session string, r *taskRequest) []byte {
	fail := func(code int64, msg string) []byte {
		return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%q}}`, r.ID, code, msg)
	}
	ok := func(result []byte) []byte {
		return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":%s}`, r.ID, result)
	}
	switch r.Method {
	case "tools/call":
		if _, yes := taskTools[r.Params.Name]; !yes {
			return fail(jsonrpc.CodeMethodNotFound, "tool "+strconv.Quote(r.Params.Name)+" does not support tasks")
		}
		t, err := s.start(session, r.Params.Name, r.Params.Arguments)
		if err != nil {
			return fail(jsonrpc.CodeInternalError, err.Error())
		}
		return ok(fmt.Appendf(nil, `{"task":%s}`, s.state(t)))
	case "tasks/list":
		s.mu.Lock()
		var b bytes.Buffer
		b.WriteString(`{"tasks":[`)
		n := 0
		for key, t := range s.tasks {
			if key[:len(session)+1] != session+"/" {
				continue
			}
			if n > 0 {
				b.WriteByte(',')
			}
			b.Write(s.stateLocked(t))
			n++
		}
		s.mu.Unlock()
		b.WriteString(`]}`)
		return ok(b.Bytes())
	}
	s.mu.Lock()
	t := s.tasks[session+"/"+r.Params.TaskID]
	s.mu.Unlock()
	if t == nil {
		if s.defects && r.Method == "tasks/get" {
			// Planted: a made-up task instead of -32602.
			now := time.Now().UTC().Format(time.RFC3339)
			return ok(fmt.Appendf(nil, `{"taskId":%q,"status":"working","createdAt":%q,"lastUpdatedAt":%q,"ttl":60000,"pollInterval":%d}`, r.Params.TaskID, now, now, taskPoll))
		}
		return fail(jsonrpc.CodeInvalidParams, "Failed to retrieve task: Task not found")
	}
	switch r.Method {
	case "tasks/get":
		if s.defects {
			// Planted: no ttl (the spec: receivers MUST include it in
			// tasks/get responses).
			var m map[string]json.RawMessage
			json.Unmarshal(s.state(t), &m)
			delete(m, "ttl")
			b, _ := json.Marshal(m)
			return ok(b)
		}
		return ok(s.state(t))
	case "tasks/cancel":
		s.mu.Lock()
		terminal := t.status != "working"
		if !terminal || s.defects {
			// Planted (with defects): a finished task "cancelled" again.
			if !terminal {
				close(t.stop)
				close(t.done)
			}
			t.status, t.updated = "cancelled", time.Now()
		}
		s.mu.Unlock()
		if terminal && !s.defects {
			return fail(jsonrpc.CodeInvalidParams, "Cannot cancel a task in terminal status "+t.status)
		}
		return ok(s.state(t))
	default: // tasks/result
		select {
		case <-t.done:
		case <-ctx.Done():
			return fail(jsonrpc.CodeInternalError, "the server is shutting down")
		}
		s.mu.Lock()
		res := t.result
		s.mu.Unlock()
		if res == nil {
			return fail(jsonrpc.CodeInvalidParams, "the task was cancelled; it has no result")
		}
		return ok(res)
	}
}

// start creates a task and runs its tool in the background.
func (s *taskStore) start(session, name string, args json.RawMessage) (*demoTask, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.tasks) >= maxDemoTasks {
		return nil, fmt.Errorf("too many tasks (%d)", maxDemoTasks)
	}
	s.seq++
	now := time.Now()
	t := &demoTask{id: "task-" + strconv.Itoa(s.seq), status: "working", created: now, updated: now, done: make(chan struct{}), stop: make(chan struct{})}
	s.tasks[session+"/"+t.id] = t
	go s.asker.ask(t.stop)
	go func() {
		timer := time.NewTimer(taskWork)
		defer timer.Stop()
		select {
		case <-t.stop:
			return
		case <-timer.C:
		}
		res := taskToolResult(name, args)
		res.Meta = mcp.Meta{"io.modelcontextprotocol/related-task": map[string]any{"taskId": t.id}}
		b, _ := json.Marshal(res)
		s.mu.Lock()
		defer s.mu.Unlock()
		if t.status != "working" {
			return
		}
		t.status, t.updated, t.result = "completed", time.Now(), b
		if res.IsError {
			t.status = "failed"
		}
		close(t.done)
	}()
	return t, nil
}

func (s *taskStore) state(t *demoTask) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stateLocked(t)
}

func (s *taskStore) stateLocked(t *demoTask) []byte {
	return fmt.Appendf(nil, `{"taskId":%q,"status":%q,"createdAt":%q,"lastUpdatedAt":%q,"ttl":60000,"pollInterval":%d}`,
		t.id, t.status, t.created.UTC().Format(time.RFC3339Nano), t.updated.UTC().Format(time.RFC3339Nano), taskPoll)
}

// tasksCapability is what the layer adds to the initialize result.
const tasksCapability = `{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`

// withTasks adds what the SDK cannot say to one outgoing message: the tasks
// capability to an initialize result, execution to the task tools of a
// tools/list result. Anything else comes back unchanged.
func withTasks(msg []byte) []byte {
	isInit := bytes.Contains(msg, []byte(`"protocolVersion"`)) && bytes.Contains(msg, []byte(`"capabilities"`))
	isList := bytes.Contains(msg, []byte(`"inputSchema"`)) && (bytes.Contains(msg, []byte(`"plan_week"`)) || bytes.Contains(msg, []byte(`"export_household"`)))
	if !isInit && !isList {
		return msg
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(msg, &m) != nil || m["result"] == nil {
		return msg
	}
	var res map[string]json.RawMessage
	if json.Unmarshal(m["result"], &res) != nil {
		return msg
	}
	switch {
	case isInit && res["capabilities"] != nil:
		var caps map[string]json.RawMessage
		if json.Unmarshal(res["capabilities"], &caps) != nil {
			return msg
		}
		caps["tasks"] = json.RawMessage(tasksCapability)
		res["capabilities"], _ = json.Marshal(caps)
	case isList && res["tools"] != nil:
		var tools []map[string]json.RawMessage
		if json.Unmarshal(res["tools"], &tools) != nil {
			return msg
		}
		for _, t := range tools {
			var name string
			json.Unmarshal(t["name"], &name)
			if ts, ok := taskTools[name]; ok {
				t["execution"] = fmt.Appendf(nil, `{"taskSupport":%q}`, ts)
			}
		}
		res["tools"], _ = json.Marshal(tools)
	default:
		return msg
	}
	m["result"], _ = json.Marshal(res)
	out, err := json.Marshal(m)
	if err != nil {
		return msg
	}
	return out
}

// taskStdio puts the tasks layer between stdio and the SDK: requests it
// claims are answered on out and never reach the SDK; what the SDK writes
// gets withTasks.
func taskStdio(ctx context.Context, store *taskStore, in io.Reader, out *lockedWriter) (io.Reader, io.Writer) {
	// At most maxWaiting answers wait at once (tasks/result blocks until
	// its task ends); beyond it a request is refused at once.
	waiting := make(chan struct{}, maxWaiting)
	r := passLines(in, func(line []byte) []byte {
		if store.asker != nil && answersAsk(line) {
			return nil // the answer to the layer's own request
		}
		req, ok := claims(line)
		if !ok {
			return line
		}
		select {
		case waiting <- struct{}{}:
			go func() {
				defer func() { <-waiting }()
				out.writeLines([][]byte{store.answer(ctx, "stdio", req)})
			}()
		default:
			out.writeLines([][]byte{fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"too many task requests at once"}}`, req.ID)})
		}
		return nil
	})
	return r, &lineRewriter{w: out, rewrite: withTasks}
}

// taskHTTP is the tasks layer in front of the SDK's HTTP handler: a POST
// it claims is answered here (JSON); an initialize or tools/list POST has
// its answer (JSON or an event stream, read whole: both end at once) passed
// through withTasks.
type taskHTTP struct {
	next  http.Handler
	store *taskStore
}

// maxTaskBody bounds a POST body the layer reads.
const maxTaskBody = 4 << 20

func (h taskHTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		h.next.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxTaskBody+1))
	r.Body.Close()
	if err != nil || len(body) > maxTaskBody {
		http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	if req, ok := claims(body); ok {
		session := r.Header.Get("Mcp-Session-Id")
		if session == "" {
			http.Error(w, "Bad Request: missing session ID", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(store(h).answer(r.Context(), session, req))
		return
	}
	if !bytes.Contains(body, []byte(`"initialize"`)) && !bytes.Contains(body, []byte(`"tools/list"`)) {
		h.next.ServeHTTP(w, r)
		return
	}
	rewriteWhole(w, r, h.next, withTasks)
}

func store(h taskHTTP) *taskStore { return h.store }
