package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// reply is what came back from one call, whatever its method: the JSON-RPC
// result as the server sent it, and what the checkers read of it.
type reply struct {
	raw json.RawMessage
	// isError is a tool result's isError flag.
	isError bool
	// text is the answer's text (a tool result's text content, joined by
	// newlines); hasContent says whether it had any content item at all.
	text       string
	hasContent bool
}

// do makes the call on sess with params (the encoded arguments). This is
// the one place that knows the methods: the scheduler, the executor and the
// classification are the same for all. The result's raw bytes come from the
// tap in ctx (see tap.go), so numbers keep their exact text.
func (c *call) do(ctx context.Context, sess *session, params json.RawMessage) (*reply, error) {
	switch c.method {
	case methodToolsCall:
		res, err := sess.cs.CallTool(ctx, &mcp.CallToolParams{Name: c.name, Arguments: params})
		if err != nil || res == nil {
			return nil, err
		}
		rep := &reply{raw: tapFrom(ctx).Result(), isError: res.IsError, text: contentText(res.Content), hasContent: len(res.Content) > 0}
		if rep.raw == nil {
			rep.raw, _ = json.Marshal(res)
		}
		return rep, nil
	}
	return nil, fmt.Errorf("method %s is not supported", c.method)
}

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
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if dec.Decode(&m) != nil {
		return nil
	}
	return m
}
