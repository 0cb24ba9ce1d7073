package runner

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/mcpcheck/mcpcheck/assert"
	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/runner/internal/gen"
)

// SkippedTool is a discovered tool that generation left alone, and why.
type SkippedTool struct {
	Tool   string `json:"tool"`
	Reason string `json:"reason"`
}

// compiled is what generation adds to a suite.
type compiled struct {
	scenarios []config.Scenario
	skipped   []SkippedTool
	notes     []string // observations about the contracts (placeholders, no groups, ...)
}

// compileGenerated turns the discovered tool contracts into ordinary
// scenarios, following the suite's generate block. Nothing here runs a
// call: the scheduler, the executor, the outcome classes and the report are
// the fixtures' own. Generated scenarios are named by what they check and
// by tool, in a fixed order, so reports compare across runs.
func compileGenerated(suite *config.Suite, tools []tool) compiled {
	g := suite.Generate
	var out compiled
	allowed := map[string]bool{}
	for _, t := range suite.AllowTools {
		allowed[t] = true
	}
	values := gen.NewValues(g.Seed)
	var targets, readOnly []tool
	for _, t := range sortedTools(tools) {
		switch {
		case suite.AllowTools != nil && !allowed[t.Name]:
			out.skipped = append(out.skipped, SkippedTool{t.Name, "not in allowTools; generated calls are bounded by it"})
		case !isReadOnly(t) && !g.IncludeDestructive:
			why := "annotated readOnlyHint: false"
			if _, present := gen.Hint(t.Annotations, "readOnlyHint"); !present {
				why = "no readOnlyHint annotation (a missing hint is not read-only)"
			}
			out.skipped = append(out.skipped, SkippedTool{t.Name, why + ", so no generated call is made to it; --include-destructive lifts this"})
		default:
			targets = append(targets, t)
			if isReadOnly(t) {
				readOnly = append(readOnly, t)
			}
		}
	}
	valid := map[string]map[string]any{} // tool → its valid arguments
	for _, t := range targets {
		if !(g.Fuzz || g.Fidelity || g.Probes || g.Concurrency > 1) {
			break
		}
		cases, notes := gen.FuzzCases(t.Name, t.InputSchema, values)
		for _, n := range notes {
			out.notes = append(out.notes, fmt.Sprintf("tool %q: %s", t.Name, n))
		}
		if len(cases) == 0 {
			out.skipped = append(out.skipped, SkippedTool{t.Name, "no usable inputSchema to generate arguments from"})
			continue
		}
		valid[t.Name] = cases[0].Arguments
		if !(g.Fuzz || g.Fidelity || g.Probes) {
			continue
		}
		// A read-only tool's cases neither reference nor change each other:
		// after the valid call, they run at once (up to --jobs).
		sc := config.Scenario{Name: "generated: " + t.Name, ContinueOnFailure: true, Reconnect: true, Independent: isReadOnly(t)}
		sc.Steps = append(sc.Steps, validStep(g, t.Name, cases[0]))
		if g.Fuzz {
			for _, c := range cases[1:] {
				sc.Steps = append(sc.Steps, fuzzStep(t.Name, c))
			}
		}
		out.scenarios = append(out.scenarios, sc)
	}
	if g.Lifecycle || len(g.LifecycleGroups) > 0 {
		out.lifecycle(g, targets, values)
	}
	if g.Concurrency > 1 {
		out.concurrency(g, targets, readOnly, valid, values)
	}
	return out
}

var noValidation = false

// validStep is a tool's call with realistic arguments: judged for
// fidelity when that is on, otherwise advisory (a failure is a note: the
// arguments may just be unrealistic, as mcp-fuzz says of its valid call).
func validStep(g *config.Generate, tool string, c gen.Case) config.Step {
	st := config.Step{ID: "valid", Tool: tool, Arguments: c.Arguments, Case: gen.CaseValid,
		ValidateArguments: &noValidation}
	switch {
	case g.Fidelity:
		st.Origin, st.Score = config.OriginFidelity, config.ScoreResponseFidelity
		st.Expect.Fidelity = true
	case g.Fuzz:
		st.Origin, st.Advisory = config.OriginFuzz, true
	default:
		st.Origin, st.Advisory = config.OriginProbe, true
	}
	return st
}

// gracefulOutcomes are how a server may refuse bad input gracefully: a
// tool error, or a JSON-RPC error -32602 (invalid params). Anything else,
// -32603 included, counts against crash resilience.
var (
	gracefulOutcomes = []string{assert.OutcomeToolError, assert.OutcomeProtocolError}
	invalidParams    = int64(-32602)
)

func fuzzStep(tool string, c gen.Case) config.Step {
	return config.Step{
		ID:   c.Name + "." + c.Property,
		Tool: tool, Arguments: c.Arguments, Origin: config.OriginFuzz,
		Case: c.Name, Property: c.Property, Score: config.ScoreCrashResilience,
		ValidateArguments: &noValidation, // the point is to send what the schema forbids
		Expect:            config.Expect{OutcomeAny: gracefulOutcomes, ErrorCode: &invalidParams},
	}
}

func ref(step, pointer string) map[string]any {
	return map[string]any{"$ref": step + "#" + pointer}
}

// lifecycle compiles create → read → delete → stale-read chains.
func (out *compiled) lifecycle(g *config.Generate, targets []tool, values *gen.Values) {
	for i, lg := range g.LifecycleGroups {
		name := lg.Name
		if name == "" {
			name = lg.Create.Tool + " #" + strconv.Itoa(i+1)
		}
		sc := config.Scenario{Name: "lifecycle: " + name, Isolation: config.IsolationScenario}
		sc.Steps = []config.Step{
			{ID: "create", Tool: lg.Create.Tool, Arguments: lg.Create.Arguments, Origin: config.OriginLifecycle, Case: "create", Score: config.ScoreLifecycle, Pos: lg.Create.Pos},
			{ID: "read", Tool: lg.Read.Tool, Arguments: lg.Read.Arguments, Origin: config.OriginLifecycle, Case: "read", Score: config.ScoreLifecycle, Pos: lg.Read.Pos},
			{ID: "delete", Tool: lg.Delete.Tool, Arguments: lg.Delete.Arguments, Origin: config.OriginLifecycle, Case: "delete", Score: config.ScoreLifecycle, Pos: lg.Delete.Pos},
			{ID: "read-after-delete", Tool: lg.Read.Tool, Arguments: lg.Read.Arguments, Origin: config.OriginLifecycle, Case: "stale-read", Score: config.ScoreLifecycle, Pos: lg.Read.Pos,
				Expect: config.Expect{Absent: &config.Value{V: ref("create", lg.IDPointer)}}},
		}
		out.scenarios = append(out.scenarios, sc)
	}
	if !g.Lifecycle {
		return
	}
	if !g.IncludeDestructive {
		out.notes = append(out.notes, "lifecycle: groups found by name are only run with --include-destructive (they create and delete)")
		return
	}
	gtools := make([]gen.Tool, len(targets))
	byName := map[string]tool{}
	for i, t := range targets {
		gtools[i] = gen.Tool{Name: t.Name, InputSchema: t.InputSchema, OutputSchema: t.OutputSchema, Annotations: t.Annotations}
		byName[t.Name] = t
	}
	groups, notes := gen.Groups(gtools)
	for _, n := range notes {
		out.notes = append(out.notes, "lifecycle: "+n)
	}
	if len(groups) == 0 {
		out.notes = append(out.notes, "lifecycle: 0 groups detected (no create_X / get_X / delete_X tools sharing a resource); nothing checked, which is not a pass")
	}
	valid := func(name string) map[string]any {
		args, _ := values.Valid(name, byName[name].InputSchema)
		return args
	}
	withID := func(args map[string]any, param, step string) map[string]any {
		m := make(map[string]any, len(args)+1)
		for k, v := range args {
			m[k] = v
		}
		m[param] = ref(step, "/"+config.CapturedID)
		return m
	}
	groupOf := map[string]gen.Group{}
	for _, gr := range groups {
		groupOf[gr.Resource] = gr
	}
	links := gen.Links(groups, gtools)
	parentOf := map[string]gen.Link{}
	for _, ln := range links {
		parentOf[ln.Child] = ln
	}
	for _, gr := range groups {
		// A chain holds state on its session: it gets a session (over
		// stdio, a server) of its own, so a crash elsewhere cannot break it.
		sc := config.Scenario{Name: "lifecycle: " + gr.Resource, Isolation: config.IsolationScenario}
		createArgs := valid(gr.Create)
		if ln, ok := parentOf[gr.Resource]; ok {
			// A child is created under a real parent, or its create fails
			// for want of one.
			parent := groupOf[ln.Parent]
			sc.Steps = append(sc.Steps, config.Step{ID: "create-parent", Tool: parent.Create, Arguments: valid(parent.Create), Origin: config.OriginLifecycle,
				Case: "create", CaptureID: parent.Resource, Advisory: true, ValidateArguments: &noValidation})
			createArgs = withID(createArgs, ln.Param, "create-parent")
		}
		sc.Steps = append(sc.Steps, config.Step{ID: "create", Tool: gr.Create, Arguments: createArgs, Origin: config.OriginLifecycle,
			Case: "create", CaptureID: gr.Resource, Advisory: true, ValidateArguments: &noValidation})
		if gr.Read != "" {
			sc.Steps = append(sc.Steps, config.Step{ID: "read", Tool: gr.Read, Arguments: withID(valid(gr.Read), gr.ReadIDParam, "create"),
				Origin: config.OriginLifecycle, Case: "read", Score: config.ScoreLifecycle, ValidateArguments: &noValidation})
		}
		if gr.Delete != "" {
			sc.Steps = append(sc.Steps, config.Step{ID: "delete", Tool: gr.Delete, Arguments: withID(valid(gr.Delete), gr.DeleteIDParam, "create"),
				Origin: config.OriginLifecycle, Case: "delete", Score: config.ScoreLifecycle, ValidateArguments: &noValidation})
			if gr.Read != "" {
				sc.Steps = append(sc.Steps, config.Step{ID: "read-after-delete", Tool: gr.Read, Arguments: withID(valid(gr.Read), gr.ReadIDParam, "create"),
					Origin: config.OriginLifecycle, Case: "stale-read", Score: config.ScoreLifecycle, ValidateArguments: &noValidation,
					Expect: config.Expect{Absent: &config.Value{V: ref("create", "/"+config.CapturedID)}}})
			}
		}
		out.scenarios = append(out.scenarios, sc)
	}
	for _, ln := range links {
		parent, child := groupOf[ln.Parent], groupOf[ln.Child]
		sc := config.Scenario{Name: "lifecycle: " + ln.Parent + " → " + ln.Child, Isolation: config.IsolationScenario}
		sc.Steps = []config.Step{
			{ID: "create-parent", Tool: parent.Create, Arguments: valid(parent.Create), Origin: config.OriginLifecycle, Case: "create", CaptureID: parent.Resource, Advisory: true, ValidateArguments: &noValidation},
			{ID: "create-child", Tool: child.Create, Arguments: withID(valid(child.Create), ln.Param, "create-parent"), Origin: config.OriginLifecycle, Case: "create", CaptureID: child.Resource, Advisory: true, ValidateArguments: &noValidation},
			{ID: "delete-parent", Tool: parent.Delete, Arguments: withID(valid(parent.Delete), parent.DeleteIDParam, "create-parent"), Origin: config.OriginLifecycle, Case: "delete", Advisory: true, ValidateArguments: &noValidation},
			// Whether a child may outlive its parent is a design choice
			// (cascade, orphan, refuse), so this is an observation.
			{ID: "read-orphan", Tool: child.Read, Arguments: withID(valid(child.Read), child.ReadIDParam, "create-child"), Origin: config.OriginLifecycle, Case: "orphan-read", Advisory: true, ValidateArguments: &noValidation,
				Expect: config.Expect{Absent: &config.Value{V: ref("create-child", "/"+config.CapturedID)}}},
		}
		out.scenarios = append(out.scenarios, sc)
	}
}

// concurrency compiles, per tool, its valid call on N independent
// connections at once, and for read-only tools the crossed-responses
// check: N distinct inputs one by one (each twice, to tell a
// non-deterministic tool), then all at once on one session.
func (out *compiled) concurrency(g *config.Generate, targets, readOnly []tool, valid map[string]map[string]any, values *gen.Values) {
	n := g.Concurrency
	for _, t := range targets {
		args, ok := valid[t.Name]
		if !ok {
			continue
		}
		sc := config.Scenario{Name: "concurrency: " + t.Name, Parallel: true, Isolation: config.IsolationStep}
		for i := 1; i <= n; i++ {
			sc.Steps = append(sc.Steps, config.Step{ID: "connection-" + strconv.Itoa(i), Tool: t.Name, Arguments: args,
				Origin: config.OriginConcurrency, Case: "independent-connections", Advisory: true, ValidateArguments: &noValidation})
		}
		out.scenarios = append(out.scenarios, sc)
	}
	for _, t := range readOnly {
		inputs := values.Distinct(t.Name, t.InputSchema, n)
		if len(inputs) < 2 {
			out.notes = append(out.notes, fmt.Sprintf("tool %q: fewer than two distinct valid inputs; no crossed-responses check", t.Name))
			continue
		}
		// One by one on a session of its own, so no other call overlaps.
		seq := config.Scenario{Name: "crossed: " + t.Name + " (one by one)", ContinueOnFailure: true, Isolation: config.IsolationScenario, Reference: true}
		par := config.Scenario{Name: "crossed: " + t.Name + " (all at once)", Parallel: true, Isolation: config.IsolationScenario, After: seq.Name}
		for i, in := range inputs {
			id := "input-" + strconv.Itoa(i+1)
			seq.Steps = append(seq.Steps,
				config.Step{ID: id, Tool: t.Name, Arguments: in, Origin: config.OriginConcurrency, Case: "sequential", Advisory: true, ValidateArguments: &noValidation},
				config.Step{ID: id + "-again", Tool: t.Name, Arguments: in, Origin: config.OriginConcurrency, Case: "sequential-repeat", Advisory: true, ValidateArguments: &noValidation})
			par.Steps = append(par.Steps, config.Step{ID: id, Tool: t.Name, Arguments: in, Origin: config.OriginConcurrency, Case: "overlapping", Advisory: true, ValidateArguments: &noValidation})
		}
		out.scenarios = append(out.scenarios, seq, par)
	}
}

// isReadOnly reports whether a tool is annotated readOnlyHint: true on the
// wire; a missing hint is not read-only.
func isReadOnly(t tool) bool {
	v, present := gen.Hint(t.Annotations, "readOnlyHint")
	return present && v
}

func sortedTools(tools []tool) []tool {
	out := append([]tool(nil), tools...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
