package demo

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"sync"
)

// The stdio layers (the guard, tasks, protocol and era defects) stand
// between the client's lines and the SDK's: each reads one side line by
// line and passes on what it keeps.

// passLines returns a reader of what keep passes on of each line of in
// (the line with its newline; nil or empty: nothing). The reader ends with
// in's error.
func passLines(in io.Reader, keep func(line []byte) []byte) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		r := bufio.NewReaderSize(in, 64<<10)
		for {
			line, err := r.ReadBytes('\n')
			if out := keep(line); len(out) > 0 {
				if _, werr := pw.Write(out); werr != nil {
					return
				}
			}
			if err != nil {
				pw.CloseWithError(err)
				return
			}
		}
	}()
	return pr
}

// lineRewriter passes whole lines on to w, each (without its newline and
// outer white space) through rewrite; a nil result drops the line.
type lineRewriter struct {
	mu      sync.Mutex
	w       io.Writer
	buf     []byte
	rewrite func([]byte) []byte
}

func (l *lineRewriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := l.rewrite(bytes.TrimSpace(l.buf[:i]))
		l.buf = l.buf[i+1:]
		if line == nil {
			continue
		}
		if _, err := l.w.Write(append(bytes.Clone(line), '\n')); err != nil {
			return len(p), err
		}
	}
}

// rewriteWhole serves r with next holding the response whole (at most
// 4 MiB), then writes it to w with each message through rewrite: each data
// line of an event stream, or each JSON line of a body. Other lines pass
// as they are.
func rewriteWhole(w http.ResponseWriter, r *http.Request, next http.Handler, rewrite func([]byte) []byte) {
	held := &heldResponse{header: http.Header{}}
	next.ServeHTTP(held, r)
	for k, v := range held.header {
		w.Header()[k] = v
	}
	w.Header().Del("Content-Length")
	if held.status == 0 {
		held.status = http.StatusOK
	}
	w.WriteHeader(held.status)
	var out bytes.Buffer
	for _, line := range bytes.SplitAfter(held.body.Bytes(), []byte("\n")) {
		switch t := bytes.TrimSpace(line); {
		case bytes.HasPrefix(line, []byte("data: ")):
			out.WriteString("data: ")
			out.Write(rewrite(bytes.TrimSpace(line[len("data: "):])))
			out.WriteByte('\n')
		case len(t) > 0 && t[0] == '{':
			out.Write(rewrite(t))
			out.WriteByte('\n')
		default:
			out.Write(line)
		}
	}
	w.Write(out.Bytes())
}

// heldResponse keeps a response whole, up to 4 MiB.
type heldResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (h *heldResponse) Header() http.Header { return h.header }
func (h *heldResponse) WriteHeader(code int) {
	if h.status == 0 {
		h.status = code
	}
}
func (h *heldResponse) Write(p []byte) (int, error) {
	if h.body.Len()+len(p) > 4<<20 {
		return 0, io.ErrShortWrite
	}
	return h.body.Write(p)
}
func (h *heldResponse) Flush() {}
