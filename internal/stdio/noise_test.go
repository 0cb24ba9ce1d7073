package stdio

import "testing"

// TestNoise: banners, log lines and bare JSON values are noise; anything
// that looks like a JSON-RPC message, broken or not, is not.
func TestNoise(t *testing.T) {
	for line, want := range map[string]bool{
		"Starting default (STDIO) server...":            true,
		"Secure MCP Filesystem Server running on stdio": true,
		`"hello"`:                              true,
		"42":                                   true,
		`{"level":"info","msg":"listening"}`:   true,
		"  ":                                   false,
		`{"jsonrpc":"2.0","id":1,"result":{}}`: false,
		`{"id":1,"result":{}}`:                 false, // missing jsonrpc: a broken response
		`{"jsonrpc":"1.0","id":1,"method":"ping"}`:          false,
		`{"jsonrpc":"2.0","id":1,"res`:                      false, // truncated
		`[{"jsonrpc":"2.0","id":1,"result":{}}]`:            false,
		`[1,2`:                                              false,
		`{"error":{"code":-32700,"message":"parse error"}}`: false,
	} {
		if got := Noise([]byte(line)); got != want {
			t.Errorf("Noise(%q) = %v, want %v", line, got, want)
		}
	}
}
