package demo

import (
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestPromptsListed(t *testing.T) {
	onEverySurface(t, func(t *testing.T, sf surface, version string) {
		ctx := testContext(t)
		res, err := sf.connect(t, newClient(), version).ListPrompts(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Prompts) != 1 || res.Prompts[0].Name != "plan_chores" {
			t.Fatalf("prompts %+v, want plan_chores only", res.Prompts)
		}
		p := res.Prompts[0]
		if p.Description == "" || len(p.Arguments) != 2 {
			t.Fatalf("plan_chores: description %q, %d arguments; want one and 2", p.Description, len(p.Arguments))
		}
		for i, want := range []struct {
			name     string
			required bool
		}{{"member", true}, {"day", false}} {
			a := p.Arguments[i]
			if a.Name != want.name || a.Required != want.required || a.Description == "" {
				t.Errorf("argument %d: %+v, want %s (required %v) with a description", i, a, want.name, want.required)
			}
		}
	})
}

// TestPlanChores gets plan_chores with and without its arguments.
func TestPlanChores(t *testing.T) {
	onEverySurface(t, func(t *testing.T, sf surface, version string) {
		ctx := testContext(t)
		cs := sf.connect(t, newClient(), version)
		get := func(arguments map[string]string) (string, error) {
			t.Helper()
			res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "plan_chores", Arguments: arguments})
			if err != nil {
				return "", err
			}
			if len(res.Messages) != 1 || res.Messages[0].Role != "user" {
				t.Fatalf("messages %+v, want one from the user", res.Messages)
			}
			tc, ok := res.Messages[0].Content.(*mcp.TextContent)
			if !ok {
				t.Fatalf("content %T, want text", res.Messages[0].Content)
			}
			return tc.Text, nil
		}
		wantText := func(arguments map[string]string, has ...string) {
			t.Helper()
			text, err := get(arguments)
			if err != nil {
				t.Fatalf("get %v: %v", arguments, err)
			}
			for _, h := range has {
				if !strings.Contains(text, h) {
					t.Errorf("get %v: text %q does not contain %q", arguments, text, h)
				}
			}
		}

		wantText(map[string]string{"member": "Alex"}, "for Alex this week", "revision 0 and has no tasks")
		addTask(t, ctx, cs, "Water the plants")
		addTask(t, ctx, cs, "Empty the bins")
		wantText(map[string]string{"member": "Robin", "day": "tuesday"},
			"for Robin on Tuesday", "revision 2 with 2 tasks", "- task-1: Water the plants\n- task-2: Empty the bins\n")
		wantText(map[string]string{"member": "Sam", "day": ""}, "for Sam this week")

		for _, bad := range []map[string]string{
			nil,
			{"day": "Monday"},
			{"member": "  "},
			{"member": "Alex", "day": "Someday"},
			{"member": "Alex", "colour": "red"},
		} {
			_, err := get(bad)
			wantRPCError(t, fmt.Sprintf("get plan_chores %v", bad), err, jsonrpc.CodeInvalidParams)
		}
		_, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "no_such_prompt"})
		wantRPCError(t, "get no_such_prompt", err, jsonrpc.CodeInvalidParams)
	})
}
