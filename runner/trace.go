package runner

import (
	"encoding/json"
	"io"
	"reflect"
	"sync"
	"time"

	"github.com/mcpcheck/mcpcheck/runner/report"
)

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
