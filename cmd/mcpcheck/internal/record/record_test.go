package record

import (
	"strings"
	"testing"
)

func identity(s string) string { return s }

// TestRefsAndOrder: a reused id from an earlier answer becomes a $ref, a
// value the client itself sent earlier does not, answers may come out of
// order, and batches count.
func TestRefsAndOrder(t *testing.T) {
	s := New()
	s.Client([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
	s.Server([]byte(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}`))
	s.Client([]byte(`[{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"make","arguments":{"label":"mine-1"}}},` +
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"make","arguments":{"n":12345678901234567890}}}]`))
	s.Server([]byte(`{"jsonrpc":"2.0","id":3,"result":{"content":[],"structuredContent":{"id":"obj-7","label":"mine-1"}}}`))
	s.Server([]byte(`{"jsonrpc":"2.0","id":2,"result":{"content":[],"structuredContent":{"id":"obj-6","label":"mine-1"}}}`))
	s.Client([]byte(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"use","arguments":{"id":"obj-7","label":"mine-1"}}}`))
	s.Server([]byte(`{"jsonrpc":"2.0","id":4,"result":{"content":[],"isError":true}}`))
	s.Client([]byte(`{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"x://gone"}}`))
	s.Server([]byte(`{"jsonrpc":"2.0","id":5,"error":{"code":-32002,"message":"not found"}}`))
	s.Client([]byte(`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"never-answered"}}`))
	rec, err := s.Fixture(Target{Command: []string{"srv"}}, []string{"2025-11-25"}, identity)
	if err != nil {
		t.Fatal(err)
	}
	y := string(rec.YAML)
	for _, want := range []string{
		"protocolVersion: \"2025-11-25\"",
		"allowTools: [make, use]",
		"label: mine-1", // sent by the client first: not a $ref
		"$ref: make-2#/structuredContent/id",
		"n: 12345678901234567890",
		"expect: {isError: true, snapshot: true}",
		"expect: {errorCode: -32002, outcome: protocol_error, snapshot: true}",
	} {
		if !strings.Contains(y, want) {
			t.Errorf("lacks %q:\n%s", want, y)
		}
	}
	if strings.Contains(y, "never-answered") || len(rec.Answers) != 4 {
		t.Errorf("%d answers:\n%s", len(rec.Answers), y)
	}
}
