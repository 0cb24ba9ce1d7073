package runner

import (
	"encoding/json"
	"io"
	"reflect"
	"sync"
	"time"

	"github.com/mcpcheck/mcpcheck/config"
)

// TraceEntry is one line of a --trace JSONL file: one tool call, with what
// the report leaves out (the arguments, redacted, and when it started), or
// one tool that generation skipped.
type TraceEntry struct {
	Scenario   string          `json:"scenario,omitempty"`
	Step       string          `json:"step,omitempty"`
	Origin     config.Origin   `json:"origin,omitempty"`
	Kind       config.StepKind `json:"kind,omitempty"`
	Tool       string          `json:"tool,omitempty"`
	Target     string          `json:"target,omitempty"`
	Case       string          `json:"case,omitempty"`
	Property   string          `json:"property,omitempty"`
	Outcome    config.Outcome  `json:"outcome,omitempty"`
	Status     Status          `json:"status,omitempty"`
	Detail     string          `json:"detail,omitempty"`
	Arguments  map[string]any  `json:"arguments,omitempty"`
	StartedAt  string          `json:"startedAt,omitempty"`
	DurationMs float64         `json:"durationMs"`
	Skipped    string          `json:"skipped,omitempty"`
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

func (t *tracer) write(e TraceEntry) {
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
