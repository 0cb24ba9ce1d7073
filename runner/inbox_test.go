package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"
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

// TestAwaitEndsAtCut: an await stops waiting when a message on the shared
// stream is cut at the bound (its time limit would only delay the same
// verdict), but a match that already came still wins, and a plain await
// (the subscription's acknowledgement) ignores cuts.
func TestAwaitEndsAtCut(t *testing.T) {
	wants := func(m *received) bool { return m.method == "notifications/message" }
	in := newInbox()
	before := in.cutCount()
	done := make(chan bool)
	go func() {
		_, ok := in.awaitUncut(context.Background(), before, wants)
		done <- ok
	}()
	in.add("notifications/progress", nil, false, nil, nil)
	in.cut()
	if ok := <-done; ok {
		t.Fatal("the await matched nothing, yet reported a match")
	}

	in = newInbox()
	in.add("notifications/message", nil, false, nil, nil)
	in.cut()
	if _, ok := in.awaitUncut(context.Background(), 0, wants); !ok {
		t.Error("a match received before the cut was not taken")
	}

	in = newInbox()
	in.cut()
	go in.add("notifications/message", nil, false, nil, nil)
	// The bound only keeps a broken await from hanging the test.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, ok := in.await(ctx, wants); !ok {
		t.Error("a plain await gave up at a cut")
	}
}
