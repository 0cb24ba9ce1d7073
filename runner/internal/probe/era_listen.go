package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/sse"
)

// The listen-ack probe. subscriptions/listen is a long-lived request: its
// stream carries notifications and, only when the server ends it, a
// response. So the probe reads the stream itself, up to the first message
// that belongs to it (the acknowledgement, or a response to the request),
// and then ends the listen (over stdio notifications/cancelled; over HTTP
// by closing the stream).

const ackMethod = "notifications/subscriptions/acknowledged"

// listenRequested is what the probe asks to hear of.
var listenRequested = map[string]any{"toolsListChanged": true}

func (e *era) listen(ctx context.Context, c Conn, wait time.Duration) (Exchange, Verdict, string) {
	const want = ackMethod + " first on the stream, naming only the requested toolsListChanged"
	call := eraCall{method: "subscriptions/listen", params: map[string]any{"notifications": listenRequested}}
	msg, qid := e.message(call, "listen-ack")
	var ex Exchange
	switch c := c.(type) {
	case *HTTP:
		ex = c.firstOfStream(ctx, msg, qid, call.headers, wait)
	case *Stdio:
		ex = c.firstOf(ctx, msg, qid, wait)
	default:
		return ex, Verdict{}, "no raw connection that can read a stream"
	}
	if ex, v, s, gone := eraGone(ex, want); gone {
		return ex, v, s
	}
	r := ex.Reply()
	switch {
	case r == nil:
		return eraVerdict(ex, Fail, want, "no acknowledgement within "+wait.String())
	case r.Method != ackMethod:
		return eraVerdict(ex, Fail, want, Describe(&ex)+" before any acknowledgement")
	}
	var ack struct {
		Params struct {
			Notifications map[string]json.RawMessage `json:"notifications"`
		} `json:"params"`
	}
	json.Unmarshal(r.Raw, &ack)
	var extra []string
	for k, v := range ack.Params.Notifications {
		if _, asked := listenRequested[k]; !asked && !emptyJSON(v) {
			extra = append(extra, k)
		}
	}
	if len(extra) > 0 {
		return eraVerdict(ex, Fail, want, "an acknowledgement naming types not requested: "+strings.Join(slices.Sorted(slices.Values(extra)), ", "))
	}
	return eraVerdict(ex, Pass, want, "the acknowledgement first, naming only what was requested")
}

// emptyJSON reports whether v says nothing: false, null, [], {} or "".
func emptyJSON(v json.RawMessage) bool {
	switch string(bytes.TrimSpace(v)) {
	case "false", "null", "[]", "{}", `""`, "":
		return true
	}
	return false
}

// belongs reports whether m is the first message of a listen with id: its
// acknowledgement or a response to it.
func belongs(m *Message, id string) bool { return m.Method == ackMethod || m.IsResponse(id) }

// firstOf writes msg and reads until the first message of the listen
// (kept as the exchange's reply), then cancels the listen.
func (c *Stdio) firstOf(ctx context.Context, msg []byte, id string, wait time.Duration) Exchange {
	c.Drain()
	c.Write(msg)
	defer c.Write(fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%s,"reason":"mcpcheck protocol probe"}}`, id))
	return c.readUntil(ctx, wait, func(line []byte, ex *Exchange) bool {
		if m := Parse(line); belongs(&m, id) {
			ex.Replies = append(ex.Replies, m)
			return true
		}
		return false
	})
}

// firstOfStream POSTs msg and reads its event stream until the first
// message of the listen, then closes the stream.
func (c *HTTP) firstOfStream(ctx context.Context, msg []byte, id string, edit func(http.Header), wait time.Duration) Exchange {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	var ex Exchange
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(msg))
	if err != nil {
		ex.Err = err
		return ex
	}
	req.Header = c.headers()
	edit(req.Header)
	resp, err := c.client.Do(req)
	if err != nil {
		ex.Err = err
		ex.Gone = ctx.Err() == nil
		return ex
	}
	defer resp.Body.Close()
	ex.Status = resp.StatusCode
	p := sse.Parser{Max: c.limit}
	var whole bytes.Buffer
	stream := strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		if stream && n > 0 {
			msgs, _ := p.Feed(buf[:n])
			for _, b := range msgs {
				if m := Parse(b); belongs(&m, id) {
					ex.Replies = append(ex.Replies, m)
					return ex
				}
			}
		} else if n > 0 && whole.Len() < c.limit {
			whole.Write(buf[:n])
		}
		if err != nil {
			break
		}
	}
	if m := Parse(whole.Bytes()); !stream && belongs(&m, id) {
		ex.Replies = append(ex.Replies, m)
	}
	return ex
}
