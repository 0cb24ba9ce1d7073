package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"errors"
	"io"

	"reflect"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/internal/jsonx"
	"github.com/mcpcheck/mcpcheck/internal/safetext"
	"github.com/mcpcheck/mcpcheck/runner/report"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// reply is what came back from one call, whatever its method: the JSON-RPC
// result as the server sent it, and what the checkers read of it.
type reply struct {
	raw json.RawMessage
	// isError is a tool result's isError flag.
	isError bool
	// text is the answer's text: a tool result's text content, a prompt's
	// messages' text, a resource's contents' text, joined by newlines;
	// hasContent says whether it had any content item at all.
	text       string
	hasContent bool
}

// do makes the call on sess with params (the encoded parameters) and the
// progress token ("" asks for no progress: the request then has no _meta). This is the one place that knows the methods: the
// scheduler, the executor and the classification are the same for all. A
// result's raw bytes come from the tap in ctx (see tap.go), so numbers keep
// their exact text; a result the SDK answered from its own cache (lists
// under 2026-07-28) is encoded from what it returned.
func (c *call) do(ctx context.Context, sess *session, params json.RawMessage, token string) (*reply, error) {
	cs := sess.cs
	raw := func(v any) json.RawMessage {
		if r := tapFrom(ctx).Result(); r != nil {
			return r
		}
		b, _ := json.Marshal(v)
		return b
	}
	switch c.kind {
	case config.KindTool:
		p := &mcp.CallToolParams{Name: c.name, Arguments: params}
		withProgress(p, token)
		res, err := cs.CallTool(ctx, p)
		if err != nil || res == nil {
			return nil, err
		}
		return &reply{raw: raw(res), isError: res.IsError, text: contentText(res.Content), hasContent: len(res.Content) > 0}, nil
	case config.KindPrompt:
		var args map[string]string
		if err := json.Unmarshal(params, &args); err != nil {
			return nil, errBadParams{fmt.Errorf("prompt arguments must be strings: %v", err)}
		}
		p := &mcp.GetPromptParams{Name: c.name, Arguments: args}
		withProgress(p, token)
		res, err := cs.GetPrompt(ctx, p)
		if err != nil || res == nil {
			return nil, err
		}
		var b strings.Builder
		for _, m := range res.Messages {
			if t := contentText([]mcp.Content{m.Content}); t != "" {
				if b.Len() > 0 {
					b.WriteByte('\n')
				}
				b.WriteString(t)
			}
		}
		return &reply{raw: raw(res), text: b.String(), hasContent: len(res.Messages) > 0}, nil
	case config.KindResource:
		uri, err := uriOf(params)
		if err != nil {
			return nil, err
		}
		p := &mcp.ReadResourceParams{URI: uri}
		withProgress(p, token)
		res, err := cs.ReadResource(ctx, p)
		if err != nil || res == nil {
			return nil, err
		}
		var texts []string
		for _, rc := range res.Contents {
			if rc != nil && rc.Text != "" {
				texts = append(texts, rc.Text)
			}
		}
		return &reply{raw: raw(res), text: strings.Join(texts, "\n"), hasContent: len(res.Contents) > 0}, nil
	case config.KindComplete:
		var p mcp.CompleteParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, errBadParams{fmt.Errorf("completion request: %v", err)}
		}
		res, err := cs.Complete(ctx, &p)
		if err != nil || res == nil {
			return nil, err
		}
		return &reply{raw: raw(res)}, nil
	case config.KindList:
		return c.list(ctx, cs)
	case config.KindPing:
		if newProtocol(sess) {
			return nil, notInEra("ping")
		}
		if err := cs.Ping(ctx, nil); err != nil {
			return nil, err
		}
		return &reply{raw: raw(struct{}{})}, nil
	case config.KindSetLogLevel:
		if newProtocol(sess) {
			return nil, notInEra("logging/setLevel")
		}
		var level string
		json.Unmarshal(params, &level)
		if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: mcp.LoggingLevel(level)}); err != nil {
			return nil, err
		}
		return &reply{raw: raw(struct{}{})}, nil
	case config.KindSubscribe, config.KindUnsubscribe:
		uri, err := uriOf(params)
		if err != nil {
			return nil, err
		}
		if c.kind == config.KindSubscribe {
			from := sess.inbox.next()
			if err = cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err == nil && newProtocol(sess) {
				// Under 2026-07-28 Subscribe opens a listen stream and returns
				// at once; the subscription holds once the server says so.
				if _, ok := sess.inbox.await(ctx, func(m *received) bool {
					return m.seq >= from && m.method == "notifications/subscriptions/acknowledged"
				}); !ok {
					return nil, ctx.Err()
				}
			}
		} else {
			err = cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri})
		}
		if err != nil {
			return nil, err
		}
		return &reply{raw: raw(struct{}{})}, nil
	}
	return nil, fmt.Errorf("a %s step makes no call", c.kind)
}

// withProgress sets p's progress token, unless token is "".
func withProgress(p interface{ SetProgressToken(any) }, token string) {
	if token != "" {
		p.SetProgressToken(token)
	}
}

// newProtocol reports whether the session speaks 2026-07-28, where
// subscriptions are listen streams.
func newProtocol(sess *session) bool {
	return sess.init != nil && sess.init.ProtocolVersion == config.ProtocolVersion2026
}

// errBadParams is a step's parameters that cannot be sent as its method
// needs them (a $ref that resolved to the wrong type): nothing was sent.
type errBadParams struct{ error }

// uriOf reads a URI parameter, which a $ref may have filled.
func uriOf(params json.RawMessage) (string, error) {
	var uri string
	if err := json.Unmarshal(params, &uri); err != nil || uri == "" {
		return "", errBadParams{fmt.Errorf("the URI must be a non-empty string, got %s", shortJSON(params))}
	}
	return uri, nil
}

// list walks every page of a list and merges the entries into one result
// ({"tools": [...]} and so on), keeping each entry's raw bytes.
func (c *call) list(ctx context.Context, cs *mcp.ClientSession) (*reply, error) {
	items, err := walkPages(ctx, cs, c.name)
	if err != nil {
		return nil, err
	}
	if items == nil {
		items = []json.RawMessage{}
	}
	merged, _ := json.Marshal(map[string][]json.RawMessage{c.name: items})
	return &reply{raw: merged}, nil
}

// errListWalk is a list whose pages do not end: the step fails with this
// reason (the server answered each page).
type errListWalk struct{ msg string }

func (e errListWalk) Error() string { return e.msg }

// contentText joins the text items of a result's content.
func contentText(content []mcp.Content) string {
	var b strings.Builder
	for _, c := range content {
		if t, ok := c.(*mcp.TextContent); ok {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// hasStructured is a cheap check that a raw result carries structuredContent
// before paying for a full decode.
func hasStructured(raw []byte) bool {
	return bytes.Contains(raw, []byte(`"structuredContent"`))
}

// decodeResult decodes a raw result keeping numbers exact.
func decodeResult(raw []byte) map[string]any {
	var m map[string]any
	if jsonx.Decode(raw, &m) != nil {
		return nil
	}
	return m
}

func shortJSON(b []byte) string {
	if len(b) > 60 {
		return string(b[:57]) + "..."
	}
	return string(b)
}

// codeRejectedByTransport is the SDK's code for a request the HTTP transport
// could not deliver (connection dropped, 5xx, 429): a transport failure, not
// an answer from the server.
const codeRejectedByTransport = -32005

// classification is what became of one call.
type classification struct {
	Outcome config.Outcome
	Code    *int64
	// Detail is server-provided text (an error message) for the human report.
	Detail string
}

// classify maps what a call returned to an outcome class. It is the
// one place that tells apart tool errors, protocol errors, timeouts, dead
// transports, lost sessions, broken and oversized messages (input_rejected
// and output_invalid are decided before and after the call, against the
// tool's schemas). The order of the checks matters (see SDK_NOTES §2):
// broken messages the SDK tolerates first (it lets an error win over a
// result and reads a response with neither as EOF, so only the tap can
// tell), and a stdio request the server never took (the SDK reports it as
// the call's deadline); then a message over maxMessageBytes (a stdio line,
// an HTTP body, an SSE line or event: over HTTP the SDK keeps only the
// words of the error, so the tap says so), the call's own
// deadline, the SDK's sentinel errors, JSON-RPC errors, EOF, and decoding
// failures.
func classify(callCtx context.Context, rep *reply, err error, tp *tap) classification {
	if err != nil {
		// A message over maxMessageBytes was cut off where it passed the
		// bound; whatever the SDK then said is about the cut, not the server.
		if errors.Is(err, errOversized) {
			return classification{Outcome: config.OutcomeOversizedResponse, Detail: err.Error()}
		}
		if cut := tp.oversizedErr(); cut != nil {
			return classification{Outcome: config.OutcomeOversizedResponse, Detail: cut.Error()}
		}
	}
	if m := tp.Malformed(); m != "" {
		return classification{Outcome: config.OutcomeMalformedResponse, Detail: m}
	}
	// A stdio request the server never took: the SDK reports the call's
	// deadline, but the connection is gone (see stdioConn.Write).
	if stuck := tp.Stuck(); stuck != nil {
		return classification{Outcome: config.OutcomeTransportClosed, Detail: stuck.Error()}
	}
	if err == nil {
		if rep != nil && rep.isError {
			return classification{Outcome: config.OutcomeToolError, Detail: rep.text}
		}
		return classification{Outcome: config.OutcomeOK}
	}
	if ctxOver(callCtx) && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)) {
		return classification{Outcome: config.OutcomeTimeout}
	}
	if errors.Is(err, mcp.ErrSessionMissing) {
		return classification{Outcome: config.OutcomeSessionLost, Detail: err.Error()}
	}
	if errors.Is(err, mcp.ErrConnectionClosed) {
		// Once the SDK has seen a 404 on any stream of an HTTP session it
		// fails the connection, and later calls no longer wrap
		// ErrSessionMissing; only the words remain.
		if strings.Contains(err.Error(), "session not found") {
			return classification{Outcome: config.OutcomeSessionLost, Detail: err.Error()}
		}
		return classification{Outcome: config.OutcomeTransportClosed, Detail: err.Error()}
	}
	var we *jsonrpc.Error
	if errors.As(err, &we) {
		if we.Code == codeRejectedByTransport {
			return classification{Outcome: config.OutcomeTransportClosed, Detail: we.Message}
		}
		code := we.Code
		return classification{Outcome: config.OutcomeProtocolError, Code: &code, Detail: we.Message}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return classification{Outcome: config.OutcomeTransportClosed, Detail: err.Error()}
	}
	msg := err.Error()
	for _, s := range malformedSigns {
		if strings.Contains(msg, s) {
			return classification{Outcome: config.OutcomeMalformedResponse, Detail: msg}
		}
	}
	return classification{Outcome: config.OutcomeTransportClosed, Detail: msg}
}

// ctxOver says ctx is done, or its deadline has passed: the timer that
// marks it done may not have run yet on a loaded machine, while a write
// or a wait has already seen the deadline go by.
func ctxOver(ctx context.Context) bool {
	if ctx.Err() != nil {
		return true
	}
	d, ok := ctx.Deadline()
	return ok && !time.Now().Before(d)
}

// malformedSigns are the SDK's words for a message that broke JSON-RPC or
// MCP framing (it exposes no sentinel for them).
var malformedSigns = []string{
	"invalid message version tag",
	"unrecognized content type",
	"failed to decode",
	"invalid character",
	"unexpected end of JSON",
	"cannot unmarshal",
	"unmarshal",
	"invalid message",
}

// errOversized is a message from the server that is larger than the
// suite's maxMessageBytes: a stdio line, an HTTP response body, an SSE line
// or event. The reader that notices it stops there and holds nothing more
// of it, so a server cannot make mcpcheck allocate without bound; the call
// in flight ends as oversized_response (see classify). Wherever the SDK
// turns the error into text (over HTTP it fails its connection with %v),
// the reader also marks the call's tap, so the outcome never depends on
// the SDK's words.
var errOversized = errors.New("a message from the server is larger than maxMessageBytes")

// messageLimit is the suite's bound on one message from the server; a
// suite built in code without one gets the documented default.
func messageLimit(s *config.Suite) int {
	if s == nil || s.MaxMessageBytes <= 0 {
		return config.DefaultMaxMessageBytes
	}
	return s.MaxMessageBytes
}

// # Exchanges (-v, -vv)
//
// A step's exchange is the request it sent and the answer it got, as JSON
// a user reads: the method, the parameters and the result or the JSON-RPC
// error, pretty-printed. It is what a server author looks at first when a
// step fails, and it is kept only when asked for ([Options].Exchanges):
// when nobody asked, a step keeps the raw bytes it already holds and
// nothing more, so the hot path pays one comparison.
//
// An await step sends nothing, and keeps no exchange. An exchange holds
// what the report otherwise leaves out (arguments and
// result values), so it is made safe where it is made: every value is
// decoded with exact numbers, every string and key sanitized and redacted
// (the run's redactor), a string value longer than exchangeValueChars cut
// with a marker saying how much was left out, and each side of the
// exchange cut at exchangeSideChars. The run keeps at most
// exchangeBudget characters of exchanges in all; past it a step's
// exchange names its method only, and says why.

// ExchangeLevel says which steps keep their exchange.
type ExchangeLevel uint8

// The exchange levels.
const (
	// ExchangeNone keeps no exchange (the default).
	ExchangeNone ExchangeLevel = iota
	// ExchangeFailed keeps the exchange of every failed step (-v, and the
	// HTML report).
	ExchangeFailed
	// ExchangeAll keeps every step's (-vv).
	ExchangeAll
)

const (
	// exchangeValueChars bounds one string value inside an exchange.
	exchangeValueChars = 500
	// exchangeSideChars bounds the parameters, and the result, of one
	// exchange (under the report's bound on any string, maxField).
	exchangeSideChars = 4000
	// exchangeBudget bounds the characters of exchanges one run keeps.
	exchangeBudget = 32 << 20
)

// wantsExchange reports whether a step whose status is st keeps its
// exchange.
func (r *runState) wantsExchange(st report.Status) bool {
	switch r.opts.Exchanges {
	case ExchangeAll:
		return true
	case ExchangeFailed:
		return st == report.StatusFailed
	}
	return false
}

// exchange builds the exchange of a call of c with params (encoded as
// sent), whose answer is result (raw, nil when none came) or the JSON-RPC
// error code with message.
func (r *runState) exchange(c *call, params json.RawMessage, result json.RawMessage, code *int64, message string) *report.Exchange {
	ex := &report.Exchange{Method: c.method}
	if c.kind == config.KindList {
		ex.Method = listMethods[c.name]
	}
	if r.exchanged.Load() > exchangeBudget {
		ex.Omitted = "this run already keeps " + strconv.Itoa(exchangeBudget>>20) + " MiB of exchanges"
		return ex
	}
	ex.Params = r.pretty(requestParams(c, params))
	if len(result) > 0 {
		ex.Result = r.pretty(jsonx.Value(result))
	}
	if code != nil {
		ex.Error = &report.ExchangeError{Code: *code, Message: r.clean(message, exchangeValueChars)}
	}
	r.exchanged.Add(int64(len(ex.Params) + len(ex.Result) + len(ex.Method)))
	return ex
}

// requestParams is the params member of c's request as the runner sends
// it (the progress token of _meta aside): what the step's parameters
// become on the wire for its method.
func requestParams(c *call, params json.RawMessage) any {
	v := jsonx.Value(params)
	switch c.kind {
	case config.KindTool, config.KindPrompt:
		return namedParams{Name: c.name, Arguments: v}
	case config.KindResource, config.KindSubscribe, config.KindUnsubscribe:
		return map[string]any{"uri": v}
	case config.KindSetLogLevel:
		return map[string]any{"level": v}
	case config.KindComplete:
		return v
	}
	return nil // ping, and the lists (each page's cursor is the SDK's)
}

// namedParams are the params of tools/call and prompts/get, in the order
// the SDK sends them.
type namedParams struct {
	Name      string `json:"name"`
	Arguments any    `json:"arguments,omitempty"`
}

// pretty is v, sanitized and redacted, with long strings cut, as indented
// JSON cut at exchangeSideChars ("" for nil).
func (r *runState) pretty(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case namedParams:
		x.Name, x.Arguments = safetext.Cut(r.red.String(x.Name), exchangeValueChars), cutStrings(r.red.Value(x.Arguments))
		v = x
	default:
		v = cutStrings(r.red.Value(v))
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if enc.Encode(v) != nil {
		return ""
	}
	// JSON escapes C0 controls; the sanitizer also shows C1 controls and
	// bidirectional overrides the encoder passes through.
	return safetext.Cut(safetext.Sanitize(string(bytes.TrimRight(b.Bytes(), "\n"))), exchangeSideChars)
}

// cutStrings cuts every string of a generic JSON value (already a copy
// where the redactor changed it) to exchangeValueChars, copying the
// containers it changes.
func cutStrings(v any) any {
	switch x := v.(type) {
	case string:
		if len(x) > exchangeValueChars && utf8.RuneCountInString(x) > exchangeValueChars {
			return safetext.Cut(x, exchangeValueChars)
		}
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = cutStrings(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[safetext.Cut(k, exchangeValueChars)] = cutStrings(e)
		}
		return out
	}
	return v
}

// tracer writes trace entries as JSON lines; it is safe for concurrent use
// and a nil tracer writes nothing.
type tracer struct {
	mu  sync.Mutex
	enc *json.Encoder
	red *redactor
	err error
}

func newTracer(w io.Writer, red *redactor) *tracer {
	if w == nil {
		return nil
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &tracer{enc: enc, red: red}
}

func (t *tracer) write(e report.TraceEntry) {
	if t == nil {
		return
	}
	// The trace's one funnel: every string of the entry, names and
	// argument keys included, is sanitized and redacted here.
	t.red.walk(reflect.ValueOf(&e).Elem())
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err == nil {
		t.err = t.enc.Encode(e)
	}
}

func traceTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
