package runner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"strconv"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/runner/internal/gen"
	"github.com/mcpcheck/mcpcheck/runner/internal/hist"
	"github.com/mcpcheck/mcpcheck/runner/internal/loadstat"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// A load run repeats a suite's scenarios as virtual users do, and measures
// instead of listing: per step a latency histogram (bounded memory, exact
// merge: see package hist), the calls, the failed calls by outcome class,
// and per second the calls, errors and latencies of the run as a whole.
// Every call is the ordinary step: its $refs resolved, its expectations
// checked, its outcome classified; a call that fails its expectations is a
// failed call.
//
// Two models, as load testers name them:
//   - closed (--vus N): N users, each running the selected scenarios in
//     order, one iteration after another; a slow server slows the users.
//   - open (--rate R): iterations start R times a second whatever the
//     server's pace, on at most MaxVUs users at once; an iteration that
//     finds every user busy is dropped (and counted). The first call of an
//     iteration is timed from the iteration's intended start, so a server
//     that stalls cannot hide its stall by slowing the arrivals
//     (coordinated omission).
//
// Sessions: each user has a session of its own, kept across its
// iterations and replaced when the server loses it; a fixture that writes
// `isolation: shared` at its top level puts every user on one session. The
// suite's generated checks are not part of a load run; a suite without
// scenarios (quick mode) gets one scenario per read-only tool it allows,
// called with valid arguments built from the tool's inputSchema.

// windowBits is the resolution of the per-second histograms (6 %), which
// are many (a step's: loadstat.Bits).
const (
	windowBits = 4
	// maxWindows bounds the per-second series: past it, adjacent windows
	// are joined and the window doubles, so memory stays flat however long
	// the run.
	maxWindows = 3600
	// abortMinCalls is how many calls a run makes before --abort-on-errors
	// may stop it.
	abortMinCalls = 20
)

// LoadOptions are a load run's options: the ordinary ones (environment,
// selection; hooks are not called) and the load's shape.
type LoadOptions struct {
	Options
	config.LoadRun
	// Segment, when set, runs part K of N of the load (users, rate and
	// iterations split as k6's execution segments split them), for N
	// processes or CI jobs whose reports `mcpcheck merge` joins.
	Segment *report.Shard
	// StagesText is the ramp as written, for the report.
	StagesText string
	// OnProgress is called about once a second from the run's own
	// goroutine, with the run so far (the live view).
	OnProgress func(LoadProgress)
}

// LoadProgress is a load run as it goes.
type LoadProgress struct {
	Elapsed time.Duration
	Planned time.Duration // 0 when the run ends on iterations
	Calls   uint64
	Errors  uint64
	Active  int     // users running an iteration
	RPS     float64 // calls per second in the last window
	// P50, P95, P99 are the last window's latencies in milliseconds.
	P50, P95, P99 float64
}

// Load runs suite as a load test and returns its report: Report.Load holds
// the measurements and the thresholds' verdicts, and Passed says whether
// every threshold held (with none given: whether every call passed). The
// error is non-nil only when the run could not begin.
func Load(ctx context.Context, suite *config.Suite, opts LoadOptions) (*report.Report, error) {
	shape, err := loadShape(suite, &opts)
	if err != nil {
		return nil, err
	}
	s := *suite
	s.Generate, s.Contract = nil, "" // a load run judges calls, not contracts
	opts.OnStart, opts.OnStep, opts.OnScenario, opts.Trace = nil, nil, nil, nil
	d, err := newDialer(&s, &opts.Options)
	if err != nil {
		return nil, err
	}
	red := newRedactor(d.sec.values, s.Endpoint)
	r := &runState{purpose: modeLoad, suite: &s, opts: &opts.Options, trace: newTracer(nil, red), red: red, d: d, plan: planSuite(&s)}
	d.stream = listens(r.plan) || s.Client != nil
	rep := r.load(ctx, shape, &opts)
	r.red.report(rep)
	return rep, nil
}

// shape is a load run's shape after defaults and the segment.
type shape struct {
	vus, maxVUs, iterations int
	rate                    float64
	duration                time.Duration
	stages                  []config.LoadStage
	shared                  bool
	thresholds              []config.Threshold
	abort                   float64
}

func loadShape(suite *config.Suite, o *LoadOptions) (shape, error) {
	sh := shape{vus: o.VUs, maxVUs: o.MaxVUs, iterations: o.Iterations, rate: o.Rate, duration: o.Duration, stages: o.Stages, thresholds: o.Thresholds, abort: o.AbortOnErrors}
	if _, written := suite.FieldPos["isolation"]; written && suite.Isolation == config.IsolationShared {
		sh.shared = true
	}
	if len(sh.stages) > 0 && sh.duration == 0 {
		for _, st := range sh.stages {
			sh.duration += st.Duration
		}
	}
	if sh.duration == 0 && sh.iterations == 0 {
		sh.duration = 10 * time.Second
	}
	if sh.vus == 0 {
		sh.vus = 1
		for _, st := range sh.stages {
			sh.vus = max(sh.vus, int(math.Ceil(st.Target)))
		}
	}
	if sh.maxVUs == 0 {
		sh.maxVUs = 100
	}
	if seg := o.Segment; seg != nil && seg.Total > 1 {
		part := func(n int) int { return n*seg.Index/seg.Total - n*(seg.Index-1)/seg.Total }
		frac := 1 / float64(seg.Total)
		if sh.rate > 0 {
			sh.rate *= frac
			sh.maxVUs = max(1, part(sh.maxVUs))
		} else if sh.vus = part(sh.vus); sh.vus == 0 {
			return sh, fmt.Errorf("segment %d/%d of %d users has no user: give at least %d users", seg.Index, seg.Total, o.VUs, seg.Total)
		}
		if sh.iterations > 0 {
			if sh.iterations = part(sh.iterations); sh.iterations == 0 {
				return sh, fmt.Errorf("segment %d/%d of %d iterations has none", seg.Index, seg.Total, o.Iterations)
			}
		}
		for i := range sh.stages {
			sh.stages = append([]config.LoadStage(nil), sh.stages...)
			sh.stages[i].Target *= frac
		}
	}
	return sh, nil
}

// target is the users (closed) or the rate (open) wanted at elapsed time
// t: the ramp's linear value, or the constant one.
func (sh *shape) target(t time.Duration, constant float64) float64 {
	if len(sh.stages) == 0 {
		return constant
	}
	from := 0.0 // a ramp starts from none
	for _, st := range sh.stages {
		if t < st.Duration {
			return from + (st.Target-from)*float64(t)/float64(st.Duration)
		}
		t -= st.Duration
		from = st.Target
	}
	return from
}

// loadStep is one step's measurements.
type loadStep struct {
	mu       sync.Mutex
	h        *hist.H
	calls    uint64
	errors   uint64
	outcomes map[config.Outcome]uint64
	failed   uint64 // calls answered whose expectations failed
	first    *report.LoadError
}

// answered says the server answered a call (with a result or an error):
// only then can its expectations be said to have failed; a call that got
// no answer (a timeout, a closed transport) failed by its outcome alone.
func answered(o config.Outcome) bool {
	switch o {
	case config.OutcomeOK, config.OutcomeToolError, config.OutcomeProtocolError, config.OutcomeInputRejected, config.OutcomeOutputInvalid:
		return true
	}
	return false
}

// loadRun is a load run in progress.
type loadRun struct {
	r        *runState
	sh       shape
	plan     []*scenario
	steps    [][]*loadStep // by plan position, step
	start    time.Time
	cancel   context.CancelCauseFunc
	stopped  string // why the run ended before its end, if it did
	progress func(LoadProgress)

	calls, errs, iterations, dropped atomic.Uint64
	started                          atomic.Int64 // iterations begun
	active                           atomic.Int64
	opened, failedOpens              atomic.Int64

	wmu     sync.Mutex
	window  *hist.H
	wCalls  uint64
	wErrors uint64
	series  []report.LoadWindow
	width   time.Duration
}

var errLoadAborted = errors.New("aborted")

func (r *runState) load(ctx context.Context, sh shape, o *LoadOptions) *report.Report {
	start := time.Now()
	rep := &report.Report{SchemaVersion: report.SchemaVersion, Suite: r.suite.Name, Target: r.d.target(), ProtocolVersion: r.d.version, ToolsDiscovered: []string{}, StartedAt: start}
	r.rep = rep
	r.addScenarios(r.plan)
	r.selectScenarios(0)
	defer func() {
		rep.Scenarios = []report.ScenarioResult{} // a load run reports measurements, not steps
		rep.Summary.DurationMs = ms(time.Since(start))
		sort.Strings(rep.Warnings)
		rep.Tally()
		rep.Passed = rep.Failure == nil && rep.Load != nil && rep.Load.Passed
	}()
	if r.usesScratch() {
		if r.tmp = r.scratch.dir(); r.tmp == "" {
			r.fail(report.StageConnect, scratchError(r.scratch.err))
			return rep
		}
	}
	defer func() { rep.KeptScratch = r.scratch.cleanup(r.opts.KeepTmp) }()
	defer r.watchInterrupt(ctx)()
	first := &link{tmp: r.tmp}
	sess, err := r.session(ctx, first, true)
	if err != nil {
		r.fail(report.StageConnect, err)
		return rep
	}
	if !r.discoverAll(ctx, sess) || !r.compile(ctx, sess) {
		first.close(r)
		return rep
	}
	if len(r.suite.Scenarios) == 0 {
		r.plan = r.readOnlyScenarios()
	}
	lr := &loadRun{r: r, sh: sh, window: hist.New(windowBits), width: time.Second, progress: o.OnProgress}
	for _, sc := range r.plan {
		if sc.excluded != "" || sc.mode == rawProbes {
			continue
		}
		lr.plan = append(lr.plan, sc)
		row := make([]*loadStep, len(sc.steps))
		for j := range row {
			row[j] = &loadStep{h: hist.New(loadstat.Bits), outcomes: map[config.Outcome]uint64{}}
		}
		lr.steps = append(lr.steps, row)
	}
	if len(lr.plan) == 0 {
		first.close(r)
		r.fail(report.StageAllowlist, errors.New("nothing to load: no scenario is selected (quick mode needs a read-only tool that allowTools allows)"))
		return rep
	}
	var shared *link
	if sh.shared {
		shared = first
	} else {
		first.close(r)
	}
	lr.run(ctx, shared)
	if shared != nil {
		shared.close(r)
	}
	rep.Load = lr.result(o)
	rep.Connections = int(lr.opened.Load()) + 1
	return rep
}

// readOnlyScenarios is quick mode's load: one scenario per read-only tool
// the suite allows, with valid arguments generated from its inputSchema
// (the same seed every run).
func (r *runState) readOnlyScenarios() []*scenario {
	values := gen.NewValues(0)
	var out []*scenario
	for _, t := range sortedTools(r.found.tools) {
		if !isReadOnly(t) || !r.suite.AllowsTool(t.Name) {
			continue
		}
		cases, _ := gen.FuzzCases(t.Name, r.schemasOf(t.Name).input, values)
		if len(cases) == 0 {
			continue
		}
		spec := &config.Step{ID: t.Name, Tool: t.Name, Arguments: cases[0].Arguments, Origin: config.OriginProbe}
		sc := &scenario{name: t.Name, mode: inOrder, isolation: config.IsolationShared, after: -1, index: len(out)}
		sc.steps = []step{newStep(spec, r.suite.TimeoutMs)}
		finish(sc)
		out = append(out, sc)
	}
	return out
}

// run drives the users until the duration or the iterations are spent,
// the context ends, or the error bound stops it.
func (lr *loadRun) run(parent context.Context, shared *link) {
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	lr.cancel = cancel
	if lr.sh.duration > 0 {
		var stop context.CancelFunc
		ctx, stop = context.WithTimeout(ctx, lr.sh.duration)
		defer stop()
	}
	lr.start = time.Now()
	done := make(chan struct{})
	go lr.tick(ctx, done)
	var wg sync.WaitGroup
	if lr.sh.rate > 0 {
		lr.arrivals(ctx, shared, &wg)
	} else {
		for id := range lr.sh.vus {
			wg.Go(func() { lr.user(ctx, id, shared) })
		}
	}
	wg.Wait()
	close(done)
	lr.closeWindow(time.Since(lr.start))
	switch {
	case errors.Is(context.Cause(ctx), errLoadAborted):
		lr.stopped = fmt.Sprintf("more than %s of the calls failed (%d of %d)", pct(lr.sh.abort), lr.errs.Load(), lr.calls.Load())
	case parent.Err() != nil:
		lr.stopped = "interrupted"
	}
}

// user is one virtual user of the closed model: iterations one after
// another while the ramp wants it and work remains.
func (lr *loadRun) user(ctx context.Context, id int, shared *link) {
	l := shared
	defer func() {
		if l != nil && l != shared {
			l.close(lr.r)
		}
	}()
	for ctx.Err() == nil {
		if float64(id) >= lr.sh.target(time.Since(lr.start), float64(lr.sh.vus)) {
			sleepCtx(ctx, 50*time.Millisecond) // not wanted now: the ramp may want it later
			continue
		}
		if !lr.take() {
			return
		}
		l = lr.iteration(ctx, l, shared, time.Time{})
	}
}

// arrivals is the open model: an iteration every 1/rate seconds, each on
// a free user, a new one while fewer than MaxVUs exist, else dropped.
func (lr *loadRun) arrivals(ctx context.Context, shared *link, wg *sync.WaitGroup) {
	work := make(chan time.Time)
	users := 0
	next := lr.start
	for ctx.Err() == nil {
		rate := lr.sh.target(next.Sub(lr.start), lr.sh.rate)
		if rate <= 0 {
			next = next.Add(50 * time.Millisecond)
			sleepCtx(ctx, time.Until(next))
			continue
		}
		if !sleepCtx(ctx, time.Until(next)) {
			break
		}
		if !lr.take() {
			break
		}
		select {
		case work <- next:
		default:
			if users < lr.sh.maxVUs {
				users++
				intended := next
				wg.Go(func() {
					var l *link
					l = lr.iteration(ctx, shared, shared, intended)
					for intended := range work {
						l = lr.iteration(ctx, l, shared, intended)
					}
					if l != nil && l != shared {
						l.close(lr.r)
					}
				})
			} else {
				lr.dropped.Add(1)
			}
		}
		next = next.Add(time.Duration(float64(time.Second) / rate))
	}
	close(work)
}

// take claims one iteration of the run's budget.
func (lr *loadRun) take() bool {
	n := lr.started.Add(1)
	return lr.sh.iterations == 0 || n <= int64(lr.sh.iterations)
}

// iteration runs every planned scenario once on l (opened when nil or
// lost) and returns the link to use next. intended, in the open model, is
// when the iteration should have begun: its first call is timed from it.
func (lr *loadRun) iteration(ctx context.Context, l, shared *link, intended time.Time) *link {
	lr.active.Add(1)
	defer lr.active.Add(-1)
	r := lr.r
	if l == nil || (l != shared && l.down != nil) {
		if l != nil {
			l.close(r)
		}
		l = &link{tmp: r.tmp}
		lr.opened.Add(1)
	}
	sess, err := r.session(ctx, l, true)
	if err != nil {
		if ctx.Err() == nil {
			lr.failedOpens.Add(1)
			sleepCtx(ctx, 100*time.Millisecond) // a server that refuses sessions is not hammered
		}
		return l
	}
	for k, sc := range lr.plan {
		results := map[string]any{}
		for j := range sc.steps {
			if ctx.Err() != nil {
				return l
			}
			began := time.Now()
			if !intended.IsZero() {
				began, intended = intended, time.Time{}
			}
			res := r.runStep(ctx, sess, sc, j, results)
			if ctxOver(ctx) && res.Status != report.StatusPassed {
				return l // cut short by the end of the run: not the server's failure
			}
			lr.record(lr.steps[k][j], &res, time.Since(began))
			if res.Outcome == config.OutcomeTransportClosed || res.Outcome == config.OutcomeSessionLost || sess.lost() {
				if sess, err = r.session(ctx, l, true); err != nil {
					return l
				}
			}
			if res.Status != report.StatusPassed && !sc.continueOnFailure {
				break
			}
		}
	}
	lr.iterations.Add(1)
	return l
}

// record counts one call.
func (lr *loadRun) record(ls *loadStep, res *report.StepResult, d time.Duration) {
	us := d.Microseconds()
	failed := res.Status != report.StatusPassed
	ls.mu.Lock()
	ls.h.Record(us)
	ls.calls++
	ls.outcomes[res.Outcome]++
	if failed {
		ls.errors++
		if answered(res.Outcome) && (res.Outcome == config.OutcomeOK || len(res.Assertions) > 0) {
			ls.failed++
		}
		if ls.first == nil {
			ls.first = report.LoadErrorOf(res)
		}
	}
	ls.mu.Unlock()
	lr.wmu.Lock()
	lr.window.Record(us)
	lr.wCalls++
	if failed {
		lr.wErrors++
	}
	lr.wmu.Unlock()
	calls := lr.calls.Add(1)
	if failed {
		errs := lr.errs.Add(1)
		if lr.sh.abort > 0 && calls >= abortMinCalls && float64(errs)/float64(calls) > lr.sh.abort {
			lr.cancel(errLoadAborted)
		}
	}
}

// tick closes a window a second and reports progress.
func (lr *loadRun) tick(ctx context.Context, done <-chan struct{}) {
	t := time.NewTicker(lr.width)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
			w := lr.closeWindow(time.Since(lr.start))
			if f := lr.progress; f != nil {
				f(LoadProgress{Elapsed: time.Since(lr.start), Planned: lr.sh.duration, Calls: lr.calls.Load(), Errors: lr.errs.Load(),
					Active: int(lr.active.Load()), RPS: float64(w.Calls) / lr.width.Seconds(), P50: w.P50, P95: w.P95, P99: w.P99})
			}
		}
	}
}

// closeWindow ends the current window at elapsed time t and keeps it in
// the series, joining pairs once the series is full.
func (lr *loadRun) closeWindow(t time.Duration) report.LoadWindow {
	lr.wmu.Lock()
	defer lr.wmu.Unlock()
	w := report.LoadWindow{AtMs: t.Milliseconds(), Calls: lr.wCalls, Errors: lr.wErrors, Histogram: lr.window.Encode()}
	w.Fill(lr.window)
	lr.series = append(lr.series, w)
	lr.window.Reset()
	lr.wCalls, lr.wErrors = 0, 0
	if len(lr.series) > maxWindows {
		lr.series = loadstat.JoinWindows(lr.series)
	}
	return w
}

// result is the run's LoadResult, thresholds judged.
func (lr *loadRun) result(o *LoadOptions) *report.LoadResult {
	elapsed := time.Since(lr.start)
	if lr.sh.duration > 0 {
		elapsed = min(elapsed, lr.sh.duration+time.Second) // the last calls drain after the end
	}
	res := &report.LoadResult{Model: "closed", VUs: lr.sh.vus, Stages: o.StagesText, Segment: o.Segment,
		PlannedMs: lr.sh.duration.Milliseconds(), ElapsedMs: elapsed.Milliseconds(), Iterations: lr.iterations.Load(), Dropped: lr.dropped.Load(),
		SessionsOpened: lr.opened.Load(), SessionsFailed: lr.failedOpens.Load(),
		Series: report.LoadSeries{WindowMs: lr.width.Milliseconds(), Windows: lr.series}}
	if lr.sh.rate > 0 {
		res.Model, res.VUs, res.Rate, res.MaxVUs = "open", 0, lr.sh.rate, lr.sh.maxVUs
	}
	res.Aborted = lr.stopped
	for k, sc := range lr.plan {
		for j := range sc.steps {
			ls := lr.steps[k][j]
			st := loadstat.Stats(ls.h, ls.calls, ls.errors, ls.failed, ls.outcomes, elapsed)
			st.Scenario, st.Step, st.Target = sc.name, sc.steps[j].spec.ID, sc.steps[j].call.name
			if ls.first != nil {
				ls.first.Step = sc.name + "/" + st.Step
			}
			st.FirstError = ls.first
			res.Steps = append(res.Steps, st)
		}
	}
	res.Overall = loadstat.Join(res.Steps, elapsed)
	loadstat.Verdict(res, lr.sh.thresholds)
	return res
}

func pct(f float64) string { return strconv.FormatFloat(f*100, 'g', 4, 64) + " %" }

// sleepCtx waits d or until ctx ends; false when ctx ended.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
