package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"time"
)

// The cancellation probe asks for progress: its call carries
// _meta.progressToken (cancelToken), so that a tool that reports progress
// does, and what it sends after the cancellation and after its own result
// can be judged. Every other call mcpcheck makes asks for none, as a plain
// client does.
//
// Which tool it calls (the first, by name, of the read-only tools, with
// valid arguments): one whose name promises a slow call ([Slow]); failing
// that, one whose contract does ([SlowContract]): a description that says
// it is long-running, slow or reports progress, or an argument that sets
// a duration (duration, delay, seconds, sleep, wait). Tools that answer
// within CancelAfter skip the probe.

// cancelToken is the cancellation probe's progress token.
const cancelToken = `"mcpcheck-probe-cancellation"`

var (
	slowDescription = regexp.MustCompile(`(?i)\b(long[- ]running|slow|takes (a|several|\d+) (second|minute)s?|progress (updates|notifications)|reports? progress)\b`)
	durationArg     = regexp.MustCompile(`(?i)^(duration|delay|delay_?ms|delay_?seconds|seconds|sleep|sleep_?ms|wait|wait_?ms|wait_?seconds)$`)
)

// SlowContract reports whether a tool's description or inputSchema
// promises a call slow enough to cancel (see above).
func SlowContract(description string, inputSchema json.RawMessage) bool {
	if slowDescription.MatchString(description) {
		return true
	}
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(inputSchema, &s) != nil {
		return false
	}
	for name := range s.Properties {
		if durationArg.MatchString(name) {
			return true
		}
	}
	return false
}

// watchCancelled reads for up to d after the cancellation: the responses
// to id, and the progress notifications with the probe's token that came
// after the first of them (the order on one stdout is the server's own).
func (c *Stdio) watchCancelled(ctx context.Context, id string, d time.Duration) Exchange {
	return c.readUntil(ctx, d, func(line []byte, ex *Exchange) bool {
		m := Parse(line)
		switch {
		case m.IsResponse(id):
			ex.Replies = append(ex.Replies, m)
		case len(ex.Replies) > 0 && m.Method == "notifications/progress" && progressOf(line) == cancelToken:
			ex.ProgressAfterResult++
		}
		return false
	})
}

// progressOf is the progress token of a progress notification, as a JSON
// text.
func progressOf(line []byte) string {
	var n struct {
		Params struct {
			Token json.RawMessage `json:"progressToken"`
		} `json:"params"`
	}
	if json.Unmarshal(line, &n) != nil {
		return ""
	}
	return string(bytes.TrimSpace(n.Params.Token))
}
