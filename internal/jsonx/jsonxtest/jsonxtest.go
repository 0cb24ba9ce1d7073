// Package jsonxtest is test support: JSON written in a test, decoded the
// way mcpcheck decodes what a server sends (numbers exact, see jsonx).
package jsonxtest

import (
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/jsonx"
)

// Value decodes s, failing the test when it is not JSON.
func Value(t testing.TB, s string) any {
	t.Helper()
	var v any
	if err := jsonx.Decode([]byte(s), &v); err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	return v
}
