package demo

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// tidy calls tidy_household with the given progress token and arguments,
// waits for the steps' progress notifications, and returns the result; the
// log messages sent during the call have then been handled too.
func tidy(t *testing.T, ctx context.Context, cs *mcp.ClientSession, w *watcher, token string, steps int, arguments map[string]any, meta mcp.Meta) *mcp.CallToolResult {
	t.Helper()
	p := &mcp.CallToolParams{Name: "tidy_household", Arguments: arguments, Meta: meta}
	p.SetProgressToken(token)
	res, err := cs.CallTool(ctx, p)
	if err != nil {
		t.Fatalf("tidy_household: %v", err)
	}
	if res.IsError {
		t.Fatalf("tidy_household: tool error %s", resultText(res))
	}
	w.await(t, fmt.Sprintf("%d progress notifications for %s", steps, token), func() bool { return len(w.progress[token]) >= steps })
	return res
}

func TestTidyProgress(t *testing.T) {
	onEverySurface(t, func(t *testing.T, sf surface, version string) {
		ctx := testContext(t)
		w := newWatcher()
		cs := sf.connect(t, w.client(), version)

		res := tidy(t, ctx, cs, w, "four", 4, args("steps", 4), nil)
		if got, want := canonical(t, res.StructuredContent), `{"steps":4,"tasks":0}`; got != want {
			t.Errorf("structuredContent %s, want %s", got, want)
		}
		if len(res.Content) != 1 || resultText(res) != "Tidied the household in 4 steps (0 tasks)" {
			t.Errorf("content %q (%d blocks), want one text block", resultText(res), len(res.Content))
		}
		w.mu.Lock()
		events := w.progress["four"]
		w.mu.Unlock()
		if len(events) != 4 {
			t.Fatalf("%d progress notifications, want 4", len(events))
		}
		for i, e := range events {
			if e.Progress != float64(i+1) || e.Total != 4 || !strings.HasPrefix(e.Message, fmt.Sprintf("Step %d of 4: ", i+1)) {
				t.Errorf("progress %d: %+v, want progress %d of total 4 with a message", i, e, i+1)
			}
		}

		// Without steps it takes 3, and it changes nothing.
		addTask(t, ctx, cs, "Water the plants")
		before := mustOK(t, ctx, cs, "get_household", args())
		res = tidy(t, ctx, cs, w, "default", 3, nil, nil)
		if got, want := resultText(res), "Tidied the household in 3 steps (1 task)"; got != want {
			t.Errorf("text %q, want %q", got, want)
		}
		if after := mustOK(t, ctx, cs, "get_household", args()); after != before {
			t.Errorf("household %s after tidying, was %s", after, before)
		}
		w.barrier(t, ctx, cs)
		if n := w.count(func() int { return len(w.progress["default"]) }); n != 3 {
			t.Errorf("%d progress notifications without steps, want 3", n)
		}

		for _, bad := range []map[string]any{args("steps", 0), args("steps", 11), args("steps", 2.5), args("steps", "3"), args("extra", 1)} {
			if got := mustToolError(t, ctx, cs, "tidy_household", bad); !strings.Contains(got, "validating") {
				t.Errorf("tidy_household %v: %q", bad, got)
			}
		}
	})
}

// TestTidyLogging checks which log messages tidy_household's client gets.
// None before a level is asked for. Under 2025-11-25 the level is the one
// set with logging/setLevel; under 2026-07-28 go-sdk takes it from each
// request's _meta, and logging/setLevel, deprecated, changes nothing.
func TestTidyLogging(t *testing.T) {
	onEverySurface(t, func(t *testing.T, sf surface, version string) {
		ctx := testContext(t)
		w := newWatcher()
		cs := sf.connect(t, w.client(), version)
		logs := func() []string {
			w.mu.Lock()
			defer w.mu.Unlock()
			var out []string
			for _, l := range w.logs {
				if l.Logger != "tidy_household" {
					t.Errorf("log message from logger %q", l.Logger)
				}
				out = append(out, fmt.Sprintf("%s %v", l.Level, l.Data))
			}
			w.logs = nil
			return out
		}
		want := func(what string, got []string, want ...string) {
			t.Helper()
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%s: log messages\n%s\nwant\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		}
		info := []string{"info step 1 of 2: gathered the task list", "info step 2 of 2: sorted the tasks by id"}
		both := []string{
			"info step 1 of 2: gathered the task list", "debug map[of:2 revision:0 step:1 tasks:0]",
			"info step 2 of 2: sorted the tasks by id", "debug map[of:2 revision:0 step:2 tasks:0]",
		}

		tidy(t, ctx, cs, w, "unset", 2, args("steps", 2), nil)
		want("no level set", logs())

		setLevel := func(level mcp.LoggingLevel) {
			t.Helper()
			if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: level}); err != nil {
				t.Fatalf("logging/setLevel %s: %v", level, err)
			}
		}
		switch negotiated(cs) {
		case "2025-11-25":
			setLevel("info")
			tidy(t, ctx, cs, w, "info", 2, args("steps", 2), nil)
			want("level info", logs(), info...)
			setLevel("debug")
			tidy(t, ctx, cs, w, "debug", 2, args("steps", 2), nil)
			want("level debug", logs(), both...)
			setLevel("error")
			tidy(t, ctx, cs, w, "error", 2, args("steps", 2), nil)
			want("level error", logs())
		case "2026-07-28":
			setLevel("debug")
			tidy(t, ctx, cs, w, "setLevel", 2, args("steps", 2), nil)
			want("after logging/setLevel debug", logs())
			tidy(t, ctx, cs, w, "info", 2, args("steps", 2), mcp.Meta{mcp.MetaKeyLogLevel: "info"})
			want("_meta level info", logs(), info...)
			tidy(t, ctx, cs, w, "debug", 2, args("steps", 2), mcp.Meta{mcp.MetaKeyLogLevel: "debug"})
			want("_meta level debug", logs(), both...)
		default:
			t.Fatalf("negotiated %q", negotiated(cs))
		}
	})
}
