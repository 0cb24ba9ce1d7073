package runner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/runner/internal/apps"
	"github.com/mcpcheck/mcpcheck/runner/internal/gen"
	"github.com/mcpcheck/mcpcheck/runner/internal/schema"
	"github.com/mcpcheck/mcpcheck/runner/report"
	"github.com/tidwall/gjson"
)

// Cases of generated steps, as the report names them.
const (
	caseValid            = gen.CaseValid
	caseCreate           = "create"
	caseRead             = "read"
	caseGet              = "get"
	caseDelete           = "delete"
	caseStaleRead        = "stale-read"
	caseOrphanRead       = "orphan-read"
	caseIndependent      = string(report.FindingIndependentConnections)
	caseSequential       = "sequential"
	caseSequentialRepeat = "sequential-repeat"
	caseOverlapping      = "overlapping"
	caseAgain            = "valid-again"
	caseConfirm          = "sequential-confirm"
)

// generated is what generation adds to the plan: scenarios (whose steps
// carry the handles analysis reads them by: origin, case, property, score,
// forbidden), the tools it left alone, and notes.
type generated struct {
	scenarios []*scenario
	skipped   []report.SkippedTool
	notes     []string // observations about the contracts (placeholders, no groups, ...)
}

// stepRef is one step of the plan (indexes into the report).
type stepRef struct{ scenario, step int }

// generator compiles the discovered tool contracts into ordinary plan
// scenarios, following the suite's generate block. Nothing here runs a call:
// the scheduler, the executor, the outcome classes and the report are the
// fixtures' own. Scenarios are named by what they check and by tool, in a
// fixed order, so reports compare across runs.
type generator struct {
	suite  *config.Suite
	g      *config.Generate
	values *gen.Values
	// input is a tool's compiled inputSchema, the one its steps are
	// validated with (nil when it declares none or it was refused).
	input func(name string) *schema.Schema
	out   generated
	base  int // report index of the first generated scenario
}

func compileGenerated(suite *config.Suite, found *discovered, input func(string) *schema.Schema, offered *gen.Offered, probes protocolTarget, base int) generated {
	tools := found.tools
	c := &generator{suite: suite, g: suite.Generate, values: gen.NewValues(suite.Generate.Seed).Offer(offered).Fresh(scratchVar, mayWrite(tools)), input: input, base: base}
	g := c.g
	var targets, readOnly, allowed []tool
	for _, t := range sortedTools(tools) {
		if suite.AllowsTool(t.Name) {
			allowed = append(allowed, t)
		}
		switch {
		case !suite.AllowsTool(t.Name):
			fix := "add it to the fixture's allowTools"
			if suite.File == "" {
				fix = "name it in --allow-tools"
			}
			c.skip(t.Name, "not in allowTools, which bounds generated calls", fix)
		case !isReadOnly(t) && !g.IncludeDestructive:
			why := "annotated readOnlyHint: false"
			if _, present := gen.Hint(t.Annotations, "readOnlyHint"); !present {
				why = "no readOnlyHint annotation (a missing hint is not read-only)"
			}
			what := ", so no generated call is made"
			if behaviourPermits(suite, t.Name) {
				what = ": only its behaviour check calls it (allowTools names it)"
			}
			c.skip(t.Name, why+what, "--include-destructive calls tools not annotated read-only")
		default:
			targets = append(targets, t)
			if isReadOnly(t) {
				readOnly = append(readOnly, t)
			}
		}
	}
	if g.Protocol {
		// First, so that its server process starts while the tools'
		// scenarios run, not after the slowest of them.
		c.protocol(probes, readOnly, allowed)
	}
	valid := map[string]map[string]any{} // tool → its valid arguments
	for _, t := range targets {
		if !(g.Fuzz || g.Fidelity || g.Probes || g.Concurrency > 1) {
			break
		}
		cases, notes := gen.FuzzCases(t.Name, c.input(t.Name), c.values)
		for _, n := range notes {
			c.note("tool %q: %s", t.Name, n)
		}
		if len(cases) == 0 {
			c.skip(t.Name, "no usable inputSchema to generate arguments from", "")
			continue
		}
		valid[t.Name] = cases[0].Arguments
		if !(g.Fuzz || g.Fidelity || g.Probes) {
			continue
		}
		if g.Fuzz {
			// The sharper cases fill what --fuzz-cases leaves after the
			// missing-required and wrong-type ones.
			cases = append(cases, c.values.Hostile(t.Name, c.input(t.Name), cases[0].Arguments, g.FuzzCases-(len(cases)-1))...)
		}
		c.cases(t, cases)
	}
	if g.Fidelity {
		c.reads(found.resources)
		c.prompts(found.prompts)
	}
	if g.Lifecycle || len(g.LifecycleGroups) > 0 {
		c.lifecycle(targets)
	}
	if g.Probes {
		c.again(targets, valid)
	}
	if g.Concurrency > 1 {
		c.concurrency(targets, readOnly, valid)
	}
	if g.Protocol {
		c.tasks(targets, valid)
	}
	if g.Protocol || g.Fidelity {
		c.apps(tools, found.raw["resources"])
	}
	if g.Behaviour {
		c.behaviour(tools, found.resources)
	}
	return c.out
}

func (c *generator) skip(tool, why, fix string) {
	c.out.skipped = append(c.out.skipped, report.SkippedTool{Tool: tool, Reason: why, Fix: fix})
}

func (c *generator) note(format string, args ...any) {
	c.out.notes = append(c.out.notes, fmt.Sprintf(format, args...))
}

// scenario starts a generated scenario: in order on the shared session,
// its failed and flagged steps listed as findings.
func (c *generator) scenario(name string) *scenario {
	return &scenario{name: name, mode: inOrder, isolation: config.IsolationShared, after: -1}
}

// add appends a scenario to the plan and returns its report index.
func (c *generator) add(sc *scenario) int {
	sc.index = c.base + len(c.out.scenarios)
	finish(sc)
	c.out.scenarios = append(c.out.scenarios, sc)
	return sc.index
}

// call plans one generated step. Its arguments are sent as generated: the
// point of most cases is to send what the schema forbids.
func (c *generator) call(id, tool string, args map[string]any, origin config.Origin, kind string) step {
	spec := &config.Step{ID: id, Tool: tool, Arguments: args, Origin: origin}
	st := newStep(spec, c.suite.TimeoutMs)
	st.caseName, st.validate = kind, false
	return st
}

// cases plans a tool's valid call and its bad-input cases as one scenario
// that goes on when a case fails. A read-only tool's cases neither refer
// to nor change each other: after the valid call, they run at once.
func (c *generator) cases(t tool, cases []gen.Case) {
	sc := c.scenario("generated: " + t.Name)
	sc.continueOnFailure, sc.reconnect = true, true
	if isReadOnly(t) {
		sc.mode = fanOut
	}
	sc.steps = append(sc.steps, c.validStep(t.Name, cases[0]))
	if c.g.Fuzz {
		for _, k := range cases[1:] {
			sc.steps = append(sc.steps, c.fuzzStep(t.Name, k))
		}
	}
	for j := range sc.steps {
		sc.steps[j].rerun = true
		// Schema enforcement judges the answers to input the schema
		// forbids (crash resilience judges every fuzz case).
		sc.steps[j].forbidden = j > 0 && cases[j].Forbidden
	}
	c.add(sc)
}

// validStep is a tool's call with realistic arguments: judged for fidelity
// when that is on, otherwise advisory (a failure is a note: the arguments
// may just be unrealistic, as mcp-fuzz says of its valid call).
func (c *generator) validStep(tool string, k gen.Case) step {
	origin := config.OriginProbe
	switch {
	case c.g.Fidelity:
		origin = config.OriginFidelity
	case c.g.Fuzz:
		origin = config.OriginFuzz
	}
	st := c.call("valid", tool, k.Arguments, origin, caseValid)
	// The probes measure it (analysis finds it by its case, which no
	// other step has).
	st.measure = true
	st.timedBy = timeArgument(k.Arguments)
	if c.g.Fidelity {
		st.score = config.ScoreResponseFidelity
		st.spec.Expect.Fidelity = true
	} else {
		st.spec.Advisory = true
	}
	return st
}

// reads plans one read of every listed resource, judged for fidelity: a
// successful read with no contents, or contents of another type than the
// listing declares, is a failure. Reads change nothing, so they need no
// allowlist; they run one after another on the shared session.
func (c *generator) reads(resources []resource) {
	if len(resources) == 0 {
		return
	}
	list := slices.Clone(resources)
	slices.SortFunc(list, func(a, b resource) int { return strings.Compare(a.URI, b.URI) })
	sc := c.scenario("generated: resources")
	sc.continueOnFailure = true
	for i, res := range list {
		st := c.fidelityStep("read-"+strconv.Itoa(i+1), caseRead, &config.Step{Kind: config.KindResource, Resource: res.URI})
		st.mimeType = res.MIMEType
		sc.steps = append(sc.steps, st)
	}
	c.add(sc)
}

// prompts plans one prompts/get of every listed prompt whose arguments can
// be filled: each required argument (and no optional one) gets a realistic
// value by its name, as a tool's string properties do. Judged for fidelity
// like a tool's valid call: no messages on success is a failure.
func (c *generator) prompts(prompts []prompt) {
	if len(prompts) == 0 {
		return
	}
	list := slices.Clone(prompts)
	slices.SortFunc(list, func(a, b prompt) int { return strings.Compare(a.Name, b.Name) })
	sc := c.scenario("generated: prompts")
	sc.continueOnFailure = true
	for _, p := range list {
		args, ok := c.promptArguments(p)
		if !ok {
			c.note("prompt %q: its required arguments could not be filled; not called", p.Name)
			continue
		}
		sc.steps = append(sc.steps, c.fidelityStep("get-"+p.Name, caseGet, &config.Step{Kind: config.KindPrompt, Prompt: p.Name, Arguments: args}))
	}
	if len(sc.steps) > 0 {
		c.add(sc)
	}
}

// promptArguments fills a prompt's required arguments through the value
// generator, from a schema that says what a prompt says of them: strings.
func (c *generator) promptArguments(p prompt) (map[string]any, bool) {
	props, required := map[string]any{}, []string{}
	for _, a := range p.Arguments {
		if a.Required {
			props[a.Name] = map[string]any{"type": "string", "minLength": 1}
			required = append(required, a.Name)
		}
	}
	if len(required) == 0 {
		return map[string]any{}, true
	}
	doc, _ := json.Marshal(map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false})
	sch, err := schema.Compile("prompt "+p.Name, "arguments", doc)
	if err != nil || sch == nil {
		return nil, false
	}
	args, notes := c.values.Valid(p.Name, sch)
	return args, len(notes) == 0
}

// fidelityStep plans a generated read judged for fidelity.
func (c *generator) fidelityStep(id, kind string, spec *config.Step) step {
	spec.ID, spec.Origin = id, config.OriginFidelity
	spec.Expect.Fidelity = true
	st := newStep(spec, c.suite.TimeoutMs)
	st.caseName, st.score, st.rerun = kind, config.ScoreResponseFidelity, true
	return st
}

// survivedOutcomes are the answers to bad input that count as surviving
// it for crash resilience: a refusal (a tool error, or a JSON-RPC error
// -32602, invalid params) or a result. A crash, a hang, a lost transport,
// a broken message or any other JSON-RPC error (-32603 included) does not.
// Whether a result to input the schema forbids should have been a refusal
// is schema enforcement's question, not crash resilience's.
var (
	survivedOutcomes = []config.Outcome{config.OutcomeOK, config.OutcomeOutputInvalid, config.OutcomeToolError, config.OutcomeProtocolError}
	invalidParams    = int64(-32602)
)

func (c *generator) fuzzStep(tool string, k gen.Case) step {
	st := c.call(k.Name+"."+k.Property, tool, k.Arguments, config.OriginFuzz, k.Name)
	st.property, st.score = k.Property, config.ScoreCrashResilience
	st.spec.Expect = config.Expect{OutcomeAny: survivedOutcomes, ErrorCode: &invalidParams}
	return st
}

func ref(step, pointer string) map[string]any {
	return map[string]any{"$ref": step + "#" + pointer}
}

// lifecycleStep plans one call of a create → read → delete chain.
func (c *generator) lifecycleStep(id, tool string, args map[string]any, kind string) step {
	return c.call(id, tool, args, config.OriginLifecycle, kind)
}

// lifecycle compiles create → read → delete → stale-read chains: the
// fixture's explicit groups, and (with includeDestructive) the groups found
// by tool name. A chain holds state on its session, so it gets a session
// (over stdio, a server) of its own: a crash elsewhere cannot break it.
func (c *generator) lifecycle(targets []tool) {
	g := c.g
	for i, lg := range g.LifecycleGroups {
		name := lg.Name
		if name == "" {
			name = lg.Create.Tool + " #" + strconv.Itoa(i+1)
		}
		sc := c.scenario("lifecycle: " + name)
		sc.isolation = config.IsolationScenario
		at := func(st step, pos config.Pos) step {
			st.spec.Pos, st.score, st.validate = pos, config.ScoreLifecycle, true
			return st
		}
		stale := at(c.lifecycleStep("read-after-delete", lg.Read.Tool, lg.Read.Arguments, caseStaleRead), lg.Read.Pos)
		stale.spec.Expect.Absent = &config.Value{V: ref("create", lg.IDPointer)}
		sc.steps = []step{
			at(c.lifecycleStep("create", lg.Create.Tool, lg.Create.Arguments, caseCreate), lg.Create.Pos),
			at(c.lifecycleStep("read", lg.Read.Tool, lg.Read.Arguments, caseRead), lg.Read.Pos),
			at(c.lifecycleStep("delete", lg.Delete.Tool, lg.Delete.Arguments, caseDelete), lg.Delete.Pos),
			stale,
		}
		c.add(sc)
	}
	if !g.Lifecycle {
		return
	}
	if !g.IncludeDestructive {
		c.note("lifecycle: groups found by name are only run with --include-destructive (they create and delete)")
		return
	}
	gtools := make([]gen.Tool, len(targets))
	for i, t := range targets {
		gtools[i] = gen.Tool{Name: t.Name, InputSchema: c.input(t.Name)}
	}
	groups, notes := gen.Groups(gtools)
	for _, n := range notes {
		c.note("lifecycle: %s", n)
	}
	if len(groups) == 0 {
		c.note("lifecycle: 0 groups detected (no create_X / get_X / delete_X tools sharing a resource); nothing checked, which is not a pass")
	}
	valid := func(name string) map[string]any {
		args, _ := c.values.Valid(name, c.input(name))
		return args
	}
	withID := func(args map[string]any, param, step string) map[string]any {
		m := make(map[string]any, len(args)+1)
		for k, v := range args {
			m[k] = v
		}
		m[param] = ref(step, "/"+capturedID)
		return m
	}
	// A create that succeeds but yields no id, or fails, ends the chain
	// without failing it: there is nothing to follow.
	create := func(id, tool, resource string, args map[string]any) step {
		st := c.lifecycleStep(id, tool, args, caseCreate)
		st.capture, st.spec.Advisory = resource, true
		return st
	}
	scored := func(st step) step {
		st.score = config.ScoreLifecycle
		return st
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
		sc := c.scenario("lifecycle: " + gr.Resource)
		sc.isolation = config.IsolationScenario
		createArgs := valid(gr.Create)
		if ln, ok := parentOf[gr.Resource]; ok {
			// A child is created under a real parent, or its create fails
			// for want of one.
			parent := groupOf[ln.Parent]
			sc.steps = append(sc.steps, create("create-parent", parent.Create, parent.Resource, valid(parent.Create)))
			createArgs = withID(createArgs, ln.Param, "create-parent")
		}
		sc.steps = append(sc.steps, create("create", gr.Create, gr.Resource, createArgs))
		if gr.Read != "" {
			sc.steps = append(sc.steps, scored(c.lifecycleStep("read", gr.Read, withID(valid(gr.Read), gr.ReadIDParam, "create"), caseRead)))
		}
		if gr.Delete != "" {
			sc.steps = append(sc.steps, scored(c.lifecycleStep("delete", gr.Delete, withID(valid(gr.Delete), gr.DeleteIDParam, "create"), caseDelete)))
			if gr.Read != "" {
				st := scored(c.lifecycleStep("read-after-delete", gr.Read, withID(valid(gr.Read), gr.ReadIDParam, "create"), caseStaleRead))
				st.spec.Expect.Absent = &config.Value{V: ref("create", "/"+capturedID)}
				sc.steps = append(sc.steps, st)
			}
		}
		c.add(sc)
	}
	for _, ln := range links {
		parent, child := groupOf[ln.Parent], groupOf[ln.Child]
		sc := c.scenario("lifecycle: " + ln.Parent + " → " + ln.Child)
		sc.isolation = config.IsolationScenario
		deleteParent := c.lifecycleStep("delete-parent", parent.Delete, withID(valid(parent.Delete), parent.DeleteIDParam, "create-parent"), caseDelete)
		deleteParent.spec.Advisory = true
		// Whether a child may outlive its parent is a design choice
		// (cascade, orphan, refuse), so this is an observation.
		orphan := c.lifecycleStep("read-orphan", child.Read, withID(valid(child.Read), child.ReadIDParam, "create-child"), caseOrphanRead)
		orphan.spec.Advisory = true
		orphan.spec.Expect.Absent = &config.Value{V: ref("create-child", "/"+capturedID)}
		orphan.flagNote = "the child is still readable after its parent was deleted: cascade, orphan or refusal are all legitimate designs — worth confirming this one is intended"
		sc.steps = []step{
			create("create-parent", parent.Create, parent.Resource, valid(parent.Create)),
			create("create-child", child.Create, child.Resource, withID(valid(child.Create), ln.Param, "create-parent")),
			deleteParent,
			orphan,
		}
		c.add(sc)
	}
}

// concurrency compiles, per tool, its valid call on N independent
// connections at once, and for read-only tools the crossed-responses
// check: N distinct inputs one by one (each twice, to tell a
// non-deterministic tool), then all at once on one session.
func (c *generator) concurrency(targets, readOnly []tool, valid map[string]map[string]any) {
	n := c.g.Concurrency
	advisory := func(st step) step {
		st.spec.Advisory = true
		return st
	}
	for _, t := range targets {
		args, ok := valid[t.Name]
		if !ok {
			continue
		}
		// One call of the check says nothing alone: the verdict compares
		// them, so only a failed call is a finding of its own.
		sc := c.scenario("concurrency: " + t.Name)
		sc.mode, sc.isolation = allAtOnce, config.IsolationStep
		for i := 1; i <= n; i++ {
			sc.steps = append(sc.steps, advisory(c.call("connection-"+strconv.Itoa(i), t.Name, args, config.OriginConcurrency, caseIndependent)))
		}
		c.add(sc)
	}
	for _, t := range readOnly {
		inputs := c.values.Distinct(t.Name, c.input(t.Name), n)
		if len(inputs) < 2 {
			c.note("tool %q: fewer than two distinct valid inputs; no crossed-responses check", t.Name)
			continue
		}
		// One by one on a session of its own, so no other call overlaps;
		// then all at once, right after it in the plan. Analysis finds the
		// pair by these cases and in this order.
		seq := c.scenario("crossed: " + t.Name + " (one by one)")
		seq.continueOnFailure, seq.isolation, seq.reference = true, config.IsolationScenario, true
		par := c.scenario("crossed: " + t.Name + " (all at once)")
		par.mode, par.isolation = allAtOnce, config.IsolationScenario
		// The re-run that confirms a crossing: each input one by one
		// again, after the overlap. An answer that changed since the first
		// phase is a changed state, not a crossing (crossedVerdict).
		confirm := c.scenario("crossed: " + t.Name + " (one by one, again)")
		confirm.continueOnFailure, confirm.isolation = true, config.IsolationScenario
		// The three phases run last, alone: no call of the run's own can
		// change the answers between or during them.
		seq.last, par.last, confirm.last = true, true, true
		// Each input is called, then again right after (referenceBroken
		// names the step a differing repeat follows), then all at once.
		seqIndex := c.base + len(c.out.scenarios)
		for i, in := range inputs {
			id := "input-" + strconv.Itoa(i+1)
			first := advisory(c.call(id, t.Name, in, config.OriginConcurrency, caseSequential))
			again := advisory(c.call(id+"-again", t.Name, in, config.OriginConcurrency, caseSequentialRepeat))
			again.sameAs = &stepRef{seqIndex, len(seq.steps)}
			overlapping := advisory(c.call(id, t.Name, in, config.OriginConcurrency, caseOverlapping))
			overlapping.sameAs = &stepRef{seqIndex, len(seq.steps)}
			later := advisory(c.call(id+"-confirm", t.Name, in, config.OriginConcurrency, caseConfirm))
			later.sameAs = &stepRef{seqIndex, len(seq.steps)}
			seq.steps = append(seq.steps, first, again)
			par.steps = append(par.steps, overlapping)
			confirm.steps = append(confirm.steps, later)
		}
		for _, sc := range []*scenario{seq, par, confirm} {
			for j := range sc.steps {
				sc.steps[j].record = true
			}
		}
		par.after = c.add(seq)
		confirm.after = c.add(par)
		c.add(confirm)
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

const caseAppUI = "app-ui"

// apps plans a read of every app's UI resource (MCP Apps: a tool whose
// _meta.ui.resourceUri names a ui:// resource), judged by package apps.
func (c *generator) apps(tools []tool, listed []json.RawMessage) {
	sc := c.scenario("apps")
	sc.continueOnFailure = true
	for _, t := range sortedTools(tools) {
		uri := report.UIResource(t)
		if uri == "" {
			continue
		}
		a := &apps.Check{Tool: t.Name, UIMeta: gjson.GetBytes(t.Meta, "ui")}
		for _, raw := range listed {
			if gjson.GetBytes(raw, "uri").String() == uri {
				a.Listed = raw
				break
			}
		}
		st := newStep(&config.Step{ID: "ui-" + t.Name, Kind: config.KindResource, Resource: uri, Origin: config.OriginProbe}, c.suite.TimeoutMs)
		st.caseName, st.app = caseAppUI, a
		sc.steps = append(sc.steps, st)
	}
	if len(sc.steps) > 0 {
		c.add(sc)
	}
}

// mayBeEmpty reports whether t may honestly succeed with no content: it is
// not annotated read-only and declares no outputSchema, so it may be
// called for a side effect (the spec allows an empty content array). A
// read-only or structured tool was asked for something, and an empty
// answer is a fidelity failure.
func mayBeEmpty(t tool) bool {
	return !isReadOnly(t) && !declared(t.OutputSchema)
}

// declared reports whether a raw schema member is present and not null.
func declared(raw json.RawMessage) bool {
	s := bytes.TrimSpace(raw)
	return len(s) > 0 && !bytes.Equal(s, []byte("null"))
}
