package hostile

import (
	"context"
)

// The secrets-list-twice mode answers tools/list twice: the client's
// warning about the second answer must name the call it belongs to,
// discovery, which has no step (it once printed "warning : ...").
func init() {
	tools := readOnly([]Tool{SimpleTool("echo", "Returns its text.", "text")})
	register(Mode{
		Name: "secrets-list-twice",
		Doc:  "answers tools/list twice",
		Stdio: func(ctx context.Context, c *Conn) error {
			return c.Requests(ctx, func(m *Msg) error {
				res, ok := Answer("secrets-list-twice", tools, m)
				if !ok {
					res = TextResult("echo")
				}
				if err := c.Reply(m.ID, res); err != nil {
					return err
				}
				if m.Method == "tools/list" {
					return c.Reply(m.ID, res)
				}
				return nil
			})
		},
	})
}
