package hostile

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
)

// The secrets-canary mode echoes the test's secret everywhere a server's
// words reach the client's outputs: in a tool's name, its description, a
// result's text, the keys of structuredContent (which an output-schema
// violation prints as its path), a tool error, a JSON-RPC error message and
// stderr; each whole, split by an SGR reset (ESC [0m) and split by a C0
// control (\x01). Over stdio the secret is $HOSTILE_CANARY; over HTTP it is
// also the value of any request header named in canaryHeaders (the token of
// "Bearer TOKEN"), so a test can give it with --header.
func init() {
	register(Mode{
		Name: "secrets-canary",
		Doc:  "echoes $HOSTILE_CANARY (or the Authorization / X-Canary header) in names, keys, text, errors and stderr",
		Stdio: func(ctx context.Context, c *Conn) error {
			canary := Canary()
			// Before the handshake, as a server's log line would: record
			// passes stderr through, the runner keeps its tail.
			fmt.Fprintf(os.Stderr, "starting with %s\n", canaryForms(canary))
			tools := canaryTools(canary)
			return c.Loop(ctx, "secrets-canary", tools, func(c *Conn, m *Msg, call Call) error {
				if call.Name == "crash" {
					fmt.Fprintf(os.Stderr, "fatal: %s\n", canaryForms(canary))
					os.Exit(3)
				}
				if msg, ok := canaryRPCError(call, canary); ok {
					return c.Send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32000, "message": msg}})
				}
				return c.Reply(m.ID, canaryResult(call, canary))
			})
		},
		HTTP: func(string) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				canary := Canary()
				for _, h := range canaryHeaders {
					if v := r.Header.Get(h); v != "" {
						_, tok, ok := strings.Cut(v, " ")
						if !ok {
							tok = v
						}
						canary = tok
					}
				}
				Streamable("secrets-canary", canaryTools(canary), func(w http.ResponseWriter, _ *http.Request, m *Msg, call Call) {
					if msg, ok := canaryRPCError(call, canary); ok || call.Name == "crash" {
						WriteJSON(w, map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32000, "message": msg}})
						return
					}
					WriteJSON(w, map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": canaryResult(call, canary)})
				}).ServeHTTP(w, r)
			})
		},
	})
}

// canaryHeaders are the request headers whose value the HTTP form echoes.
var canaryHeaders = []string{"Authorization", "X-Canary"}

// canarySplits are the secret cut in two by bytes a sanitizer that strips
// (rather than shows) control characters would remove, joining the halves.
func canarySplits(canary string) []string {
	k := len(canary) / 2
	return []string{canary[:k] + "\x1b[0m" + canary[k:], canary[:k] + "\x01" + canary[k:]}
}

// canaryForms is the secret whole and split, for one line of text.
func canaryForms(canary string) string {
	return "token " + canary + " split " + strings.Join(canarySplits(canary), " and ")
}

func canaryTools(canary string) []Tool {
	named := SimpleTool(canary, "A tool named after the secret.", "text")
	echo := SimpleTool("echo", "Echoes "+canaryForms(canary)+".", "text")
	// Every value must be a string: the number under each key is a
	// violation whose path is the key.
	echo["outputSchema"] = map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}}
	tools := []Tool{named, echo,
		SimpleTool("say", "Says the secret in text and keys (no outputSchema).", "text"),
		SimpleTool("fail", "Fails with the secret in its error.", "text"),
		SimpleTool("rpcerror", "Answers a JSON-RPC error quoting the secret.", "text"),
		SimpleTool("crash", "Writes the secret on stderr and exits.", "text"),
	}
	return readOnly(tools)
}

func canaryResult(call Call, canary string) map[string]any {
	text := "echo " + canaryForms(canary)
	switch call.Name {
	case "echo", "say":
		keys := map[string]any{canary: 1}
		for _, s := range canarySplits(canary) {
			keys[s] = 2
		}
		res := TextResult(text)
		res["structuredContent"] = keys
		return res
	case "fail":
		res := TextResult("failed: " + text)
		res["isError"] = true
		return res
	}
	return TextResult(text)
}

func canaryRPCError(call Call, canary string) (string, bool) {
	return "refused: " + canaryForms(canary), call.Name == "rpcerror"
}
