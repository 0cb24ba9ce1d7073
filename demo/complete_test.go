package demo

import (
	"fmt"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestComplete(t *testing.T) {
	prompt := &mcp.CompleteReference{Type: "ref/prompt", Name: "plan_chores"}
	template := &mcp.CompleteReference{Type: "ref/resource", URI: "household://tasks/{id}"}
	onEverySurface(t, func(t *testing.T, sf surface, version string) {
		ctx := testContext(t)
		cs := sf.connect(t, newClient(), version)
		complete := func(ref *mcp.CompleteReference, name, value string) (*mcp.CompleteResult, error) {
			return cs.Complete(ctx, &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: name, Value: value}})
		}
		check := func(ref *mcp.CompleteReference, name, value string, want ...string) {
			t.Helper()
			res, err := complete(ref, name, value)
			if err != nil {
				t.Fatalf("complete %s=%q: %v", name, value, err)
			}
			if got := res.Completion.Values; !slices.Equal(got, want) {
				t.Errorf("complete %s=%q: %q, want %q", name, value, got, want)
			}
			if res.Completion.Total != len(want) || res.Completion.HasMore {
				t.Errorf("complete %s=%q: total %d, hasMore %v; want %d, false", name, value, res.Completion.Total, res.Completion.HasMore, len(want))
			}
		}

		check(prompt, "day", "", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
		check(prompt, "day", "t", "Tuesday", "Thursday")
		check(prompt, "day", "SA", "Saturday")
		check(prompt, "day", "x")
		check(prompt, "member", "", "Alex", "Jordan", "Robin", "Sam")
		check(prompt, "member", "r", "Robin")

		check(template, "id", "")
		for i := range 11 {
			addTask(t, ctx, cs, fmt.Sprint("task ", i+1))
		}
		check(template, "id", "task-1", "task-1", "task-10", "task-11")
		check(template, "id", "task-", "task-1", "task-2", "task-3", "task-4", "task-5", "task-6", "task-7", "task-8", "task-9", "task-10", "task-11")
		check(template, "id", "TASK")

		for _, bad := range []struct {
			ref  *mcp.CompleteReference
			name string
		}{
			{prompt, "colour"},
			{&mcp.CompleteReference{Type: "ref/prompt", Name: "no_such_prompt"}, "day"},
			{template, "name"},
			{&mcp.CompleteReference{Type: "ref/resource", URI: "household://tasks"}, "id"},
		} {
			_, err := complete(bad.ref, bad.name, "")
			wantRPCError(t, fmt.Sprintf("complete %+v %s", *bad.ref, bad.name), err, jsonrpc.CodeInvalidParams)
		}
	})
}

// TestCompleteBounded checks that an answer holds at most 100 values and
// says how many there are.
func TestCompleteBounded(t *testing.T) {
	ctx := testContext(t)
	s, reg := newServer(Options{})
	cs := connectInMemory(t, ctx, s, "2025-11-25")
	mustOK(t, ctx, cs, "get_household", args())
	for ss := range s.Sessions() {
		h := reg.lookup(ss)
		for i := range 150 {
			id, _, _ := h.propose("t")
			if _, _, err := h.commit(id, int64(i), id); err != nil {
				t.Fatal(err)
			}
		}
	}
	res, err := cs.Complete(ctx, &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: "household://tasks/{id}"},
		Argument: mcp.CompleteParamsArgument{Name: "id", Value: "task-"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Completion; len(c.Values) != 100 || c.Total != 150 || !c.HasMore || c.Values[0] != "task-1" {
		t.Errorf("%d values (%q), total %d, hasMore %v; want 100 from task-1, 150, true", len(c.Values), c.Values, c.Total, c.HasMore)
	}
}
