package runner

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/runner/internal/apps"
	"github.com/mcpcheck/mcpcheck/runner/internal/probe"
	"github.com/mcpcheck/mcpcheck/runner/internal/refs"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// The plan is what the scheduler and the executor run: the fixture's
// scenarios and the generated ones, compiled into the runner's own types.
// config describes what the user wrote; everything only the engine needs
// (how a scenario's steps are scheduled, when it stops, which scenario it
// waits for, what a step captures, how analysis reads it) lives here, set by
// the compiler of the fixture (planSuite) or by generation (generated.go),
// so that nothing downstream recovers meaning from names, ids or messages.

// mode is how the steps of a scenario run.
type mode uint8

const (
	// inOrder runs the steps one after another; a failed step skips the
	// rest unless the scenario continues on failure. Steps may $ref the
	// results of earlier ones.
	inOrder mode = iota
	// fanOut runs the first step alone, then the others at once, bounded
	// across the run (see runState.extra): a read-only tool's generated
	// cases, which neither refer to nor change each other. The first call is
	// what the probes time.
	fanOut
	// allAtOnce starts every step at the same moment (parallel: true); its
	// steps cannot refer to each other and a failure skips nothing.
	allAtOnce
	// rawProbes runs protocol probes, each followed by its observer, on a
	// raw connection of the scenario's own (probes.go).
	rawProbes
)

// scenario is one scenario of the plan.
type scenario struct {
	index     int // in the report
	name      string
	mode      mode
	isolation config.Isolation
	// reconnect replaces a lost session before each step (a relaunched
	// stdio server) instead of skipping the rest.
	reconnect         bool
	continueOnFailure bool
	protocols         []string
	// after, when not -1, is the scenario this one needs: when that one
	// stopped early, this one is skipped with its reason. It always runs
	// earlier (an allAtOnce scenario after an inOrder one).
	after int
	// reference stops the scenario at the first step that cannot serve as
	// a reference answer: one that did not come back ok, or a repeat whose
	// answer differs from the step it repeats (referenceBroken).
	reference bool
	// last runs the scenario after every other (before the behaviour
	// checks), one at a time, so that no other call of the run is in
	// flight or in between: the crossed responses' phases (whose answers a
	// mutating call elsewhere would change) and the latency re-measure
	// (which load elsewhere would slow). See schedule.
	last bool
	// behaviour, when set, is the behaviour check the scenario is: judged
	// from its observation steps when it ends (behaviour.go). Such a
	// scenario runs alone, after every other one, so that nothing else
	// changes the state it observes.
	behaviour *behaviourCheck
	steps     []step
	pos       config.Pos
	// excluded, when set, leaves the scenario out of the run (Selection).
	excluded report.Exclusion
	// muted keeps the run's hooks from hearing of the scenario's steps
	// while it may still be retried (scenario.go).
	muted bool
}

// step is one planned call and what must hold of its answer.
type step struct {
	// spec is the step as written, by the user or a generator: its id,
	// expectations, protocols, advisory flag and position.
	spec *config.Step
	call call
	// Generated steps say what they are (reported as origin, case,
	// property) and what they count toward.
	origin             config.Origin
	caseName, property string
	score              config.ScoreName
	// capture, when set, names the resource whose id is looked for in the
	// result once the step passes; later steps read it with
	// {$ref: "<step>#/mcpcheck:id"} (capturedID).
	capture string
	// sameAs, when set, is the earlier step whose answer this one must
	// equal (the same input: a one-by-one repeat, an overlapping call's
	// one-by-one twin); the step's AnswerDiffers says whether it did.
	sameAs *stepRef
	// forbidden: the step's input is one the tool's inputSchema forbids
	// (a fuzz case), which schema enforcement judges.
	forbidden bool
	// measure keeps the size of the answer in the report, for the size
	// probe (a tool's valid call).
	measure bool
	// flagNote, when set, replaces the checkers' words when the step is
	// flagged: the generator knows what the observation means.
	flagNote string
	// rerun allows running the step again alone when its call lost the
	// server (see rerunAlone). Only generated calls of read-only tools (or
	// of tools the user opted into) may be made twice: a fixture step may
	// have side effects.
	rerun bool
	// record keeps the decoded result in the step's report, to compare
	// answers (sameAs).
	record bool
	// scratch: the parameters name ${tmp}, replaced when the step runs.
	scratch bool
	// probe is a protocol probe's raw message and judgement (rawProbes).
	probe *probe.Probe
	// golden, when set, compares the answer with the stored one
	// (expect.snapshot).
	golden *goldenStep
	// mimeType is the type a resource's listing declares, which a
	// fidelity check holds its contents to.
	mimeType string
	// timedBy names the argument of a generated valid call that asks for
	// the time the call takes (delayMs, duration, ...): latency does not
	// judge such a call (timeArgument).
	timedBy string
	// taskCheck, when set, is a generated task check (task.go) of
	// a tool whose execution.taskSupport is taskSupport.
	taskCheck   taskCheck
	taskSupport string
	// app, when set, judges the answer as an MCP App's UI resource
	// (apps.Judge).
	app *apps.Check
	// observation, when > 0, is which observation of a behaviour check
	// the step belongs to (1 and 2 before the call, then one after each
	// call), and source what it observes.
	observation int
	source      string

	timeout  time.Duration
	validate bool // check the arguments against the inputSchema first
	// progress asks for progress (a _meta.progressToken): only a step
	// that expects notifications/progress does, as a plain client asks
	// for none; see wantsProgress.
	progress bool
	keep     bool // a later step of the scenario refers to this one's result
	rawPaths bool // a structuredPaths check needs structuredContent's raw bytes
	whole    bool // a check reads the whole result
	text     bool // a check reads the result's text content
}

// call is what a step asks of the server: a method and its parameters.
type call struct {
	kind   config.StepKind
	method string // the JSON-RPC method ("" for await, which waits)
	// name is what the step addresses, as the report shows it: the tool or
	// prompt, the list, the log level; a URI is shown once resolved.
	name string
	// params are the method's parameters as written, possibly with $ref
	// markers: a tool's or prompt's arguments, a URI, a completion request,
	// a log level. raw is their encoding, made once when they hold none.
	params any
	raw    json.RawMessage
	hasRef bool
}

// Methods of the step kinds; a list step's depends on what it lists.
var methods = map[config.StepKind]string{
	config.KindTool:        "tools/call",
	config.KindResource:    "resources/read",
	config.KindPrompt:      "prompts/get",
	config.KindComplete:    "completion/complete",
	config.KindPing:        "ping",
	config.KindSetLogLevel: "logging/setLevel",
	config.KindSubscribe:   "resources/subscribe",
	config.KindUnsubscribe: "resources/unsubscribe",
}

// listMethods are the methods of a list step, by what it lists.
var listMethods = map[string]string{
	"tools":             "tools/list",
	"resources":         "resources/list",
	"resourceTemplates": "resources/templates/list",
	"prompts":           "prompts/list",
}

// capturedID is the member of a step's result under which a captured id is
// found by $ref (see step.capture).
const capturedID = "mcpcheck:id"

// planSuite compiles the fixture's scenarios, in order, into the plan.
func planSuite(suite *config.Suite) []*scenario {
	out := make([]*scenario, len(suite.Scenarios))
	for i := range suite.Scenarios {
		sc := &suite.Scenarios[i]
		p := &scenario{
			index: i, name: sc.Name, mode: inOrder, isolation: sc.Isolation,
			reconnect: sc.Reconnect, continueOnFailure: sc.ContinueOnFailure,
			protocols: sc.Protocols, after: -1, pos: sc.Pos,
		}
		if sc.Parallel {
			p.mode = allAtOnce
		}
		if p.isolation == "" {
			p.isolation = suite.Isolation
		}
		if p.isolation == "" {
			p.isolation = config.IsolationShared
		}
		p.steps = make([]step, len(sc.Steps))
		for j := range sc.Steps {
			p.steps[j] = newStep(&sc.Steps[j], suite.TimeoutMs)
			if sc.Steps[j].Expect.Snapshot {
				p.steps[j].golden = &goldenStep{scenario: sc.Name, rules: suite.Snapshots.Merge(sc.Snapshots).Merge(sc.Steps[j].Snapshots)}
			}
		}
		finish(p)
		out[i] = p
	}
	return out
}

// newStep plans one step as written, with the suite's time limit unless
// the step sets its own.
func newStep(st *config.Step, suiteTimeoutMs int) step {
	p := step{
		spec:     st,
		call:     callOf(st),
		origin:   st.Origin,
		timeout:  ms2d(suiteTimeoutMs),
		validate: st.Kind == config.KindTool && (st.ValidateArguments == nil || *st.ValidateArguments),
		progress: wantsProgress(&st.Expect),
	}
	if p.origin == "" {
		p.origin = config.OriginFixture
	}
	if st.TimeoutMs > 0 {
		p.timeout = ms2d(st.TimeoutMs)
	}
	if usesScratch(p.call.params) {
		// Resolved when the step runs, against its session's directory.
		p.scratch, p.call.hasRef, p.call.raw = true, true, nil
	}
	return p
}

// wantsProgress reports whether a step's checks read progress
// notifications, which a server sends only to a request that carries a
// progress token. Every other call goes without one (no _meta at all), as
// most clients make them: a tool that needs _meta to be there fails on a
// plain client, and a token on every call would hide that.
func wantsProgress(e *config.Expect) bool {
	for _, n := range e.Notifications {
		if n.Method == "notifications/progress" {
			return true
		}
	}
	return false
}

// callOf is the call a step makes, by its kind.
func callOf(st *config.Step) call {
	c := call{kind: st.Kind, method: methods[st.Kind]}
	switch st.Kind {
	case config.KindTool, "":
		c.kind, c.method, c.name, c.params = config.KindTool, methods[config.KindTool], st.Tool, argumentsOf(st.Arguments)
	case config.KindPrompt:
		c.name, c.params = st.Prompt, argumentsOf(st.Arguments)
	case config.KindResource, config.KindSubscribe, config.KindUnsubscribe:
		c.params = st.Resource
		if uri, ok := st.Resource.(string); ok {
			c.name = uri
		}
	case config.KindComplete:
		c.params = st.Complete
		c.name = completeTarget(st.Complete)
	case config.KindList:
		c.method, c.name = listMethods[st.List], st.List
	case config.KindSetLogLevel:
		c.name, c.params = st.LogLevel, st.LogLevel
	case config.KindAwait:
		c.name = st.Await.Method
	case config.KindObserve:
		c.name = st.Observe
	}
	c.hasRef = refs.Has(c.params)
	if !c.hasRef && c.params != nil {
		c.raw, _ = json.Marshal(c.params)
	}
	return c
}

// argumentsOf is never nil: a tool or prompt without arguments sends {}.
func argumentsOf(args map[string]any) map[string]any {
	if args == nil {
		return map[string]any{}
	}
	return args
}

// completeTarget names what a completion request completes, for the
// report: "prompt/argument" or "template/argument".
func completeTarget(req map[string]any) string {
	ref, _ := req["ref"].(map[string]any)
	arg, _ := req["argument"].(map[string]any)
	what, _ := ref["name"].(string)
	if what == "" {
		what, _ = ref["uri"].(string)
	}
	name, _ := arg["name"].(string)
	return what + " " + name
}

// finish settles what each step of a complete scenario must keep of its
// answer: the result when a later step refers to it or it captures an id
// (read by $ref too), the text when a check reads it, structuredContent's
// raw bytes for path queries.
func finish(sc *scenario) {
	referenced := map[string]bool{}
	for j := range sc.steps {
		collectRefs(sc.steps[j].call.params, referenced)
		if a := sc.steps[j].spec.Expect.Absent; a != nil {
			collectRefs(a.V, referenced)
		}
	}
	for j := range sc.steps {
		st := &sc.steps[j]
		e := &st.spec.Expect
		st.keep = referenced[st.spec.ID] || st.capture != ""
		st.text = e.Fidelity || e.Absent != nil || st.capture != "" || e.Text != nil || e.TextJSON != nil
		st.rawPaths = len(e.StructuredPaths) > 0
		st.whole = e.Result != nil || e.Snapshot
	}
}

func collectRefs(v any, into map[string]bool) {
	if s, ok := config.RefMarker(v); ok {
		if r, err := config.ParseRef(s); err == nil {
			into[r.Step] = true
		}
		return
	}
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			collectRefs(e, into)
		}
	case []any:
		for _, e := range x {
			collectRefs(e, into)
		}
	}
}

// label names the step for anomalies noticed after its call returned.
func (sc *scenario) label(j int) string {
	return "step " + sc.steps[j].spec.ID + " of " + strconv.Quote(sc.name)
}
