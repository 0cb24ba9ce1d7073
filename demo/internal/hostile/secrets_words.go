package hostile

import (
	"context"
	"net/http"
	"strings"
)

// Two servers for the output rules that are not about attacks on the
// terminal:
//
//   - secrets-words is honest: its descriptions and answers hold the
//     ordinary words "string", "false" and "8080" (and the URL
//     http://127.0.0.1:8080/), which a test also gives as --env values. A
//     redactor that treats every --env value as a secret rewrites them.
//   - secrets-long-pattern declares string properties whose pattern is
//     1 MiB long, and a tool with a 100 KiB name and a 1 MiB description:
//     a human report that quotes them must cut them.
func init() {
	words := readOnly([]Tool{SimpleTool("describe", HonestWords, "text")})
	register(Mode{
		Name: "secrets-words",
		Doc:  `honest server whose descriptions and answers say "string", "false" and "8080"`,
		Stdio: func(ctx context.Context, c *Conn) error {
			return c.Loop(ctx, "secrets-words", words, func(c *Conn, m *Msg, call Call) error {
				return c.Reply(m.ID, TextResult(HonestWords))
			})
		},
		HTTP: func(string) http.Handler {
			return Streamable("secrets-words", words, func(w http.ResponseWriter, _ *http.Request, m *Msg, call Call) {
				WriteJSON(w, map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": TextResult(HonestWords)})
			})
		},
	})

	register(Mode{
		Name: "secrets-long-pattern",
		Doc:  "tools with a 1 MiB pattern (one that does not compile), a 100 KiB name and a 1 MiB description",
		Stdio: func(ctx context.Context, c *Conn) error {
			return c.Loop(ctx, "secrets-long-pattern", longTools(), func(c *Conn, m *Msg, call Call) error {
				return c.Reply(m.ID, TextResult("found"))
			})
		},
		HTTP: func(string) http.Handler {
			return Streamable("secrets-long-pattern", longTools(), func(w http.ResponseWriter, _ *http.Request, m *Msg, call Call) {
				WriteJSON(w, map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": TextResult("found")})
			})
		},
	})
}

// longTools are secrets-long-pattern's tools, made when the mode is served:
// their ~4 MB of strings would otherwise be built by every process that
// links this package (every mcpcheck and every demo server), at its start.
func longTools() []Tool {
	return readOnly([]Tool{{"name": "find", "description": "Finds by code.", "inputSchema": map[string]any{
		"type":     "object",
		"required": []any{"code"},
		"properties": map[string]any{
			"code": map[string]any{"type": "string", "pattern": LongPattern()},
		},
	}}, {"name": "find_broken", "description": "Finds by a pattern that does not compile.", "inputSchema": map[string]any{
		"type":       "object",
		"properties": map[string]any{"code": map[string]any{"type": "string", "pattern": "(" + LongPattern()}},
	}}, SimpleTool("long_"+strings.Repeat("n", 100<<10), "A 100 KiB name and a 1 MiB description: "+LongPattern(), "text")})
}

// HonestWords is what secrets-words says, in its description and its
// answers.
const HonestWords = "The message string is required; false positive of synthetic-input; listens on http://127.0.0.1:8080/ (port 8080)."

// LongPattern is secrets-long-pattern's 1 MiB pattern (find_broken's is
// the same with an unclosed group): a character class
// spelt out at length, which any regexp engine compiles to a few ranges.
func LongPattern() string {
	return "^[" + strings.Repeat("abcdefghijklmnop", 1<<20/16) + "]{1,8}$"
}

// readOnly marks tools read-only, so that quick mode's generated checks
// call them (it calls no tool without the hint).
func readOnly(tools []Tool) []Tool {
	for _, t := range tools {
		t["annotations"] = map[string]any{"readOnlyHint": true}
	}
	return tools
}
