package demo_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/mcpcheck/mcpcheck/demo"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Connect a client to a fresh demo server in memory, propose a task, commit
// it, and replay the commit.
func ExampleNewServer() {
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := demo.NewServer(demo.Options{}).Connect(ctx, st, nil); err != nil {
		log.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "0"}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()

	call := func(tool string, args map[string]any) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			log.Fatal(err)
		}
		out, _ := json.Marshal(res.StructuredContent)
		fmt.Printf("%s → %s\n", tool, out)
	}
	call("propose_task", map[string]any{"text": "Collect the library books"})
	commit := map[string]any{"proposalId": "proposal-1", "expectedRevision": 0, "idempotencyKey": "approval-1"}
	call("commit_task", commit)
	call("commit_task", commit)
	call("get_household", map[string]any{})
	// Output:
	// propose_task → {"proposalId":"proposal-1","revision":0}
	// commit_task → {"replayed":false,"revision":1}
	// commit_task → {"replayed":true,"revision":1}
	// get_household → {"revision":1,"tasks":[{"id":"task-1","text":"Collect the library books"}]}
}
