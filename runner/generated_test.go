package runner

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpcheck/mcpcheck/config"
)

// plantedOptions serves a few annotated tools with planted defects, in
// memory: enough to check that the generators compile into ordinary steps
// and the analysis scores them. The demo's defects profile is the fuller
// set, run end to end in cmd/mcpcheck.
func plantedOptions() Options {
	return Options{Dial: func(ctx context.Context) (mcp.Transport, error) {
		s := mcp.NewServer(&mcp.Implementation{Name: "planted", Version: "1"}, nil)
		ro := &mcp.ToolAnnotations{ReadOnlyHint: true}
		city := json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`)
		text := func(s string) *mcp.CallToolResult {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
		}
		cityOf := func(req *mcp.CallToolRequest) (string, bool) {
			var in map[string]any
			json.Unmarshal(req.Params.Arguments, &in)
			c, ok := in["city"].(string)
			return c, ok
		}
		s.AddTool(&mcp.Tool{Name: "good", InputSchema: city, Annotations: ro}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			c, ok := cityOf(req)
			if !ok {
				r := text("city must be a string")
				r.IsError = true
				return r, nil
			}
			return text("Weather in " + c + ": 21°C"), nil
		})
		s.AddTool(&mcp.Tool{Name: "internal_error", InputSchema: city, Annotations: ro}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			c, ok := cityOf(req)
			if !ok {
				return nil, &jsonrpc.Error{Code: -32603, Message: "TypeError: cannot read properties of undefined"}
			}
			return text("Forecast for " + c), nil
		})
		s.AddTool(&mcp.Tool{Name: "refuses", InputSchema: city, Annotations: ro}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if _, ok := cityOf(req); !ok {
				r := text("bad input")
				r.IsError = true
				return r, nil
			}
			return text("I'm sorry, but I can't access live weather data right now."), nil
		})
		s.AddTool(&mcp.Tool{Name: "writer", InputSchema: city}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text("written"), nil
		})
		ct, st := mcp.NewInMemoryTransports()
		if _, err := s.Connect(ctx, st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}}
}

func generatedSuite(t *testing.T, g *config.Generate) *config.Suite {
	s := parse(t, "name: gen\ncommand: [x]\nallowTools: [good]\nscenarios: [{name: fixture, steps: [{id: one, tool: good, arguments: {city: Oslo}}]}]\n")
	s.AllowTools = nil // quick mode: every discovered tool
	s.Generate = g
	return s
}

func TestGeneratedFuzzAndFidelity(t *testing.T) {
	rep := mustRun(t, generatedSuite(t, &config.Generate{Fuzz: true, Fidelity: true, Probes: true}), plantedOptions())
	got := statuses(rep)
	for _, want := range []string{
		"fixture/one=passed:ok",
		"generated: good/valid=passed:ok", "generated: good/missing-required.city=passed:tool_error", "generated: good/wrong-type.city=passed:tool_error",
		"generated: internal_error/valid=passed:ok", "generated: internal_error/wrong-type.city=failed:protocol_error",
		"generated: refuses/valid=failed:ok",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("statuses lack %q:\n%s", want, strings.ReplaceAll(got, " gen", "\ngen"))
		}
	}
	if strings.Contains(got, "writer") {
		t.Errorf("a tool without readOnlyHint was called: %s", got)
	}
	if len(rep.SkippedTools) != 1 || rep.SkippedTools[0].Tool != "writer" || !strings.Contains(rep.SkippedTools[0].Reason, "no readOnlyHint") {
		t.Errorf("skipped = %+v", rep.SkippedTools)
	}
	scores := map[string]Score{}
	for _, sc := range rep.Scores {
		scores[sc.Name] = sc
	}
	// 6 bad-input cases (missing + wrong type for 3 tools); internal_error's 2 are -32603.
	if cr := scores["crashResilience"]; cr.Passed != 4 || cr.Total != 6 || cr.Grade != "D" {
		t.Errorf("crash resilience = %+v", cr)
	}
	if rf := scores["responseFidelity"]; rf.Passed != 2 || rf.Total != 3 {
		t.Errorf("response fidelity = %+v", rf)
	}
	if _, ok := scores["latency"]; !ok {
		t.Errorf("no latency score: %+v", rep.Scores)
	}
	if rep.Passed {
		t.Error("a run with non-graceful fuzz cases passed without a threshold")
	}
	if rep.Tokens == nil || rep.Tokens.Calls != 3 {
		t.Errorf("tokens = %+v", rep.Tokens)
	}
}

func TestGeneratedThresholds(t *testing.T) {
	g := &config.Generate{Fuzz: true, FailUnder: map[string]float64{"crashResilience": 60}}
	s := generatedSuite(t, g)
	s.AllowTools = []string{"good", "internal_error"}
	rep := mustRun(t, s, plantedOptions())
	// 2 of 4 bad-input cases are graceful: 50 % < 60 %.
	if rep.Passed || len(rep.Scores) == 0 || rep.Scores[0].Met == nil || *rep.Scores[0].Met {
		t.Fatalf("passed %v scores %+v", rep.Passed, rep.Scores)
	}
	g.FailUnder["crashResilience"] = 50
	rep = mustRun(t, s, plantedOptions())
	if !rep.Passed {
		t.Errorf("a met threshold did not let the run pass: %+v %s", rep.Scores, statuses(rep))
	}
}
