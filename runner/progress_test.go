package runner

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestCancelledProgressHonest (issue 19, item 8): a go-sdk server whose
// slow tool reports progress every 50 ms and stops when its call is
// cancelled. The cancellation probe's progress rule does not fire on it
// (go-sdk still answers the cancelled call: that stays the late-result
// note); the planted defect is found by cmd's TestCancelledProgress.
func TestCancelledProgressHonest(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "honest", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "slow_report", Description: "Builds a report, reporting progress.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			tick := time.NewTicker(50 * time.Millisecond)
			defer tick.Stop()
			for i := 1; i <= 60; i++ {
				select {
				case <-ctx.Done():
					return nil, nil, ctx.Err()
				case <-tick.C:
				}
				if token := req.Params.GetProgressToken(); token != nil {
					req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(i)})
				}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
		})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	defer hs.Close()
	rep := mustRun(t, protocolSuite(t, "", hs.URL), Options{})
	ran := false
	for _, sc := range rep.Scenarios {
		for _, st := range sc.Steps {
			if st.Case != "cancellation" {
				continue
			}
			ran = true
			if st.Probe != nil && strings.Contains(st.Probe.Got, "progress") {
				t.Errorf("progress judged on an honest tool: %+v", st.Probe)
			}
		}
	}
	if !ran {
		t.Fatal("no cancellation probe ran")
	}
}
