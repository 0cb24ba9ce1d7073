package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpcheck/mcpcheck/config"
)

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

var invalidParamsCode = int64(-32602)

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
		unknown.spec.Expect.Outcome, unknown.spec.Expect.ErrorCode = config.OutcomeProtocolError, &invalidParamsCode
		finished := c.call("cancel-finished", t.Name, args, config.OriginProbe, caseTaskCancelFinished)
		finished.taskCheck = taskCheckCancelFinished
		finished.spec.Expect.Outcome, finished.spec.Expect.ErrorCode = config.OutcomeProtocolError, &invalidParamsCode
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
