package demo

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// tidyChores name tidy_household's steps, one per step.
var tidyChores = []string{
	"gathered the task list",
	"sorted the tasks by id",
	"checked for duplicate tasks",
	"dusted the shelves",
	"swept the floor",
	"watered the plants",
	"emptied the bins",
	"put things away",
	"aired the rooms",
	"made the beds",
}

type tidyIn struct {
	Steps int `json:"steps"`
}

type tidyOut struct {
	Steps int `json:"steps"`
	Tasks int `json:"tasks"`
}

// defaultTidySteps is how many steps tidy_household takes without steps.
// The input schema says so in words only: with a "default" keyword, go-sdk
// v1.8.0 panics, ending the whole server, on a call whose arguments are
// null (applySchema decodes null into a nil map and then sets the default
// in it).
const defaultTidySteps = 3

var (
	tidyInputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {
			"steps": {"type": "integer", "minimum": 1, "maximum": 10, "description": "How many steps to take, each reported as progress and logged; 3 when omitted."}
		},
		"additionalProperties": false
	}`)
	tidyOutputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {
			"steps": {"type": "integer", "minimum": 1, "maximum": 10, "description": "The steps taken."},
			"tasks": {"type": "integer", "minimum": 0, "description": "How many tasks the household has."}
		},
		"required": ["steps", "tasks"],
		"additionalProperties": false
	}`)
)

// addTidy adds tidy_household, the tool that shows server notifications.
// Each step sends notifications/message at level info, with details at
// level debug, then notifications/progress (progress i, total N, a message)
// if the call carries a progressToken. The SDK sends a log message only at
// or above the level the client asked for: under 2025-11-25 the one set
// with logging/setLevel, under 2026-07-28 the one in the call's
// _meta["io.modelcontextprotocol/logLevel"]; none without one. The household
// is read, never changed.
func addTidy(s *mcp.Server, reg *registry) {
	no := false
	mcp.AddTool(s, &mcp.Tool{
		Name:  "tidy_household",
		Title: "Tidy household",
		Description: "Tidies the household in steps (3 unless steps says otherwise), reporting progress " +
			"and log messages for each, and changes nothing.",
		InputSchema:  tidyInputSchema,
		OutputSchema: tidyOutputSchema,
		Annotations: &mcp.ToolAnnotations{
			Title:          "Tidy household",
			ReadOnlyHint:   true,
			IdempotentHint: true,
			OpenWorldHint:  &no,
		},
	}, func(ctx context.Context, req *mcp.CallToolRequest, in tidyIn) (*mcp.CallToolResult, tidyOut, error) {
		rev, tasks := reg.household(req.Session).snapshot()
		n := in.Steps
		if n == 0 {
			n = defaultTidySteps
		}
		token := req.Params.GetProgressToken()
		for i := 1; i <= n; i++ {
			if err := ctx.Err(); err != nil {
				return nil, tidyOut{}, err
			}
			chore := tidyChores[i-1]
			// Notifications are best effort: a client that is gone will not
			// read the result either. A step's progress goes out after its log
			// messages, so a client that has seen the last progress has seen
			// every message.
			_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{
				Level:  "info",
				Logger: "tidy_household",
				Data:   fmt.Sprintf("step %d of %d: %s", i, n, chore),
			})
			_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{
				Level:  "debug",
				Logger: "tidy_household",
				Data:   map[string]any{"step": i, "of": n, "revision": rev, "tasks": len(tasks)},
			})
			if token != nil {
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
					ProgressToken: token,
					Progress:      float64(i),
					Total:         float64(n),
					Message:       fmt.Sprintf("Step %d of %d: %s", i, n, chore),
				})
			}
		}
		out := tidyOut{Steps: n, Tasks: len(tasks)}
		return &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.TextContent{Text: fmt.Sprintf("Tidied the household in %s (%s)", plural(n, "step"), plural(len(tasks), "task"))},
		}}, out, nil
	})
}
