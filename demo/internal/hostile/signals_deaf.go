package hostile

import (
	"context"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"
)

// The sigterm-deaf modes are servers that will not stop: they ignore
// SIGTERM, keep running when their input ends, and never answer the call
// (or the handshake) they were sent. A client must still end its run within
// its timeouts, stop at the first Ctrl-C or SIGTERM with its reports
// written, and leave no such process behind (it takes SIGKILL).
func init() {
	tools := []Tool{SimpleTool("wait", "Never answers.", "text")}
	register(Mode{
		Name: "sigterm-deaf",
		Doc:  "never answers tools/call, ignores SIGTERM and the end of its input",
		Stdio: func(ctx context.Context, c *Conn) error {
			deaf()
			c.Loop(ctx, "sigterm-deaf", tools, func(*Conn, *Msg, Call) error {
				mark()
				return nil
			})
			return linger()
		},
		HTTP: func(string) http.Handler {
			return Streamable("sigterm-deaf", tools, func(w http.ResponseWriter, _ *http.Request, _ *Msg, _ Call) {
				mark()
				// An event stream that is opened and never written to; the
				// request's end is ignored too (the listener's Close ends it).
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(http.StatusOK)
				w.(http.Flusher).Flush()
				time.Sleep(time.Hour)
			})
		},
	})
	register(Mode{
		Name: "sigterm-deaf-init",
		Doc:  "never answers initialize, ignores SIGTERM and the end of its input",
		Stdio: func(ctx context.Context, c *Conn) error {
			deaf()
			for ctx.Err() == nil {
				m, err := c.Read()
				if err != nil {
					break
				}
				if m.Method == "initialize" {
					mark()
				}
			}
			return linger()
		},
	})
	register(Mode{
		Name: "sigterm-deaf-reader",
		Doc:  "stops reading its input at the first tools/call and never answers, ignoring SIGTERM",
		Stdio: func(ctx context.Context, c *Conn) error {
			deaf()
			c.Loop(ctx, "sigterm-deaf-reader", tools, func(*Conn, *Msg, Call) error {
				mark()
				// Returning an error ends the loop: nothing is read again,
				// so the client's next large write fills the pipe.
				return errStopReading
			})
			return linger()
		},
	})
}

// MarkEnv names a file the sigterm-deaf modes write their process id to
// when the request they will never answer arrives, so that a test knows
// the call is in flight (and which process must be gone after the run).
const MarkEnv = "HOSTILE_MARK"

func mark() {
	if path := os.Getenv(MarkEnv); path != "" {
		_ = os.WriteFile(path, []byte(strconv.Itoa(os.Getpid())), 0o644)
	}
}

type stopReading struct{}

func (stopReading) Error() string { return "stopped reading" }

var errStopReading error = stopReading{}

// deaf ignores SIGTERM (and SIGINT, which a terminal's Ctrl-C would send
// the whole foreground group).
func deaf() { signal.Ignore(syscall.SIGTERM, syscall.SIGINT) }

// linger keeps the process alive after its input is gone, until SIGKILL.
// (A sleep, not an empty select: the runtime would call that a deadlock.)
func linger() error {
	for {
		time.Sleep(time.Hour)
	}
}
