package runner

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"

	"github.com/mcpcheck/mcpcheck/assert"
	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/runner/internal/gen"
)

// Skip reasons, in the runner's words.
const (
	reasonEarlierFailed = "an earlier step of this scenario failed"
	reasonNotRun        = "not run: the suite failed before the first call"
	reasonInterrupted   = "not run: the run was interrupted"
	reasonUnreachable   = "not run: server unreachable"
	reasonListed        = "listed, not run (--list)"
)

// stderrLines is how many lines of a dead server's stderr a report keeps.
const stderrLines = 20

// Run runs suite and returns its report. The error is non-nil only when the
// run could not begin (a missing credential, a command that cannot be
// resolved): those are the caller's input errors. Everything that happens
// once the run has begun, the server failing to start included, is in the
// report, with every step accounted for.
func Run(ctx context.Context, suite *config.Suite, opts Options) (*Report, error) {
	switch len(opts.Protocols) {
	case 0:
		return runOne(ctx, suite, opts)
	case 1:
		s := *suite
		s.ProtocolVersion = opts.Protocols[0]
		return runOne(ctx, &s, opts)
	}
	return runProtocols(ctx, suite, opts, opts.Protocols)
}

// runOne runs the suite under its own protocol version.
func runOne(ctx context.Context, suite *config.Suite, opts Options) (*Report, error) {
	env := newEnviron(opts.Environ)
	sec, err := resolveSecrets(suite, env)
	if err != nil {
		return nil, err
	}
	d := &dialer{suite: suite, opts: &opts, env: env, sec: sec, version: suite.ProtocolVersion}
	if d.version == "" {
		d.version = config.DefaultProtocolVersion
	}
	if opts.Dial == nil && suite.Endpoint == "" {
		if len(suite.Command) == 0 {
			return nil, errors.New("the suite has neither a command nor an endpoint")
		}
		d.argv, err = resolveCommand(suite.Command, opts.SelfCommand)
		if err != nil {
			return nil, err
		}
	}
	r := &runState{
		suite: suite,
		opts:  &opts,
		trace: newTracer(opts.Trace),
		red:   newRedactor(sec.values, suite.Endpoint),
		d:     d,
		plans: plan(suite),
	}
	return r.run(ctx), nil
}

// resolveCommand maps a program named exactly "mcpcheck" to this binary.
func resolveCommand(argv, self []string) ([]string, error) {
	if argv[0] != "mcpcheck" {
		return argv, nil
	}
	if self == nil {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("command mcpcheck: finding this executable: %w", err)
		}
		self = []string{exe}
	}
	return append(slices.Clone(self), argv[1:]...), nil
}

// plannedStep is a step prepared once before the run: its checkers, its
// encoded arguments when they hold no $ref, and whether a later step reads
// its result.
type plannedStep struct {
	step     *config.Step
	args     json.RawMessage // nil when hasRef
	hasRef   bool
	keep     bool // a later step of the scenario references this one
	timeout  time.Duration
	validate bool
	rawPaths bool // a structuredPaths check needs structuredContent's raw bytes
	text     bool // a check reads the result's text content
	record   bool // analyzers read this step's decoded result after the run
	scenario string
}

// label names the step for anomalies noticed after its call returned.
func (p *plannedStep) label() string {
	return "step " + p.step.ID + " of " + strconv.Quote(p.scenario)
}

func plan(suite *config.Suite) [][]plannedStep {
	out := make([][]plannedStep, len(suite.Scenarios))
	for i := range suite.Scenarios {
		sc := &suite.Scenarios[i]
		referenced := map[string]bool{}
		for j := range sc.Steps {
			collectRefs(sc.Steps[j].Arguments, referenced)
		}
		ps := make([]plannedStep, len(sc.Steps))
		for j := range sc.Steps {
			st := &sc.Steps[j]
			p := plannedStep{
				step:     st,
				hasRef:   hasRef(st.Arguments),
				timeout:  ms2d(suite.TimeoutMs),
				validate: st.ValidateArguments == nil || *st.ValidateArguments,
				rawPaths: len(st.Expect.StructuredPaths) > 0,
				text:     st.Expect.Fidelity || st.Expect.Absent != nil || st.CaptureID != "",
				keep:     referenced[st.ID] || st.CaptureID != "",
				scenario: sc.Name,
			}
			if st.TimeoutMs > 0 {
				p.timeout = ms2d(st.TimeoutMs)
			}
			if !p.hasRef {
				args := st.Arguments
				if args == nil {
					args = map[string]any{}
				}
				p.args, _ = json.Marshal(args)
			}
			ps[j] = p
		}
		out[i] = ps
	}
	return out
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

// runState is one run in progress.
type runState struct {
	suite *config.Suite
	opts  *Options
	red   *redactor
	d     *dialer
	plans [][]plannedStep
	rep   *Report
	tools map[string]tool
	trace *tracer
	// contracts holds the compiled schemas of every tool a step calls.
	contracts map[string]*contract
	// extra bounds, across all scenarios, the calls that independent
	// steps add beyond one per scenario in flight (see runIndependent),
	// so at most twice the concurrency is ever in flight.
	extra chan struct{}

	mu       sync.Mutex // guards the counters below and rep.ServerStderr
	sessions int

	// fixtureScenarios is how many scenarios came from the fixture; the
	// generated ones follow them.
	fixtureScenarios int
	// concurrency analysis: tools checked and tools with a failure.
	concurrencyChecked, concurrencyFailedTools int
}

func (r *runState) run(ctx context.Context) *Report {
	start := time.Now()
	rep := &Report{
		SchemaVersion:   SchemaVersion,
		Suite:           r.suite.Name,
		Target:          r.d.target(),
		ProtocolVersion: r.d.version,
		ToolsDiscovered: []string{},
		StartedAt:       start,
		Scenarios:       make([]ScenarioResult, len(r.suite.Scenarios)),
	}
	r.rep = rep
	for i := range r.suite.Scenarios {
		sc := &r.suite.Scenarios[i]
		res := ScenarioResult{Name: sc.Name, Pos: sc.Pos, Steps: make([]StepResult, len(sc.Steps))}
		for j := range sc.Steps {
			st := &sc.Steps[j]
			res.Steps[j] = StepResult{ID: st.ID, Tool: st.Tool, Origin: originOf(st), Status: StatusSkipped, Reason: reasonNotRun, Pos: st.Pos}
		}
		rep.Scenarios[i] = res
	}
	defer func() {
		rep.Summary.DurationMs = ms(time.Since(start))
		sort.Strings(rep.Warnings)
		rep.Tally()
	}()

	sess, err := r.open(ctx)
	if err != nil {
		r.fail("connect", err)
		return rep
	}
	shared := &link{sess: sess}
	defer shared.close(r)
	if ir := sess.init; ir != nil {
		rep.ProtocolVersion = ir.ProtocolVersion
		if ir.ServerInfo != nil {
			rep.Server = &ServerInfo{Name: r.clean(ir.ServerInfo.Name, 200), Version: r.clean(ir.ServerInfo.Version, 100)}
		}
	}

	tools, warnings, err := discover(ctx, sess.cs, ms2d(r.suite.DiscoveryTimeoutMs))
	if err != nil {
		if ctx.Err() != nil {
			r.interrupted()
			return rep
		}
		r.fail("discovery", err)
		r.keepStderr(sess)
		return rep
	}
	for _, w := range warnings {
		rep.Warnings = append(rep.Warnings, r.clean(w, 300))
	}
	r.tools = make(map[string]tool, len(tools))
	for _, t := range tools {
		r.tools[t.Name] = t
		rep.ToolsDiscovered = append(rep.ToolsDiscovered, r.clean(t.Name, 200))
	}
	sort.Strings(rep.ToolsDiscovered)
	if err := r.checkTools(); err != nil {
		r.fail("allowlist", err)
		return rep
	}
	if r.suite.Generate != nil {
		if err := r.addGenerated(tools); err != nil {
			r.fail("generate", err)
			return rep
		}
	}
	r.compileContracts()
	if r.opts.ListOnly {
		for i := range rep.Scenarios {
			skipFrom(rep.Scenarios[i].Steps, 0, reasonListed)
		}
		return rep
	}

	r.schedule(ctx, shared)
	if ctx.Err() != nil {
		rep.Failure = &SuiteFailure{Stage: "interrupted", Message: "the run was interrupted; steps not run are skipped"}
	}
	if r.suite.Generate != nil {
		r.analyze()
	}
	return rep
}

// addGenerated compiles the generated checks into scenarios after the
// fixture's own, plans them and gives them their place in the report.
func (r *runState) addGenerated(tools []tool) error {
	gen := compileGenerated(r.suite, tools)
	r.fixtureScenarios = len(r.suite.Scenarios)
	s := *r.suite
	s.Scenarios = append(slices.Clip(s.Scenarios), gen.scenarios...)
	r.suite = &s
	first := len(r.plans)
	for i, p := range plan(&config.Suite{Scenarios: gen.scenarios, TimeoutMs: s.TimeoutMs}) {
		for j := range p {
			p[j].record = true
		}
		r.plans = append(r.plans, p)
		sc := &s.Scenarios[first+i]
		res := ScenarioResult{Name: sc.Name, Pos: sc.Pos, Steps: make([]StepResult, len(sc.Steps))}
		for j := range sc.Steps {
			st := &sc.Steps[j]
			res.Steps[j] = StepResult{ID: st.ID, Tool: st.Tool, Origin: originOf(st), Status: StatusSkipped, Reason: reasonNotRun,
				Score: st.Score, Case: st.Case, Property: st.Property, Pos: st.Pos}
		}
		r.rep.Scenarios = append(r.rep.Scenarios, res)
	}
	r.rep.SkippedTools = gen.skipped
	r.rep.Notes = append(r.rep.Notes, gen.notes...)
	for _, sk := range gen.skipped {
		r.trace.write(TraceEntry{Tool: sk.Tool, Skipped: sk.Reason})
	}
	return nil
}

// open dials a session and counts it.
func (r *runState) open(ctx context.Context) (*session, error) {
	s, err := r.d.dial(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sessions++
	r.rep.Connections = r.sessions
	var de *dialError
	if errors.As(err, &de) {
		r.rep.ServerStderr = r.rep.ServerStderr[:0]
		for _, l := range de.stderr {
			r.rep.ServerStderr = append(r.rep.ServerStderr, r.clean(l, 500))
		}
	}
	return s, err
}

// fail records a suite-level failure; every step stays skipped.
func (r *runState) fail(stage string, err error) {
	msg := r.clean(err.Error(), 1000)
	r.rep.Failure = &SuiteFailure{Stage: stage, Message: msg}
	for i := range r.rep.Scenarios {
		for j := range r.rep.Scenarios[i].Steps {
			r.rep.Scenarios[i].Steps[j].Reason = reasonNotRun
		}
	}
}

func (r *runState) interrupted() {
	r.rep.Failure = &SuiteFailure{Stage: "interrupted", Message: "the run was interrupted before the first call"}
	for i := range r.rep.Scenarios {
		for j := range r.rep.Scenarios[i].Steps {
			r.rep.Scenarios[i].Steps[j].Reason = reasonInterrupted
		}
	}
}

// checkTools demands that every tool a step names was discovered. The
// loader has already checked the allowlist.
func (r *runState) checkTools() error {
	var missing []string
	seen := map[string]bool{}
	for i := range r.suite.Scenarios {
		for j := range r.suite.Scenarios[i].Steps {
			st := &r.suite.Scenarios[i].Steps[j]
			if _, ok := r.tools[st.Tool]; ok || seen[st.Tool] {
				continue
			}
			seen[st.Tool] = true
			missing = append(missing, fmt.Sprintf("%q (first used by step %s at %s)", st.Tool, st.ID, st.Pos))
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("the server does not list %s; nothing was called", strings.Join(missing, ", "))
}

// compileContracts compiles the schemas of every tool a step calls, in a
// fixed order, and warns about schemas that were refused or do not compile.
func (r *runState) compileContracts() {
	r.contracts = map[string]*contract{}
	var names []string
	for i := range r.suite.Scenarios {
		for j := range r.suite.Scenarios[i].Steps {
			name := r.suite.Scenarios[i].Steps[j].Tool
			if _, ok := r.contracts[name]; !ok {
				r.contracts[name] = nil
				names = append(names, name)
			}
		}
	}
	sort.Strings(names)
	for _, name := range names {
		c := compileContract(r.tools[name])
		r.contracts[name] = &c
		for _, err := range []error{c.inputErr, c.outputErr} {
			if err != nil {
				r.rep.Warnings = append(r.rep.Warnings, r.clean(fmt.Sprintf("tool %q: %v", name, err), 500))
			}
		}
	}
}

// warn adds a warning (safe from any goroutine). Warnings are sorted when
// the run ends, so their order never depends on scheduling.
func (r *runState) warn(w string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	w = r.clean(w, 500)
	if !slices.Contains(r.rep.Warnings, w) {
		r.rep.Warnings = append(r.rep.Warnings, w)
	}
}

// retire closes a session, keeping what its connection noticed.
func (r *runState) retire(s *session) {
	s.Close()
	for _, a := range s.anomalies() {
		r.warn(a)
	}
}

// keepStderr stores the tail of a stdio server's stderr in the report.
func (r *runState) keepStderr(s *session) {
	if s == nil || s.proc == nil {
		return
	}
	lines := s.proc.StderrTail(stderrLines)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rep.ServerStderr = r.rep.ServerStderr[:0]
	for _, l := range lines {
		r.rep.ServerStderr = append(r.rep.ServerStderr, r.clean(l, 500))
	}
}

// clean redacts and strips server-provided or error text.
func (r *runState) clean(s string, max int) string {
	return Clean(r.red.String(s), max)
}

func originOf(st *config.Step) string {
	if st.Origin == "" {
		return config.OriginFixture
	}
	return st.Origin
}

// schedule runs the scenarios, up to the suite's concurrency at once, on
// the shared session or (isolation: scenario) each on its own. Results land
// in the report by scenario index, so finish order never shows.
//
// Parallel scenarios put load on the server on purpose; they start once
// every other scenario has finished, so their load disturbs nothing else
// (the latency probes above all). Among themselves, those on sessions of
// their own (isolation: scenario or step) run up to the concurrency at once
// too; one on the shared session runs alone, after them.
func (r *runState) schedule(ctx context.Context, shared *link) {
	r.extra = make(chan struct{}, max(r.suite.Concurrency, 1))
	var first, isolated, alone []int
	for i := range r.plans {
		sc := &r.suite.Scenarios[i]
		switch {
		case !sc.Parallel:
			first = append(first, i)
		case r.isolationOf(sc) != config.IsolationShared:
			isolated = append(isolated, i)
		default:
			alone = append(alone, i)
		}
	}
	r.pool(ctx, shared, first)
	r.pool(ctx, shared, r.longestFirst(isolated))
	for _, i := range alone {
		r.runScenario(ctx, i, shared)
	}
}

// longestFirst orders parallel scenarios by the longest call seen so far
// to any tool they call, longest first, so that a slow tool's load does not
// start last and hold the run up alone. Only the order of running changes;
// results land by index.
func (r *runState) longestFirst(list []int) []int {
	longest := map[string]float64{}
	for i := range r.rep.Scenarios {
		for j := range r.rep.Scenarios[i].Steps {
			st := &r.rep.Scenarios[i].Steps[j]
			longest[st.Tool] = max(longest[st.Tool], st.DurationMs)
		}
	}
	est := func(i int) float64 {
		var d float64
		for j := range r.suite.Scenarios[i].Steps {
			d = max(d, longest[r.suite.Scenarios[i].Steps[j].Tool])
		}
		return d
	}
	out := slices.Clone(list)
	slices.SortStableFunc(out, func(a, b int) int { return cmp.Compare(est(b), est(a)) })
	return out
}

// pool runs the scenarios of list, up to the suite's concurrency at once.
func (r *runState) pool(ctx context.Context, shared *link, list []int) {
	n := max(r.suite.Concurrency, 1)
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(n, len(list)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				r.runScenario(ctx, i, shared)
			}
		}()
	}
	for _, i := range list {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
}

// isolationOf is a scenario's isolation: its own, else the suite's.
func (r *runState) isolationOf(sc *config.Scenario) string {
	if sc.Isolation != "" {
		return sc.Isolation
	}
	if r.suite.Isolation == "" {
		return config.IsolationShared
	}
	return r.suite.Isolation
}

// skipFrom marks steps[from:] skipped with why.
func skipFrom(steps []StepResult, from int, why string) {
	for k := from; k < len(steps); k++ {
		steps[k].Status = StatusSkipped
		steps[k].Reason = why
	}
}

func (r *runState) runScenario(ctx context.Context, i int, shared *link) {
	sc := &r.suite.Scenarios[i]
	steps := r.rep.Scenarios[i].Steps
	if ctx.Err() != nil {
		skipFrom(steps, 0, reasonInterrupted)
		return
	}
	if !r.protocolApplies(sc.Protocols) {
		skipFrom(steps, 0, r.protocolReason("scenario", sc.Protocols))
		return
	}
	if why := r.afterStopped(sc.After); why != "" {
		skipFrom(steps, 0, why)
		return
	}
	isolation := r.isolationOf(sc)
	if sc.Parallel {
		r.runParallel(ctx, i, shared, isolation)
		return
	}
	l := shared
	switch isolation {
	case config.IsolationScenario:
		l = &link{}
		defer l.close(r)
	case config.IsolationStep:
		l = nil // a fresh link per step, below
	}
	var sess *session
	if l != nil {
		var err error
		if sess, err = r.session(ctx, l, true); err != nil {
			r.unreachable(ctx, l, i, 0, err)
			return
		}
	}
	if sc.Independent && l != nil {
		r.runIndependent(ctx, i, l, sess)
		return
	}
	results := map[string]any{}
	for j := range r.plans[i] {
		p := &r.plans[i][j]
		if ctx.Err() != nil {
			skipFrom(steps, j, reasonInterrupted)
			return
		}
		if !r.protocolApplies(p.step.Protocols) {
			steps[j].Reason = r.protocolReason("step", p.step.Protocols)
			continue
		}
		stepLink := l
		if l == nil {
			stepLink = &link{}
		}
		if l == nil || (sc.Reconnect && j > 0) {
			var err error
			if sess, err = r.session(ctx, stepLink, true); err != nil {
				r.unreachable(ctx, stepLink, i, j, err)
				return
			}
		}
		var res StepResult
		if l != nil {
			res, sess = r.callOnLink(ctx, l, sess, i, p, results)
		} else {
			res = r.runStep(ctx, sess, p, results)
			r.noteLoss(stepLink, sess, i, p, &res)
			stepLink.close(r)
		}
		steps[j] = res
		if r.opts.OnStep != nil {
			r.opts.OnStep(i, res)
		}
		if why := referenceStop(sc, steps[:j+1]); why != "" {
			skipFrom(steps, j+1, why)
			return
		}
		switch {
		case res.stop != "":
			skipFrom(steps, j+1, res.stop)
			return
		case res.Status != StatusPassed && ctx.Err() != nil:
			skipFrom(steps, j+1, reasonInterrupted)
			return
		case res.Status != StatusPassed && !sc.ContinueOnFailure:
			skipFrom(steps, j+1, reasonEarlierFailed+" ("+p.step.ID+")")
			return
		}
	}
}

// callOnLink makes step p's call on link l (whose session is sess), runs it
// again alone if it ended with the server gone (a generated step), and
// records a loss on the link. It returns the result and the link's session
// after the call.
func (r *runState) callOnLink(ctx context.Context, l *link, sess *session, i int, p *plannedStep, results map[string]any) (StepResult, *session) {
	l.calls.RLock()
	res := r.runStep(ctx, sess, p, results)
	l.calls.RUnlock()
	if rerun, ok := r.rerunAlone(ctx, l, i, p, res, results); ok {
		res = rerun
		sess = l.current()
	}
	r.noteLoss(l, sess, i, p, &res)
	return res, sess
}

// noteLoss marks link l down when the call on sess lost the server.
func (r *runState) noteLoss(l *link, sess *session, i int, p *plannedStep, res *StepResult) {
	if res.Outcome == assert.OutcomeTransportClosed || res.Outcome == assert.OutcomeSessionLost || (res.Outcome != "" && sess.lost()) {
		l.lostAt(sess, r.rep.Scenarios[i].Name, p.step.ID)
	}
}

// runIndependent runs scenario i's first step alone (a tool's valid call:
// what the probes measure), then the rest at once on link l, up to the
// suite's concurrency across all scenarios (r.extra), each on the link's
// current session (relaunched when a call lost it). The steps hold no
// $ref, so each has results of its own; they land by index, so the report
// does not show the finish order.
func (r *runState) runIndependent(ctx context.Context, i int, l *link, sess *session) {
	steps := r.rep.Scenarios[i].Steps
	run := func(j int, sess *session) {
		p := &r.plans[i][j]
		if !r.protocolApplies(p.step.Protocols) {
			steps[j].Reason = r.protocolReason("step", p.step.Protocols)
			return
		}
		res, _ := r.callOnLink(ctx, l, sess, i, p, map[string]any{})
		steps[j] = res
		if r.opts.OnStep != nil {
			r.opts.OnStep(i, res)
		}
	}
	if len(r.plans[i]) == 0 {
		return
	}
	run(0, sess)
	sem := r.extra
	if sem == nil {
		sem = make(chan struct{}, max(r.suite.Concurrency, 1))
	}
	var wg sync.WaitGroup
	for j := 1; j < len(r.plans[i]); j++ {
		sem <- struct{}{}
		if ctx.Err() != nil {
			<-sem
			skipFrom(steps, j, reasonInterrupted)
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			s, err := r.session(ctx, l, true)
			if err != nil {
				r.unreachableUpTo(ctx, l, i, j, j+1, err)
				return
			}
			run(j, s)
		}()
	}
	wg.Wait()
}

// rerunAlone runs a generated step again, alone on the link, when its call
// ended with the server gone. With scenarios in flight together on one
// server, a crash takes every call in flight down with it — and a call that
// starts a moment later too — so only a call made alone can tell the call
// that crashed the server from the ones that were merely there. The rerun
// is what the report shows, so it reads the same whatever the concurrency
// (the trace keeps both calls). Fixture steps are never run twice (a call
// may have side effects); generated steps call read-only tools unless the
// user opted into --include-destructive.
func (r *runState) rerunAlone(ctx context.Context, l *link, i int, p *plannedStep, first StepResult, results map[string]any) (StepResult, bool) {
	if !p.record || ctx.Err() != nil {
		return first, false
	}
	switch first.Outcome {
	case assert.OutcomeTransportClosed, assert.OutcomeSessionLost, assert.OutcomeMalformedResponse:
	default:
		return first, false
	}
	l.calls.Lock()
	defer l.calls.Unlock()
	sess, err := r.session(ctx, l, true)
	if err != nil {
		return first, false
	}
	return r.runStep(ctx, sess, p, results), true
}

// runParallel runs all steps of scenario i at once: on the shared session,
// on one session of the scenario's own, or (isolation: step) each on a
// session of its own, which over stdio means a server process each. Such
// steps are independent by construction (no $ref between them), so nothing
// is skipped when one fails.
func (r *runState) runParallel(ctx context.Context, i int, shared *link, isolation string) {
	steps := r.rep.Scenarios[i].Steps
	l := shared
	if isolation == config.IsolationScenario {
		l = &link{}
		defer l.close(r)
	}
	var wg sync.WaitGroup
	for j := range r.plans[i] {
		p := &r.plans[i][j]
		if !r.protocolApplies(p.step.Protocols) {
			steps[j].Reason = r.protocolReason("step", p.step.Protocols)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			stepLink := l
			if isolation == config.IsolationStep {
				stepLink = &link{}
				defer stepLink.close(r)
			}
			sess, err := r.session(ctx, stepLink, true)
			if err != nil {
				if ctx.Err() != nil {
					steps[j].Reason = reasonInterrupted
					return
				}
				steps[j].Status = StatusFailed
				steps[j].Reason = "could not open a session for this step: " + r.clean(err.Error(), 300)
				return
			}
			res := r.runStep(ctx, sess, p, map[string]any{})
			steps[j] = res
			if r.opts.OnStep != nil {
				r.opts.OnStep(i, res)
			}
		}()
	}
	wg.Wait()
	if identicalCalls(r.plans[i]) {
		// Identical calls are interchangeable: which of them won a race is
		// chance, so results are listed in a fixed order (by outcome), and
		// the report reads the same from run to run.
		sort.SliceStable(steps, func(a, b int) bool { return resultKey(&steps[a]) < resultKey(&steps[b]) })
		for k := range steps {
			steps[k].ID = r.plans[i][k].step.ID
		}
	}
}

// identicalCalls reports whether every step of a plan makes the same call.
func identicalCalls(ps []plannedStep) bool {
	for k := 1; k < len(ps); k++ {
		if ps[k].step.Tool != ps[0].step.Tool || ps[k].hasRef || ps[0].hasRef || !bytes.Equal(ps[k].args, ps[0].args) {
			return false
		}
	}
	return len(ps) > 1
}

func resultKey(st *StepResult) string {
	return st.Status + "/" + st.Outcome + "/" + strings.Join(st.Notes, ";")
}

// unreachable records that scenario i could not get a session at step j:
// the run terminates early, naming the step, and the scenario's remaining
// steps are skipped. Later scenarios find the link down and skip too.
func (r *runState) unreachable(ctx context.Context, l *link, i, j int, err error) {
	r.unreachableUpTo(ctx, l, i, j, len(r.rep.Scenarios[i].Steps), err)
}

// unreachableUpTo is unreachable for steps j..end-1 only.
func (r *runState) unreachableUpTo(ctx context.Context, l *link, i, j, end int, err error) {
	steps := r.rep.Scenarios[i].Steps[:end]
	if ctx.Err() != nil {
		skipFrom(steps, j, reasonInterrupted)
		return
	}
	skipFrom(steps, j, reasonUnreachable)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.rep.TerminatedEarly == nil && len(steps) > 0 {
		t := &Termination{Scenario: r.rep.Scenarios[i].Name, Step: steps[min(j, len(steps)-1)].ID}
		if sc, st := l.lostBy(); st != "" {
			// Name the step whose call took the server down, not the
			// first one that found it gone.
			t.Scenario, t.Step = sc, st
		}
		t.Reason = r.clean(err.Error(), 500)
		r.rep.TerminatedEarly = t
	}
}

// protocolApplies reports whether a protocols tag admits the negotiated
// protocol version (an empty tag admits all).
func (r *runState) protocolApplies(tags []string) bool {
	return len(tags) == 0 || slices.Contains(tags, r.rep.ProtocolVersion)
}

func (r *runState) protocolReason(what string, tags []string) string {
	return fmt.Sprintf("not run under protocol %s: this %s is for %s", r.rep.ProtocolVersion, what, strings.Join(tags, ", "))
}

// runStep makes one call and checks it.
func (r *runState) runStep(ctx context.Context, sess *session, p *plannedStep, results map[string]any) StepResult {
	st := p.step
	out := StepResult{ID: st.ID, Tool: st.Tool, Origin: originOf(st), Status: StatusFailed, Pos: st.Pos}

	args, argv := p.args, st.Arguments
	if p.hasRef {
		resolved, err := resolveArgs(st.Arguments, results)
		if err != nil {
			out.Reason = err.Error()
			return out
		}
		argv = resolved
		args, err = json.Marshal(resolved)
		if err != nil {
			out.Reason = "encoding arguments: " + err.Error()
			return out
		}
	}
	contract := r.contracts[st.Tool]
	if p.validate && contract != nil {
		if rejected, reason, detail := checkArguments(contract, argv); rejected {
			out.Outcome, out.Reason, out.Detail = assert.OutcomeInputRejected, reason, r.clean(detail, 2000)
			r.check(p, &out, &assert.Result{Outcome: assert.OutcomeInputRejected}, nil, results)
			r.traceStep(p, &out, argv, time.Now())
			return out
		}
	}

	callCtx, cancel := context.WithTimeout(ctx, p.timeout)
	tp := &tap{label: p.label()}
	began := time.Now()
	res, err := sess.cs.CallTool(withTap(callCtx, tp), &mcp.CallToolParams{Name: st.Tool, Arguments: args})
	elapsed := time.Since(began)
	cancel()
	sess.finish(tp)
	out.DurationMs = ms(elapsed)

	if err != nil && ctx.Err() != nil {
		out.Reason = "interrupted while waiting for the server"
		return out
	}
	cl := classify(callCtx, res, err, tp)
	if cl.Outcome == assert.OutcomeMalformedResponse {
		res = nil // whatever the SDK made of a broken message is not a result
	}
	if n := tp.Duplicates(); n > 0 {
		r.warn(fmt.Sprintf("%s: the server sent %d extra response(s) to one call (the client ignored them)", p.label(), n))
	}
	out.Outcome, out.ErrorCode = cl.Outcome, cl.Code
	if cl.Detail != "" {
		out.Detail = r.clean(cl.Detail, 2000)
	}
	switch cl.Outcome {
	case assert.OutcomeMalformedResponse:
		// Some broken messages end the SDK's connection asynchronously;
		// probe before the session is trusted again.
		sess.suspect.Store(true)
	case assert.OutcomeTransportClosed:
		sess.suspect.Store(true)
		// A stdio server whose pipe broke is usually exiting; give it a
		// moment so the step can say how it ended.
		if sess.proc != nil && sess.proc.Exited(2*time.Second) {
			out.ExitStatus = sess.proc.ExitStatus()
			for _, l := range sess.proc.StderrTail(stderrLines) {
				out.Stderr = append(out.Stderr, r.clean(l, 500))
			}
		}
	case assert.OutcomeSessionLost:
		sess.gone.Store(true)
	}

	ar := &assert.Result{Outcome: cl.Outcome, ErrorCode: cl.Code, Duration: elapsed, Arguments: argv}
	var decoded map[string]any
	if err == nil && res != nil {
		ar.HasResult, ar.IsError = true, res.IsError
		raw := tp.Result()
		if raw == nil {
			raw, _ = json.Marshal(res)
		}
		out.ResponseChars = len(raw)
		if p.text {
			ar.Text, ar.HasContent = contentText(res), len(res.Content) > 0
		}
		validateOut := contract != nil && contract.output != nil && !res.IsError
		if p.keep || p.record || validateOut || hasStructured(raw) {
			decoded = decodeResult(raw)
			if sc, ok := decoded["structuredContent"]; ok {
				ar.Structured, ar.HasStructured = sc, true
			}
		}
		if p.rawPaths {
			if sc := gjson.GetBytes(raw, "structuredContent"); sc.Exists() {
				ar.StructuredRaw = []byte(sc.Raw)
			}
		}
		if validateOut {
			if bad, reason, detail := checkOutput(contract, ar); bad {
				ar.Outcome, out.Outcome = assert.OutcomeOutputInvalid, assert.OutcomeOutputInvalid
				out.Reason, out.Detail = reason, r.clean(detail, 2000)
			}
		}
	}
	if st.Expect.Absent != nil {
		v, _, err := resolveValue(st.Expect.Absent.V, results)
		if err != nil {
			out.Reason = "expect.absent: " + err.Error()
			r.traceStep(p, &out, argv, began)
			return out
		}
		ar.Absent = v
	}
	r.check(p, &out, ar, decoded, results)
	if p.record {
		out.result = decoded
	}
	r.traceStep(p, &out, argv, began)
	return out
}

// traceStep writes a step's trace line.
func (r *runState) traceStep(p *plannedStep, out *StepResult, args map[string]any, began time.Time) {
	if r.trace == nil {
		return
	}
	detail := out.Reason
	if detail == "" && out.ErrorCode != nil {
		detail = "JSON-RPC error " + strconv.FormatInt(*out.ErrorCode, 10)
	}
	if detail == "" && len(out.Assertions) > 0 {
		a := out.Assertions[0]
		detail = strings.TrimSpace(a.Kind + " " + a.Path + ": " + a.Message)
	}
	var redacted map[string]any
	if args != nil {
		redacted, _ = r.red.Value(args).(map[string]any)
	}
	r.trace.write(TraceEntry{
		Scenario: p.scenario, Step: p.step.ID, Origin: originOf(p.step), Tool: p.step.Tool,
		Case: p.step.Case, Property: p.step.Property, Outcome: out.Outcome, Status: out.Status,
		Detail: detail, Arguments: redacted, StartedAt: traceTime(began), DurationMs: out.DurationMs,
	})
}

// check runs the step's checkers and settles its status; a passing step's
// result is kept for later $refs when one needs it.
func (r *runState) check(p *plannedStep, out *StepResult, ar *assert.Result, decoded map[string]any, results map[string]any) {
	st := p.step
	// Checkers are built per call rather than kept in the plan: a 10,000-step
	// run would otherwise hold them all live, and every GC cycle rescans the
	// live heap while the SDK makes ~129 KB of garbage per call.
	out.Score, out.Case, out.Property = st.Score, st.Case, st.Property
	failed := false
	for _, c := range assert.Build(&st.Expect) {
		for _, f := range c.Check(ar) {
			if f.Note || st.Advisory {
				// An observation, or an advisory step: worth a look, not a
				// failure.
				note := f.Kind + ": " + f.Message
				if f.Path != "" {
					note = f.Kind + " " + f.Path + ": " + f.Message
				}
				out.Notes = append(out.Notes, note)
				out.Flagged = true
				continue
			}
			failed = true
			out.Assertions = append(out.Assertions, AssertionResult{
				Kind: f.Kind, Path: f.Path, Message: f.Message,
				Expected: f.Expected, HasExpected: f.HasExpected,
				Actual: r.red.Value(f.Actual), HasActual: f.HasActual,
			})
		}
	}
	if failed || out.Reason != "" && ar.Outcome == "" {
		return
	}
	out.Status = StatusPassed
	if st.CaptureID != "" {
		if decoded == nil || ar.Outcome != assert.OutcomeOK {
			out.Flagged, out.stop = true, "the create call did not succeed, so there is no resource to follow"
			return
		}
		id, where, ok := gen.ExtractID(st.CaptureID, decoded["structuredContent"], ar.Text)
		if !ok {
			out.Flagged, out.stop = true, "no id-shaped value ("+st.CaptureID+"_id, id, uuid) in the result; the lifecycle check gives up rather than guess"
			out.Notes = append(out.Notes, out.stop)
			return
		}
		out.Notes = append(out.Notes, "captured the "+st.CaptureID+" id at "+where)
		decoded[config.CapturedID] = id
	}
	if p.keep && decoded != nil {
		results[st.ID] = decoded
	}
}

// hasStructured is a cheap check that a raw result carries structuredContent
// before paying for a full decode.
func hasStructured(raw []byte) bool {
	return bytes.Contains(raw, []byte(`"structuredContent"`))
}

// decodeResult decodes a raw tools/call result keeping numbers exact.
func decodeResult(raw []byte) map[string]any {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if dec.Decode(&m) != nil {
		return nil
	}
	return m
}
