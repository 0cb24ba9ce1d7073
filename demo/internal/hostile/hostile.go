// Package hostile is the demo's hostile profile: MCP servers written to
// break the client that tests them (`mcpcheck demo --hostile MODE`). Each
// mode is one attack in a file of its own, registered by name; mcpcheck's
// own tests drive them over stdio, Streamable HTTP and legacy SSE to show
// that every read is bounded, every wait has a deadline, no secret or
// terminal escape gets out and no process is left behind.
//
// A mode speaks just enough JSON-RPC to get past the handshake (see
// [Conn]): the SDK's server would refuse to misbehave the way an attacker
// does. Nothing here is reachable unless --hostile is given.
package hostile

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strings"
)

// CanaryEnv is the variable a test sets to a secret that must appear in no
// output; modes that leak echo its value back to the client.
const CanaryEnv = "HOSTILE_CANARY"

// Mode is one hostile behaviour.
type Mode struct {
	// Name is what --hostile takes.
	Name string
	// Doc says in one line what the mode does to the client.
	Doc string
	// Stdio serves the mode on the process's stdin and stdout; nil when
	// the mode has no stdio form.
	Stdio func(ctx context.Context, c *Conn) error
	// HTTP returns the mode's handler (Streamable HTTP at /mcp, legacy
	// SSE at /sse and its POST URL); nil when the mode has no HTTP form.
	// addr is the listener's host:port.
	HTTP func(addr string) http.Handler
}

var modes = map[string]Mode{}

// register adds m; each mode's file calls it from init.
func register(m Mode) {
	if _, dup := modes[m.Name]; dup {
		panic("hostile: mode registered twice: " + m.Name)
	}
	modes[m.Name] = m
}

// Lookup returns the mode called name.
func Lookup(name string) (Mode, bool) {
	m, ok := modes[name]
	return m, ok
}

// Names lists the modes, sorted.
func Names() []string {
	out := make([]string, 0, len(modes))
	for n := range modes {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Usage lists the modes with their docs, one per line, for --help.
func Usage() string {
	var b strings.Builder
	for _, n := range Names() {
		m := modes[n]
		var kinds []string
		if m.Stdio != nil {
			kinds = append(kinds, "stdio")
		}
		if m.HTTP != nil {
			kinds = append(kinds, "http")
		}
		fmt.Fprintf(&b, "  %-24s %s (%s)\n", n, m.Doc, strings.Join(kinds, ", "))
	}
	return b.String()
}

// Canary is the test's secret, or "" when none was set.
func Canary() string { return os.Getenv(CanaryEnv) }

// ServeStdio serves the mode over in and out until it returns or ctx ends.
func ServeStdio(ctx context.Context, m Mode, in io.Reader, out io.Writer) error {
	if m.Stdio == nil {
		return fmt.Errorf("hostile mode %s has no stdio form (use --http)", m.Name)
	}
	return m.Stdio(ctx, NewConn(in, out))
}
