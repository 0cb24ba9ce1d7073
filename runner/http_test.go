package runner

import (
	"net/url"
	"testing"
)

// TestOrigin: the origin rule compares scheme, host and port, with the
// scheme's default port made explicit and case folded; anything else is
// another origin.
func TestOrigin(t *testing.T) {
	same := [][2]string{
		{"http://127.0.0.1:8080/mcp", "http://127.0.0.1:8080/message?session=1"},
		{"http://localhost/sse", "http://LOCALHOST:80/message"},
		{"https://mcp.example.com/sse", "HTTPS://mcp.example.com:443/x"},
		{"http://[::1]:9000/sse", "http://[::1]:9000/m"},
	}
	other := [][2]string{
		{"http://127.0.0.1:8080/mcp", "http://127.0.0.1:8081/mcp"},
		{"http://127.0.0.1:8080/mcp", "https://127.0.0.1:8080/mcp"},
		{"http://127.0.0.1:8080/mcp", "http://localhost:8080/mcp"},
		{"https://mcp.example.com/sse", "https://mcp.example.com.evil.test/sse"},
		{"http://127.0.0.1:8080/sse", "http://127.0.0.1:8080@evil.test/x"},
	}
	o := func(s string) string {
		u, err := url.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return origin(u)
	}
	for _, p := range same {
		if o(p[0]) != o(p[1]) {
			t.Errorf("%s and %s: %s != %s", p[0], p[1], o(p[0]), o(p[1]))
		}
	}
	for _, p := range other {
		if o(p[0]) == o(p[1]) {
			t.Errorf("%s and %s are one origin (%s)", p[0], p[1], o(p[0]))
		}
	}
}
