package main

import (
	"bytes"
	"io"
	"maps"
	"slices"
	"sync"

	"github.com/mcpcheck/mcpcheck/runner"
)

// recordSecrets is what a recording must never write: every --env and
// --header value, with or without --secret. The recorder cannot tell a
// credential from configuration and its files are meant to be committed,
// so each value is a declared secret (runner.Secret): replaced wherever it
// occurs when it looks like a credential, else as a whole token; values
// under four characters are not searched for (redact.go, "What is a
// secret").
func recordSecrets(f *recordFlags) []runner.Secret {
	var out []runner.Secret
	for _, m := range []map[string]string{f.env, f.headers} {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			out = append(out, runner.Secret{Value: m[k], Declared: true, Always: true})
		}
	}
	return out
}

// maxStderrLine bounds one line of a server's stderr that record passes
// through: a longer line is cut (with a marker), never held whole.
const maxStderrLine = 64 << 10

// lineRedactor passes text to w a line at a time through redact, so a
// secret is always seen whole (a line is redacted as one string).
type lineRedactor struct {
	mu     sync.Mutex
	w      io.Writer
	redact func(string) string
	line   []byte
	// cut is set while the rest of an over-long line is dropped.
	cut bool
}

func newLineRedactor(w io.Writer, redact func(string) string) *lineRedactor {
	return &lineRedactor{w: w, redact: redact}
}

func (l *lineRedactor) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		if !l.cut {
			room := maxStderrLine - len(l.line)
			if len(chunk) > room {
				l.line = append(l.line, chunk[:room]...)
				l.emit(" … (line cut)")
				l.cut = true
			} else {
				l.line = append(l.line, chunk...)
			}
		}
		if i < 0 {
			break
		}
		if !l.cut {
			l.emit("")
		}
		l.cut = false
		p = p[i+1:]
	}
	return n, nil
}

// emit writes the buffered line, redacted, with suffix and a newline.
func (l *lineRedactor) emit(suffix string) {
	l.w.Write([]byte(l.redact(string(l.line)) + suffix + "\n"))
	l.line = l.line[:0]
}

// Close writes a last line that had no newline.
func (l *lineRedactor) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.line) > 0 && !l.cut {
		l.emit("")
	}
	return nil
}
