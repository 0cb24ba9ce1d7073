package runner

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"io"
	"reflect"
	"sync"
	"time"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/internal/jsonx"
	"github.com/mcpcheck/mcpcheck/internal/safetext"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

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
