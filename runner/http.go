package runner

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// errRedirect stops the HTTP client at the first redirect: a server that
// answers with a redirect does not get to send mcpcheck, and the
// credentials it carries, somewhere else.
var errRedirect = errors.New("the server answered with a redirect, which mcpcheck does not follow")

// httpClient is the HTTP client of an endpoint: no ambient proxy, no
// redirects, the suite's credential headers, taps on the responses.
func httpClient(headers map[string]string, timeout time.Duration, in *inbox) *http.Client {
	base := &http.Transport{
		Proxy:                 nil, // loopback tests and explicit endpoints only; no ambient proxy sees the credentials
		DialContext:           (&net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConnsPerHost:   32,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   timeout,
		ResponseHeaderTimeout: 0, // streams may legitimately wait; each call has its own deadline
	}
	return &http.Client{
		Transport: &headerRoundTripper{base: base, headers: headers, inbox: in},
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return errRedirect
		},
	}
}

// sseTransport builds the legacy HTTP+SSE transport (protocol 2024-11-05)
// for endpoint, the URL of its event stream. The URL it posts to comes from
// the server's endpoint event, on the same origin.
func sseTransport(endpoint string, headers map[string]string, timeout time.Duration, in *inbox) mcp.Transport {
	// The connection is tapped like a stdio one, so the stream's messages
	// reach the inbox there, not through the HTTP client.
	return &mcp.SSEClientTransport{Endpoint: endpoint, HTTPClient: httpClient(headers, timeout, nil)}
}

// httpTransport builds the Streamable HTTP transport for endpoint with the
// suite's credential headers. Messages the server sends outside a call's
// own stream go to in; the standalone stream that carries them is opened
// only when the plan listens for them (stream).
func httpTransport(endpoint string, headers map[string]string, timeout time.Duration, in *inbox, stream bool) mcp.Transport {
	client := httpClient(headers, timeout, in)
	return &mcp.StreamableClientTransport{
		Endpoint:   endpoint,
		HTTPClient: client,
		// No standalone GET stream unless a step waits for what only it
		// carries (resource updates, list changes): without a background
		// stream the only requests are the steps' own, so a lost session is
		// always noticed by the next step (never by a race with a background
		// reconnect). MaxRetries stays at the SDK default: it governs
		// resuming a broken response stream, not retrying calls, which
		// mcpcheck never does.
		DisableStandaloneSSE: !stream,
	}
}

// headerRoundTripper adds the suite's credential headers to every request
// and taps POST responses for raw results. Protocol-owned headers are
// rejected when the fixture is loaded, so they can never be overridden here.
type headerRoundTripper struct {
	base    http.RoundTripper
	headers map[string]string
	inbox   *inbox
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
		if req.Method == http.MethodGet {
			if resp.Body != nil && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
				resp.Body = &streamFeed{ReadCloser: resp.Body, inbox: rt.inbox}
			}
			rt.inbox.answered()
		}
	}
	return resp, err
}

// streamFeed passes the messages of the standalone event stream to the
// session's inbox as the SDK reads them.
type streamFeed struct {
	io.ReadCloser
	inbox  *inbox
	parser sseParser
}

func (f *streamFeed) Read(p []byte) (int, error) {
	n, err := f.ReadCloser.Read(p)
	for _, data := range f.parser.feed(p[:n]) {
		f.inbox.addMessage(data)
	}
	return n, err
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
