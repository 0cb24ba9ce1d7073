package hostile

import (
	"context"
	"encoding/json"
	"fmt"
)

// Ids a client cannot match to anything, and ids it can mismatch: a
// client must neither invent an error from them nor count them as answers.
func init() {
	tools := []Tool{SimpleTool("echo", "Returns its text.", "text")}
	register(Mode{
		Name: "stdio-odd-ids",
		Doc:  "before answering tools/call, sends responses whose id is null, an object, an array, or missing",
		Stdio: func(ctx context.Context, c *Conn) error {
			return c.Loop(ctx, "stdio-odd-ids", tools, func(c *Conn, m *Msg, call Call) error {
				for _, id := range []string{`null`, `{"a":1}`, `[1]`, ``} {
					idPart := ""
					if id != "" {
						idPart = `"id":` + id + `,`
					}
					for _, body := range []string{`"error":{"code":-32600,"message":"odd"}`, `"result":{}`} {
						if err := c.WriteRaw(fmt.Appendf(nil, `{"jsonrpc":"2.0",%s%s}`+"\n", idPart, body)); err != nil {
							return err
						}
					}
				}
				return c.Reply(m.ID, EchoResult(call))
			})
		},
	})
	register(Mode{
		Name: "stdio-reuse-id",
		Doc:  "during tools/call, sends the client a ping request with the call's own id, then answers",
		Stdio: func(ctx context.Context, c *Conn) error {
			return c.Loop(ctx, "stdio-reuse-id", tools, func(c *Conn, m *Msg, call Call) error {
				if err := c.Send(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(m.ID), "method": "ping"}); err != nil {
					return err
				}
				for {
					a, err := c.Read()
					if err != nil {
						return err
					}
					if a.Method == "" && string(a.ID) == string(m.ID) {
						break // the client answered the ping
					}
				}
				return c.Reply(m.ID, EchoResult(call))
			})
		},
	})
}
