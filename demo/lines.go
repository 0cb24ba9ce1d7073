package demo

import (
	"bufio"
	"bytes"
	"io"
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
