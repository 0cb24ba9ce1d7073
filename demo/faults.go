package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The fault tools make the demo server misbehave on request, one failure
// class per tool, so that a client's handling of each class can be pinned
// down by a fixture. Each tool's description says what it does; the
// comments below add what the description does not.
//
// Every fault tool declares an inputSchema (additionalProperties false,
// with bounds), and an outputSchema exactly when it returns
// structuredContent, which it sends as text too; arguments outside the
// inputSchema are a tool error. ping, delay, hang, local_ref and remote_ref
// are annotated read-only; all are openWorldHint false.
//
// The tools that need the transport's help (disconnect, malformed_message,
// duplicate_response, response_after_cancellation, session_loss, crash)
// are listed only by the transports that carry them (see faults.tools).
// On a server whose transport layer cannot reach a call (a JSON-RPC batch,
// say) they answer with a tool error.

// Names of the fault tools.
const (
	toolPing                      = "ping"
	toolProtocolPingLiveness      = "protocol_ping_liveness"
	toolDelay                     = "delay"
	toolHang                      = "hang"
	toolDisconnect                = "disconnect"
	toolMalformedMessage          = "malformed_message"
	toolDuplicateResponse         = "duplicate_response"
	toolResponseAfterCancellation = "response_after_cancellation"
	toolSessionLoss               = "session_loss"
	toolToolError                 = "tool_error"
	toolProtocolError             = "protocol_error"
	toolBadOutput                 = "bad_output"
	toolCrash                     = "crash"
	toolLocalRef                  = "local_ref"
	toolRemoteRef                 = "remote_ref"
)

// activatedTools are the fault tools whose calls are activations: they wait,
// or need the transport to do something to their own request. The
// transports tag each such call (see rawfault.go), and at most
// maxActivations of them may be in flight.
var activatedTools = map[string]bool{
	toolProtocolPingLiveness:      true,
	toolDelay:                     true,
	toolHang:                      true,
	toolDisconnect:                true,
	toolMalformedMessage:          true,
	toolDuplicateResponse:         true,
	toolResponseAfterCancellation: true,
	toolSessionLoss:               true,
	// The defects profile's parse_date drops its HTTP request when it
	// crashes, and search_notes may hang until cancelled.
	toolParseDate:   true,
	toolSearchNotes: true,
}

// neverAnswered reports whether a call of the tool gets no response unless
// the client cancels it, so that nobody should wait for its answer.
func neverAnswered(tool string) bool {
	return tool == toolHang || tool == toolResponseAfterCancellation
}

// transportKind says which transport a server is built for. It decides
// which fault tools are listed and what the transport-level ones can do.
type transportKind int

const (
	anyTransport   transportKind = iota // NewServer: whatever the caller connects it to
	stdioTransport                      // ServeStdio and "mcpcheck demo"
	httpTransport                       // Handler and "mcpcheck demo --http"
)

// defaultRemoteRefURL is where remote_ref's inputSchema points unless
// Options.RemoteRefURL says otherwise: the discard port on the loopback
// address, where nothing is expected to listen.
const defaultRemoteRefURL = "http://127.0.0.1:9/schema.json"

// lateResultWindow bounds how long response_after_cancellation waits for
// its cancellation.
const lateResultWindow = 5 * time.Second

// crashExitCode is the exit status of the crash tool.
const crashExitCode = 3

// Errors the fault tools report as tool errors (isError true).
var (
	errTooManyActivations = fmt.Errorf("too many fault tool calls in flight: at most %d may be pending; cancel some first", maxActivations)
	errActivationGone     = errors.New("the transport carrying this call has already ended it")
	errCallEnded          = errors.New("the transport carrying this call went away")
)

// faults is the misbehaving side of one server: the activations that its
// transport's fault layer tags and the process hooks (stderr, exit) that
// the fault tools and the defects profile's parse_date use. It exists when
// either profile is on; the fault tools themselves are added only with
// Options.Faults.
type faults struct {
	kind      transportKind
	acts      *activations
	remoteRef string

	// stderr and exit are what the crash tool writes to and calls.
	stderr io.Writer
	exit   func(code int)

	// running counts the handlers of activated tools that are running, so
	// that tests can see server work stop when a call is cancelled.
	running atomic.Int64

	// defects is the defects profile, or nil without Options.Defects.
	defects *defects
}

func newFaults(kind transportKind, opts Options) *faults {
	ref := opts.RemoteRefURL
	if ref == "" {
		ref = defaultRemoteRefURL
	}
	return &faults{
		kind:      kind,
		acts:      newActivations(),
		remoteRef: ref,
		stderr:    os.Stderr,
		exit:      os.Exit,
	}
}

// activate returns the activation of a call of an activated tool, and a
// function to call when the handler is done with it. A call that a
// transport tagged (see rawfault.go) uses the transport's activation; any
// other call, on a transport without a fault layer, gets a local one with
// no transport capabilities, counted against the same bound.
func (f *faults) activate(req *mcp.CallToolRequest) (*activation, func(), error) {
	a, local, err := f.lookup(req)
	if err != nil {
		return nil, nil, err
	}
	f.running.Add(1)
	return a, func() {
		f.running.Add(-1)
		if local {
			f.acts.remove(a)
		}
	}, nil
}

// lookup finds the activation of req, or makes a local one (local true).
func (f *faults) lookup(req *mcp.CallToolRequest) (a *activation, local bool, err error) {
	if req.Extra != nil {
		switch token := req.Extra.Header.Get(activationHeader); token {
		case "":
		case activationRefused:
			return nil, false, errTooManyActivations
		default:
			if a := f.acts.lookup(token); a != nil {
				return a, false, nil
			}
			return nil, false, errActivationGone
		}
	}
	a = newActivation(jsonrpc.ID{}, "", req.Params.Name)
	if !f.acts.add(a) {
		return nil, false, errTooManyActivations
	}
	return a, true, nil
}

// wait waits for d, or until the call is cancelled (ctx) or its transport
// goes away (a.stopped), whichever comes first.
func wait(ctx context.Context, a *activation, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-a.stopped():
		return errCallEnded
	}
}

func ms(n int64) time.Duration { return time.Duration(n) * time.Millisecond }

// Structured inputs and outputs of the fault tools. Their schemas are below.

type noArgs struct{}

type pingOut struct {
	Status    string `json:"status"`
	Timestamp string `json:"timestamp"`
}

type livenessIn struct {
	PingAfterMs       int64 `json:"pingAfterMs"`
	LivenessTimeoutMs int64 `json:"livenessTimeoutMs"`
	CompletionDelayMs int64 `json:"completionDelayMs"`
	CloseOnFailure    bool  `json:"closeOnFailure"`
}

type outcome struct {
	Outcome string `json:"outcome"`
}

type livenessOut struct {
	Status       string  `json:"status"`
	ProtocolPing outcome `json:"protocolPing"`
	Transport    outcome `json:"transport"`
}

// Values of livenessOut.
const (
	pingSucceeded = "protocol_ping_succeeded"
	pingFailed    = "protocol_ping_failed"

	pingSuccess         = "success"
	pingUnsupported     = "unsupported"
	pingInvalidResponse = "invalid_response"
	pingTimeout         = "timeout"

	transportRetained           = "retained"
	transportClosed             = "closed"
	transportClosureUnavailable = "closure_unavailable"
)

type delayIn struct {
	DelayMs int64 `json:"delayMs"`
}

type delayOut struct {
	DelayedMs int64 `json:"delayedMs"`
}

type variantIn struct {
	Variant string `json:"variant"`
}

type variantOut struct {
	Variant string `json:"variant"`
}

type statusOut struct {
	Status string `json:"status"`
}

type sessionLossIn struct {
	Activation string `json:"activation"`
}

type localRefIn struct {
	Item struct {
		Name string `json:"name"`
	} `json:"item"`
}

type nameOut struct {
	Name string `json:"name"`
}

// malformedVariants maps malformed_message's variants to the raw fault
// that writes them.
var malformedVariants = map[string]responseFault{
	"missing-jsonrpc":         missingJSONRPC,
	"invalid-jsonrpc-version": invalidJSONRPCVersion,
	"result-with-error":       resultWithError,
}

// Schemas of the fault tools. As with the household, they are written out so
// that the bounds are part of the declared contract.
var (
	noArgsSchema = json.RawMessage(`{"type": "object", "properties": {}, "additionalProperties": false}`)

	pingOutputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {
			"status": {"const": "ok"},
			"timestamp": {"type": "string", "format": "date-time", "description": "Server time, RFC 3339 in UTC."}
		},
		"required": ["status", "timestamp"],
		"additionalProperties": false
	}`)
	livenessInputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {
			"pingAfterMs": {"type": "integer", "minimum": 0, "maximum": 30000, "description": "Wait before sending the protocol ping."},
			"livenessTimeoutMs": {"type": "integer", "minimum": 1, "maximum": 30000, "description": "How long to wait for the client's ping response."},
			"completionDelayMs": {"type": "integer", "minimum": 0, "maximum": 30000, "default": 0, "description": "Wait after a successful ping before answering."},
			"closeOnFailure": {"type": "boolean", "default": false, "description": "Close this request's HTTP stream if the ping fails."}
		},
		"required": ["pingAfterMs", "livenessTimeoutMs"],
		"additionalProperties": false
	}`)
	livenessOutputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {
			"status": {"enum": ["protocol_ping_succeeded", "protocol_ping_failed"]},
			"protocolPing": {
				"type": "object",
				"properties": {"outcome": {"enum": ["success", "unsupported", "invalid_response", "timeout"]}},
				"required": ["outcome"],
				"additionalProperties": false
			},
			"transport": {
				"type": "object",
				"properties": {"outcome": {"enum": ["retained", "closed", "closure_unavailable"]}},
				"required": ["outcome"],
				"additionalProperties": false
			}
		},
		"required": ["status", "protocolPing", "transport"],
		"additionalProperties": false
	}`)
	delayInputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {
			"delayMs": {"type": "integer", "minimum": 0, "maximum": 30000, "description": "How long to wait before answering."}
		},
		"required": ["delayMs"],
		"additionalProperties": false
	}`)
	delayOutputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {"delayedMs": {"type": "integer", "minimum": 0, "maximum": 30000}},
		"required": ["delayedMs"],
		"additionalProperties": false
	}`)
	malformedInputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {
			"variant": {"enum": ["missing-jsonrpc", "invalid-jsonrpc-version", "result-with-error"], "description": "Which JSON-RPC rule the response breaks."}
		},
		"required": ["variant"],
		"additionalProperties": false
	}`)
	variantOutputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {"variant": {"enum": ["missing-jsonrpc", "invalid-jsonrpc-version", "result-with-error"]}},
		"required": ["variant"],
		"additionalProperties": false
	}`)
	sessionLossInputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {
			"activation": {"enum": ["during_request", "after_response"], "description": "Lose the session before answering this call, or right after."}
		},
		"required": ["activation"],
		"additionalProperties": false
	}`)
	localRefInputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {"item": {"$ref": "#/$defs/item"}},
		"required": ["item"],
		"additionalProperties": false,
		"$defs": {
			"item": {
				"type": "object",
				"properties": {"name": {"type": "string", "minLength": 1, "maxLength": 200}},
				"required": ["name"],
				"additionalProperties": false
			}
		}
	}`)
	nameOutputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {"name": {"type": "string"}},
		"required": ["name"],
		"additionalProperties": false
	}`)
	okOutputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {"ok": {"const": true}},
		"required": ["ok"],
		"additionalProperties": false
	}`)
	// badOutputSchema is what bad_output declares, and then breaks.
	badOutputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {"id": {"type": "integer"}},
		"required": ["id"],
		"additionalProperties": false
	}`)
)

// statusSchema is the outputSchema of a tool whose result is {status: want}.
func statusSchema(want string) json.RawMessage {
	return json.RawMessage(`{
		"type": "object",
		"properties": {"status": {"const": "` + want + `"}},
		"required": ["status"],
		"additionalProperties": false
	}`)
}

// remoteRefInputSchema is remote_ref's inputSchema: a property whose schema
// is a $ref to url, which a client must not fetch.
func remoteRefInputSchema(url string) json.RawMessage {
	ref, _ := json.Marshal(url)
	return json.RawMessage(`{
		"type": "object",
		"properties": {"item": {"$ref": ` + string(ref) + `, "description": "Any value; its schema is remote and must not be fetched."}},
		"additionalProperties": false
	}`)
}

// tools returns the names of the fault tools a server of this kind lists.
func (f *faults) tools() []string {
	names := []string{
		toolPing, toolProtocolPingLiveness, toolDelay, toolHang,
		toolToolError, toolProtocolError, toolBadOutput, toolLocalRef, toolRemoteRef,
	}
	switch f.kind {
	case stdioTransport:
		names = append(names, toolDisconnect, toolMalformedMessage, toolDuplicateResponse, toolResponseAfterCancellation, toolCrash)
	case httpTransport:
		names = append(names, toolDisconnect, toolMalformedMessage, toolDuplicateResponse, toolSessionLoss)
	}
	sort.Strings(names)
	return names
}

// add registers the fault tools of the server's kind with s.
func (f *faults) add(s *mcp.Server) {
	f.addObservers(s)
	f.addWrongAnswers(s)
	listed := f.tools()
	has := func(name string) bool { return slices.Contains(listed, name) }
	f.addConnectionFaults(s, has)
	f.addLateFaults(s, has)
}

// faultHints are a fault tool's annotations: it reaches nothing outside.
func faultHints(title string, readOnly bool) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: readOnly, OpenWorldHint: new(bool)}
}

// addObservers registers the tools that watch the session: ping, the
// protocol ping liveness, delay and hang.
func (f *faults) addObservers(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{
		Name:         toolPing,
		Title:        "Ping",
		Description:  "Fault profile observer: answers at once with status ok and the server time. Call it after a fault to see whether the session still works.",
		InputSchema:  noArgsSchema,
		OutputSchema: pingOutputSchema,
		Annotations:  faultHints("Ping", true),
	}, func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, pingOut, error) {
		return nil, pingOut{Status: "ok", Timestamp: time.Now().UTC().Format("2006-01-02T15:04:05.000Z07:00")}, nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name:  toolProtocolPingLiveness,
		Title: "Protocol ping liveness",
		Description: "Waits pingAfterMs, sends the client a protocol ping request and waits at most livenessTimeoutMs " +
			"for its answer, then waits completionDelayMs and reports the outcome. A failed ping is a tool error; " +
			"with closeOnFailure over Streamable HTTP it closes this request's stream instead. " +
			"Protocol 2026-07-28 has no server-to-client ping, so it reports unsupported without pinging.",
		InputSchema:  livenessInputSchema,
		OutputSchema: livenessOutputSchema,
		Annotations:  faultHints("Protocol ping liveness", false),
	}, f.protocolPingLiveness)

	mcp.AddTool(s, &mcp.Tool{
		Name:         toolDelay,
		Title:        "Delay",
		Description:  "Waits delayMs (0 to 30000) and answers {delayedMs}. Stops early if the call is cancelled.",
		InputSchema:  delayInputSchema,
		OutputSchema: delayOutputSchema,
		Annotations:  faultHints("Delay", true),
	}, func(ctx context.Context, req *mcp.CallToolRequest, in delayIn) (*mcp.CallToolResult, delayOut, error) {
		a, release, err := f.activate(req)
		if err != nil {
			return nil, delayOut{}, err
		}
		defer release()
		if err := wait(ctx, a, ms(in.DelayMs)); err != nil {
			return nil, delayOut{}, err
		}
		return nil, delayOut{DelayedMs: in.DelayMs}, nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name:  toolHang,
		Title: "Hang",
		Description: "Never answers. The call stays pending until the client cancels it (or its transport goes away); " +
			"then the handler stops at once and, over stdio and Streamable HTTP, no response is sent.",
		InputSchema: noArgsSchema,
		Annotations: faultHints("Hang", true),
	}, func(ctx context.Context, req *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
		a, release, err := f.activate(req)
		if err != nil {
			return nil, nil, err
		}
		defer release()
		select {
		case <-ctx.Done():
		case <-a.stopped():
		}
		// The client has given up on this call; answering now would be a
		// late response, which is what response_after_cancellation is for.
		a.respond(dropResponse)
		return nil, nil, errors.New("hang: cancelled")
	})
}

// addWrongAnswers registers the tools whose answer is wrong on purpose
// (tool and protocol errors, output against its own schema) and the
// $ref schemas.
func (f *faults) addWrongAnswers(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{
		Name:        toolToolError,
		Title:       "Tool error",
		Description: "Always fails as a tool: the result has isError true and a text message.",
		InputSchema: noArgsSchema,
		Annotations: faultHints("Tool error", false),
	}, func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, any, error) {
		return nil, nil, errors.New("tool_error: this tool always fails with isError true")
	})

	// protocol_error and bad_output are raw tools: the SDK's typed tools turn
	// a handler's Go error into a tool error and validate structured output,
	// which is exactly what these two must get past.
	s.AddTool(&mcp.Tool{
		Name:        toolProtocolError,
		Title:       "Protocol error",
		Description: "Always answers with a JSON-RPC error of code -32603 (internal error) instead of a result.",
		InputSchema: noArgsSchema,
		Annotations: faultHints("Protocol error", false),
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if res := checkArgs(req.Params.Arguments); res != nil {
			return res, nil
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "protocol_error: this tool always answers with a JSON-RPC error"}
	})

	s.AddTool(&mcp.Tool{
		Name:         toolBadOutput,
		Title:        "Bad output",
		Description:  `Returns structuredContent {"id": "not-an-int"}, which violates its own outputSchema (id is an integer).`,
		InputSchema:  noArgsSchema,
		OutputSchema: badOutputSchema,
		Annotations:  faultHints("Bad output", false),
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if res := checkArgs(req.Params.Arguments); res != nil {
			return res, nil
		}
		out := json.RawMessage(`{"id":"not-an-int"}`)
		return &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: string(out)}},
			StructuredContent: out,
		}, nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name:         toolLocalRef,
		Title:        "Local $ref",
		Description:  "Takes an item whose inputSchema is a local $ref (#/$defs/item) and returns its name.",
		InputSchema:  localRefInputSchema,
		OutputSchema: nameOutputSchema,
		Annotations:  faultHints("Local $ref", true),
	}, func(_ context.Context, _ *mcp.CallToolRequest, in localRefIn) (*mcp.CallToolResult, nameOut, error) {
		return nil, nameOut{Name: in.Item.Name}, nil
	})

	// remote_ref is raw because the SDK would have to resolve the remote
	// $ref to validate arguments against the schema.
	s.AddTool(&mcp.Tool{
		Name:  toolRemoteRef,
		Title: "Remote $ref",
		Description: "Its inputSchema refers to a remote schema (" + f.remoteRef + "). A client must refuse to " +
			"fetch it; the tool itself ignores item and returns {ok: true}.",
		InputSchema:  remoteRefInputSchema(f.remoteRef),
		OutputSchema: okOutputSchema,
		Annotations:  faultHints("Remote $ref", true),
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if res := checkArgs(req.Params.Arguments, "item"); res != nil {
			return res, nil
		}
		out := json.RawMessage(`{"ok":true}`)
		return &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: string(out)}},
			StructuredContent: out,
		}, nil
	})
}

// addConnectionFaults registers the faults of the connection the
// transport has (has): disconnect, malformed and duplicate responses.
func (f *faults) addConnectionFaults(s *mcp.Server, has func(string) bool) {
	if has(toolDisconnect) {
		mcp.AddTool(s, &mcp.Tool{
			Name:  toolDisconnect,
			Title: "Disconnect",
			Description: "Closes the transport while this call is in flight, without answering it. " +
				"Over stdio the whole connection ends and the server exits; over Streamable HTTP only this " +
				"request's connection is dropped, and the session stays usable.",
			InputSchema: noArgsSchema,
			Annotations: faultHints("Disconnect", false),
		}, func(_ context.Context, req *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
			a, release, err := f.activate(req)
			if err != nil {
				return nil, nil, err
			}
			defer release()
			switch {
			case a.closeStream != nil:
				a.respond(dropResponse)
				a.closeStream()
			case a.endConnection != nil:
				a.endConnection()
			default:
				return nil, nil, errors.New("disconnect needs a request of its own on the stdio or Streamable HTTP transport of mcpcheck demo")
			}
			return nil, nil, errors.New("disconnect: the transport was closed")
		})
	}

	if has(toolMalformedMessage) {
		mcp.AddTool(s, &mcp.Tool{
			Name:  toolMalformedMessage,
			Title: "Malformed message",
			Description: "Answers with exactly one response that breaks JSON-RPC in the chosen way: missing-jsonrpc " +
				`omits "jsonrpc", invalid-jsonrpc-version sends "1.0", result-with-error has both result and error. ` +
				"Later calls are answered normally.",
			InputSchema:  malformedInputSchema,
			OutputSchema: variantOutputSchema,
			Annotations:  faultHints("Malformed message", false),
		}, func(_ context.Context, req *mcp.CallToolRequest, in variantIn) (*mcp.CallToolResult, variantOut, error) {
			a, release, err := f.activate(req)
			if err != nil {
				return nil, variantOut{}, err
			}
			defer release()
			if !a.rawResponses {
				return nil, variantOut{}, errors.New("malformed_message needs a request of its own on the stdio or Streamable HTTP transport of mcpcheck demo")
			}
			a.respond(malformedVariants[in.Variant])
			return nil, variantOut{Variant: in.Variant}, nil
		})
	}

	if has(toolDuplicateResponse) {
		mcp.AddTool(s, &mcp.Tool{
			Name:         toolDuplicateResponse,
			Title:        "Duplicate response",
			Description:  "Sends its result twice with the same id (over Streamable HTTP: two SSE message events).",
			InputSchema:  noArgsSchema,
			OutputSchema: statusSchema("duplicated"),
			Annotations:  faultHints("Duplicate response", false),
		}, func(_ context.Context, req *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, statusOut, error) {
			a, release, err := f.activate(req)
			if err != nil {
				return nil, statusOut{}, err
			}
			defer release()
			if !a.rawResponses {
				return nil, statusOut{}, errors.New("duplicate_response needs a request of its own on the stdio or Streamable HTTP transport of mcpcheck demo")
			}
			a.respond(duplicateResponse)
			return nil, statusOut{Status: "duplicated"}, nil
		})
	}
}

// addLateFaults registers the faults that come after the call or end
// more than it: a response after cancellation, session loss and crash.
func (f *faults) addLateFaults(s *mcp.Server, has func(string) bool) {
	if has(toolResponseAfterCancellation) {
		mcp.AddTool(s, &mcp.Tool{
			Name:  toolResponseAfterCancellation,
			Title: "Response after cancellation",
			Description: "Waits up to 5s for the client to cancel this call, then sends one late result for it. " +
				"Without a cancellation in time it answers with a tool error instead.",
			InputSchema:  noArgsSchema,
			OutputSchema: statusSchema("late_result_after_cancellation"),
			Annotations:  faultHints("Response after cancellation", false),
		}, func(ctx context.Context, req *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, statusOut, error) {
			a, release, err := f.activate(req)
			if err != nil {
				return nil, statusOut{}, err
			}
			defer release()
			switch err := wait(ctx, a, lateResultWindow); {
			case err == nil:
				return nil, statusOut{}, fmt.Errorf("no cancellation within %v, so no late result", lateResultWindow)
			case ctx.Err() == nil:
				a.respond(dropResponse)
				return nil, statusOut{}, err
			}
			// The SDK writes a handler's result even after the call was
			// cancelled; that write is the late result.
			return nil, statusOut{Status: "late_result_after_cancellation"}, nil
		})
	}

	if has(toolSessionLoss) {
		mcp.AddTool(s, &mcp.Tool{
			Name:  toolSessionLoss,
			Title: "Session loss",
			Description: "Invalidates the calling Streamable HTTP session: later requests with its Mcp-Session-Id get " +
				"404. during_request ends this call without a result; after_response answers " +
				"{status: session_lost_after_response} first. Other sessions are unaffected.",
			InputSchema:  sessionLossInputSchema,
			OutputSchema: statusSchema("session_lost_after_response"),
			Annotations:  faultHints("Session loss", false),
		}, func(_ context.Context, req *mcp.CallToolRequest, in sessionLossIn) (*mcp.CallToolResult, statusOut, error) {
			a, release, err := f.activate(req)
			if err != nil {
				return nil, statusOut{}, err
			}
			defer release()
			if a.loseSession == nil || req.Session.ID() == "" {
				return nil, statusOut{}, errors.New("session_loss needs a stateful Streamable HTTP session of mcpcheck demo")
			}
			if in.Activation == "during_request" {
				a.loseSession(req.Session, true)
				return nil, statusOut{}, errors.New("session_loss: the session was lost during the request")
			}
			a.loseSession(req.Session, false)
			return nil, statusOut{Status: "session_lost_after_response"}, nil
		})
	}

	if has(toolCrash) {
		mcp.AddTool(s, &mcp.Tool{
			Name:        toolCrash,
			Title:       "Crash",
			Description: "Writes a line to stderr and ends the server process with exit status 3 while this call is in flight.",
			InputSchema: noArgsSchema,
			Annotations: faultHints("Crash", false),
		}, func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, any, error) {
			fmt.Fprintf(f.stderr, "mcpcheck demo: crash tool called; exiting with status %d\n", crashExitCode)
			f.exit(crashExitCode)
			return nil, nil, errors.New("crash: exit returned") // only when exit is replaced
		})
	}
}

// protocolPingLiveness is the handler of protocol_ping_liveness. The ping's
// outcome is success; unsupported (the client answered -32601, or the call
// is under 2026-07-28, which has no server-to-client requests: then no ping
// is sent); invalid_response (any other error); or timeout. On success it
// waits completionDelayMs and answers protocol_ping_succeeded, transport
// retained. Otherwise the result is protocol_ping_failed with isError true;
// with closeOnFailure, over Streamable HTTP it closes this request's stream
// instead (transport closed, so the result is never seen), and elsewhere
// it reports closure_unavailable. Cancelling the call is not a failure: it
// just ends it.
func (f *faults) protocolPingLiveness(ctx context.Context, req *mcp.CallToolRequest, in livenessIn) (*mcp.CallToolResult, livenessOut, error) {
	a, release, err := f.activate(req)
	if err != nil {
		return nil, livenessOut{}, err
	}
	defer release()
	// Cancellation ends the call without the closure policy.
	if err := wait(ctx, a, ms(in.PingAfterMs)); err != nil {
		return nil, livenessOut{}, err
	}

	result := pingSuccess
	if req.ProtocolVersion() >= "2026-07-28" {
		// 2026-07-28 removed server-to-client requests, ping included.
		result = pingUnsupported
	} else {
		pctx, cancel := context.WithTimeout(ctx, ms(in.LivenessTimeoutMs))
		go func() {
			select {
			case <-a.stopped():
				cancel()
			case <-pctx.Done():
			}
		}()
		err := req.Session.Ping(pctx, nil)
		cancel()
		var rpcErr *jsonrpc.Error
		switch {
		case ctx.Err() != nil:
			return nil, livenessOut{}, ctx.Err()
		case isStopped(a):
			return nil, livenessOut{}, errCallEnded
		case err == nil:
		case errors.Is(err, context.DeadlineExceeded):
			result = pingTimeout
		case errors.As(err, &rpcErr) && rpcErr.Code == jsonrpc.CodeMethodNotFound:
			result = pingUnsupported
		default:
			result = pingInvalidResponse
		}
	}

	if result == pingSuccess {
		if err := wait(ctx, a, ms(in.CompletionDelayMs)); err != nil {
			return nil, livenessOut{}, err
		}
		return nil, livenessOut{Status: pingSucceeded, ProtocolPing: outcome{result}, Transport: outcome{transportRetained}}, nil
	}
	out := livenessOut{Status: pingFailed, ProtocolPing: outcome{result}, Transport: outcome{transportRetained}}
	if in.CloseOnFailure {
		if a.closeStream != nil {
			// The result below is never delivered: closing the stream
			// drops it.
			out.Transport.Outcome = transportClosed
			a.respond(dropResponse)
			a.closeStream()
		} else {
			// Over stdio the connection is shared with every other call;
			// closing it is not this call's to do.
			out.Transport.Outcome = transportClosureUnavailable
		}
	}
	// The SDK adds out as structuredContent and as text.
	return &mcp.CallToolResult{IsError: true}, out, nil
}

func isStopped(a *activation) bool {
	select {
	case <-a.stopped():
		return true
	default:
		return false
	}
}

// checkArgs enforces a strict inputSchema for a raw tool, which the SDK
// does not validate: arguments must be an object with no keys but allowed.
// It returns the tool error to answer with, or nil.
func checkArgs(raw json.RawMessage, allowed ...string) *mcp.CallToolResult {
	var args map[string]json.RawMessage
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &args); err != nil {
			return toolError(fmt.Errorf(`validating "arguments": want an object: %v`, err))
		}
	}
	var extra []string
	for k := range args {
		if !slices.Contains(allowed, k) {
			extra = append(extra, fmt.Sprintf("%q", k))
		}
	}
	if len(extra) == 0 {
		return nil
	}
	sort.Strings(extra)
	return toolError(fmt.Errorf(`validating "arguments": unexpected additional properties [%s]`, strings.Join(extra, " ")))
}

func toolError(err error) *mcp.CallToolResult {
	var res mcp.CallToolResult
	res.SetError(err)
	return &res
}
