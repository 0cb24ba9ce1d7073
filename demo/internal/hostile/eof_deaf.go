package hostile

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// The eof-deaf mode is a server that is not stuck but does not end when
// its input does: it never answers the call it was sent and keeps running
// after EOF (as server-everything does while a long operation's timers
// run), until SIGTERM, which it honours. Ctrl-C must end a run against it
// within a second: the client closes stdin and sends SIGTERM soon after,
// not a whole grace later. How soon, the server itself measures: from the
// end of its input to SIGTERM, written to the mark file's path + ".term"
// (in milliseconds), so a test reads what the client did, not how fast a
// loaded machine ran the rest of the shutdown.
func init() {
	tools := []Tool{SimpleTool("wait", "Never answers.", "text")}
	register(Mode{
		Name: "eof-deaf",
		Doc:  "never answers tools/call and keeps running after its input ends; SIGTERM ends it",
		Stdio: func(ctx context.Context, c *Conn) error {
			term := make(chan os.Signal, 1)
			signal.Notify(term, syscall.SIGTERM)
			c.Loop(ctx, "eof-deaf", tools, func(*Conn, *Msg, Call) error {
				mark()
				return nil
			})
			eof := time.Now()
			<-term
			if path := os.Getenv(MarkEnv); path != "" {
				_ = os.WriteFile(path+".term", fmt.Appendf(nil, "%d", time.Since(eof).Milliseconds()), 0o644)
			}
			// Ended by the signal, as without a handler.
			signal.Reset(syscall.SIGTERM)
			syscall.Kill(os.Getpid(), syscall.SIGTERM)
			return linger()
		},
	})
}
