package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpcheck/mcpcheck/demo"
)

// childEnvVar makes the test binary act as a server: the runner's stdio
// tests start this very binary (the fixture says `command: [mcpcheck,
// demo]`, and SelfCommand points at os.Args[0]), so they talk to the real
// demo server over real pipes.
const childEnvVar = "MCPCHECK_RUNNER_TEST_CHILD"

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnvVar); mode != "" {
		os.Exit(childMain(mode))
	}
	os.Exit(m.Run())
}

// childMain serves the demo server plus the test tools over stdio.
func childMain(mode string) int {
	if f := os.Getenv("MCPCHECK_TEST_PIDFILE"); f != "" {
		os.WriteFile(f, []byte(strconv.Itoa(os.Getpid())), 0o600)
	}
	if os.Getenv("MCPCHECK_TEST_GRANDCHILD") != "" {
		// A grandchild in the server's process group, as npx leaves a node
		// process behind; the runner must reap it too.
		gc := exec.Command("sleep", "300")
		if gc.Start() == nil {
			if f := os.Getenv("MCPCHECK_TEST_PIDFILE"); f != "" {
				os.WriteFile(f+".grandchild", []byte(strconv.Itoa(gc.Process.Pid)), 0o600)
			}
		}
	}
	fmt.Fprintln(os.Stderr, "child: starting in mode", mode)
	if mode == "exit-at-start" {
		fmt.Fprintln(os.Stderr, "child: fatal: cannot open the database (token=sekrit-token-value)")
		return 3
	}
	if mode == "demo" || mode == "protocol-defects" || mode == "demo-ask" {
		// The demo as `mcpcheck demo` serves it, protocol guard included
		// (or, for protocol-defects, left out).
		if err := demo.ServeStdio(context.Background(), demo.Options{ProtocolDefects: mode == "protocol-defects", Ask: mode == "demo-ask"}, os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			return 1
		}
		return 0
	}
	if mode == "ignore-stdin-close" {
		// A server that never exits on EOF; shutdown must escalate.
		go func() {
			s := testServer()
			s.Run(context.Background(), &mcp.StdioTransport{})
		}()
		select {}
	}
	s := testServer()
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
	}
	return 0
}

// sleepsCancelled counts sleep calls whose context the server saw cancelled
// (the client's notifications/cancelled arrived).
var sleepsCancelled atomic.Int64

// testServer is the real demo server with a few extra tools that let the
// tests provoke what the household tools never do.
func testServer() *mcp.Server {
	s := demo.NewServer(demo.Options{})
	type sleepIn struct {
		Ms int `json:"ms"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "sleep", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, _ *mcp.CallToolRequest, in sleepIn) (*mcp.CallToolResult, any, error) {
			// A test that must act while a call is in flight waits for
			// this file, not for a guess at when the call arrived.
			if f := os.Getenv("MCPCHECK_TEST_SLEEPING"); f != "" {
				os.WriteFile(f, nil, 0o600)
			}
			select {
			case <-time.After(time.Duration(in.Ms) * time.Millisecond):
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "slept"}}}, nil, nil
			case <-ctx.Done():
				sleepsCancelled.Add(1)
				return nil, nil, ctx.Err()
			}
		})
	// echo returns its raw arguments as structuredContent, byte for byte.
	s.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo"}}, StructuredContent: req.Params.Arguments}, nil
		})
	// big returns an integer beyond float64's exact range.
	s.AddTool(&mcp.Tool{Name: "big", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "big"}}, StructuredContent: json.RawMessage(`{"n":9007199254740993,"s":"\u001b[31mred\u001b[0m"}`)}, nil
		})
	// whoami leaks a request header back, as a careless server might.
	s.AddTool(&mcp.Tool{Name: "whoami", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			auth := ""
			if req.Extra != nil && req.Extra.Header != nil {
				auth = req.Extra.Header.Get("Authorization")
			}
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "you sent " + auth + " \x1b[2Jcleared"}}, StructuredContent: map[string]any{"auth": auth}}, nil
		})
	// modern fails under 2026-07-28, to provoke a divergence.
	s.AddTool(&mcp.Tool{Name: "modern", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if req.ProtocolVersion() >= "2026" {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "new protocol"}}}, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "old protocol"}}}, nil
		})
	// crash ends the server process mid-call (stdio only).
	s.AddTool(&mcp.Tool{Name: "crash", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			fmt.Fprintln(os.Stderr, "child: panic: crash tool called with secret sekrit-token-value")
			os.Exit(7)
			return nil, nil
		})
	return s
}
