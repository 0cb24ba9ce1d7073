package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/internal/jsonx"
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
