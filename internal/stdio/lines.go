package stdio

import (
	"bufio"
	"errors"
	"io"
)

// ErrLineTooLong is a line longer than a [LineReader]'s limit. The reader
// never holds more than the limit of it: it fails as soon as the limit is
// passed, without waiting for the line to end (a line may never end).
var ErrLineTooLong = errors.New("line too long")

// lineBuffer is the read buffer: lines that fit in it are returned without
// a copy.
const lineBuffer = 64 << 10

// keepBuffer is the largest assembly buffer kept between lines; a larger
// one (a long line) is dropped once the line has been used.
const keepBuffer = 1 << 20

// A LineReader reads newline-delimited messages, none longer than a limit.
// It is the one way mcpcheck reads a stdio peer (the runner's transport,
// its protocol probes, record's proxy): memory stays bounded by the limit
// whatever the peer writes.
type LineReader struct {
	r   *bufio.Reader
	max int
	buf []byte // a line longer than the read buffer, assembled
	// skip is set after ErrLineTooLong: the rest of that line is dropped
	// by the next ReadLine.
	skip bool
}

// NewLineReader reads lines of at most max bytes (without the newline)
// from r.
func NewLineReader(r io.Reader, max int) *LineReader {
	return newLineReaderSize(r, max, lineBuffer)
}

func newLineReaderSize(r io.Reader, max, size int) *LineReader {
	return &LineReader{r: bufio.NewReaderSize(r, size), max: max}
}

// ReadLine returns the next line without its "\n"; the bytes are valid
// until the next call. A last line without a newline is returned before
// io.EOF. A line longer than the limit gives ErrLineTooLong as soon as the
// limit is passed; the next call drops the rest of it and goes on with the
// line after, so a caller may skip it or stop.
func (l *LineReader) ReadLine() ([]byte, error) {
	if cap(l.buf) > keepBuffer {
		l.buf = nil
	}
	l.buf = l.buf[:0]
	for l.skip {
		_, err := l.r.ReadSlice('\n')
		if err == nil {
			l.skip = false
		} else if !errors.Is(err, bufio.ErrBufferFull) {
			return nil, err
		}
	}
	for {
		chunk, err := l.r.ReadSlice('\n')
		if err == nil && len(l.buf) == 0 {
			// The common case: the whole line is in the read buffer.
			line := chunk[:len(chunk)-1]
			if len(line) > l.max {
				return nil, ErrLineTooLong
			}
			return line, nil
		}
		n := len(chunk)
		if err == nil {
			n-- // the newline
		}
		if len(l.buf)+n > l.max {
			l.buf = l.buf[:0]
			// Unless this chunk ended the line (or the input), the rest
			// of it is still to come.
			l.skip = errors.Is(err, bufio.ErrBufferFull)
			return nil, ErrLineTooLong
		}
		l.buf = append(l.buf, chunk[:n]...)
		switch {
		case err == nil:
			return l.buf, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case len(l.buf) > 0:
			// The input ended inside a line: return it; the error comes
			// again on the next call.
			return l.buf, nil
		default:
			return nil, err
		}
	}
}
