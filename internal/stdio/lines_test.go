package stdio

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// readAll reads every line, writing "!" for a line over the limit.
func readAll(t *testing.T, lr *LineReader, max int) []string {
	t.Helper()
	var out []string
	for range 1 << 16 {
		line, err := lr.ReadLine()
		if errors.Is(err, ErrLineTooLong) {
			out = append(out, "!")
			continue
		}
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("unexpected error %v", err)
		}
		if len(line) > max {
			t.Fatalf("a line of %d bytes passed a limit of %d", len(line), max)
		}
		out = append(out, string(line))
	}
	t.Fatal("ReadLine never reached the end")
	return nil
}

// want is what a LineReader with limit max must return for data.
func want(data []byte, max int) []string {
	parts := strings.Split(string(data), "\n")
	if parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	for i, p := range parts {
		if len(p) > max {
			parts[i] = "!"
		}
	}
	return parts
}

func TestLineReader(t *testing.T) {
	data := []byte("a\n\nbcdef\nghijklmnopqrstuvwxyz0123456789\nlast")
	for _, max := range []int{0, 1, 5, 6, 40} {
		for _, size := range []int{16, 64 << 10} {
			got := readAll(t, newLineReaderSize(iotest.OneByteReader(bytes.NewReader(data)), max, size), max)
			if w := want(data, max); strings.Join(got, "|") != strings.Join(w, "|") {
				t.Errorf("max %d buffer %d: got %q, want %q", max, size, got, w)
			}
		}
	}
}

// endless is a line that never ends.
type endless struct{ n int64 }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	e.n += int64(len(p))
	return len(p), nil
}

// TestLineReaderEndlessLine: a line without end fails once the limit is
// passed; the reader has read little more than the limit.
func TestLineReaderEndlessLine(t *testing.T) {
	src := &endless{}
	lr := NewLineReader(src, 1<<20)
	if _, err := lr.ReadLine(); !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("err = %v, want ErrLineTooLong", err)
	}
	if src.n > 1<<20+2*lineBuffer {
		t.Errorf("read %d bytes of the line to refuse it", src.n)
	}
}

// FuzzLineReader: whatever the input and the limit, the lines read are the
// input's lines, those over the limit refused, none longer than the limit
// returned, through any read sizes.
func FuzzLineReader(f *testing.F) {
	f.Add([]byte("{}\n{\"a\":1}\n"), uint8(4))
	f.Add([]byte("\n\n\nxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\nyy"), uint8(2))
	f.Add([]byte(strings.Repeat("z", 100)), uint8(50))
	f.Fuzz(func(t *testing.T, data []byte, max uint8) {
		m := int(max)
		got := readAll(t, newLineReaderSize(iotest.HalfReader(bytes.NewReader(data)), m, 16), m)
		if w := want(data, m); strings.Join(got, "\x00|") != strings.Join(w, "\x00|") {
			t.Errorf("max %d: got %q, want %q", m, got, w)
		}
	})
}
