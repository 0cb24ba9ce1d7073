package runner

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"

	"context"

	"github.com/mcpcheck/mcpcheck/internal/sse"
)

// The HTTP transports' rules, enforced here for every request the runner's
// HTTP client makes (the SDK's Streamable HTTP and legacy SSE transports,
// the protocol probes' raw connection):
//   - requests go only to the configured endpoint's origin (scheme, host
//     and port): a URL a server hands over (the legacy endpoint event, a
//     redirect, anything later) that names another origin is refused
//     before anything is sent, so the suite's credential headers never
//     reach a host the user did not name;
//   - redirects are not followed, and no ambient proxy sees the requests;
//   - every response body is bounded by the suite's maxMessageBytes: a
//     JSON body as a whole, an event stream per line and per event (see
//     sse.Parser). A larger one is cut where it passes the bound, nothing
//     more of it is read, and the call it answers ends as
//     oversized_response.

// errRedirect stops the HTTP client at the first redirect: a server that
// answers with a redirect does not get to send mcpcheck, and the
// credentials it carries, somewhere else.
var errRedirect = errors.New("the server answered with a redirect, which mcpcheck does not follow")

// originError is a request to an origin other than the configured one.
type originError struct {
	configured, got string
}

func (e *originError) Error() string {
	return fmt.Sprintf("refused to send a request to %s: only the configured endpoint's origin %s gets requests (and credentials)", e.got, e.configured)
}

// origin is scheme://host:port of u, with the scheme's default port made
// explicit and names lowercased, so that equal origins compare equal.
func origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// sseEventSlack is what the SDK's own bound on an SSE event (MaxEventSize)
// allows beyond ours, so that ours is always met first and the call is
// classified by the runner, not failed by the SDK.
const sseEventSlack = 1 << 10

// httpClient is the HTTP client of endpoint: no ambient proxy, no
// redirects, requests to endpoint's origin only, the suite's credential
// headers, every response body bounded by limit, taps on the responses.
func httpClient(endpoint string, headers map[string]string, timeout time.Duration, in *inbox, limit int) *http.Client {
	base := &http.Transport{
		Proxy:                 nil, // loopback tests and explicit endpoints only; no ambient proxy sees the credentials
		DialContext:           (&net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConnsPerHost:   32,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   timeout,
		ResponseHeaderTimeout: 0, // streams may legitimately wait; each call has its own deadline
	}
	u, err := url.Parse(endpoint)
	configured := ""
	if err == nil {
		configured = origin(u)
	}
	return &http.Client{
		Transport: &headerRoundTripper{base: base, origin: configured, headers: headers, inbox: in, limit: limit},
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return errRedirect
		},
	}
}

// sseTransport builds the legacy HTTP+SSE transport (protocol 2024-11-05)
// for endpoint, the URL of its event stream. The URL it posts to comes from
// the server's endpoint event; the HTTP client refuses it unless it is on
// the endpoint's origin.
func sseTransport(endpoint string, headers map[string]string, timeout time.Duration, limit int) (mcp.Transport, func()) {
	// The connection is tapped like a stdio one, so the stream's messages
	// reach the inbox there, not through the HTTP client.
	client := httpClient(endpoint, headers, timeout, nil, limit)
	return &mcp.SSEClientTransport{Endpoint: endpoint, HTTPClient: client, MaxEventSize: 2*limit + sseEventSlack}, abortFunc(client)
}

// abortFunc ends every request of client at once (see
// headerRoundTripper.abort).
func abortFunc(client *http.Client) func() {
	return client.Transport.(*headerRoundTripper).abort
}

// httpTransport builds the Streamable HTTP transport for endpoint with the
// suite's credential headers. Messages the server sends outside a call's
// own stream go to in; the standalone stream that carries them is opened
// only when the plan listens for them (stream).
func httpTransport(endpoint string, headers map[string]string, timeout time.Duration, in *inbox, stream bool, limit int) (mcp.Transport, func()) {
	client := httpClient(endpoint, headers, timeout, in, limit)
	t := &mcp.StreamableClientTransport{
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
		// The runner's own bound (see boundedBody) is met first; this one
		// only keeps the SDK from buffering more if it ever were not.
		MaxEventSize: 2*limit + sseEventSlack,
	}
	return t, abortFunc(client)
}

// headerRoundTripper keeps requests on the configured origin, adds the
// suite's credential headers to every request, bounds every response body
// and taps POST responses for raw results. Protocol-owned headers are
// rejected when the fixture is loaded, so they can never be overridden
// here.
type headerRoundTripper struct {
	base    http.RoundTripper
	origin  string
	headers map[string]string
	inbox   *inbox
	limit   int

	// inFlight holds the taps of calls whose POST went out and that may
	// still be waiting for their answer on a stream the POST does not own
	// (legacy SSE, where every answer comes on the GET stream): when such a
	// stream is cut for size, they are the calls it was answering.
	mu       sync.Mutex
	inFlight []*tap
	// open holds the response bodies not yet closed, and aborted says the
	// session is over: a server that keeps a stream open, or never
	// finishes a body, cannot hold the session's close (see abort).
	open    map[*boundedBody]struct{}
	aborted bool
	// deferred counts the calls whose cancel waits for their body (see
	// httpkeep.go).
	deferred atomic.Int32
}

// errAborted is a request made, or a body read, after the session was
// closed by force.
var errAborted = errors.New("the session was closed")

// abort closes every open response body and refuses every later request:
// closing a session calls it when the SDK did not let go in time, so a
// stream without end, or a body the server never finishes, ends at once.
func (rt *headerRoundTripper) abort() {
	rt.mu.Lock()
	rt.aborted = true
	open := rt.open
	rt.open = nil
	rt.mu.Unlock()
	for b := range open {
		b.body.Close()
	}
}

func (rt *headerRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if got := origin(req.URL); got != rt.origin {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, &originError{configured: rt.origin, got: got}
	}
	if len(rt.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range rt.headers {
			req.Header.Set(k, v)
		}
	}
	rt.mu.Lock()
	aborted := rt.aborted
	rt.mu.Unlock()
	if aborted {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, errAborted
	}
	t := tapFrom(req.Context())
	if t != nil && req.Method == http.MethodPost {
		rt.track(t)
	}
	resp, err := rt.base.RoundTrip(req)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	b := &boundedBody{body: resp.Body, rt: rt, sse: isEventStream(resp.Header.Get("Content-Type"))}
	rt.mu.Lock()
	if rt.aborted {
		rt.mu.Unlock()
		resp.Body.Close()
		return nil, errAborted
	}
	if rt.open == nil {
		rt.open = map[*boundedBody]struct{}{}
	}
	rt.open[b] = struct{}{}
	rt.mu.Unlock()
	b.parser.Max = rt.limit
	switch {
	case req.Method == http.MethodPost && t != nil:
		b.tap = t
		t.bodyOpened(&rt.deferred)
	case req.Method == http.MethodGet:
		b.shared, b.feed = true, b.sse
		rt.inbox.answered()
	}
	resp.Body = b
	return resp, nil
}

// track remembers t as in flight, forgetting the calls that have returned.
func (rt *headerRoundTripper) track(t *tap) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	live := rt.inFlight[:0]
	for _, x := range rt.inFlight {
		if !x.isDone() {
			live = append(live, x)
		}
	}
	rt.inFlight = append(live, t)
}

// eachInFlight calls f with the tap of every call that has not returned:
// what broke a stream no single call owns (a message cut for size, a
// response no request can be matched to) is why they fail.
func (rt *headerRoundTripper) eachInFlight(f func(*tap)) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	for _, t := range rt.inFlight {
		if !t.isDone() {
			f(t)
		}
	}
}

// liveCalls lists the taps of the calls that have not returned.
func (rt *headerRoundTripper) liveCalls() []*tap {
	var out []*tap
	rt.eachInFlight(func(t *tap) { out = append(out, t) })
	return out
}

func isEventStream(contentType string) bool {
	return strings.HasPrefix(strings.ToLower(strings.TrimSpace(contentType)), "text/event-stream")
}

// boundedBody is every HTTP response body the runner reads: it passes the
// bytes on while they are within the bound, feeds a call's tap (the
// response to the call, the notifications and requests on its stream) and,
// for the standalone stream, the session's inbox. Past the bound it
// returns errOversized, and keeps returning it, without reading further.
type boundedBody struct {
	body io.ReadCloser
	rt   *headerRoundTripper
	tap  *tap // the call this POST's body answers, or nil
	// shared: a GET stream, which answers no one call (the standalone
	// stream, the legacy transport's only stream); feed: its messages go
	// to the inbox.
	shared, feed bool
	sse          bool
	closed       bool // Close was called (the tap counts it once)
	parser       sse.Parser
	n            int   // bytes read so far of a body that is not an event stream
	err          error // errOversized once the bound was passed
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.body.Read(p)
	if n > 0 && !b.sse {
		b.n += n
		if b.n > b.rt.limit {
			return 0, b.cut()
		}
		if b.tap != nil {
			b.tap.keep(p[:n])
		}
	}
	if n > 0 && b.sse {
		msgs, perr := b.parser.Feed(p[:n])
		for _, m := range msgs {
			b.deliver(m)
		}
		if perr != nil {
			return 0, b.cut()
		}
	}
	if err == io.EOF {
		if b.tap != nil && !b.sse {
			for _, m := range b.tap.scanBody() {
				b.rt.inbox.addMessage(m, b.tap, nil)
			}
		}
		if b.sse {
			if d := b.parser.Flush(); d != nil {
				b.deliver(d)
			}
		}
	}
	return n, err
}

// deliver hands one message of an event stream to the call's tap, and
// what is not a response to the inbox.
func (b *boundedBody) deliver(msg []byte) {
	if b.tap != nil && b.tap.see(msg) {
		return
	}
	if b.shared {
		// A response here answers whichever call it names; one whose id
		// names none makes the SDK end the connection under every call in
		// flight, so each of them learns why.
		if id := gjson.GetBytes(msg, "id"); (id.Type == gjson.Null && id.Exists() || id.IsObject() || id.IsArray()) && !gjson.GetBytes(msg, "method").Exists() {
			b.rt.eachInFlight(func(t *tap) {
				t.mu.Lock()
				t.noteOddID([]byte(id.Raw))
				t.mu.Unlock()
			})
		}
	}
	if b.tap != nil || b.feed {
		b.rt.inbox.addMessage(msg, b.tap, b.rt.liveCalls)
	}
}

// cut ends the body at the bound.
func (b *boundedBody) cut() error {
	b.err = fmt.Errorf("%w (%d bytes)", errOversized, b.rt.limit)
	if b.tap != nil {
		b.tap.markOversized(b.err)
	} else if b.shared {
		b.rt.eachInFlight(func(t *tap) { t.markOversized(b.err) })
		b.rt.inbox.cut()
	}
	return b.err
}

func (b *boundedBody) Close() error {
	b.rt.mu.Lock()
	delete(b.rt.open, b)
	b.rt.mu.Unlock()
	err := b.body.Close()
	if b.tap != nil && !b.closed {
		b.closed = true
		b.tap.bodyClosed()
	}
	return err
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

// A call's context is cancelled when the call returns, but over Streamable
// HTTP the go-sdk hands the answer over as soon as the response event
// arrives, while it is still reading the rest of the POST's event stream
// (usually just its end). Cancelling then makes net/http close the
// connection instead of reusing it: measured against the demo, one new TCP
// connection every ~20 calls (99 connects for 2,000 calls of a 4-user load
// run, 9 for a bare go-sdk pool), each a dial, an accept and goroutines
// on both sides. So the cancel waits for the call's response bodies to be
// closed, which the SDK does when the stream ends. The wait is bounded by
// the call's own deadline (the context's timer still fires) and by
// maxDeferredCancels per session: past it, a server that keeps streams
// open after answering gets the old behaviour, its connections closed at
// once.

// maxDeferredCancels bounds the calls of one session whose context is kept
// alive waiting for their response body to end.
const maxDeferredCancels = 64

// bodyOpened counts a response body of the call's POST (w: the session's
// count of deferred cancels).
func (t *tap) bodyOpened(w *atomic.Int32) {
	t.mu.Lock()
	t.bodies++
	t.deferred = w
	t.mu.Unlock()
}

// bodyClosed is called once per body bodyOpened counted; the last one runs
// the cancel the call left behind, if it did.
func (t *tap) bodyClosed() {
	t.mu.Lock()
	t.bodies--
	var f func()
	if t.bodies == 0 {
		f, t.release = t.release, nil
	}
	t.mu.Unlock()
	if f != nil {
		f()
	}
}

// cancelAfterBody cancels the call's context now, or, when a response body
// of the call is still open (and the session has room), when it closes.
func (t *tap) cancelAfterBody(cancel context.CancelFunc) {
	t.mu.Lock()
	w := t.deferred
	if t.bodies == 0 || w == nil || w.Add(1) > maxDeferredCancels {
		if w != nil && t.bodies > 0 {
			w.Add(-1)
		}
		t.mu.Unlock()
		cancel()
		return
	}
	t.release = func() {
		w.Add(-1)
		cancel()
	}
	t.mu.Unlock()
}
