package demo

import (
	"context"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A defect of the defects profile that only a client asking for progress
// and then cancelling sees (issue 19, item 8): slow_search, asked for
// progress, reports it from a reporter that does not watch the call's
// cancellation, and a cancelled search waits for that reporter to run out
// before it gives up. So after notifications/cancelled progress keeps
// coming, every searchTick, and no answer comes for searchTicks×searchTick
// from the start (longer than the cancellation probe listens). A plain
// call (no progress token) is unchanged.

const (
	searchTick  = 100 * time.Millisecond
	searchTicks = 28
)

// searchReporter reports a search's progress; the zero value (a call
// without a progress token) reports nothing.
type searchReporter struct {
	done chan struct{}
	wg   sync.WaitGroup
}

// reportSearch starts reporting progress for req, when it asked for it.
func reportSearch(ctx context.Context, req *mcp.CallToolRequest) *searchReporter {
	r := &searchReporter{}
	token := req.Params.GetProgressToken()
	if token == nil {
		return r
	}
	r.done = make(chan struct{})
	// The call's context without its cancellation (the defect): over HTTP
	// it still names the request, so the progress goes on its stream.
	detached := context.WithoutCancel(ctx)
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		t := time.NewTicker(searchTick)
		defer t.Stop()
		for i := 1; i <= searchTicks; i++ {
			select {
			case <-r.done:
				return
			case <-t.C:
			}
			req.Session.NotifyProgress(detached, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(i), Message: "searching"})
		}
	}()
	return r
}

// finished stops the reporter of a search that ran to its end.
func (r *searchReporter) finished() {
	if r.done != nil {
		close(r.done)
		r.wg.Wait()
	}
}

// cancelled is the planted defect: the reporter is not told, and the
// search waits for it to run out.
func (r *searchReporter) cancelled() {
	r.wg.Wait()
}
