package runner

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// pagingServer answers tools/list with the demo's tools and the cursor that
// next(cursor) chooses, to provoke what the SDK's own iterator would loop on.
func pagingOptions(next func(cursor string) string) Options {
	return Options{Dial: func(ctx context.Context) (mcp.Transport, error) {
		s := testServer()
		s.AddReceivingMiddleware(func(h mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if method != "tools/list" {
					return h(ctx, method, req)
				}
				// The SDK would reject our made-up cursors; serve page one
				// every time and choose the next cursor here.
				params := req.GetParams().(*mcp.ListToolsParams)
				cursor := params.Cursor
				params.Cursor = ""
				res, err := h(ctx, method, req)
				if err == nil {
					res.(*mcp.ListToolsResult).NextCursor = next(cursor)
				}
				return res, err
			}
		})
		ct, st := mcp.NewInMemoryTransports()
		if _, err := s.Connect(ctx, st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}}
}

func TestDiscoveryFailures(t *testing.T) {
	tests := []struct {
		name string
		next func(string) string
		want string
	}{
		{"constant cursor", func(string) string { return "again" }, "repeats an earlier cursor"},
		{"cycle", func(c string) string {
			if c == "b" {
				return "a"
			}
			if c == "a" {
				return "b"
			}
			return "a"
		}, "repeats an earlier cursor"},
		{"endless pages", func(c string) string {
			n, _ := strconv.Atoi(strings.TrimPrefix(c, "p"))
			return "p" + strconv.Itoa(n+1)
		}, "more than 100 pages"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := mustRun(t, parse(t, household), pagingOptions(tt.next))
			if rep.Passed || rep.Failure == nil || rep.Failure.Stage != "discovery" || !strings.Contains(rep.Failure.Message, tt.want) {
				t.Fatalf("failure = %+v", rep.Failure)
			}
			if rep.Summary.Skipped != 6 || rep.Summary.Failed != 0 {
				t.Errorf("summary = %+v", rep.Summary)
			}
		})
	}
}

func TestDiscoveryFollowsPages(t *testing.T) {
	// Two pages, then done: the same tools repeated on page two are
	// reported once, with a warning.
	rep := mustRun(t, parse(t, household), pagingOptions(func(c string) string {
		if c == "" {
			return "page-2"
		}
		return ""
	}))
	if !rep.Passed {
		t.Fatalf("not passed: %s %+v", statuses(rep), rep.Failure)
	}
	if len(rep.Warnings) == 0 || !strings.Contains(rep.Warnings[0], "more than once") {
		t.Errorf("warnings = %v", rep.Warnings)
	}
}
