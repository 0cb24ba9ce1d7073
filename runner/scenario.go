package runner

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/mcpcheck/mcpcheck/assert"
	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// runScenario runs one scenario of the plan in its mode, unless the run was
// interrupted, the scenario is for another protocol version, or the
// scenario it needs stopped early.
func (r *runState) runScenario(ctx context.Context, sc *scenario, shared *link) {
	if r.opts.OnScenario != nil && !sc.muted {
		defer func() { r.opts.OnScenario(sc.index, visible(r.red, r.rep.Scenarios[sc.index])) }()
	}
	steps := r.rep.Scenarios[sc.index].Steps
	if ctx.Err() != nil {
		skipFrom(steps, 0, reasonInterrupted)
		return
	}
	if !r.protocolApplies(sc.protocols) {
		skipFor(steps, 0, report.SkipNotForProtocol, r.protocolReason("scenario", sc.protocols))
		return
	}
	if why := r.afterStopped(sc.after); why != "" {
		skipFrom(steps, 0, why)
		return
	}
	switch sc.mode {
	case allAtOnce:
		r.runAllAtOnce(ctx, sc, shared)
		return
	case rawProbes:
		r.runProbes(ctx, sc)
		return
	}
	l := shared
	switch sc.isolation {
	case config.IsolationScenario:
		l = &link{tmp: r.scenarioScratch()}
		defer r.release(sc, l)
	case config.IsolationStep:
		l = nil // a fresh link per step, below
	}
	var sess *session
	if l != nil {
		var err error
		if sess, err = r.session(ctx, l, true); err != nil {
			r.unreachable(ctx, l, sc, 0, err)
			return
		}
		if sc.mode == fanOut {
			r.runFanOut(ctx, sc, l, sess)
			return
		}
	}
	r.runInOrder(ctx, sc, l, sess)
	if sc.behaviour != nil {
		r.judgeBehaviour(sc)
	}
}

// runInOrder runs the steps one after another on link l (nil: each step on
// a link of its own), passing results on for $refs.
func (r *runState) runInOrder(ctx context.Context, sc *scenario, l *link, sess *session) {
	steps := r.rep.Scenarios[sc.index].Steps
	results := map[string]any{}
	for j := range sc.steps {
		p := &sc.steps[j]
		if ctx.Err() != nil {
			skipFrom(steps, j, reasonInterrupted)
			return
		}
		if !r.protocolApplies(p.spec.Protocols) {
			skipFor(steps[j:j+1], 0, report.SkipNotForProtocol, r.protocolReason("step", p.spec.Protocols))
			continue
		}
		if why := sc.behaviour.dropped(p); why != "" {
			skipFrom(steps[j:j+1], 0, why)
			r.stepDone(sc, j)
			continue
		}
		stepLink := l
		if l == nil {
			stepLink = &link{tmp: r.tmp}
		}
		if l == nil || (sc.reconnect && j > 0) {
			var err error
			if sess, err = r.session(ctx, stepLink, true); err != nil {
				r.unreachable(ctx, stepLink, sc, j, err)
				return
			}
		}
		var res report.StepResult
		if l != nil {
			res, sess = r.callOnLink(ctx, l, sess, sc, j, results)
		} else {
			res = r.runStep(ctx, sess, sc, j, results)
			r.noteLoss(stepLink, sess, sc, j, &res)
			stepLink.close(r)
		}
		res.AnswerDiffers = r.answerDiffers(p, &res)
		sc.behaviour.observed(p, &res)
		steps[j] = res
		r.stepDone(sc, j)
		if sc.reference {
			if why := referenceBroken(steps[:j+1]); why != "" {
				skipFrom(steps, j+1, why)
				return
			}
		}
		switch {
		case res.Stop != "":
			skipFrom(steps, j+1, res.Stop)
			return
		case res.Status != report.StatusPassed && ctx.Err() != nil:
			skipFrom(steps, j+1, reasonInterrupted)
			return
		case res.Status != report.StatusPassed && !sc.continueOnFailure && !res.GoesOn:
			skipFrom(steps, j+1, reasonEarlierFailed+" ("+p.spec.ID+")")
			return
		}
	}
}

// stepDone tells the caller (Options.OnStep) that step j of sc is final.
func (r *runState) stepDone(sc *scenario, j int) {
	if r.opts.OnStep != nil && !sc.muted {
		r.opts.OnStep(sc.index, j, visible(r.red, r.rep.Scenarios[sc.index].Steps[j]))
	}
}

// callOnLink makes step j's call on link l (whose session is sess), runs it
// again alone if it ended with the server gone (see rerunAlone), and
// records a loss on the link. It returns the result and the link's session
// after the call.
func (r *runState) callOnLink(ctx context.Context, l *link, sess *session, sc *scenario, j int, results map[string]any) (report.StepResult, *session) {
	l.calls.RLock()
	res := r.runStep(ctx, sess, sc, j, results)
	l.calls.RUnlock()
	if rerun, ok := r.rerunAlone(ctx, l, sc, j, res, results); ok {
		res = rerun
		sess = l.current()
	}
	r.noteLoss(l, sess, sc, j, &res)
	return res, sess
}

// noteLoss marks link l down when the call on sess lost the server.
func (r *runState) noteLoss(l *link, sess *session, sc *scenario, j int, res *report.StepResult) {
	if res.Outcome == config.OutcomeTransportClosed || res.Outcome == config.OutcomeSessionLost || (res.Outcome != "" && sess.lost()) {
		l.lostAt(sess, sc.name, sc.steps[j].spec.ID)
	}
}

// runFanOut runs the scenario's first step alone (a tool's valid call:
// what the probes measure), then the rest at once on link l, up to the
// suite's concurrency across all scenarios (r.extra), each on the link's
// current session (relaunched when a call lost it). The steps hold no
// $ref, so each has results of its own; they land by index, so the report
// does not show the finish order.
func (r *runState) runFanOut(ctx context.Context, sc *scenario, l *link, sess *session) {
	steps := r.rep.Scenarios[sc.index].Steps
	run := func(j int, sess *session) {
		p := &sc.steps[j]
		if !r.protocolApplies(p.spec.Protocols) {
			skipFor(steps[j:j+1], 0, report.SkipNotForProtocol, r.protocolReason("step", p.spec.Protocols))
			return
		}
		steps[j], _ = r.callOnLink(ctx, l, sess, sc, j, map[string]any{})
		r.stepDone(sc, j)
	}
	if len(sc.steps) == 0 {
		return
	}
	run(0, sess)
	var wg sync.WaitGroup
	for j := 1; j < len(sc.steps); j++ {
		r.extra <- struct{}{}
		if ctx.Err() != nil {
			<-r.extra
			skipFrom(steps, j, reasonInterrupted)
			break
		}
		wg.Go(func() {
			defer func() { <-r.extra }()
			s, err := r.session(ctx, l, true)
			if err != nil {
				r.unreachableUpTo(ctx, l, sc, j, j+1, err)
				return
			}
			run(j, s)
		})
	}
	wg.Wait()
}

// rerunAlone runs a step again, alone on the link, when its call ended
// with the server gone. With scenarios in flight together on one server, a
// crash takes every call in flight down with it — and a call that starts a
// moment later too — so only a call made alone can tell the call that
// crashed the server from the ones that were merely there. The rerun is
// what the report shows, so it reads the same whatever the concurrency (the
// trace keeps both calls). Only steps planned with rerun are made twice.
func (r *runState) rerunAlone(ctx context.Context, l *link, sc *scenario, j int, first report.StepResult, results map[string]any) (report.StepResult, bool) {
	if !sc.steps[j].rerun || ctx.Err() != nil {
		return first, false
	}
	switch first.Outcome {
	case config.OutcomeTransportClosed, config.OutcomeSessionLost, config.OutcomeMalformedResponse:
	default:
		return first, false
	}
	l.calls.Lock()
	defer l.calls.Unlock()
	sess, err := r.session(ctx, l, true)
	if err != nil {
		return first, false
	}
	return r.runStep(ctx, sess, sc, j, results), true
}

// runAllAtOnce runs all steps of a scenario at once: on the shared session,
// on one session of the scenario's own, or (isolation: step) each on a
// session of its own, which over stdio means a server process each. Such
// steps are independent by construction (no $ref between them), so nothing
// is skipped when one fails. Its steps are final only when all are back.
func (r *runState) runAllAtOnce(ctx context.Context, sc *scenario, shared *link) {
	steps := r.rep.Scenarios[sc.index].Steps
	l := shared
	if sc.isolation == config.IsolationScenario {
		l = &link{tmp: r.scenarioScratch()}
		defer l.close(r)
	}
	// Every step first gets its session (over stdio with isolation: step,
	// a server process each, which take different times to start); then
	// all calls are released together, so they really overlap.
	var wg, ready sync.WaitGroup
	start := make(chan struct{})
	for j := range sc.steps {
		p := &sc.steps[j]
		if !r.protocolApplies(p.spec.Protocols) {
			skipFor(steps[j:j+1], 0, report.SkipNotForProtocol, r.protocolReason("step", p.spec.Protocols))
			continue
		}
		ready.Add(1)
		wg.Go(func() {
			stepLink := l
			if sc.isolation == config.IsolationStep {
				stepLink = &link{tmp: r.tmp}
				defer stepLink.close(r)
			}
			sess, err := r.session(ctx, stepLink, true)
			ready.Done()
			<-start
			if err != nil {
				if ctx.Err() != nil {
					steps[j].Reason = reasonInterrupted
					return
				}
				steps[j].Status = report.StatusFailed
				steps[j].Reason = "could not open a session for this step: " + r.clean(err.Error(), 300)
				return
			}
			steps[j] = r.runStep(ctx, sess, sc, j, map[string]any{})
		})
	}
	ready.Wait()
	close(start)
	wg.Wait()
	// Which of the overlapping calls got another's answer is chance: the
	// scenario says that one did.
	for j := range sc.steps {
		if r.answerDiffers(&sc.steps[j], &steps[j]) {
			r.rep.Scenarios[sc.index].AnswersDiffer = true
		}
	}
	if identicalCalls(sc.steps) {
		// Identical calls are interchangeable: which of them won a race is
		// chance, so results are listed in a fixed order (by outcome), and
		// the report reads the same from run to run.
		sort.SliceStable(steps, func(a, b int) bool { return resultKey(&steps[a]) < resultKey(&steps[b]) })
		for k := range steps {
			steps[k].ID = sc.steps[k].spec.ID
		}
	}
	for j := range steps {
		r.stepDone(sc, j)
	}
}

// identicalCalls reports whether every step makes the same call.
func identicalCalls(ps []step) bool {
	for k := 1; k < len(ps); k++ {
		a, b := &ps[0].call, &ps[k].call
		if a.kind != b.kind || a.method != b.method || a.name != b.name || a.hasRef || b.hasRef || !bytes.Equal(a.raw, b.raw) {
			return false
		}
	}
	return len(ps) > 1
}

func resultKey(st *report.StepResult) string {
	return string(st.Status) + "/" + string(st.Outcome) + "/" + strings.Join(st.Notes, ";")
}

// skipFrom marks steps[from:] skipped with why.
func skipFrom(steps []report.StepResult, from int, why string) {
	skipFor(steps, from, report.SkipOther, why)
}

// skipFor marks steps[from:] skipped for cause, with why.
func skipFor(steps []report.StepResult, from int, cause report.SkipCause, why string) {
	for k := from; k < len(steps); k++ {
		steps[k].Status, steps[k].Reason, steps[k].Cause = report.StatusSkipped, why, cause
	}
}

// unreachable records that scenario sc could not get a session at step j:
// the run terminates early, naming the step, and the scenario's remaining
// steps are skipped. Later scenarios find the link down and skip too.
func (r *runState) unreachable(ctx context.Context, l *link, sc *scenario, j int, err error) {
	r.unreachableUpTo(ctx, l, sc, j, len(sc.steps), err)
}

// unreachableUpTo is unreachable for steps j..end-1 only.
func (r *runState) unreachableUpTo(ctx context.Context, l *link, sc *scenario, j, end int, err error) {
	steps := r.rep.Scenarios[sc.index].Steps[:end]
	if ctx.Err() != nil {
		skipFrom(steps, j, reasonInterrupted)
		return
	}
	skipFrom(steps, j, reasonUnreachable)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.rep.TerminatedEarly == nil && len(steps) > 0 {
		t := &report.Termination{Scenario: sc.name, Step: steps[min(j, len(steps)-1)].ID}
		if lsc, lst := l.lostBy(); lst != "" {
			// Name the step whose call took the server down, not the
			// first one that found it gone.
			t.Scenario, t.Step = lsc, lst
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

// referenceBroken says why the steps of a reference scenario (run so far)
// can already not serve as the reference: a call that did not come back
// ok, or a repeat whose answer differs from the step it repeats (the step
// before it: see the generator's concurrency). Nothing more is called then,
// and the scenario that runs after it is skipped too: there would be
// nothing to compare with. It reads the steps' data only, so analysis
// reaches the same verdict from a report.
func referenceBroken(done []report.StepResult) string {
	for k := range done {
		st := &done[k]
		if st.Status == report.StatusSkipped && st.Outcome == "" {
			return "not run one by one (" + st.Reason + "); crossed-responses check skipped"
		}
		if st.Outcome != config.OutcomeOK {
			return fmt.Sprintf("%s came back %s one by one, so this tool has no reference answer; crossed-responses check skipped", st.ID, st.Outcome)
		}
		if st.AnswerDiffers && k > 0 {
			return fmt.Sprintf("the same input (%s) one by one gave two different answers, so this tool is not deterministic; crossed-responses check skipped", done[k-1].ID)
		}
	}
	return ""
}

// answerDiffers reports whether step p, planned to get the same answer as
// an earlier step (p.sameAs), came back ok (as res) with another one. The
// answers are compared while the run holds them: the report keeps no
// values, only this verdict.
func (r *runState) answerDiffers(p *step, res *report.StepResult) bool {
	if p.sameAs == nil || res.Outcome != config.OutcomeOK {
		return false
	}
	twin := &r.rep.Scenarios[p.sameAs.scenario].Steps[p.sameAs.step]
	return !assert.Equal(answer(twin), answer(res))
}

// afterStopped is why a scenario that needs scenario i is not run: that one
// (run before it) stopped early.
func (r *runState) afterStopped(i int) string {
	if i < 0 {
		return ""
	}
	for _, st := range r.rep.Scenarios[i].Steps {
		if st.Status == report.StatusSkipped && st.Reason != "" && st.Outcome == "" {
			if strings.HasPrefix(st.Reason, "not run: ") {
				return st.Reason // a chain of scenarios: said once
			}
			return "not run: " + st.Reason
		}
	}
	return ""
}

// answer is what two calls are compared on: content and structuredContent.
func answer(st *report.StepResult) any {
	if st.Decoded == nil {
		return nil
	}
	return map[string]any{"content": st.Decoded["content"], "structuredContent": st.Decoded["structuredContent"]}
}

// schedule runs the plan's scenarios, up to the suite's concurrency at
// once, on the shared session or (isolation: scenario or step) on sessions
// of their own. Results land in the report by scenario index, so finish
// order never shows.
//
// allAtOnce scenarios put load on the server on purpose; they start once
// every other scenario has finished, so their load disturbs nothing else
// (the latency probes above all), and they run one at a time, those on
// sessions of their own first: a scenario of calls at once is about how
// those calls overlap, and run beside others (up to --jobs of them) they
// overlapped less the more ran beside them, so a planted race found one
// at a time was missed sixteen at a time (TestDefectsSameWhateverJobs,
// two suites at once). Whatever --jobs says, they judge the same. Then the scenarios planned to run last (scenario.last), one
// at a time: nothing else of the run is in flight while they run. Behaviour
// checks run last of all, one at a time.
func (r *runState) schedule(ctx context.Context, shared *link) {
	r.extra = make(chan struct{}, max(r.suite.Concurrency, 1))
	var first, isolated, alone, last, serial []*scenario
	for _, sc := range r.plan {
		switch {
		case sc.excluded != "":
			if r.opts.OnScenario != nil {
				r.opts.OnScenario(sc.index, r.rep.Scenarios[sc.index])
			}
		case sc.last:
			last = append(last, sc)
		case sc.behaviour != nil:
			serial = append(serial, sc)
		case sc.mode != allAtOnce:
			first = append(first, sc)
		case sc.isolation != config.IsolationShared:
			isolated = append(isolated, sc)
		default:
			alone = append(alone, sc)
		}
	}
	r.pool(ctx, shared, first)
	for _, sc := range slices.Concat(isolated, alone) {
		r.startScenario(ctx, sc, shared)
	}
	// Then the scenarios that must have the server to themselves, in plan
	// order.
	for _, sc := range last {
		r.startScenario(ctx, sc, shared)
	}
	// Behaviour checks observe state that other sessions (over stdio,
	// other processes sharing a file) could change: one at a time, last.
	if len(serial) > 0 {
		r.knownObservers(serial[0].behaviour.health)
	}
	for _, sc := range serial {
		r.startScenario(ctx, sc, shared)
	}
	r.checkClosers.Wait()
}

// pool runs the scenarios of list, up to the suite's concurrency at once.
func (r *runState) pool(ctx context.Context, shared *link, list []*scenario) {
	n := max(r.suite.Concurrency, 1)
	jobs := make(chan *scenario)
	var wg sync.WaitGroup
	for range min(n, len(list)) {
		wg.Go(func() {
			for sc := range jobs {
				r.startScenario(ctx, sc, shared)
			}
		})
	}
	for _, sc := range list {
		jobs <- sc
	}
	close(jobs)
	wg.Wait()
}

// # Retries and fail-fast
//
// A fixture scenario that fails runs again, on a fresh session (a link of
// its own: over stdio a new server process), up to its retries; the
// attempts that failed are kept in the scenario's result (Attempts), and
// its steps are the last attempt's. A scenario that passes on a retry is
// flaky (Report.Tally marks it from the data). Who may be retried is a
// rule about side effects: a rerun repeats every call, so the suite's
// retries (retries:, --retries) reach only scenarios whose tools are all
// annotated readOnlyHint: true and that run their steps in order; a
// scenario that sets retries itself is the fixture's word that a rerun is
// safe, whatever it calls. Generated scenarios are never retried: their
// scores judge the server as it answered.
//
// While a scenario may still be retried its steps are not reported as they
// end (Options.OnStep): a step reported final must stay final, so a
// retried scenario is reported whole, once its last attempt ends.
//
// With Options.FailFast, the first scenario that fails (after its
// retries) stops the run from starting any other: those are skipped, their
// NotRun saying so. Scenarios already in flight finish.

// reasonFailFast is the skip reason of the scenarios -x leaves out.
const reasonFailFast = "not run: an earlier scenario failed (--fail-fast)"

// retries is how many times sc may run again after failing.
func (r *runState) retries(sc *scenario) int {
	if sc.index >= len(r.suite.Scenarios) || sc.mode != inOrder {
		return 0
	}
	if n := r.suite.Scenarios[sc.index].Retries; n != nil {
		return *n
	}
	if r.suite.Retries == 0 {
		return 0
	}
	for j := range sc.steps {
		c := &sc.steps[j].call
		if c.kind != config.KindTool {
			continue // reads, lists, pings: a fresh session forgets the rest
		}
		if t, ok := r.tools[c.name]; !ok || !isReadOnly(t) {
			return 0
		}
	}
	return r.suite.Retries
}

// startScenario runs sc unless a failure stopped the run (FailFast), again
// on a fresh session while it fails and has retries left, and records a
// failure for FailFast.
func (r *runState) startScenario(ctx context.Context, sc *scenario, shared *link) {
	if r.opts.FailFast != nil && r.opts.FailFast.Load() {
		res := &r.rep.Scenarios[sc.index]
		res.NotRun = report.NotRunFailFast
		skipFrom(res.Steps, 0, reasonFailFast)
		if r.opts.OnScenario != nil {
			r.opts.OnScenario(sc.index, visible(r.red, *res))
		}
		return
	}
	n := r.retries(sc)
	if n == 0 {
		r.runScenario(ctx, sc, shared)
	} else {
		r.runRetrying(ctx, sc, shared, n)
	}
	if r.opts.FailFast != nil && failedSteps(r.rep.Scenarios[sc.index].Steps) {
		r.opts.FailFast.Store(true)
	}
}

// runRetrying runs sc up to 1+n times, each retry on a link of its own,
// until an attempt passes; the hooks hear of it once, at the end.
func (r *runState) runRetrying(ctx context.Context, sc *scenario, shared *link, n int) {
	sc.muted = true
	res := &r.rep.Scenarios[sc.index]
	for attempt := 0; ; attempt++ {
		if attempt == 0 {
			r.runScenario(ctx, sc, shared)
		} else {
			l := &link{tmp: r.scenarioScratch()}
			r.runScenario(ctx, sc, l)
			l.close(r)
		}
		if !failedSteps(res.Steps) || attempt == n || ctx.Err() != nil {
			break
		}
		res.Attempts = append(res.Attempts, report.Attempt{Steps: slices.Clone(res.Steps)})
		for j := range sc.steps {
			res.Steps[j] = sc.steps[j].result()
			res.Steps[j].Status, res.Steps[j].Reason = report.StatusSkipped, reasonNotRun
		}
	}
	sc.muted = false
	for j := range sc.steps {
		r.stepDone(sc, j)
	}
	if r.opts.OnScenario != nil {
		r.opts.OnScenario(sc.index, visible(r.red, *res))
	}
}

// failedSteps reports whether any of steps failed.
func failedSteps(steps []report.StepResult) bool {
	return slices.ContainsFunc(steps, func(st report.StepResult) bool { return st.Status == report.StatusFailed })
}
