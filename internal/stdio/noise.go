package stdio

import (
	"bytes"
	"encoding/json"
)

// Noise reports whether a line a server wrote on its stdout is not a
// JSON-RPC message at all: text that is not JSON (a banner such as
// "Starting server..."), a JSON value that is not an object or array, or
// an object with none of JSON-RPC's members (jsonrpc, id, method, result,
// error: a structured log line). The stdio transport forbids it ("The
// server MUST NOT write anything to its stdout that is not a valid MCP
// message"), and clients (the TypeScript SDK's, mcp-go's) skip such lines,
// so mcpcheck reports it and skips it too. A line that starts like an
// object or array and does not parse, or an object with a JSON-RPC member
// that breaks the rules, is a broken message instead: it stays an error
// of the call it belongs to.
//
// It is meant for lines the JSON-RPC decoder refused: the cost is one
// more parse of those only.
func Noise(line []byte) bool {
	t := bytes.TrimSpace(line)
	if len(t) == 0 {
		return false
	}
	if t[0] != '{' && t[0] != '[' {
		return true
	}
	if t[0] == '[' || !json.Valid(t) {
		return false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(t, &m) != nil {
		return false
	}
	for _, k := range []string{"jsonrpc", "id", "method", "result", "error"} {
		if _, ok := m[k]; ok {
			return false
		}
	}
	return true
}
