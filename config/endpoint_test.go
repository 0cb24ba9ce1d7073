package config

import "testing"

func TestCheckEndpoint(t *testing.T) {
	for _, c := range []struct {
		url  string
		want string // "" means accepted
	}{
		{"https://mcp.example.com/mcp", ""},
		{"https://mcp.example.com:8443/v1/mcp", ""},
		{"HTTPS://MCP.EXAMPLE.COM/mcp", ""},
		{"http://localhost:5191/mcp", ""},
		{"http://LOCALHOST/mcp", ""},
		{"http://127.0.0.1:5191/mcp", ""},
		{"http://[::1]:5191/mcp", ""},
		{"http://127.0.0.2/mcp", "plain http is only allowed to localhost, 127.0.0.1 or [::1], not 127.0.0.2; use https"},
		{"http://localhost.example.com/mcp", "plain http is only allowed to localhost, 127.0.0.1 or [::1], not localhost.example.com; use https"},
		{"http://0.0.0.0/mcp", "plain http is only allowed to localhost, 127.0.0.1 or [::1], not 0.0.0.0; use https"},
		{"https://user@mcp.example.com/", "URL must not contain credentials (user:password@); send them with headersFromEnv"},
		{"http://user:pw@localhost/", "URL must not contain credentials (user:password@); send them with headersFromEnv"},
		{"https://mcp.example.com/mcp?key=1", "URL must not contain a query (?...)"},
		{"https://mcp.example.com/mcp?", "URL must not contain a query (?...)"},
		{"https://mcp.example.com/mcp#frag", "URL must not contain a fragment (#...)"},
		{"https://mcp.example.com/mcp#", "URL must not contain a fragment (#...)"},
		{"ws://mcp.example.com/mcp", `scheme "ws" is not supported; use https (or http to localhost, 127.0.0.1 or [::1])`},
		{"mcp.example.com/mcp", "URL has no scheme; use https://host/path (or http:// to localhost)"},
		{"https:///mcp", "URL has no host; use https://host/path"},
		{"https:mcp", "URL has no host; use https://host/path"},
		{"https://localhost:99999/mcp", "port 99999 is out of range 1..65535"},
		{"https://exa mple.com/", `not a valid URL: invalid character " " in host name`},
		{"https://example.com/\x7f", "not a valid URL: net/url: invalid control character in URL"},
		{"", "URL is empty"},
	} {
		err := CheckEndpoint(c.url)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("CheckEndpoint(%q) = %q, want %q", c.url, got, c.want)
		}
	}
}
