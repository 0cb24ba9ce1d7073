package runner

import (
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"
)

// Redacted replaces secret values in every output.
const Redacted = "[REDACTED]"

// redactor removes the credential values the run was given (envFromEnv and
// headersFromEnv values) from any text before it reaches a report or the
// terminal.
type redactor struct {
	secrets []string // longest first, so a secret containing another is replaced whole
	// endpoint and origin: error messages from the HTTP stack quote the
	// whole endpoint URL; reports show only its origin.
	endpoint, origin string
}

func newRedactor(values []string, endpoint string) *redactor {
	r := &redactor{endpoint: endpoint, origin: endpointOrigin(endpoint)}
	seen := map[string]bool{}
	add := func(s string) {
		// Very short values would turn ordinary text into noise; they are
		// still never printed by mcpcheck itself.
		if len(s) < 4 || seen[s] {
			return
		}
		seen[s] = true
		r.secrets = append(r.secrets, s)
	}
	for _, v := range values {
		add(v)
		// "Bearer abc..." — the token alone is as secret as the header.
		if _, tok, ok := strings.Cut(v, " "); ok {
			add(strings.TrimSpace(tok))
		}
	}
	sort.Slice(r.secrets, func(i, j int) bool { return len(r.secrets[i]) > len(r.secrets[j]) })
	return r
}

// String redacts s.
func (r *redactor) String(s string) string {
	if r == nil {
		return s
	}
	for _, sec := range r.secrets {
		if strings.Contains(s, sec) {
			s = strings.ReplaceAll(s, sec, Redacted)
		}
	}
	if r.endpoint != "" && r.endpoint != r.origin && strings.Contains(s, r.endpoint) {
		s = strings.ReplaceAll(s, r.endpoint, r.origin)
	}
	return s
}

// Value redacts every string inside a generic JSON value (a copy is made
// only where something changes).
func (r *redactor) Value(v any) any {
	if r == nil || len(r.secrets) == 0 {
		return v
	}
	switch x := v.(type) {
	case string:
		return r.String(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = r.Value(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[r.String(k)] = r.Value(e)
		}
		return out
	}
	return v
}

var controlSeq = regexp.MustCompile(`\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[@-Z\\-_]`)

// Clean makes server-provided text safe for a terminal: terminal control
// sequences and other control characters (except tab) are removed, invalid
// UTF-8 is replaced, and the text is cut to max runes.
func Clean(s string, max int) string {
	s = controlSeq.ReplaceAllString(s, "")
	var b strings.Builder
	n := 0
	for _, c := range s {
		if c == utf8.RuneError || (c < 0x20 && c != '\t' && c != '\n') || c == 0x7f || (c >= 0x80 && c < 0xa0) {
			if c == utf8.RuneError {
				b.WriteRune('\uFFFD')
			}
			continue
		}
		if n >= max {
			b.WriteString("…")
			break
		}
		b.WriteRune(c)
		n++
	}
	return b.String()
}
