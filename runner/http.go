package runner

import (
	"errors"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// errRedirect stops the HTTP client at the first redirect: a server that
// answers with a redirect does not get to send mcpcheck, and the
// credentials it carries, somewhere else.
var errRedirect = errors.New("the server answered with a redirect, which mcpcheck does not follow")

// httpTransport builds the Streamable HTTP transport for endpoint with the
// suite's credential headers.
func httpTransport(endpoint string, headers map[string]string, timeout time.Duration) mcp.Transport {
	base := &http.Transport{
		Proxy:                 nil, // loopback tests and explicit endpoints only; no ambient proxy sees the credentials
		DialContext:           (&net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConnsPerHost:   32,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   timeout,
		ResponseHeaderTimeout: 0, // streams may legitimately wait; each call has its own deadline
	}
	client := &http.Client{
		Transport: &headerRoundTripper{base: base, headers: headers},
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return errRedirect
		},
	}
	return &mcp.StreamableClientTransport{
		Endpoint:   endpoint,
		HTTPClient: client,
		// No standalone GET stream: a test client needs no server-initiated
		// messages outside its calls, and without a background stream the
		// only requests are the steps' own, so a lost session is always
		// noticed by the next step (never by a race with a background
		// reconnect). MaxRetries stays at the SDK default: it governs
		// resuming a broken response stream, not retrying calls, which
		// mcpcheck never does.
		DisableStandaloneSSE: true,
	}
}

// headerRoundTripper adds the suite's credential headers to every request
// and taps POST responses for raw results. Protocol-owned headers are
// rejected when the fixture is loaded, so they can never be overridden here.
type headerRoundTripper struct {
	base    http.RoundTripper
	headers map[string]string
}

func (rt *headerRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(rt.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range rt.headers {
			req.Header.Set(k, v)
		}
	}
	resp, err := rt.base.RoundTrip(req)
	if err == nil {
		tapResponse(req, resp)
	}
	return resp, err
}

// endpointOrigin is scheme://host[:port] of an endpoint, for reports: the
// path may carry a tenant or a token and is never shown.
func endpointOrigin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Scheme + "://" + u.Host
}
