package runner

// Rules that keep a verdict honest on any server (issue 19): what counts as
// an empty answer, a crossed response, a latency outlier, a covered tool
// and a grade with enough data behind it.

import (
	"bytes"
	"encoding/json"
)

// mayBeEmpty reports whether t may honestly succeed with no content: it is
// not annotated read-only and declares no outputSchema, so it may be
// called for a side effect (the spec allows an empty content array). A
// read-only or structured tool was asked for something, and an empty
// answer is a fidelity failure.
func mayBeEmpty(t tool) bool {
	return !isReadOnly(t) && !declared(t.OutputSchema)
}

// declared reports whether a raw schema member is present and not null.
func declared(raw json.RawMessage) bool {
	s := bytes.TrimSpace(raw)
	return len(s) > 0 && !bytes.Equal(s, []byte("null"))
}
