package runner

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestInboxBounded: a flood of notifications leaves the inbox within its
// count and byte bounds, keeps the newest, and numbers on.
func TestInboxBounded(t *testing.T) {
	in := newInbox()
	params := json.RawMessage(`{"data":"` + string(bytes.Repeat([]byte("x"), 4<<10)) + `"}`)
	// Several times both bounds (8192 messages of 4 KB fill maxInboxBytes),
	// so eviction runs again and again; a quarter of a million took 12 s
	// of CPU for nothing more.
	const n = 40000
	for range n {
		in.add("notifications/message", params, false, nil, nil)
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
