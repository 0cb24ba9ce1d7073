package config

import (
	"fmt"
	"strings"

	"github.com/go-openapi/jsonpointer"
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
	step, pointer, ok := strings.Cut(s, "#")
	if !ok {
		return Ref{}, fmt.Errorf("$ref %q: want stepId#/pointer", s)
	}
	if step == "" {
		return Ref{}, fmt.Errorf("$ref %q: missing step id before '#'", s)
	}
	r := Ref{Step: step, Pointer: pointer}
	if pointer == "" {
		return r, nil
	}
	p, err := jsonpointer.New(pointer)
	if err != nil { // all New refuses: a pointer that does not start with '/'
		return Ref{}, fmt.Errorf("$ref %q: pointer must start with '/'", s)
	}
	// jsonpointer passes an escape it does not know through as written;
	// here it is a mistake. Every '~' must begin a ~0 or a ~1.
	if strings.Count(pointer, "~") != strings.Count(pointer, "~0")+strings.Count(pointer, "~1") {
		return Ref{}, fmt.Errorf("$ref %q: '~' must be followed by 0 or 1", s)
	}
	r.Tokens = p.DecodedTokens()
	return r, nil
}
