package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"mime"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"time"

	"github.com/mcpcheck/mcpcheck/cmd/mcpcheck/internal/record"
	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/internal/sse"
)

// errRecordOversized ends a response the recorder cut at the bound.
var errRecordOversized = errors.New("a message from the server is larger than --max-message-bytes")

// proxyHTTP serves a Streamable HTTP proxy at --listen that forwards every
// request to --url (with the --header headers added) and every answer,
// JSON or an event stream, back unchanged, watching both, until ctx ends.
//
// Its bounds and rules: requests go only to --url's origin (the rewrite
// sets scheme and host; nothing a server sends, a redirect or a URL in a
// body, is followed: a redirect goes back to the client as it is) and no
// ambient proxy sees them; a request body, a JSON response body and an SSE
// line or event are bounded by --max-message-bytes (the runner's
// maxMessageBytes, 4 MiB by default, so what the recorder passes on its
// replay can take too). A larger request is
// refused (413); a larger response is cut where it passes the bound (the
// client sees the response end), said on stderr, and not recorded.
func proxyHTTP(ctx context.Context, f *recordFlags, sess *record.Session, stderr io.Writer) error {
	target, err := url.Parse(f.url)
	if err != nil {
		return err
	}
	var stderrMu sync.Mutex
	say := func(format string, args ...any) {
		stderrMu.Lock()
		defer stderrMu.Unlock()
		fmt.Fprintf(stderr, format, args...)
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.Proxy = nil // the --header credentials go to --url and nowhere else
	proxy := &httputil.ReverseProxy{
		Transport: transport,
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Scheme, pr.Out.URL.Host, pr.Out.URL.Path, pr.Out.URL.RawPath = target.Scheme, target.Host, target.Path, target.RawPath
			pr.Out.Host = target.Host
			for k, v := range f.headers {
				pr.Out.Header.Set(k, v)
			}
		},
		// Event streams are passed on as they come.
		FlushInterval: -1,
		ModifyResponse: func(resp *http.Response) error {
			mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
			cut := func() {
				say("mcpcheck record: cut a response from the server: it is larger than %d bytes (not recorded)\n", f.maxMessage)
			}
			// An event stream is watched event by event; any other body is
			// bounded too, and JSON is watched whole.
			resp.Body = &watched{ReadCloser: resp.Body, limit: f.maxMessage, whole: mt != "text/event-stream", json: mt == "application/json", watch: sess.Server, cut: cut}
			return nil
		},
		// A cut response is said once, above; the proxy's own log of it
		// would only repeat it.
		ErrorLog: log.New(io.Discard, "", 0),
	}
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.Body != nil {
			body, err := io.ReadAll(io.LimitReader(r.Body, int64(f.maxMessage)+1))
			r.Body.Close()
			if err != nil {
				http.Error(w, "reading the request", http.StatusBadRequest)
				return
			}
			if len(body) > f.maxMessage {
				say("mcpcheck record: refused a request from the client: it is larger than %d bytes\n", f.maxMessage)
				http.Error(w, "request larger than the recorder's limit", http.StatusRequestEntityTooLarge)
				return
			}
			sess.Client(body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
		}
		proxy.ServeHTTP(w, r)
	})
	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stderr, "mcpcheck record: proxying http://%s%s to %s; Ctrl-C ends the recording\n", ln.Addr(), target.EscapedPath(), originOf(target))
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if srv.Shutdown(sctx) != nil {
		srv.Close()
	}
	return nil
}

func originOf(u *url.URL) string { return u.Scheme + "://" + u.Host }

// watched passes a response body through, showing its messages to watch:
// the whole body (JSON), or each event's data (an event stream, read by
// the runner's own bounded parser). It holds at most one message: past
// limit (a body, a line, an event's data, or 2x for an
// event's lines) it calls cut once and ends the body.
type watched struct {
	io.ReadCloser
	limit  int  // bytes of one message; 0 is the runner's default
	whole  bool // the body is one message
	json   bool // ... and it is watched
	watch  func([]byte)
	cut    func()
	err    error
	n      int          // bytes of a whole body so far
	buf    bytes.Buffer // a whole JSON body
	events sse.Parser   // an event stream
}

func (w *watched) Read(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	limit := w.limit
	if limit <= 0 {
		limit = config.DefaultMaxMessageBytes
	}
	n, err := w.ReadCloser.Read(p)
	if n > 0 {
		if w.whole {
			w.n += n
			if w.n > limit {
				return 0, w.stop()
			}
			if w.json {
				w.buf.Write(p[:n])
			}
		} else {
			w.events.Max = limit
			evs, perr := w.events.Feed(p[:n])
			for _, ev := range evs {
				w.watch(ev)
			}
			if perr != nil {
				return 0, w.stop()
			}
		}
	}
	if err == io.EOF && w.json {
		w.watch(w.buf.Bytes())
		w.buf.Reset()
	}
	return n, err
}

// stop ends the body at the bound.
func (w *watched) stop() error {
	w.err = errRecordOversized
	w.buf, w.events = bytes.Buffer{}, sse.Parser{}
	if w.cut != nil {
		w.cut()
	}
	return w.err
}
