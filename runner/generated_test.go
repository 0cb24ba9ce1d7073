package runner

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/demo"
	"github.com/mcpcheck/mcpcheck/runner/internal/gen"
	"github.com/mcpcheck/mcpcheck/runner/report"
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
	scores := map[config.ScoreName]report.Score{}
	for _, sc := range rep.Summary.Scores {
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
		t.Errorf("no latency score: %+v", rep.Summary.Scores)
	}
	if rep.Passed {
		t.Error("a run with non-graceful fuzz cases passed without a threshold")
	}
	if rep.Tokens == nil || rep.Tokens.Calls != 3 {
		t.Errorf("tokens = %+v", rep.Tokens)
	}
}

func TestGeneratedThresholds(t *testing.T) {
	g := &config.Generate{Fuzz: true, FailUnder: map[config.ScoreName]float64{"crashResilience": 60}}
	s := generatedSuite(t, g)
	s.AllowTools = []string{"good", "internal_error"}
	rep := mustRun(t, s, plantedOptions())
	// 2 of 4 bad-input cases are graceful: 50 % < 60 %.
	if rep.Passed || len(rep.Summary.Scores) == 0 || rep.Summary.Scores[0].Met == nil || *rep.Summary.Scores[0].Met {
		t.Fatalf("passed %v scores %+v", rep.Passed, rep.Summary.Scores)
	}
	g.FailUnder["crashResilience"] = 50
	rep = mustRun(t, s, plantedOptions())
	if !rep.Passed {
		t.Errorf("a met threshold did not let the run pass: %+v %s", rep.Summary.Scores, statuses(rep))
	}
}

// malformedOptions serves tools whose advertised metadata is broken in
// every way a generator can trip on, counting tools/call requests.
func malformedOptions(calls *atomic.Int64) Options {
	// 400 levels: past every depth cap of ours (the SDK itself cannot carry
	// a 5,000-deep schema through tools/list; the run then reports a
	// discovery timeout, which is not a crash either).
	deep := "{}"
	for range 400 {
		deep = `{"type":"object","properties":{"x":` + deep + `}}`
	}
	schemas := map[string]string{
		"props_string":  `{"type":"object","properties":"not an object"}`,
		"required_str":  `{"type":"object","properties":{"a":{"type":"string"}},"required":"a"}`,
		"unknown_type":  `{"type":"object","properties":{"a":{"type":"quaternion"}},"required":["a"]}`,
		"deep":          deep,
		"huge_enum":     `{"type":"object","properties":{"a":{"enum":[` + strings.Repeat(`"v",`, 100000) + `"v"]}}}`,
		"bad_bounds":    `{"type":"object","properties":{"a":{"type":"string","minLength":10,"maxLength":2},"n":{"type":"integer","minimum":5,"maximum":1}},"required":["a","n"]}`,
		"remote_ref":    `{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}},"required":["a"]}`,
		"array_schema":  `[1,2,3]`,
		"null_schema":   `null`,
		"bool_required": `{"type":"object","required":[true,1,null]}`,
	}
	return Options{Dial: func(ctx context.Context) (mcp.Transport, error) {
		s := mcp.NewServer(&mcp.Implementation{Name: "malformed", Version: "1"}, nil)
		for name := range schemas {
			s.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					calls.Add(1)
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "fine"}}}, nil
				})
		}
		// Advertise the broken schemas instead of the real ones.
		s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				res, err := next(ctx, method, req)
				if method == "tools/list" && err == nil {
					for _, tl := range res.(*mcp.ListToolsResult).Tools {
						tl.InputSchema = json.RawMessage(schemas[tl.Name])
					}
				}
				return res, err
			}
		})
		ct, st := mcp.NewInMemoryTransports()
		if _, err := s.Connect(ctx, st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}}
}

func TestMalformedMetadataNeverCrashesGeneration(t *testing.T) {
	var calls atomic.Int64
	s := generatedSuite(t, &config.Generate{Fuzz: true, Fidelity: true, Probes: true, Concurrency: 2})
	s.Scenarios = nil
	rep := mustRun(t, s, malformedOptions(&calls))
	if rep.Failure != nil {
		t.Fatalf("failure: %+v", rep.Failure)
	}
	if len(rep.Notes) == 0 {
		t.Error("no notes about the malformed schemas")
	}
	if calls.Load() == 0 {
		t.Error("nothing was called")
	}
	for _, sc := range rep.Scenarios {
		for _, st := range sc.Steps {
			if st.Status == "" {
				t.Errorf("%s/%s has no status", sc.Name, st.ID)
			}
		}
	}
}

func TestListCallsNothing(t *testing.T) {
	var calls atomic.Int64
	s := generatedSuite(t, &config.Generate{Fuzz: true, Fidelity: true, Probes: true})
	s.Scenarios = nil
	opts := malformedOptions(&calls)
	rep, err := List(context.Background(), s, opts)
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 0 {
		t.Errorf("--list made %d calls", calls.Load())
	}
	n := 0
	for _, sc := range rep.Scenarios {
		for _, st := range sc.Steps {
			n++
			if st.Status != report.StatusSkipped || st.Reason != reasonListed {
				t.Errorf("%s/%s: %s %q", sc.Name, st.ID, st.Status, st.Reason)
			}
		}
	}
	if n < 10 {
		t.Errorf("only %d steps listed", n)
	}
}

// A read-only tool that answers the same input differently each time has
// no reference answer: the crossed-responses check stops at the first
// differing repeat, makes no overlapping call, and says why in a note;
// a deterministic tool's check runs in full and passes.
func TestCrossedStopsOnNondeterministicTool(t *testing.T) {
	var calls atomic.Int64
	opts := Options{Dial: func(ctx context.Context) (mcp.Transport, error) {
		s := mcp.NewServer(&mcp.Implementation{Name: "counter", Version: "1"}, nil)
		ro := &mcp.ToolAnnotations{ReadOnlyHint: true}
		schema := json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)
		s.AddTool(&mcp.Tool{Name: "drifting", InputSchema: schema, Annotations: ro}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			n := calls.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "call " + strconv.FormatInt(n, 10)}}}, nil
		})
		s.AddTool(&mcp.Tool{Name: "good", InputSchema: schema, Annotations: ro}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "weather for " + string(req.Params.Arguments)}}}, nil
		})
		ct, st := mcp.NewInMemoryTransports()
		if _, err := s.Connect(ctx, st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}}
	s := generatedSuite(t, &config.Generate{Concurrency: 3})
	s.Scenarios = nil
	s.Concurrency = 4
	rep := mustRun(t, s, opts)
	byName := map[string]report.ScenarioResult{}
	for _, sc := range rep.Scenarios {
		byName[sc.Name] = sc
	}
	seq, par := byName["crossed: drifting (one by one)"], byName["crossed: drifting (all at once)"]
	if len(seq.Steps) != 6 || len(par.Steps) != 3 {
		t.Fatalf("crossed scenarios: %+v %+v", seq, par)
	}
	if seq.Steps[0].Outcome != "ok" || seq.Steps[1].Outcome != "ok" {
		t.Errorf("first pair not run: %+v", seq.Steps[:2])
	}
	for _, st := range append(seq.Steps[2:], par.Steps...) {
		if st.Status != report.StatusSkipped || !strings.Contains(st.Reason, "not deterministic") {
			t.Errorf("%s: %s %q, want skipped as not deterministic", st.ID, st.Status, st.Reason)
		}
	}
	if !slices.ContainsFunc(rep.Notes, func(n string) bool { return strings.Contains(n, `"drifting"`) && strings.Contains(n, "input-1") }) {
		t.Errorf("no note on drifting: %q", rep.Notes)
	}
	// The report keeps no answers, only that a repeat's differed: read
	// back, it is analysed to the same note.
	back, err := clone(rep)
	if err != nil {
		t.Fatal(err)
	}
	Analyze(back)
	if !slices.Equal(back.Notes, rep.Notes) {
		t.Errorf("notes analysed from JSON %q, the run's %q", back.Notes, rep.Notes)
	}
	for _, st := range byName["crossed: good (all at once)"].Steps {
		if st.Status != report.StatusPassed || st.Outcome != "ok" {
			t.Errorf("good all at once %s: %s %s %q", st.ID, st.Status, st.Outcome, st.Reason)
		}
	}
	for _, f := range rep.Findings {
		if f.Status == report.StatusFailed {
			t.Errorf("unexpected failed finding %+v", f)
		}
	}
}

// TestOfferedInputs: tools that answer only to values another tool offers
// (the demo's get_project and list_folder) are judged when the runner first
// calls the argument-free read-only tools, and inconclusive without it.
// format_address, which accepts what its schema forbids, fails schema
// enforcement and not crash resilience. The offer calls are traced.
func TestOfferedInputs(t *testing.T) {
	opts := Options{Dial: func(ctx context.Context) (mcp.Transport, error) {
		ct, st := mcp.NewInMemoryTransports()
		if _, err := demo.NewServer(demo.Options{Defects: true}).Connect(ctx, st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}}
	suite := func(off bool) *config.Suite {
		s := generatedSuite(t, &config.Generate{Fuzz: true, Fidelity: true, NoOfferedInputs: off})
		s.Scenarios = nil
		s.AllowTools = []string{"list_projects", "get_project", "shared_folders", "list_folder", "format_address"}
		return s
	}
	valid := func(rep *report.Report, tool string) report.StepResult {
		for _, sc := range rep.Scenarios {
			for _, st := range sc.Steps {
				if st.Tool == tool && st.Case == "valid" {
					return st
				}
			}
		}
		t.Fatalf("no valid step of %s", tool)
		return report.StepResult{}
	}
	score := func(rep *report.Report, name config.ScoreName) report.Score {
		for _, s := range rep.Summary.Scores {
			if s.Name == name {
				return s
			}
		}
		t.Fatalf("no score %s", name)
		return report.Score{}
	}

	var trace strings.Builder
	opts.Trace = &trace
	rep := mustRun(t, suite(false), opts)
	for _, tool := range []string{"get_project", "list_folder"} {
		if st := valid(rep, tool); st.Outcome != config.OutcomeOK || st.Flagged {
			t.Errorf("with offered inputs, %s's valid call: %s flagged %v %v", tool, st.Outcome, st.Flagged, st.Notes)
		}
	}
	if f := score(rep, config.ScoreResponseFidelity); f.Inconclusive != 0 || f.Total != 8 { // 5 tools, 2 resources, 1 prompt
		t.Errorf("fidelity with offered inputs: %d judged, %d inconclusive", f.Total, f.Inconclusive)
	}
	want := "offered inputs: called 2 argument-free read-only tool(s) before generating (list_projects, shared_folders); " +
		"the server offered 4 ids, 2 directories, 2 URIs; used: list_projects → get_project project_id; shared_folders → list_folder path; " +
		"listed the first offered directory with list_folder"
	if !slices.Contains(rep.Notes, want) {
		t.Errorf("notes = %q\nwant %q", rep.Notes, want)
	}
	for _, tool := range []string{"list_projects", "shared_folders"} {
		if !strings.Contains(trace.String(), `{"tool":"`+tool+`","case":"offered-inputs","outcome":"ok","detail":"offered `) {
			t.Errorf("the trace has no offered-inputs entry for %s:\n%s", tool, trace.String())
		}
	}
	crash, enforce := score(rep, config.ScoreCrashResilience), score(rep, config.ScoreSchemaEnforcement)
	if crash.Passed != crash.Total || enforce.Total-enforce.Passed != 5 {
		t.Errorf("crash resilience %d/%d, schema enforcement %d/%d; want every case graceful and format_address's 5 accepted", crash.Passed, crash.Total, enforce.Passed, enforce.Total)
	}

	rep = mustRun(t, suite(true), opts)
	for _, tool := range []string{"get_project", "list_folder"} {
		if st := valid(rep, tool); st.Outcome != config.OutcomeToolError || !st.Flagged {
			t.Errorf("without offered inputs, %s's valid call: %s flagged %v", tool, st.Outcome, st.Flagged)
		}
	}
	if f := score(rep, config.ScoreResponseFidelity); f.Inconclusive != 2 || f.Total != 6 {
		t.Errorf("fidelity without offered inputs: %d judged, %d inconclusive", f.Total, f.Inconclusive)
	}
	for _, n := range rep.Notes {
		if strings.HasPrefix(n, "offered inputs") {
			t.Errorf("offeredInputs: false, yet %q", n)
		}
	}
}

// TestSDKFindingOnce: a fuzz case that every tool fails the same way (here
// null for a property, answered -32603 by the layer all tools share) is
// one finding at server level, not one per tool; the steps keep their
// verdicts.
func TestSDKFindingOnce(t *testing.T) {
	opts := Options{Dial: func(ctx context.Context) (mcp.Transport, error) {
		s := mcp.NewServer(&mcp.Implementation{Name: "shared-layer", Version: "1"}, nil)
		ro := &mcp.ToolAnnotations{ReadOnlyHint: true}
		schema := json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)
		handler := func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in map[string]any
			json.Unmarshal(req.Params.Arguments, &in)
			if v, present := in["q"]; present && v == nil {
				return nil, &jsonrpc.Error{Code: -32603, Message: "expected string, received null"}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "found"}}}, nil
		}
		for _, name := range []string{"find_a", "find_b", "find_c"} {
			s.AddTool(&mcp.Tool{Name: name, InputSchema: schema, Annotations: ro}, handler)
		}
		ct, st := mcp.NewInMemoryTransports()
		if _, err := s.Connect(ctx, st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}}
	suite := parse(t, "name: gen\ncommand: [x]\nallowTools: [find_a]\ngenerate: {fuzz: true}\n")
	suite.AllowTools = nil // every discovered tool
	rep := mustRun(t, suite, opts)
	var server, perTool []report.Finding
	failedSteps := 0
	for _, f := range rep.Findings {
		if f.Origin != config.OriginFuzz || f.Kind != gen.CaseNull {
			continue
		}
		if f.Tool == "" {
			server = append(server, f)
		} else {
			perTool = append(perTool, f)
		}
	}
	for _, sc := range rep.Scenarios {
		for _, st := range sc.Steps {
			if st.Case == gen.CaseNull && st.Status == report.StatusFailed {
				failedSteps++
			}
		}
	}
	if len(server) != 1 || len(perTool) != 0 || failedSteps != 3 {
		t.Fatalf("server-level %+v, per tool %+v, failed null steps %d: %s", server, perTool, failedSteps, statuses(rep))
	}
	if f := server[0]; f.Status != report.StatusFailed || f.Score != config.ScoreCrashResilience || !strings.Contains(f.Message, "every tool given a null case (3) answered protocol_error -32603") {
		t.Errorf("finding = %+v", f)
	}
}
