package hostile

import (
	"bytes"
	"context"
	"fmt"
)

// Lines a client must not hold whole: stdio messages are lines, and a line
// is as long as the server makes it.
func init() {
	tools := []Tool{SimpleTool("echo", "Returns its text.", "text")}
	register(Mode{
		Name: "stdio-endless-line",
		Doc:  "answers tools/call with a line that never ends (no newline, ever)",
		Stdio: func(ctx context.Context, c *Conn) error {
			return c.Loop(ctx, "stdio-endless-line", tools, func(c *Conn, m *Msg, _ Call) error {
				head := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"`, m.ID)
				if err := c.WriteRaw([]byte(head)); err != nil {
					return err
				}
				chunk := bytes.Repeat([]byte("a"), 64<<10)
				for ctx.Err() == nil {
					if err := c.WriteRaw(chunk); err != nil {
						return err // the client hung up
					}
				}
				return ctx.Err()
			})
		},
	})
	register(Mode{
		Name: "stdio-huge-line",
		Doc:  "answers tools/call with a valid 200 MB response on one line",
		Stdio: func(ctx context.Context, c *Conn) error {
			return c.Loop(ctx, "stdio-huge-line", tools, func(c *Conn, m *Msg, _ Call) error {
				head := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"`, m.ID)
				if err := c.WriteRaw([]byte(head)); err != nil {
					return err
				}
				chunk := bytes.Repeat([]byte("a"), 1<<20)
				for range 200 {
					if err := c.WriteRaw(chunk); err != nil {
						return err
					}
				}
				return c.WriteRaw([]byte("\"}]}}\n"))
			})
		},
	})
}
