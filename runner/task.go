package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/tidwall/gjson"

	"strings"

	"github.com/mcpcheck/mcpcheck/config"
)

// Tasks (2025-11-25, basic/utilities/tasks): a tool step called as a task
// sends tools/call with a task field; the server answers with a
// CreateTaskResult ({task: {taskId, status, pollInterval, ...}}); the
// runner polls tasks/get, at the server's pollInterval, until the status is
// terminal (completed, failed, cancelled), then asks tasks/result, which
// answers what the plain call would have: the step's expectations judge
// that answer, so a task step reads like any other tool step. The step's
// time limit bounds the whole task; when it runs out the task is cancelled
// (tasks/cancel, best effort) and the step's outcome is timeout.
//
// A task that needs input (input_required) gets tasks/result at once: the
// server sends its requests (elicitation, sampling) on that call's stream,
// and the session's client answers them as the fixture's client block says
// (over Streamable HTTP such a request rides the tasks/result POST's own
// stream, which the SDK never reads: the runner answers it there, see
// ownHTTP.answer).
//
// With cancelAfterMs the runner cancels the task that long after it was
// created; the task must then end cancelled (the spec: a receiver MUST
// move the task to cancelled before answering a valid tasks/cancel), and
// the step's result is the task's final state.
//
// A server that answers the task-augmented call with a plain result (one
// that does not support tasks MUST ignore the field) has its result judged
// as it came.
//
// All of it travels on the step's own session (own.go): go-sdk v1.8.0
// has no tasks.

// Task statuses (2025-11-25).
const (
	taskWorking       = "working"
	taskInputRequired = "input_required"
	taskCompleted     = "completed"
	taskFailed        = "failed"
	taskCancelled     = "cancelled"
)

func terminalTask(status string) bool {
	return status == taskCompleted || status == taskFailed || status == taskCancelled
}

// Polling: the server's pollInterval is honoured within these bounds (a
// server that asks for 0 ms is not polled in a busy loop; one that asks for
// an hour is still polled within the step's time limit).
const (
	defaultPoll = 500 * time.Millisecond
	minPoll     = 25 * time.Millisecond
	maxPoll     = 5 * time.Second
	// defaultTaskTTL is the ttl asked for when the step names none.
	defaultTaskTTL = 60000
	// cancelWait bounds the tasks/cancel sent when a step's time is up.
	cancelWait = 2 * time.Second
	// maxPolls bounds the tasks/get of one task whatever the intervals.
	maxPolls = 100000
)

// taskState is what a CreateTaskResult, tasks/get or tasks/cancel says of a
// task.
type taskState struct {
	TaskID        string          `json:"taskId"`
	Status        string          `json:"status"`
	StatusMessage string          `json:"statusMessage,omitempty"`
	PollInterval  json.RawMessage `json:"pollInterval,omitempty"`
}

func (t *taskState) interval() time.Duration {
	d := defaultPoll
	if ms, err := strconv.ParseFloat(string(t.PollInterval), 64); err == nil && ms >= 0 {
		d = time.Duration(ms * float64(time.Millisecond))
	}
	return min(max(d, minPoll), maxPoll)
}

// taskFor says how step p is called on sess: as a task (the step asks for
// one, or the tool requires one, the server declares task-augmented
// tools/call and the step did not opt out), or plainly (nil). Without the
// capability a client MUST NOT augment a call, whatever the tool says; a
// step that asks for a task explicitly is sent as written. Under
// 2026-07-28 (tasks there are an extension mcpcheck does not speak yet)
// only an explicit task is tried, and fails saying so.
func taskFor(sess *session, p *step, c *toolSchemas) *config.TaskCall {
	if p.call.kind != config.KindTool {
		return nil
	}
	if t := p.spec.Task; t != nil {
		if t.Off {
			return nil
		}
		return t
	}
	if c != nil && c.taskSupport == "required" && sess.toolTasks() && !newProtocol(sess) {
		return &config.TaskCall{}
	}
	return nil
}

// errTaskBroken is a task that could not be followed to its end: the
// server's answers broke the tasks protocol (no task id, an unknown
// status). The step fails with this reason.
type errTaskBroken struct{ msg string }

func (e errTaskBroken) Error() string { return e.msg }

// taskReason, set on a task whose run is over but not as the step asked
// (cancelAfterMs, and the task did not end cancelled), fails the step.
type taskOutcome struct {
	reply  *reply
	reason string
	// breach is the first MUST of the tasks spec the server's answers
	// broke on the way (a task without createdAt, a result without its
	// related-task _meta), "" when none.
	breach string
}

// callTask runs tool name with the encoded arguments as a task on sess.
func callTask(ctx context.Context, sess *session, name string, args json.RawMessage, tc *config.TaskCall) (taskOutcome, error) {
	ttl := tc.TTLMs
	if ttl <= 0 {
		ttl = defaultTaskTTL
	}
	params := fmt.Appendf(nil, `{"name":%s,"arguments":%s,"task":{"ttl":%d}}`, strconv.Quote(name), args, ttl)
	created, err := sess.request(ctx, "tools/call", params)
	if err != nil {
		return taskOutcome{}, err
	}
	task := gjson.GetBytes(created, "task")
	if !task.Exists() {
		// A plain result: the server did not make a task of the call.
		return taskOutcome{reply: toolReply(created)}, nil
	}
	var st taskState
	if err := json.Unmarshal([]byte(task.Raw), &st); err != nil || st.TaskID == "" {
		return taskOutcome{}, errTaskBroken{"the CreateTaskResult has no taskId string (basic/utilities/tasks: task IDs MUST be strings)"}
	}
	breach := taskBreach("the CreateTaskResult", []byte(task.Raw), false)
	defer sess.taps.holdTask(tapFrom(ctx))() // between its polls too (holdTask, in tap.go)
	began := time.Now()
	var cancelAt <-chan time.Time
	if tc.CancelAfterMs > 0 {
		t := time.NewTimer(ms2d(tc.CancelAfterMs))
		defer t.Stop()
		cancelAt = t.C
	}
	idParams := fmt.Appendf(nil, `{"taskId":%s}`, strconv.Quote(st.TaskID))
	last := json.RawMessage(task.Raw)
	for polls := 0; !terminalTask(st.Status); polls++ {
		if st.Status != taskWorking && st.Status != taskInputRequired {
			return taskOutcome{}, errTaskBroken{fmt.Sprintf("the task's status %q is none of the spec's (working, input_required, completed, failed, cancelled)", st.Status)}
		}
		if polls >= maxPolls {
			return taskOutcome{}, errTaskBroken{fmt.Sprintf("the task was still %s after %d polls", st.Status, maxPolls)}
		}
		if st.Status == taskInputRequired && tc.CancelAfterMs == 0 {
			// The server needs the client (an elicitation, a sampling):
			// the requestor SHOULD call tasks/result, which carries those
			// requests (answered as the fixture's client block says) and
			// returns once the task has ended.
			break
		}
		wait := time.NewTimer(st.interval())
		select {
		case <-ctx.Done():
			wait.Stop()
			cancelTask(sess, idParams)
			return taskOutcome{}, ctx.Err()
		case <-cancelAt:
			wait.Stop()
			cancelAt = nil
			res, err := sess.request(ctx, "tasks/cancel", idParams)
			var we *jsonrpc.Error
			if errors.As(err, &we) && we.Code == -32602 {
				// Refused: the task may have ended since the last poll
				// (a finished task cannot be cancelled); its state says.
				res, err = sess.request(ctx, "tasks/get", idParams)
			}
			if err != nil {
				return taskOutcome{}, err
			}
			last = res
		case <-wait.C:
			res, err := sess.request(ctx, "tasks/get", idParams)
			if err != nil {
				return taskOutcome{}, err
			}
			last = res
			if breach == "" {
				breach = taskBreach("a tasks/get answer", res, true)
			}
		}
		st = taskState{}
		if err := json.Unmarshal(last, &st); err != nil {
			return taskOutcome{}, errTaskBroken{"a task's state is not a Task object: " + err.Error()}
		}
	}
	if tc.CancelAfterMs > 0 {
		out := taskOutcome{reply: &reply{raw: last}, breach: breach}
		if st.Status != taskCancelled {
			out.reason = fmt.Sprintf("the task was to be cancelled %d ms after it was created but ended %s after %d ms", tc.CancelAfterMs, st.Status, time.Since(began).Milliseconds())
			if cancelAt != nil {
				out.reason = fmt.Sprintf("the task ended %s before it was to be cancelled (%d ms after it was created)", st.Status, tc.CancelAfterMs)
			}
		}
		return out, nil
	}
	res, err := sess.request(ctx, "tasks/result", idParams)
	if err != nil {
		return taskOutcome{}, err
	}
	out := taskOutcome{reply: toolReply(res), breach: breach}
	if out.breach == "" && relatedTask(out.reply) != st.TaskID {
		out.breach = "the tasks/result answer lacks _meta \"io.modelcontextprotocol/related-task\" naming the task (basic/utilities/tasks: it MUST include it)"
	}
	return out, nil
}

// cancelTask asks the server to cancel a task whose step ran out of time;
// its answer does not matter.
func cancelTask(sess *session, idParams json.RawMessage) {
	ctx, cancel := context.WithTimeout(context.Background(), cancelWait)
	defer cancel()
	_, _ = sess.request(ctx, "tasks/cancel", idParams)
}

// toolReply reads a raw CallToolResult as the checkers do.
func toolReply(raw json.RawMessage) *reply {
	rep := &reply{raw: raw, isError: gjson.GetBytes(raw, "isError").Bool()}
	content := gjson.GetBytes(raw, "content")
	rep.hasContent = content.IsArray() && len(content.Array()) > 0
	var text []byte
	content.ForEach(func(_, item gjson.Result) bool {
		if item.Get("type").String() == "text" {
			if len(text) > 0 {
				text = append(text, '\n')
			}
			text = append(text, item.Get("text").String()...)
		}
		return true
	})
	rep.text = string(text)
	return rep
}

// taskSupportOf is a listed tool's execution.taskSupport, "" when absent.
func taskSupportOf(t tool) string {
	if len(t.Execution) == 0 {
		return ""
	}
	return gjson.GetBytes(t.Execution, "taskSupport").String()
}

// isTaskError says whether err came from the tasks protocol itself.
func isTaskError(err error) (string, bool) {
	var b errTaskBroken
	if errors.As(err, &b) {
		return b.msg, true
	}
	return "", false
}

// runTask is a task step's call as runStep makes it: the reply the checkers
// judge, a reason that fails the step although the calls succeeded (a task
// that broke the tasks protocol, or did not end as the step asked), and a
// note of a MUST the server's task answers broke.
func runTask(ctx context.Context, sess *session, name string, args json.RawMessage, tc *config.TaskCall) (taskRun, error) {
	out, err := callTask(ctx, sess, name, args, tc)
	if msg, ok := isTaskError(err); ok {
		return taskRun{why: msg}, nil
	}
	if errors.Is(err, errTasksNewEra) || errors.Is(err, errNoOwnRequests) {
		return taskRun{}, errBadParams{err}
	}
	if err != nil {
		return taskRun{}, err
	}
	// A breach of the tasks spec on the way is a note here; the generated
	// check of the tool's tasks fails on it.
	return taskRun{rep: out.reply, why: out.reason, note: out.breach}, nil
}

// taskBreach says which MUST of a Task object a server's answer breaks
// (basic/utilities/tasks, TTL and resource management: createdAt and
// lastUpdatedAt in all task responses, ttl — a number or null — in
// tasks/get's), or "".
func taskBreach(what string, raw []byte, get bool) string {
	for _, k := range []string{"createdAt", "lastUpdatedAt"} {
		if v := gjson.GetBytes(raw, k); v.Type != gjson.String {
			return fmt.Sprintf("%s has no %s timestamp (basic/utilities/tasks: receivers MUST include it)", what, k)
		}
	}
	if get {
		if v := gjson.GetBytes(raw, "ttl"); !v.Exists() || (v.Type != gjson.Number && v.Type != gjson.Null) {
			return what + " has no ttl (a number, or null for unlimited; basic/utilities/tasks: receivers MUST include it in tasks/get)"
		}
	}
	return ""
}

// Generated checks of a task-capable tool (execution.taskSupport optional
// or required), with the protocol probes (Generate.Protocol), each citing
// 2025-11-25 basic/utilities/tasks:
//
//   - task-ends: the tool called as a task with realistic arguments reaches
//     a terminal status and tasks/result answers (ok or an isError result),
//     every task state on the way carries createdAt and lastUpdatedAt (and
//     tasks/get's a ttl), and the result names its task in _meta
//     (io.modelcontextprotocol/related-task) — MUSTs all;
//   - task-get-unknown: tasks/get of a task id the server never issued is a
//     JSON-RPC error -32602 ("Invalid or nonexistent taskId ... MUST");
//   - task-cancel-finished: tasks/cancel of a task that has ended is
//     -32602 ("Receivers MUST reject cancellation requests for tasks already
//     in a terminal status ... with error code -32602");
//   - task-plain (required only): the plain call is refused with -32601
//     (tool-level negotiation: "Servers MUST return a -32601") or -32600
//     (the spec's error section MAY); a tool result with isError that names
//     the refusal is a note (the refusal is there, but not as the JSON-RPC
//     error the MUST names: the TypeScript SDK's servers answer so); a crash,
//     a hang, another code or a success fails.
//
// A server whose listing says a tool supports tasks but that does not
// declare tasks.requests.tools.call fails these with that reason: a client
// MUST NOT augment its calls, so the tool's promise cannot be kept.

// taskCheck is the kind of a generated task check (0: none).
type taskCheck uint8

const (
	taskCheckNone taskCheck = iota
	taskCheckEnds
	taskCheckUnknown
	taskCheckCancelFinished
	taskCheckPlain
)

// Case names of the task checks, as reports show them.
const (
	caseTaskEnds           = "task-ends"
	caseTaskGetUnknown     = "task-get-unknown"
	caseTaskCancelFinished = "task-cancel-finished"
	caseTaskPlain          = "task-plain"
)

// unknownTaskID is a task id no server issued.
const unknownTaskID = "mcpcheck-no-such-task-7f3c"

// tasks plans the task checks of every target tool that supports tasks.
func (c *generator) tasks(targets []tool, valid map[string]map[string]any) {
	for _, t := range targets {
		support := taskSupportOf(t)
		if support != "optional" && support != "required" {
			continue
		}
		args, ok := valid[t.Name]
		if !ok {
			c.note("tool %q: no valid arguments to call it as a task with; no task checks", t.Name)
			continue
		}
		sc := c.scenario("tasks: " + t.Name)
		sc.continueOnFailure = true
		ends := c.call("as-task", t.Name, args, config.OriginProbe, caseTaskEnds)
		ends.taskCheck = taskCheckEnds
		ends.spec.Expect.OutcomeAny = []config.Outcome{config.OutcomeOK, config.OutcomeToolError, config.OutcomeOutputInvalid}
		unknown := c.call("get-unknown", t.Name, nil, config.OriginProbe, caseTaskGetUnknown)
		unknown.taskCheck = taskCheckUnknown
		unknown.spec.Expect.Outcome, unknown.spec.Expect.ErrorCode = config.OutcomeProtocolError, &invalidParams
		finished := c.call("cancel-finished", t.Name, args, config.OriginProbe, caseTaskCancelFinished)
		finished.taskCheck = taskCheckCancelFinished
		finished.spec.Expect.Outcome, finished.spec.Expect.ErrorCode = config.OutcomeProtocolError, &invalidParams
		sc.steps = append(sc.steps, ends, unknown, finished)
		if support == "required" {
			plain := c.call("plain-call", t.Name, args, config.OriginProbe, caseTaskPlain)
			plain.taskCheck = taskCheckPlain
			plain.spec.Task = &config.TaskCall{Off: true}
			// Judged by runTaskCheck: every outcome is let through here.
			plain.spec.Expect.OutcomeAny = config.Outcomes
			sc.steps = append(sc.steps, plain)
		}
		for j := range sc.steps {
			sc.steps[j].taskSupport = support
		}
		c.add(sc)
	}
}

// taskRun is what a task step's call came to: the reply the checkers
// judge, a reason that fails the step though the calls succeeded, and a
// note that flags it.
type taskRun struct {
	rep  *reply
	why  string
	note string
	// skip, when set, is why the step was not run (nothing was sent).
	skip string
}

// runTaskCheck makes a generated task check's calls.
func runTaskCheck(ctx context.Context, sess *session, p *step, args json.RawMessage, token string) (taskRun, error) {
	if newProtocol(sess) {
		return taskRun{skip: errTasksNewEra.Error()}, nil
	}
	if !sess.toolTasks() {
		return taskRun{why: fmt.Sprintf("the tool's execution.taskSupport is %q but the server does not declare tasks.requests.tools.call, so a client MUST NOT call it as a task (basic/utilities/tasks, tool-level negotiation)", p.taskSupport)}, nil
	}
	switch p.taskCheck {
	case taskCheckEnds:
		run, err := runTask(ctx, sess, p.call.name, args, &config.TaskCall{})
		if run.why == "" {
			run.why, run.note = run.note, ""
		}
		return run, err
	case taskCheckUnknown:
		res, err := sess.request(ctx, "tasks/get", fmt.Appendf(nil, `{"taskId":%q}`, unknownTaskID))
		if err != nil {
			return taskRun{}, err
		}
		return taskRun{rep: &reply{raw: res}, why: "tasks/get of a task id the server never issued answered a result; the spec says -32602 (basic/utilities/tasks, error handling)"}, nil
	case taskCheckCancelFinished:
		out, err := callTask(ctx, sess, p.call.name, args, &config.TaskCall{})
		if err != nil {
			if msg, ok := isTaskError(err); ok {
				return taskRun{why: msg}, nil
			}
			return taskRun{}, err
		}
		id := relatedTask(out.reply)
		if id == "" {
			return taskRun{why: "the tasks/result answer has no _meta \"io.modelcontextprotocol/related-task\" taskId (basic/utilities/tasks: it MUST), so the finished task cannot be named"}, nil
		}
		res, err := sess.request(ctx, "tasks/cancel", fmt.Appendf(nil, `{"taskId":%q}`, id))
		if err != nil {
			return taskRun{}, err
		}
		return taskRun{rep: &reply{raw: res}, why: "tasks/cancel of a task that had ended answered a result; the spec says a receiver MUST reject it with -32602 (basic/utilities/tasks, task cancellation)"}, nil
	case taskCheckPlain:
		rep, err := p.call.do(ctx, sess, args, token)
		var we *jsonrpc.Error
		switch {
		case errors.As(err, &we) && (we.Code == -32601 || we.Code == -32600):
			return taskRun{}, err
		case err != nil && errors.As(err, &we):
			return taskRun{why: fmt.Sprintf("the plain call of a tool that requires a task got JSON-RPC error %d; the spec says -32601 (basic/utilities/tasks, tool-level negotiation)", we.Code)}, err
		case err != nil:
			return taskRun{}, err
		case rep.isError && (strings.Contains(rep.text, "-32601") || strings.Contains(strings.ToLower(rep.text), "task")):
			return taskRun{rep: rep, note: "the plain call was refused with an isError result, not the JSON-RPC error -32601 that the spec's MUST names (basic/utilities/tasks, tool-level negotiation)"}, nil
		case rep.isError:
			return taskRun{rep: rep, why: "the plain call of a tool that requires a task got an isError result that does not say why; the spec says JSON-RPC error -32601"}, nil
		}
		return taskRun{rep: rep, why: "a tool whose execution.taskSupport is \"required\" answered a plain call; the spec says a server MUST refuse it with -32601"}, nil
	}
	return taskRun{}, fmt.Errorf("unknown task check %d", p.taskCheck)
}

// relatedTask is the task id a tasks/result answer names in its _meta.
func relatedTask(rep *reply) string {
	if rep == nil {
		return ""
	}
	var v struct {
		Meta map[string]struct {
			TaskID string `json:"taskId"`
		} `json:"_meta"`
	}
	json.Unmarshal(rep.raw, &v)
	return v.Meta["io.modelcontextprotocol/related-task"].TaskID
}

// skipTaskOnly is why a bad-input case of a tool that requires a task is
// not sent when the tool cannot be called as one.
const skipTaskOnly = "the tool's execution.taskSupport is \"required\" and it cannot be called as a task here (the server does not declare tasks.requests.tools.call, or the protocol era has no tasks in mcpcheck yet): a plain call is refused whatever its input; nothing was sent"

// rawCapabilities is the server's capabilities object as sent in the
// handshake, or nil.
func (s *session) rawCapabilities() json.RawMessage {
	if c := gjson.GetBytes(s.initRaw, "capabilities"); c.IsObject() {
		return json.RawMessage(c.Raw)
	}
	return nil
}

// toolTasks says whether the server declares task-augmented tools/call
// (capabilities.tasks.requests.tools.call); without it a client MUST NOT
// call a tool as a task, whatever the tool's taskSupport.
func (s *session) toolTasks() bool {
	return gjson.GetBytes(s.rawCapabilities(), "tasks.requests.tools.call").Exists()
}

// declares says whether the handshake's capabilities name capability.
func (s *session) declares(capability string) bool {
	return gjson.GetBytes(s.rawCapabilities(), gjson.Escape(capability)).Exists()
}
