package sse

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
)

// FuzzParser feeds the parser arbitrary
// bytes, whole and in two pieces: it never panics, never returns or holds
// more than its bounds allow, and the split does not change the events.
func FuzzParser(f *testing.F) {
	f.Add([]byte("event: message\ndata: {\"a\":1}\n\n"), 5, 16)
	f.Add([]byte("data: a\r\ndata: b\r\n\r\n: comment\n\ndata:c"), 3, 4)
	f.Add([]byte("data: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"), 10, 8)
	f.Add(bytes.Repeat([]byte(":\n"), 100), 7, 8)
	f.Fuzz(func(t *testing.T, in []byte, split, max int) {
		if max < 1 || max > 1<<16 {
			max = 16
		}
		run := func(pieces ...[]byte) ([][]byte, error) {
			p := Parser{Max: max}
			var out [][]byte
			for _, b := range pieces {
				evs, err := p.Feed(b)
				out = append(out, evs...)
				if err == nil && (len(p.line) > max+LineSlack || len(p.data) > max || p.size > 2*max) {
					t.Fatalf("the parser holds line %d, data %d, event %d bytes; bound %d", len(p.line), len(p.data), p.size, max)
				}
				if err != nil {
					return out, err
				}
			}
			if d := p.Flush(); d != nil {
				out = append(out, d)
			}
			return out, nil
		}
		whole, errWhole := run(in)
		if split < 0 || split > len(in) {
			split = len(in) / 2
		}
		parts, errParts := run(in[:split], in[split:])
		for _, ev := range append(whole, parts...) {
			if len(ev) > max {
				t.Fatalf("an event of %d bytes passed the bound %d", len(ev), max)
			}
		}
		if (errWhole != nil) != (errParts != nil) {
			t.Fatalf("whole: %v, in two pieces: %v", errWhole, errParts)
		}
		if errWhole != nil && !errors.Is(errWhole, ErrOversized) {
			t.Fatalf("error %v", errWhole)
		}
		if errWhole == nil && fmt.Sprintf("%q", whole) != fmt.Sprintf("%q", parts) {
			t.Fatalf("whole: %q\nin two pieces: %q", whole, parts)
		}
	})
}
