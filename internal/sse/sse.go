// Package sse reads a text/event-stream (Server-Sent Events) as it
// arrives, bounded: the runner's HTTP transports and its raw protocol
// client read a server's streams with it, and `mcpcheck record` watches
// the streams it proxies with it, so the three agree on what an event is
// and on how large one may grow.
package sse

import (
	"bytes"
	"errors"
)

// ErrOversized is a stream that passed a [Parser]'s bounds.
var ErrOversized = errors.New("an event stream passed its size bound")

// LineSlack is what a line may hold beyond an event's largest data: its
// field name ("data: ").
const LineSlack = 64

// Parser splits a text/event-stream into the data of its events, fed in
// pieces as they arrive: multi-line data is joined with "\n", other fields
// are ignored. It holds at most one event: an event whose data passes Max
// bytes, a line longer than a data line of Max bytes, or an event whose
// lines (comments and other fields included) pass 2*Max bytes is
// [ErrOversized], so an endless line or event costs a bounded buffer.
type Parser struct {
	Max  int    // the largest event data; lines and events are bounded by it
	line []byte // the unfinished line
	data []byte // the event's data so far
	has  bool   // the event has a data field
	size int    // bytes of the event so far, its unfinished line included
}

// Feed consumes b and returns the data of the events it completed, and
// [ErrOversized] once the stream passed the parser's bounds (it is of no
// use after that). The events returned are the parser's to give: it never
// writes to them again.
func (p *Parser) Feed(b []byte) ([][]byte, error) {
	var out [][]byte
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			p.size += len(b)
			if len(p.line)+len(b) > p.Max+LineSlack || p.size > 2*p.Max {
				return out, ErrOversized
			}
			p.line = append(p.line, b...)
			return out, nil
		}
		p.size += i + 1
		if len(p.line)+i > p.Max+LineSlack || p.size > 2*p.Max {
			return out, ErrOversized
		}
		line := bytes.TrimRight(append(p.line, b[:i]...), "\r")
		b = b[i+1:]
		switch {
		case len(line) == 0:
			if p.has {
				out = append(out, p.data)
			}
			p.data, p.has, p.size = nil, false, 0
		case bytes.HasPrefix(line, []byte("data:")):
			v := bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))
			if p.has {
				p.data = append(p.data, '\n')
			}
			if len(p.data)+len(v) > p.Max {
				return out, ErrOversized
			}
			p.data = append(p.data, v...)
			p.has = true
		}
		p.line = p.line[:0]
	}
	return out, nil
}

// Flush returns the data of an event the stream ended in, if any.
func (p *Parser) Flush() []byte {
	if len(p.line) > 0 {
		p.Feed([]byte("\n"))
	}
	if !p.has {
		return nil
	}
	d := p.data
	p.data, p.has = nil, false
	return d
}
