package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/cmd/mcpcheck/internal/record"
)

// maxRecordedBody bounds a request body the recorder reads to watch it.
const maxRecordedBody = 32 << 20

// proxyHTTP serves a Streamable HTTP proxy at --listen that forwards every
// request to --url (with the --header headers added) and every answer,
// JSON or an event stream, back unchanged, watching both, until ctx ends.
func proxyHTTP(ctx context.Context, f *recordFlags, sess *record.Session, stderr io.Writer) error {
	target, err := url.Parse(f.url)
	if err != nil {
		return err
	}
	proxy := &httputil.ReverseProxy{
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
			switch mt {
			case "application/json":
				resp.Body = &watched{ReadCloser: resp.Body, whole: true, watch: sess.Server}
			case "text/event-stream":
				resp.Body = &watched{ReadCloser: resp.Body, watch: sess.Server}
			}
			return nil
		},
		ErrorLog: nil,
	}
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.Body != nil {
			body, err := io.ReadAll(io.LimitReader(r.Body, maxRecordedBody))
			r.Body.Close()
			if err != nil {
				http.Error(w, "reading the request", http.StatusBadRequest)
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
// the whole body (JSON), or each event's data (an event stream).
type watched struct {
	io.ReadCloser
	whole bool
	watch func([]byte)
	buf   bytes.Buffer
	// data is the current event's data lines.
	data []string
}

func (w *watched) Read(p []byte) (int, error) {
	n, err := w.ReadCloser.Read(p)
	if n > 0 && w.buf.Len() < maxRecordedBody {
		w.buf.Write(p[:n])
		if !w.whole {
			w.events()
		}
	}
	if err == io.EOF && w.whole {
		w.watch(w.buf.Bytes())
		w.buf.Reset()
	}
	return n, err
}

// events takes every complete line of the stream so far.
func (w *watched) events() {
	for {
		line, err := w.buf.ReadString('\n')
		if err != nil {
			// An incomplete line waits for the rest.
			rest := line
			w.buf.Reset()
			w.buf.WriteString(rest)
			return
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "":
			if len(w.data) > 0 {
				w.watch([]byte(strings.Join(w.data, "\n")))
				w.data = nil
			}
		case strings.HasPrefix(line, "data:"):
			w.data = append(w.data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
}
