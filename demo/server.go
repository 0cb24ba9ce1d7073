package demo

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Identity of the demo server, as reported in initialize and server/discover.
const (
	serverName    = "mcpcheck-demo"
	serverVersion = "0.1.0"
)

const instructions = "Household task list for testing MCP clients: read it with get_household " +
	"or the household://tasks resource, then propose_task and commit_task with the current revision " +
	"and an idempotency key; every session starts with an empty list."

// Options configures the demo server. The zero value is ready to use.
type Options struct {
	// Logger receives the go-sdk's diagnostics. Nil discards them. In stdio
	// mode it must not write to the stdout that carries JSON-RPC.
	Logger *slog.Logger

	// Faults adds the fault tools to the household's (each is described
	// where faults.go defines it). Without it and Defects the server
	// lists exactly get_household, propose_task, commit_task and
	// tidy_household.
	Faults bool

	// Defects adds the defects profile (see "Defects profile" in the package
	// documentation): realistic-looking tools, each with one planted defect
	// for mcpcheck's generated checks to find, and controls that must not
	// be flagged. It combines with Faults. Without it the tool list is
	// exactly what the other options give.
	Defects bool

	// Notes, when set, adds the notes tools over that directory (notes.go).
	Notes string

	// ProtocolDefects serves the household without the protocol guard
	// (protocol.go) and with a protocol defect planted for each of
	// mcpcheck's protocol probes (listed in protocol.go): over stdio the
	// SDK's own handling of what is not JSON-RPC (the session ends on
	// malformed JSON or a bad "jsonrpc", a batch is answered), -32603 for
	// null or omitted arguments, unknown tools, prompts, resources and
	// methods, a bad cursor ignored, an unknown initialize version refused,
	// a second initialize and a request before initialize answered,
	// slow_status (read-only) answering after its call was cancelled, and
	// over HTTP a body that is not JSON-RPC 2.0 answered 500, an invalid
	// MCP-Protocol-Version accepted, a missing one refused and a deleted
	// session answered 400; under 2026-07-28 one defect per probe of that
	// revision (era_defects.go), and ask_assignee without its checks.
	ProtocolDefects bool

	// Tasks adds the tasks profile (tasks.go): plan_week (taskSupport
	// optional) and export_household (required), the tasks capability, and
	// the task methods, answered in front of the SDK. With ProtocolDefects
	// its task defects are planted too.
	Tasks bool

	// Apps adds the apps profile (apps.go): show_household and its MCP App
	// resource; with Defects or ProtocolDefects also a malformed one.
	Apps bool

	// Ask adds ask_assignee, a tool that asks the client for input (a
	// multi-round-trip request; see era.go). ProtocolDefects adds it too,
	// with its defects.
	Ask bool

	// Stateless serves Streamable HTTP without sessions, as 2026-07-28 has
	// it (and as go-sdk serves that version only): every POST is a session
	// of its own, so the household does not outlive a request.
	Stateless bool

	// NextRelease serves the household's next release: the same tools,
	// whose contract differs from this one's in one change of each drift
	// severity (see release), for mcpcheck snapshot and diff.
	NextRelease bool

	// FlakyFile, when set, adds the flaky tool, which fails every other
	// call and counts its calls in this file (flaky.go).
	FlakyFile string

	// RemoteRefURL is the URL that the remote_ref fault tool's inputSchema
	// refers to with $ref, for tests that check that a client never fetches
	// it. Empty means http://127.0.0.1:9/schema.json.
	RemoteRefURL string
}

// NewServer returns the household demo server: its tools, resources, prompt
// and completions. Every session connected to it starts with an empty
// household (revision 0, no tasks) that no other session can see; a
// session's state is dropped when the session ends.
//
// With opts.Faults it also has the fault tools that need nothing from the
// transport. The ones that do (disconnect, malformed_message,
// duplicate_response, response_after_cancellation, session_loss and crash)
// come only with the transports that carry them: [ServeStdio] and
// [Handler].
//
// With opts.Defects it also has every tool of the defects profile. Served
// this way, parse_date's crash closes the calling session instead of ending
// a process or dropping an HTTP request.
func NewServer(opts Options) *mcp.Server {
	s, _ := newServer(opts)
	return s
}

// newServer is NewServer, also returning the per-session state so that tests
// can see it being dropped.
func newServer(opts Options) (*mcp.Server, *registry) {
	s, reg, _ := buildServer(opts, anyTransport)
	return s, reg
}

// buildServer returns a demo server for the given transport, its households
// and, with opts.Faults or opts.Defects, the misbehaving side that its
// transport's fault layer serves (else nil). The fault tools are added only
// with opts.Faults, and f.defects is set only with opts.Defects.
func buildServer(opts Options, kind transportKind) (*mcp.Server, *registry, *faults) {
	reg := &registry{households: make(map[*mcp.ServerSession]*household)}
	info := &mcp.Implementation{Name: serverName, Version: releaseVersion(opts.NextRelease)}
	// Declared where inference would promise more than the server does (its
	// resource and prompt lists never change), keeping the logging that the
	// SDK declares by default. Tools (listChanged) and completions (from
	// CompletionHandler) are inferred.
	caps := &mcp.ServerCapabilities{
		Logging:   &mcp.LoggingCapabilities{},
		Prompts:   &mcp.PromptCapabilities{},
		Resources: &mcp.ResourceCapabilities{Subscribe: true},
	}
	var cacheHints func(context.Context, mcp.Request, *mcp.Cacheable)
	if opts.ProtocolDefects {
		cacheHints = badCacheHints
	}
	s := mcp.NewServer(info,
		&mcp.ServerOptions{
			SetCacheable:       cacheHints,
			Instructions:       instructions,
			Logger:             opts.Logger,
			Capabilities:       caps,
			CompletionHandler:  reg.complete,
			SubscribeHandler:   reg.subscribe,
			UnsubscribeHandler: reg.unsubscribe,
		},
	)
	s.AddSendingMiddleware(reg.onlyChangedHouseholds)
	if opts.ProtocolDefects {
		s.AddReceivingMiddleware(nullArgumentsDefect, clientFaultDefects(info, caps), eraDefects())
		addSlowStatus(s)
	} else {
		s.AddReceivingMiddleware(guardLevels)
	}
	addTools(s, reg, opts.NextRelease)
	addTidy(s, reg)
	if opts.Tasks {
		addTaskTools(s, opts.ProtocolDefects)
	}
	if opts.Apps {
		addApps(s, opts.Defects || opts.ProtocolDefects)
	}
	if opts.Ask || opts.ProtocolDefects {
		addAsk(s, newAsker(opts.ProtocolDefects))
	}
	addResources(s, reg)
	addPrompts(s, reg)
	var f *faults
	if opts.Faults || opts.Defects {
		f = newFaults(kind, opts)
	}
	if opts.Faults {
		f.add(s)
	}
	if opts.Defects {
		f.defects = newDefects(f)
		f.defects.add(s)
	}
	if opts.FlakyFile != "" {
		addFlaky(s, opts.FlakyFile)
	}
	if opts.Notes != "" {
		if err := addNotes(s, opts.Notes); err != nil && opts.Logger != nil {
			opts.Logger.Error(err.Error())
		}
	}
	return s, reg, f
}

// registry holds the household of every live session of one server.
//
// State is keyed by session rather than by server, so one *mcp.Server can
// serve every Streamable HTTP session, and a server that is (mis)connected
// twice still never shares state between sessions.
type registry struct {
	mu         sync.Mutex
	households map[*mcp.ServerSession]*household
}

// household returns the session's household, creating it on the session's
// first request that needs it, and arranges for it to be dropped when the
// session ends.
func (r *registry) household(ss *mcp.ServerSession) *household {
	r.mu.Lock()
	defer r.mu.Unlock()
	if h, ok := r.households[ss]; ok {
		return h
	}
	h := newHousehold()
	r.households[ss] = h
	go func() {
		// Wait returns once the session's connection is closed: stdin EOF on
		// stdio, DELETE or idle timeout on Streamable HTTP.
		_ = ss.Wait()
		r.mu.Lock()
		delete(r.households, ss)
		r.mu.Unlock()
	}()
	return h
}

// lookup returns the session's household, or nil if it has none.
func (r *registry) lookup(ss *mcp.ServerSession) *household {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.households[ss]
}

type getHouseholdIn struct{}

type getHouseholdOut struct {
	Revision int64  `json:"revision"`
	Tasks    []task `json:"tasks"`
}

type proposeTaskIn struct {
	Text string `json:"text"`
}

type proposeTaskOut struct {
	ProposalID string `json:"proposalId"`
	Revision   int64  `json:"revision"`
}

type commitTaskIn struct {
	ProposalID       string `json:"proposalId"`
	ExpectedRevision int64  `json:"expectedRevision"`
	IdempotencyKey   string `json:"idempotencyKey"`
}

type commitTaskOut struct {
	Revision int64 `json:"revision"`
	Replayed bool  `json:"replayed"`
}

// The tool schemas are written out rather than inferred from the Go types so
// that the bounds (lengths, minimum, non-blank text) are part of the declared
// contract, where clients and schema-driven test generators can see them. The
// SDK validates arguments and results against them on every call.
var (
	getHouseholdInputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {},
		"additionalProperties": false
	}`)
	getHouseholdOutputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {
			"revision": {"type": "integer", "minimum": 0, "description": "Current revision; starts at 0 and advances by 1 per commit."},
			"tasks": {
				"type": "array",
				"description": "Committed tasks, oldest first.",
				"items": {
					"type": "object",
					"properties": {
						"id": {"type": "string", "description": "task-1, task-2, ... in commit order."},
						"text": {"type": "string"}
					},
					"required": ["id", "text"],
					"additionalProperties": false
				}
			}
		},
		"required": ["revision", "tasks"],
		"additionalProperties": false
	}`)
	proposeTaskInputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {
			"text": {"type": "string", "minLength": 1, "maxLength": 500, "pattern": "\\S", "description": "What the task is; not blank, at most 500 characters."}
		},
		"required": ["text"],
		"additionalProperties": false
	}`)
	proposeTaskOutputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {
			"proposalId": {"type": "string", "description": "proposal-1, proposal-2, ... in the order proposed."},
			"revision": {"type": "integer", "minimum": 0, "description": "The revision the proposal was made at (the current one)."}
		},
		"required": ["proposalId", "revision"],
		"additionalProperties": false
	}`)
	commitTaskInputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {
			"proposalId": {"type": "string", "minLength": 1, "maxLength": 64, "description": "A proposalId returned by propose_task."},
			"expectedRevision": {"type": "integer", "minimum": 0, "description": "The revision the caller believes is current."},
			"idempotencyKey": {"type": "string", "minLength": 1, "maxLength": 200, "description": "Caller-chosen key; repeating it replays the first successful result."}
		},
		"required": ["proposalId", "expectedRevision", "idempotencyKey"],
		"additionalProperties": false
	}`)
	commitTaskOutputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {
			"revision": {"type": "integer", "minimum": 0, "description": "The revision the commit produced."},
			"replayed": {"type": "boolean", "description": "True when this is the stored result of an earlier call with the same idempotency key."}
		},
		"required": ["revision", "replayed"],
		"additionalProperties": false
	}`)
)

func addTools(s *mcp.Server, reg *registry, next bool) {
	no := false

	mcp.AddTool(s, release(next, &mcp.Tool{
		Name:         "get_household",
		Title:        "Get household",
		Description:  "Returns the current revision and the committed tasks of this session's household.",
		InputSchema:  getHouseholdInputSchema,
		OutputSchema: getHouseholdOutputSchema,
		Annotations: &mcp.ToolAnnotations{
			Title:         "Get household",
			ReadOnlyHint:  true,
			OpenWorldHint: &no,
		},
	}), func(_ context.Context, req *mcp.CallToolRequest, _ getHouseholdIn) (*mcp.CallToolResult, getHouseholdOut, error) {
		rev, tasks := reg.household(req.Session).snapshot()
		return nil, getHouseholdOut{Revision: rev, Tasks: tasks}, nil
	})

	mcp.AddTool(s, release(next, &mcp.Tool{
		Name:  "propose_task",
		Title: "Propose task",
		Description: "Proposes a task at the current revision without changing the household. " +
			"Pass the returned proposalId to commit_task to apply it.",
		InputSchema:  proposeTaskInputSchema,
		OutputSchema: proposeTaskOutputSchema,
		Annotations: &mcp.ToolAnnotations{
			Title: "Propose task",
			// Proposing records a proposal but leaves the household as it is.
			ReadOnlyHint:  true,
			OpenWorldHint: &no,
		},
	}), func(_ context.Context, req *mcp.CallToolRequest, in proposeTaskIn) (*mcp.CallToolResult, proposeTaskOut, error) {
		id, rev, err := reg.household(req.Session).propose(in.Text)
		if err != nil {
			return nil, proposeTaskOut{}, err
		}
		return nil, proposeTaskOut{ProposalID: id, Revision: rev}, nil
	})

	mcp.AddTool(s, release(next, &mcp.Tool{
		Name:  "commit_task",
		Title: "Commit task",
		Description: "Appends a proposed task and advances the revision by 1, if the proposal and " +
			"expectedRevision match the current revision. Repeating an idempotencyKey returns the " +
			"first result with replayed true and changes nothing.",
		InputSchema:  commitTaskInputSchema,
		OutputSchema: commitTaskOutputSchema,
		Annotations: &mcp.ToolAnnotations{
			Title:           "Commit task",
			DestructiveHint: &no,
			IdempotentHint:  true,
			OpenWorldHint:   &no,
		},
	}), func(ctx context.Context, req *mcp.CallToolRequest, in commitTaskIn) (*mcp.CallToolResult, commitTaskOut, error) {
		rev, replayed, err := reg.household(req.Session).commit(in.ProposalID, in.ExpectedRevision, in.IdempotencyKey)
		if err != nil {
			return nil, commitTaskOut{}, err
		}
		if !replayed {
			tasksChanged(ctx, s)
		}
		return nil, commitTaskOut{Revision: rev, Replayed: replayed}, nil
	})
}
