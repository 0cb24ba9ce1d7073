package demo_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http/httptest"

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

// Read the household as resources, and ask for completions of the
// plan_chores prompt's day argument.
func ExampleNewServer_resources() {
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

	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "propose_task", Arguments: map[string]any{"text": "Water the plants"}}); err != nil {
		log.Fatal(err)
	}
	commit := map[string]any{"proposalId": "proposal-1", "expectedRevision": 0, "idempotencyKey": "approval-1"}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "commit_task", Arguments: commit}); err != nil {
		log.Fatal(err)
	}
	for _, uri := range []string{"household://tasks", "household://tasks/task-1"} {
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s → %s\n", uri, res.Contents[0].Text)
	}
	res, err := cs.Complete(ctx, &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "plan_chores"},
		Argument: mcp.CompleteParamsArgument{Name: "day", Value: "t"},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("day t →", res.Completion.Values)
	// Output:
	// household://tasks → {"revision":1,"tasks":[{"id":"task-1","text":"Water the plants"}]}
	// household://tasks/task-1 → {"id":"task-1","text":"Water the plants"}
	// day t → [Tuesday Thursday]
}

// Serve the demo over Streamable HTTP, as `mcpcheck demo --http` does,
// and list its tools.
func ExampleHandler() {
	ctx := context.Background()
	srv := httptest.NewServer(demo.Handler(demo.Options{}))
	defer srv.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "0"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", DisableStandaloneSSE: true}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(tool.Name)
	}
	// Output:
	// commit_task
	// get_household
	// propose_task
	// tidy_household
}

// Serve the demo over stdio, as `mcpcheck demo` does, here on a pair of
// pipes, and ask it for the household.
func ExampleServeStdio() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- demo.ServeStdio(ctx, demo.Options{}, serverIn, serverOut) }()
	client := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "0"}, nil)
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: clientIn, Writer: clientOut}, nil)
	if err != nil {
		log.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_household", Arguments: map[string]any{}})
	if err != nil {
		log.Fatal(err)
	}
	out, _ := json.Marshal(res.StructuredContent)
	fmt.Println(string(out))
	cs.Close()
	clientOut.Close()
	if err := <-done; err != nil {
		log.Fatal(err)
	}
	// Output:
	// {"revision":0,"tasks":[]}
}
