package runner

import (
	"context"
	"sync/atomic"
)

// A call's context is cancelled when the call returns, but over Streamable
// HTTP the go-sdk hands the answer over as soon as the response event
// arrives, while it is still reading the rest of the POST's event stream
// (usually just its end). Cancelling then makes net/http close the
// connection instead of reusing it: measured against the demo, one new TCP
// connection every ~20 calls (99 connects for 2,000 calls of a 4-user load
// run, 9 for a bare go-sdk pool), each a dial, an accept and goroutines
// on both sides. So the cancel waits for the call's response bodies to be
// closed, which the SDK does when the stream ends. The wait is bounded by
// the call's own deadline (the context's timer still fires) and by
// maxDeferredCancels per session: past it, a server that keeps streams
// open after answering gets the old behaviour, its connections closed at
// once.

// maxDeferredCancels bounds the calls of one session whose context is kept
// alive waiting for their response body to end.
const maxDeferredCancels = 64

// bodyOpened counts a response body of the call's POST (w: the session's
// count of deferred cancels).
func (t *tap) bodyOpened(w *atomic.Int32) {
	t.mu.Lock()
	t.bodies++
	t.deferred = w
	t.mu.Unlock()
}

// bodyClosed is called once per body bodyOpened counted; the last one runs
// the cancel the call left behind, if it did.
func (t *tap) bodyClosed() {
	t.mu.Lock()
	t.bodies--
	var f func()
	if t.bodies == 0 {
		f, t.release = t.release, nil
	}
	t.mu.Unlock()
	if f != nil {
		f()
	}
}

// cancelAfterBody cancels the call's context now, or, when a response body
// of the call is still open (and the session has room), when it closes.
func (t *tap) cancelAfterBody(cancel context.CancelFunc) {
	t.mu.Lock()
	w := t.deferred
	if t.bodies == 0 || w == nil || w.Add(1) > maxDeferredCancels {
		if w != nil && t.bodies > 0 {
			w.Add(-1)
		}
		t.mu.Unlock()
		cancel()
		return
	}
	t.release = func() {
		w.Add(-1)
		cancel()
	}
	t.mu.Unlock()
}
