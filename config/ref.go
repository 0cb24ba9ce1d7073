package config

import (
	"fmt"
	"strings"
)

// Ref is a parsed `$ref` marker: `stepId#/json/pointer`. The pointer is an
// RFC 6901 pointer into the referenced step's result object
// (`{content, structuredContent, isError}`), with `~1` for `/` and `~0` for `~`.
type Ref struct {
	Step    string
	Pointer string   // as written, starting with "/" (or "" for the whole result)
	Tokens  []string // unescaped reference tokens
}

// RefMarker reports whether v is a `$ref` marker: an object whose sole
// property is "$ref" with a string value. Any other object that happens to
// contain "$ref" is ordinary data and passes through untouched.
func RefMarker(v any) (string, bool) {
	m, ok := v.(map[string]any)
	if !ok || len(m) != 1 {
		return "", false
	}
	s, ok := m["$ref"].(string)
	return s, ok
}

// ParseRef parses `stepId#/pointer`. The step id is everything before the
// first '#'; the pointer must be empty or start with '/', and every '~' must
// be followed by '0' or '1'.
func ParseRef(s string) (Ref, error) {
	i := strings.IndexByte(s, '#')
	if i < 0 {
		return Ref{}, fmt.Errorf("$ref %q: want stepId#/pointer", s)
	}
	r := Ref{Step: s[:i], Pointer: s[i+1:]}
	if r.Step == "" {
		return Ref{}, fmt.Errorf("$ref %q: missing step id before '#'", s)
	}
	if r.Pointer == "" {
		return r, nil
	}
	if r.Pointer[0] != '/' {
		return Ref{}, fmt.Errorf("$ref %q: pointer must start with '/'", s)
	}
	for _, tok := range strings.Split(r.Pointer[1:], "/") {
		var b strings.Builder
		for j := 0; j < len(tok); j++ {
			if tok[j] != '~' {
				b.WriteByte(tok[j])
				continue
			}
			if j+1 >= len(tok) || (tok[j+1] != '0' && tok[j+1] != '1') {
				return Ref{}, fmt.Errorf("$ref %q: '~' must be followed by 0 or 1", s)
			}
			if tok[j+1] == '0' {
				b.WriteByte('~')
			} else {
				b.WriteByte('/')
			}
			j++
		}
		r.Tokens = append(r.Tokens, b.String())
	}
	return r, nil
}
