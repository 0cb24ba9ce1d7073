package demo

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const planChores = "plan_chores"

// weekdays are the values plan_chores accepts for day, in week order.
var weekdays = []string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}

// members are the household members that completion suggests for
// plan_chores' member; any other name is accepted too.
var members = []string{"Alex", "Jordan", "Robin", "Sam"}

func addPrompts(s *mcp.Server, reg *registry) {
	// One user message asking to plan a member's chores on a day (the week
	// when day is omitted or blank), listing the session's tasks. A missing
	// or blank member, a day that is not a weekday (matched
	// case-insensitively) and an argument it does not take are JSON-RPC
	// errors -32602.
	s.AddPrompt(&mcp.Prompt{
		Name:        planChores,
		Title:       "Plan chores",
		Description: "Asks for a plan of one member's chores from this session's task list.",
		Arguments: []*mcp.PromptArgument{
			{Name: "member", Title: "Member", Description: "Who the plan is for, such as Alex.", Required: true},
			{Name: "day", Title: "Day", Description: "A weekday, Monday to Sunday; the whole week when omitted."},
		},
	}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		member, day, err := planChoresArgs(req.Params.Arguments)
		if err != nil {
			return nil, err
		}
		rev, tasks := reg.household(req.Session).snapshot()
		return &mcp.GetPromptResult{
			Description: fmt.Sprintf("Chores for %s %s", member, day),
			Messages: []*mcp.PromptMessage{{
				Role:    "user",
				Content: &mcp.TextContent{Text: planChoresText(member, day, rev, tasks)},
			}},
		}, nil
	})
}

// planChoresArgs checks plan_chores' arguments and returns the member and
// the day as a phrase ("on Monday", or "this week").
func planChoresArgs(args map[string]string) (member, day string, err error) {
	for name := range args {
		if name != "member" && name != "day" {
			return "", "", invalidParams("%s takes the arguments member and day, not %q", planChores, name)
		}
	}
	member = strings.TrimSpace(args["member"])
	if member == "" {
		return "", "", invalidParams("%s: missing required argument %q", planChores, "member")
	}
	d := strings.TrimSpace(args["day"])
	if d == "" {
		return member, "this week", nil
	}
	i := slices.IndexFunc(weekdays, func(w string) bool { return strings.EqualFold(w, d) })
	if i < 0 {
		return "", "", invalidParams("%s: day must be a weekday, Monday to Sunday, not %q", planChores, d)
	}
	return member, "on " + weekdays[i], nil
}

func planChoresText(member, day string, revision int64, tasks []task) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Plan the household chores for %s %s.\n\n", member, day)
	if len(tasks) == 0 {
		fmt.Fprintf(&b, "The household is at revision %d and has no tasks yet. Suggest a few that %s could take on, to propose with propose_task.\n", revision, member)
		return b.String()
	}
	fmt.Fprintf(&b, "The household is at revision %d with %s:\n", revision, plural(len(tasks), "task"))
	for _, t := range tasks {
		fmt.Fprintf(&b, "- %s: %s\n", t.ID, t.Text)
	}
	fmt.Fprintf(&b, "\nSay which of these %s should do %s, and in what order.\n", member, day)
	return b.String()
}

// invalidParams is a JSON-RPC error -32602 with the given message.
func invalidParams(format string, args ...any) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(format, args...)}
}
