package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The defects profile's honest look-alikes (issue 19): tools that behave
// the way a planted defect does on the surface, but by design, so that a
// verdict rule that cannot tell them apart shows up as a false alarm
// against the demo. Each is a "Control": no generated check may flag it.

// Names of the look-alike tools.
const (
	// Empty content on success, from a side effect (list_reminders'
	// look-alike).
	toolSnoozeReminders = "snooze_reminders"
	// A slow call whose own arguments asked for the time (slow_search's
	// look-alike).
	toolKitchenTimer = "kitchen_timer"
	// A tool that asks the client for its roots mid-call, while other
	// calls may be in flight (server requests attributed to steps).
	toolCountRoots = "count_roots"
)

// verdictTools are the look-alikes, listed with the defects profile.
var verdictTools = []string{toolSnoozeReminders, toolKitchenTimer, toolCountRoots}

// countRootsPause is how long count_roots works before it asks for the
// roots, so that a call started with it is in flight when it asks.
const countRootsPause = 300 * time.Millisecond

var (
	snoozeInputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {
			"minutes": {"type": "integer", "minimum": 1, "maximum": 120, "description": "How long to snooze every reminder, in minutes."}
		},
		"required": ["minutes"],
		"additionalProperties": false
	}`)
	// kitchen_timer's delay is large enough that, were it not asked for,
	// it would be a latency outlier against the profile's median by any
	// ratio and margin mcpcheck uses, and small enough to keep the demo's
	// runs short.
	kitchenTimerInputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {
			"delayMs": {"type": "integer", "minimum": 700, "maximum": 900, "description": "How long the timer runs before it rings, in milliseconds."}
		},
		"required": ["delayMs"],
		"additionalProperties": false
	}`)
)

type snoozeIn struct {
	Minutes int `json:"minutes"`
}

type kitchenTimerIn struct {
	DelayMs int `json:"delayMs"`
}

// addVerdictTools registers the look-alikes. Neither is read-only: each
// does something (snoozes, rings), and neither declares an outputSchema.
func (d *defects) addVerdictTools(s *mcp.Server) {
	no := false
	mcp.AddTool(s, &mcp.Tool{
		Name:        toolSnoozeReminders,
		Title:       "Snooze reminders",
		Description: "Snoozes every reminder of this session for the given minutes. Answers with no content: the snooze is the point.",
		InputSchema: snoozeInputSchema,
		Annotations: &mcp.ToolAnnotations{Title: "Snooze reminders", DestructiveHint: &no, IdempotentHint: true, OpenWorldHint: &no},
	}, func(context.Context, *mcp.CallToolRequest, snoozeIn) (*mcp.CallToolResult, any, error) {
		// Control: an empty content array on success, which the spec
		// allows, from a tool that is neither read-only nor structured.
		return &mcp.CallToolResult{Content: []mcp.Content{}}, nil, nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name:        toolKitchenTimer,
		Title:       "Kitchen timer",
		Description: "Runs a kitchen timer for delayMs milliseconds and answers when it rings.",
		InputSchema: kitchenTimerInputSchema,
		Annotations: &mcp.ToolAnnotations{Title: "Kitchen timer", DestructiveHint: &no, IdempotentHint: true, OpenWorldHint: &no},
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in kitchenTimerIn) (*mcp.CallToolResult, any, error) {
		// Control: slow by request. The time is the caller's, not the
		// tool's: no latency outlier.
		t := time.NewTimer(time.Duration(in.DelayMs) * time.Millisecond)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		return textResult(fmt.Sprintf("The kitchen timer rang after %d ms.", in.DelayMs)), nil, nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name:        toolCountRoots,
		Title:       "Count roots",
		Description: "Counts the folders the client shares (its roots), asking the client for them.",
		InputSchema: noArgsSchema,
		Annotations: readOnly("Count roots"),
	}, func(ctx context.Context, req *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
		// Control: an honest server request, made mid-call.
		t := time.NewTimer(countRootsPause)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		roots, err := req.Session.ListRoots(ctx, nil)
		if err != nil {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "the client shares no roots: " + err.Error()}}}, nil, nil
		}
		return textResult(fmt.Sprintf("The client shares %d folder(s).", len(roots.Roots))), nil, nil
	})
}
