package hostile

import "context"

// The eof-deaf mode is a server that is not stuck but does not end when
// its input does: it never answers the call it was sent and keeps running
// after EOF (as server-everything does while a long operation's timers
// run), until SIGTERM, which it honours. Ctrl-C must end a run against it
// within a second: the client closes stdin and sends SIGTERM soon after,
// not a whole grace later.
func init() {
	tools := []Tool{SimpleTool("wait", "Never answers.", "text")}
	register(Mode{
		Name: "eof-deaf",
		Doc:  "never answers tools/call and keeps running after its input ends; SIGTERM ends it",
		Stdio: func(ctx context.Context, c *Conn) error {
			c.Loop(ctx, "eof-deaf", tools, func(*Conn, *Msg, Call) error {
				mark()
				return nil
			})
			return linger()
		},
	})
}
