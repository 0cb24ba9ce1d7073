package hostile

import (
	"context"
	"fmt"
	"os"
	"strconv"
)

// Servers that stop taking what the client writes, or bury it in requests
// of their own: every write and every wait of the client needs a deadline.
func init() {
	tools := []Tool{SimpleTool("echo", "Returns its text.", "text")}
	register(Mode{
		Name: "stdio-stop-reading",
		Doc:  "never reads its stdin again once tools/list is answered",
		Stdio: func(ctx context.Context, c *Conn) error {
			for {
				m, err := c.Read()
				if err != nil {
					return err
				}
				if !m.IsRequest() {
					continue
				}
				res, ok := Answer("stdio-stop-reading", tools, m)
				if !ok {
					continue
				}
				if err := c.Reply(m.ID, res); err != nil {
					return err
				}
				if m.Method == "tools/list" {
					<-ctx.Done() // stdin is never read again
					return ctx.Err()
				}
			}
		},
	})
	register(Mode{
		Name: "stdio-request-flood",
		Doc:  "on tools/call, sends ping requests without end and never reads again",
		Stdio: func(ctx context.Context, c *Conn) error {
			return c.Loop(ctx, "stdio-request-flood", tools, func(c *Conn, m *Msg, _ Call) error {
				for i := 0; ctx.Err() == nil; i++ {
					if err := c.Send(map[string]any{"jsonrpc": "2.0", "id": fmt.Sprintf("flood-%d", i), "method": "ping"}); err != nil {
						return err
					}
				}
				return ctx.Err()
			})
		},
	})
	register(Mode{
		Name: "stdio-request-storm",
		Doc:  "on tools/call, sends 30,000 ping requests, reads their answers, then answers",
		Stdio: func(ctx context.Context, c *Conn) error {
			n := 30000
			if v, err := strconv.Atoi(os.Getenv("HOSTILE_STORM_REQUESTS")); err == nil && v > 0 {
				n = v // a test may ask for a bigger storm
			}
			return c.Loop(ctx, "stdio-request-storm", tools, func(c *Conn, m *Msg, _ Call) error {
				go func() {
					for i := range n {
						if c.Send(map[string]any{"jsonrpc": "2.0", "id": fmt.Sprintf("storm-%d", i), "method": "ping"}) != nil {
							return
						}
					}
				}()
				for answered := 0; answered < n; {
					a, err := c.Read()
					if err != nil {
						return err
					}
					if a.Method == "" {
						answered++
					}
				}
				return c.Reply(m.ID, TextResult("after the storm"))
			})
		},
	})
}
