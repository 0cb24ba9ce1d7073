package hostile

import (
	"context"
	"net/http"
)

// The honest mode is the control: the same minimal server, behaving. A
// test that shows a hostile mode is caught runs this one too, to show the
// rule does not fire on a server that only looks the same.
func init() {
	tools := []Tool{SimpleTool("echo", "Returns its text.", "text")}
	register(Mode{
		Name: "honest",
		Doc:  "answers echo correctly (the control)",
		Stdio: func(ctx context.Context, c *Conn) error {
			return c.Loop(ctx, "honest", tools, func(c *Conn, m *Msg, call Call) error {
				return c.Reply(m.ID, EchoResult(call))
			})
		},
		HTTP: func(string) http.Handler {
			return Streamable("honest", tools, func(w http.ResponseWriter, _ *http.Request, m *Msg, call Call) {
				WriteJSON(w, map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": EchoResult(call)})
			})
		},
	})
}
