package demo

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The household's resources. household://about never changes;
// household://tasks changes with every commit that adds a task; a task, once
// committed, never changes, so only household://tasks is ever announced to
// subscribers.
const (
	aboutURI        = "household://about"
	tasksURI        = "household://tasks"
	taskURITemplate = "household://tasks/{id}"
	taskURIPrefix   = "household://tasks/"
)

// codeResourceNotFound is the JSON-RPC error code of a read of, or a
// subscription to, a household resource that does not exist: -32002, the
// code the MCP specification suggests. go-sdk v1.8.0's own
// [mcp.ResourceNotFoundError] uses -32602 (SEP-2164), and the SDK answers
// with it, before any handler runs, for a URI that matches neither a
// resource nor the template.
const codeResourceNotFound = -32002

const aboutText = `# Household task list

A synthetic task list for trying MCP clients. Every session has its own list,
which starts empty at revision 0 and is dropped when the session ends.

- get_household returns the revision and the tasks.
- propose_task records a proposal at the current revision.
- commit_task appends a proposed task if the proposal and expectedRevision are
  still current; repeating an idempotencyKey replays the first result.
- tidy_household reports progress and log messages, and changes nothing.

household://tasks is the list as JSON (subscribe to hear of each commit) and
household://tasks/{id} one task. The plan_chores prompt plans a member's
chores from the list, and completion/complete offers its member and day and
the ids of the tasks.
`

// tasksContent is the JSON of household://tasks.
type tasksContent struct {
	Revision int64  `json:"revision"`
	Tasks    []task `json:"tasks"`
}

func addResources(s *mcp.Server, reg *registry) {
	// A fixed description of the household and its tools, the same for every
	// session.
	s.AddResource(&mcp.Resource{
		URI:         aboutURI,
		Name:        "about",
		Title:       "About the household",
		Description: "What the household task list is and which tools change it.",
		MIMEType:    "text/markdown",
	}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
			{URI: aboutURI, MIMEType: "text/markdown", Text: aboutText},
		}}, nil
	})

	// The session's revision and tasks, what get_household returns.
	// Subscribers get notifications/resources/updated after each commit that
	// adds a task (see registry.onlyChangedHouseholds).
	s.AddResource(&mcp.Resource{
		URI:         tasksURI,
		Name:        "tasks",
		Title:       "Household tasks",
		Description: `This session's task list and revision, {"revision": N, "tasks": [{"id", "text"}, ...]}; changes with every commit that adds a task.`,
		MIMEType:    "application/json",
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return reg.read(req.Session, tasksURI)
	})

	// One committed task by id; an unknown id is a JSON-RPC error
	// codeResourceNotFound with the URI in its data.
	s.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: taskURITemplate,
		Name:        "task",
		Title:       "Household task",
		Description: `One committed task of this session, {"id", "text"}; ids are task-1, task-2, ... in commit order.`,
		MIMEType:    "application/json",
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return reg.read(req.Session, req.Params.URI)
	})
}

// read reads household://tasks or a task of the session's household. The
// results are session data, so their cacheScope is private.
func (r *registry) read(ss *mcp.ServerSession, uri string) (*mcp.ReadResourceResult, error) {
	h := r.household(ss)
	var v any
	if uri == tasksURI {
		rev, tasks := h.snapshot()
		v = tasksContent{Revision: rev, Tasks: tasks}
	} else {
		id, _ := strings.CutPrefix(uri, taskURIPrefix)
		t, ok := h.task(id)
		if !ok {
			return nil, resourceNotFound(uri)
		}
		v = t
	}
	text, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{
		Cacheable: mcp.Cacheable{CacheScope: "private"},
		Contents:  []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(text)}},
	}, nil
}

func resourceNotFound(uri string) error {
	data, _ := json.Marshal(map[string]string{"uri": uri})
	return &jsonrpc.Error{Code: codeResourceNotFound, Message: "Resource not found", Data: data}
}

// subscribe accepts a subscription (resources/subscribe, or under 2026-07-28
// a subscriptions/listen naming resources) to a resource that can be read
// now, and refuses any other with codeResourceNotFound; the SDK records the
// accepted ones. Refusing the rest bounds the SDK's server-wide table of
// subscribed URIs (at most household://about, household://tasks and
// maxProposals task ids).
// Under 2026-07-28 the go-sdk client does not wait for the listen's answer,
// so a refusal reaches it only as the absence of notifications.
func (r *registry) subscribe(_ context.Context, req *mcp.SubscribeRequest) error {
	uri := req.Params.URI
	switch {
	case uri == aboutURI:
	case uri == tasksURI:
		// Commits made before the subscription are not announced.
		r.household(req.Session).announce()
	case strings.HasPrefix(uri, taskURIPrefix):
		if _, ok := r.household(req.Session).task(strings.TrimPrefix(uri, taskURIPrefix)); !ok {
			return resourceNotFound(uri)
		}
	default:
		return resourceNotFound(uri)
	}
	return nil
}

// unsubscribe has nothing to undo: the SDK forgets the subscription.
func (r *registry) unsubscribe(context.Context, *mcp.UnsubscribeRequest) error { return nil }

// tasksChanged tells the subscribers of household://tasks that it changed.
// The SDK's subscriptions are per server, not per session, so this reaches
// every session subscribed to the URI; onlyChangedHouseholds lets through
// only the notifications of sessions whose list did change.
func tasksChanged(ctx context.Context, s *mcp.Server) {
	_ = s.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: tasksURI})
}

// onlyChangedHouseholds is sending middleware that drops a
// notifications/resources/updated for household://tasks to a session whose
// task list has not changed since its subscribers were last told, so that a
// commit in one session is announced in that session only, once, under
// either protocol version.
func (r *registry) onlyChangedHouseholds(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "notifications/resources/updated" {
			p, ok := req.GetParams().(*mcp.ResourceUpdatedNotificationParams)
			if ok && p.URI == tasksURI {
				ss, _ := req.GetSession().(*mcp.ServerSession)
				if h := r.lookup(ss); h == nil || !h.takeUpdate() {
					return nil, nil
				}
			}
		}
		return next(ctx, method, req)
	}
}
