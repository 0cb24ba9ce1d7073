package runner

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
)

// FuzzSSEParser feeds the HTTP client's event-stream parser arbitrary
// bytes, whole and in two pieces: it never panics, never returns or holds
// more than its bounds allow, and the split does not change the events.
func FuzzSSEParser(f *testing.F) {
	f.Add([]byte("event: message\ndata: {\"a\":1}\n\n"), 5, 16)
	f.Add([]byte("data: a\r\ndata: b\r\n\r\n: comment\n\ndata:c"), 3, 4)
	f.Add([]byte("data: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"), 10, 8)
	f.Add(bytes.Repeat([]byte(":\n"), 100), 7, 8)
	f.Fuzz(func(t *testing.T, in []byte, split, max int) {
		if max < 1 || max > 1<<16 {
			max = 16
		}
		run := func(pieces ...[]byte) ([][]byte, error) {
			p := sseParser{max: max}
			var out [][]byte
			for _, b := range pieces {
				evs, err := p.feed(b)
				out = append(out, evs...)
				if err == nil && (len(p.line) > max+sseLineSlack || len(p.data) > max || p.size > 2*max) {
					t.Fatalf("the parser holds line %d, data %d, event %d bytes; bound %d", len(p.line), len(p.data), p.size, max)
				}
				if err != nil {
					return out, err
				}
			}
			if d := p.flush(); d != nil {
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
		if errWhole != nil && !errors.Is(errWhole, errOversized) {
			t.Fatalf("error %v", errWhole)
		}
		if errWhole == nil && fmt.Sprintf("%q", whole) != fmt.Sprintf("%q", parts) {
			t.Fatalf("whole: %q\nin two pieces: %q", whole, parts)
		}
	})
}

// TestInboxBounded: a flood of notifications leaves the inbox within its
// count and byte bounds, keeps the newest, and numbers on.
func TestInboxBounded(t *testing.T) {
	in := newInbox()
	params := json.RawMessage(`{"data":"` + string(bytes.Repeat([]byte("x"), 4<<10)) + `"}`)
	const n = 250000
	for range n {
		in.add("notifications/message", params, false)
	}
	in.mu.Lock()
	items, held := len(in.items), in.bytes
	in.mu.Unlock()
	if items > maxInbox+maxInbox/4 || held > maxInboxBytes {
		t.Errorf("the inbox holds %d messages, %d bytes; bounds %d, %d", items, held, maxInbox, maxInboxBytes)
	}
	if got := in.next(); got != n {
		t.Errorf("next = %d, want %d", got, n)
	}
	if last := in.between(n-1, n); len(last) != 1 {
		t.Errorf("the newest message is gone")
	}
}
