package runner_test

import (
	"context"
	"fmt"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpcheck/mcpcheck/demo"
	"github.com/mcpcheck/mcpcheck/runner"
)

// demoSession connects a go-sdk client to the demo server in memory, as an
// agent's own session would be, and returns its tools by name.
func demoSession(ctx context.Context, opts demo.Options) (*mcp.ClientSession, map[string]*mcp.Tool) {
	ct, st := mcp.NewInMemoryTransports()
	if _, err := demo.NewServer(opts).Connect(ctx, st, nil); err != nil {
		log.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	tools := map[string]*mcp.Tool{}
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			log.Fatal(err)
		}
		tools[tool.Name] = tool
	}
	return cs, tools
}

// An agent puts its own calls through the gate: a genuine answer passes,
// an honest error is no answer to trust, and a refusal dressed as success
// or structuredContent that breaks the tool's outputSchema is flagged.
func ExampleGuardedCall() {
	ctx := context.Background()
	cs, tools := demoSession(ctx, demo.Options{Defects: true})
	defer cs.Close()
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"lookup_city", map[string]any{"city": "Lisbon"}},
		{"get_note", map[string]any{"note_id": "no-such-note"}},
		{"weather_report", map[string]any{"city": "Lisbon"}},
		{"exchange_rate", map[string]any{"from": "EUR", "to": "USD"}},
	} {
		g := runner.GuardedCall(ctx, cs, tools[c.tool], c.args)
		fmt.Printf("%s: %s flagged=%v %q\n", c.tool, g.Outcome, g.Flagged, g.Reasons)
	}
	// Output:
	// lookup_city: ok flagged=false []
	// get_note: tool_error flagged=false []
	// weather_report: ok flagged=true ["a refusal disguised as success (\"I'm sorry, but I can't\")"]
	// exchange_rate: output_invalid flagged=true ["structuredContent does not match the tool's outputSchema at \"/rate\" (type)"]
}

// A LatencyGate adds the latency and size probes to the same judgement:
// here a result far above the absolute size threshold.
func ExampleLatencyGate() {
	ctx := context.Background()
	cs, tools := demoSession(ctx, demo.Options{Faults: true, Defects: true})
	defer cs.Close()
	var lg runner.LatencyGate
	g := lg.Call(ctx, cs, tools["export_catalog"], nil)
	fmt.Printf("%s flagged=%v %q\n", g.Outcome, g.Flagged, g.Reasons)
	// Output:
	// ok flagged=true ["response size: 60653 characters, above the absolute threshold 20000"]
}
