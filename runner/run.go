package runner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/internal/safetext"
	cfile "github.com/mcpcheck/mcpcheck/runner/internal/contract"
	"github.com/mcpcheck/mcpcheck/runner/report"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Skip reasons, in the runner's words.
const (
	reasonEarlierFailed = "an earlier step of this scenario failed"
	reasonNotRun        = "not run: the suite failed before the first call"
	reasonInterrupted   = "not run: the run was interrupted"
	// reasonInterruptedCall is a step whose call was in flight when the run
	// was interrupted: it was cancelled, and the step judges nothing.
	reasonInterruptedCall = "interrupted while waiting for the server"
	reasonUnreachable     = "not run: server unreachable"
	reasonListed          = "listed, not run (--list)"
	reasonSnapshot        = "not run: a snapshot calls nothing"
)

// stderrLines is how many lines of a dead server's stderr a report keeps.
const stderrLines = 20

// purpose is what a run does once it has its plan: the four entry points.
type purpose uint8

const (
	modeRun      purpose = iota // call, judge, report ([Run])
	modeList                    // every step listed, none called ([List])
	modeDiscover                // connect, discover and list ([Discover])
	modeSnapshot                // connect and build the contract ([Snapshot])
	modeLoad                    // repeat and measure ([Load])
)

// calls reports whether the purpose calls anything (and so compares with
// the suite's contract and golden answers).
func (m purpose) calls() bool { return m == modeRun }

// Run runs suite and returns its report. The error is non-nil only when the
// run could not begin (a missing credential, a command that cannot be
// resolved): those are the caller's input errors. Everything that happens
// once the run has begun, the server failing to start included, is in the
// report, with every step accounted for.
//
// The report is analysed once, at the end ([Analyze]); a run under
// several protocol versions is one part per version, joined, then
// analysed.
func Run(ctx context.Context, suite *config.Suite, opts Options) (*report.Report, error) {
	return runMode(ctx, suite, opts, modeRun)
}

// List returns the report of a run that calls nothing (--list): every
// step in place, skipped "listed". A fixture's own steps are known without
// the server, so it connects only when the suite generates checks (they
// come from discovery).
func List(ctx context.Context, suite *config.Suite, opts Options) (*report.Report, error) {
	return runMode(ctx, suite, opts, modeList)
}

// Discover connects, discovers the server's surface (Report.Surface) and
// compiles the suite's generated checks, listing every step without
// calling any (mcpcheck tools).
func Discover(ctx context.Context, suite *config.Suite, opts Options) (*report.Report, error) {
	return runMode(ctx, suite, opts, modeDiscover)
}

// Snapshot connects, discovers and builds the server's contract file into
// Report.Contract, calling nothing (mcpcheck snapshot).
func Snapshot(ctx context.Context, suite *config.Suite, opts Options) (*report.Report, error) {
	return runMode(ctx, suite, opts, modeSnapshot)
}

// runMode runs the suite for purpose m, once per protocol version asked for.
func runMode(ctx context.Context, suite *config.Suite, opts Options, m purpose) (*report.Report, error) {
	var rep *report.Report
	var err error
	if len(opts.Protocols) == 0 && len(suite.ProtocolVersions) > 1 {
		opts.Protocols = suite.ProtocolVersions
	}
	switch len(opts.Protocols) {
	case 0:
		rep, err = runOne(ctx, suite, opts, m)
	case 1:
		s := *suite
		s.ProtocolVersion = opts.Protocols[0]
		rep, err = runOne(ctx, &s, opts, m)
	default:
		rep, err = runProtocols(ctx, suite, opts, m, opts.Protocols)
	}
	if err != nil {
		return nil, err
	}
	rep.FailOnFlaky = opts.FailOnFlaky
	Analyze(rep)
	return rep, nil
}

// runOne runs the suite under its own protocol version; its report is
// not analysed yet.
func runOne(ctx context.Context, suite *config.Suite, opts Options, m purpose) (*report.Report, error) {
	d, err := newDialer(suite, &opts)
	if err != nil {
		return nil, err
	}
	var old *cfile.Contract
	// A listing and a snapshot compare nothing and keep no answers.
	calls := m.calls()
	if suite.Contract != "" && calls {
		if old, err = readContract(suite.Contract, opts.Update); err != nil {
			return nil, err
		}
	}
	plan := planSuite(suite)
	if opts.keepAnswers {
		for _, sc := range plan {
			for j := range sc.steps {
				sc.steps[j].record = true
			}
		}
	}
	var gs *goldens
	if calls {
		if gs, err = openGoldens(suite, plan, &opts, d.env); err != nil {
			return nil, err
		}
	}
	red := newRedactor(d.sec.values, suite.Endpoint)
	r := &runState{
		purpose: m,
		golden:  gs,
		old:     old,
		suite:   suite,
		opts:    &opts,
		trace:   newTracer(opts.Trace, red),
		red:     red,
		d:       d,
		plan:    plan,
	}
	d.warn = r.warn
	// A server may ask the client (roots, sampling, elicitation) outside any
	// call, on the standalone stream, too.
	d.stream = listens(r.plan) || suite.Client != nil
	rep := r.run(ctx)
	rep.StdoutNoise = d.noise.report(r.clean)
	for _, name := range d.sec.plain {
		rep.Warnings = append(rep.Warnings, "the value of "+name+" is a plain short word or number, so it is not hidden from the server's words (it could not be told from them); a real credential is longer")
	}
	// The edge: every string of the report, from here to every writer, is
	// sanitized and redacted (redact.go, "What reaches an output").
	r.red.report(rep)
	return rep, nil
}

// usesScratch reports whether the suite names ${tmp} anywhere it is
// replaced: the command, env, cwd, or a step's parameters.
func (r *runState) usesScratch() bool {
	if usesScratch(r.suite.Command) || usesScratch(r.suite.Env) || usesScratch(r.suite.SecretEnv) || usesScratch(r.suite.Cwd) {
		return true
	}
	for _, sc := range r.plan {
		for j := range sc.steps {
			if sc.steps[j].scratch {
				return true
			}
		}
	}
	return false
}

// scenarioScratch is a new scratch directory for a scenario with sessions
// of its own, when the suite uses one ("" otherwise, or when it cannot be
// made: the session then fails to start with the reason).
func (r *runState) scenarioScratch() string {
	if r.tmp == "" {
		return ""
	}
	return r.scratch.dir()
}

// listens reports whether a step waits for what the server sends outside
// the calls: an await, a subscription.
func listens(plan []*scenario) bool {
	for _, sc := range plan {
		for j := range sc.steps {
			switch sc.steps[j].call.kind {
			case config.KindAwait, config.KindSubscribe:
				return true
			}
		}
	}
	return false
}

// newDialer resolves what connecting to the suite's server needs: the
// environment, the secrets, the protocol version and the command.
func newDialer(suite *config.Suite, opts *Options) (*dialer, error) {
	env := newEnviron(opts.Environ)
	sec, err := resolveSecrets(suite, env)
	if err != nil {
		return nil, err
	}
	d := &dialer{suite: suite, opts: opts, env: env, sec: sec, version: cmp.Or(suite.ProtocolVersion, config.DefaultProtocolVersion)}
	if opts.Dial == nil && suite.Endpoint == "" {
		if len(suite.Command) == 0 {
			return nil, errors.New("the suite has neither a command nor an endpoint")
		}
		if d.argv, err = resolveCommand(suite.Command, opts.SelfCommand); err != nil {
			return nil, fmt.Errorf("%s%w", at(suite, "command"), err)
		}
	}
	return d, nil
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

// runState is one run in progress.
type runState struct {
	purpose purpose
	suite   *config.Suite
	opts    *Options
	red     *redactor
	d       *dialer
	plan    []*scenario
	rep     *report.Report
	tools   map[string]tool
	found   *discovered
	trace   *tracer
	// old is the suite's contract file, read before the run (nil without
	// one, or when --update will write it).
	old *cfile.Contract
	// golden is the suite's snapshot file (nil when no step asks for one).
	golden *goldens
	// schemas holds the compiled schemas of every tool a step calls.
	schemas map[string]*toolSchemas
	// extra bounds, across all scenarios, the calls that fanOut scenarios
	// add beyond one per scenario in flight, so at most twice the
	// concurrency is ever in flight.
	extra chan struct{}
	// probeClosers are the fresh connections of protocol probes still
	// shutting down.
	probeClosers sync.WaitGroup
	// checkClosers are the servers of finished behaviour checks still
	// shutting down (behaviour.go).
	checkClosers sync.WaitGroup

	// tokens numbers the calls' progress tokens.
	tokens atomic.Int64
	// exchanged counts the characters of the exchanges kept (see exchange, in call.go).
	exchanged atomic.Int64
	// scratch holds the run's ${tmp} directories; tmp is the suite's.
	scratch scratch
	tmp     string

	// offerFailed are the tools whose call for offered inputs did not
	// answer ok, by name: their outcome (knownObservers).
	offerFailed map[string]string

	mu       sync.Mutex // guards sessions, offerFailed and rep.ServerStderr
	sessions int
}

func (r *runState) run(ctx context.Context) *report.Report {
	start := time.Now()
	rep := &report.Report{
		SchemaVersion:   report.SchemaVersion,
		Suite:           r.suite.Name,
		Target:          r.d.target(),
		ProtocolVersion: r.d.version,
		ToolsDiscovered: []string{},
		StartedAt:       start,
		Shard:           r.opts.Select.shard(),
	}
	r.rep = rep
	for _, w := range r.suite.Warnings {
		rep.Warnings = append(rep.Warnings, r.clean(w, 500))
	}
	r.addScenarios(r.plan)
	r.selectScenarios(0)
	defer func() {
		rep.Summary.DurationMs = ms(time.Since(start))
		sort.Strings(rep.Warnings)
		rep.Tally()
	}()

	// A fixture's own steps are known without the server: listing them
	// needs no connection (generated checks do: they come from discovery).
	if r.purpose == modeList && r.suite.Generate == nil {
		rep.NotConnected = true
		r.listed()
		return rep
	}
	if r.usesScratch() {
		if r.tmp = r.scratch.dir(); r.tmp == "" {
			r.fail(report.StageConnect, scratchError(r.scratch.err))
			return rep
		}
	}
	defer func() { rep.KeptScratch = r.scratch.cleanup(r.opts.KeepTmp) }()
	defer r.saveGoldens()
	// Deferred first, so it runs last: the sessions close under its watch.
	defer r.watchInterrupt(ctx)()
	if ctx.Err() != nil {
		// Interrupted before it began (a suite queued behind others): no
		// server is started.
		r.interrupted()
		return rep
	}
	sess, err := r.open(ctx, r.tmp)
	if err != nil {
		if ctx.Err() != nil {
			r.interrupted()
			return rep
		}
		r.fail(report.StageConnect, err)
		return rep
	}
	shared := &link{sess: sess, tmp: r.tmp}
	defer shared.close(r)
	if !r.discoverAll(ctx, sess) {
		return rep
	}
	if r.purpose == modeSnapshot {
		for i := range rep.Scenarios {
			skipFrom(rep.Scenarios[i].Steps, 0, reasonSnapshot)
		}
		return rep
	}
	if !r.compile(ctx, sess) {
		return rep
	}
	shared.tmp = r.tmp // generated steps may have made it (scratchForGenerated)
	if r.purpose != modeRun {
		r.listed()
		return rep
	}

	if r.opts.OnStart != nil {
		r.opts.OnStart(visible(r.red, rep))
	}
	if r.suite.Generate != nil {
		// The generated checks are judged once the run is over (Analyze).
		rep.Analysis = analysisSettings(r.suite.Generate)
	}
	r.schedule(ctx, shared)
	if ctx.Err() != nil {
		rep.Failure = &report.SuiteFailure{Stage: report.StageInterrupted, Message: "the run was interrupted; steps not run are skipped"}
	}
	return rep
}

// addScenarios gives planned scenarios their place in the report, every
// step skipped until it runs.
func (r *runState) addScenarios(plan []*scenario) {
	for _, sc := range plan {
		res := report.ScenarioResult{Name: sc.name, Pos: sc.pos, Steps: make([]report.StepResult, len(sc.steps))}
		for j := range sc.steps {
			res.Steps[j] = sc.steps[j].result()
			res.Steps[j].Status, res.Steps[j].Reason = report.StatusSkipped, reasonNotRun
		}
		r.rep.Scenarios = append(r.rep.Scenarios, res)
	}
}

// open dials a session, with tmp as its scratch directory, and counts it.
func (r *runState) open(ctx context.Context, tmp string) (*session, error) {
	s, err := r.d.dial(ctx, tmp)
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
func (r *runState) fail(stage report.Stage, err error) {
	msg := r.clean(err.Error(), 1000)
	r.rep.Failure = &report.SuiteFailure{Stage: stage, Message: msg}
	for i := range r.rep.Scenarios {
		if r.rep.Scenarios[i].NotSelected != "" {
			continue
		}
		for j := range r.rep.Scenarios[i].Steps {
			r.rep.Scenarios[i].Steps[j].Reason = reasonNotRun
		}
	}
}

func (r *runState) interrupted() {
	r.rep.Failure = &report.SuiteFailure{Stage: report.StageInterrupted, Message: "the run was interrupted before the first call"}
	for i := range r.rep.Scenarios {
		if r.rep.Scenarios[i].NotSelected != "" {
			continue
		}
		for j := range r.rep.Scenarios[i].Steps {
			r.rep.Scenarios[i].Steps[j].Reason = reasonInterrupted
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

// clean sanitizes, redacts and bounds server-provided or error text where
// it enters the report: the same steps as the edge (which then changes
// nothing), and the cut last, so it never leaves half a secret.
func (r *runState) clean(s string, max int) string {
	return safetext.Cut(r.red.String(s), max)
}

// Version is mcpcheck's version, sent as the client version in initialize.
var Version = "0.1.0"

// ErrMissingCredential means a variable named by envFromEnv or
// headersFromEnv is not set. The run stops before starting anything or
// touching the network (exit code 2).
var ErrMissingCredential = errors.New("missing credential")

// Options tune a run without changing what it checks.
type Options struct {
	// answerKey, in a run in several protocol eras, keys the steps'
	// answer digests (protocols.go).
	answerKey []byte
	// Environ is the runner's environment as KEY=VALUE pairs, read for
	// envFromEnv, headersFromEnv and the stdio child's base variables.
	// Nil means os.Environ().
	Environ []string
	// SelfCommand is what a fixture command whose program is exactly
	// "mcpcheck" runs instead: this very binary (so `command: [mcpcheck,
	// demo]` works without installing anything). Nil means os.Executable().
	SelfCommand []string
	// Dial, when set, replaces the suite's target with a caller-provided
	// transport (tests use in-memory transports). It is called once per
	// session.
	Dial func(ctx context.Context) (mcp.Transport, error)
	// TerminateGrace is how long a stdio server gets after stdin is closed
	// (and again after SIGTERM) before the next signal. Zero means 2s.
	TerminateGrace time.Duration
	// Protocols, when it names more than one version, runs the suite once
	// per version and merges the results into one report with the
	// divergences between versions; one version overrides the suite's.
	Protocols []string
	// Select, when set, leaves scenarios out of the run (--tag, --run,
	// ...); they are in the report, skipped "not selected".
	Select *Selection
	// Update rewrites the suite's contract file and golden answers from
	// the live server instead of failing on them, and removes answers no
	// step asks for (--update).
	Update bool
	// KeepTmp keeps the run's ${tmp} scratch directories instead of
	// removing them at the end (--keep-tmp); the report lists them.
	KeepTmp bool
	// FailFast, when set, stops the run from starting a scenario once one
	// has failed (-x): the first failed scenario sets it, and those not
	// started yet are skipped (NotRun). Suites that share one stop
	// together.
	FailFast *atomic.Bool
	// FailOnFlaky makes a flaky scenario (failed, retried, passed) fail
	// the run (--fail-on-flaky); it is in the report, so a merge judges
	// alike.
	FailOnFlaky bool
	// Exchanges says which steps keep the request they sent and the
	// answer they got in their result (StepResult.Exchange): none (the
	// default), the failed ones, or all.
	Exchanges ExchangeLevel
	// Trace, when set, receives one JSON line per tool call (and per tool
	// that generation skipped), with the arguments, redacted.
	Trace io.Writer
	// OnStart, OnStep and OnScenario follow a run as it goes (the human
	// report streams through them on a terminal). OnStart is called once,
	// when the plan is ready and before the first call, with the report as
	// it stands: every scenario and step in place, skipped "not run"; read
	// what it needs before returning. OnStep is called when a step's result
	// is final (from the scenario's goroutine: calls for different scenarios,
	// and for the cases of one fanned-out scenario, may be concurrent), and
	// OnScenario when every step of scenario i is final, skipped ones
	// included. A run that fails before its first call, a --list run and a
	// run under several protocols call none of them; only [Run] calls them.
	OnStart    func(r *report.Report)
	OnStep     func(scenario, step int, r report.StepResult)
	OnScenario func(scenario int, r report.ScenarioResult)
	// OnCall is called when step j of scenario i begins, before its call
	// is made (a live status line names the calls in flight); a step run
	// again alone after a lost server begins again. Only [Run] calls it.
	OnCall func(scenario, step int)

	// keepAnswers keeps every step's decoded result in the StepResult
	// OnStep sees (Sample reads the answers; no report ever holds them).
	keepAnswers bool
}

func (o *Options) terminateGrace() time.Duration {
	if o.TerminateGrace > 0 {
		return o.TerminateGrace
	}
	return 2 * time.Second
}
