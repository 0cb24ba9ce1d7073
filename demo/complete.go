package demo

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxCompletions is the most values one completion/complete answer holds,
// the limit the MCP specification sets; total and hasMore tell of the rest.
const maxCompletions = 100

// complete answers completion/complete: for plan_chores, the weekdays for
// day and the members for member that start with the typed value, ignoring
// case, in week (or list) order; for household://tasks/{id}, the ids of the
// session's tasks that start with the value, case and all, in commit order.
// Any other prompt, resource or argument is a JSON-RPC error -32602.
func (r *registry) complete(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	ref, arg := req.Params.Ref, req.Params.Argument
	var candidates []string
	fold := true
	switch {
	case ref.Type == "ref/prompt" && ref.Name == planChores:
		switch arg.Name {
		case "day":
			candidates = weekdays
		case "member":
			candidates = members
		default:
			return nil, invalidParams("%s has no argument %q", planChores, arg.Name)
		}
	case ref.Type == "ref/resource" && ref.URI == taskURITemplate:
		if arg.Name != "id" {
			return nil, invalidParams("%s has no variable %q", taskURITemplate, arg.Name)
		}
		_, tasks := r.household(req.Session).snapshot()
		for _, t := range tasks {
			candidates = append(candidates, t.ID)
		}
		fold = false
	case ref.Type == "ref/prompt":
		return nil, invalidParams("unknown prompt %q", ref.Name)
	default: // ref/resource, the only other type the SDK lets through
		return nil, invalidParams("no resource template %q", ref.URI)
	}

	values := []string{} // never null
	for _, c := range candidates {
		if strings.HasPrefix(c, arg.Value) || fold && strings.HasPrefix(strings.ToLower(c), strings.ToLower(arg.Value)) {
			values = append(values, c)
		}
	}
	res := &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: values, Total: len(values)}}
	if len(values) > maxCompletions {
		res.Completion.Values = values[:maxCompletions]
		res.Completion.HasMore = true
	}
	return res, nil
}
