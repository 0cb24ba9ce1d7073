package runner

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"context"
	"time"

	"github.com/mcpcheck/mcpcheck/assert"
	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/runner/internal/gen"
	"github.com/mcpcheck/mcpcheck/runner/internal/observe"
	"github.com/mcpcheck/mcpcheck/runner/internal/schema"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// # Behaviour checks: annotations verified by observing state
//
// A tool's annotations are claims about what its calls do. A behaviour
// check calls the tool between observations of the server's state, made
// through the server's own read surface (see runner/internal/observe):
// the other allowed read-only tools, called with the same generated
// arguments every time, and the listed resources, read. Two observations
// come first, with nothing in between, to learn what moves by itself;
// those places are left out of every comparison.
//
//   - readOnlyHint: true — observe, call, observe: any change is a
//     violation. Only read-only tools are called, so this is on by default.
//   - destructiveHint: false (not read-only) — after the call, nothing
//     observed before may be removed or overwritten; additions are fine.
//   - idempotentHint: true — the same call again (same arguments, a new
//     JSON-RPC id: exactly a client's retry after a lost response) must not
//     change the state again.
//   - an idempotency key (see gen.IdempotencyKey for the names) — the
//     same, the key repeated: the state must change once.
//   - retry — a tool that claims neither: the same comparison, reported as
//     a note worth a look ("a retry after a lost response applies the
//     change twice"), since it claims nothing.
//
// The tools that are not read-only are checked only with
// includeDestructive, or when the fixture's allowTools names them. Each
// check of such a tool runs on a server (over HTTP, a session) of its own;
// the read-only checks share the run's session. The checks run one at a
// time after every other scenario, so that no other call changes what they
// observe. A call whose effect no observed source shows
// is "not verifiable", with the reason: never a pass.

// Behaviour checks' bounds: how many read-only tools and resources one
// observation reads (the first by fewest required arguments, then name),
// and how long a source may take to answer before it is dropped.
const (
	maxObservedTools     = 8
	maxObservedResources = 8
	maxObserveMs         = 5000
)

// Cases of a behaviour check's steps.
const (
	caseObserve = "observe"
	caseCall    = "call"
	caseRetry   = "retry"
)

// behaviourCheck is what a behaviour scenario judges.
type behaviourCheck struct {
	tool  string
	rules []report.BehaviourRule
	key   string // the idempotency key property, when the tool has one
	// sources is how many places each observation reads.
	sources int
	// health is shared by the run's checks (which run one at a time).
	health *observerHealth
}

// observerHealth remembers the sources that cannot serve as observers: one
// that answered anything but ok, or took longer than maxObserveMs, is
// dropped from every later observation of the run, so that a tool that
// fails or takes seconds (a long-running operation, a research query that
// needs a task) is paid for once, not in every observation of every check.
type observerHealth struct {
	dropped map[string]string // source → why
}

// knownObservers drops, before the behaviour checks run (last), the
// read-only tools whose argument-free call for offered inputs (made before
// the checks were generated, within offerTimeout) failed or did not answer
// in time. It reads nothing else of the run: every shard makes those calls,
// while a tool's generated valid call runs in one shard only, so a rule
// that read the valid calls made the merged shards' report differ from the
// whole run's.
func (r *runState) knownObservers(h *observerHealth) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for name, outcome := range r.offerFailed {
		why := "not observed: its call for offered inputs answered " + outcome
		if outcome == string(config.OutcomeTimeout) {
			why = fmt.Sprintf("not observed: its call for offered inputs took over %s", offerTimeout)
		}
		h.dropped["tool "+name] = why
	}
}

// dropped is why step p (an observation) is not made, or "".
func (b *behaviourCheck) dropped(p *step) string {
	if b == nil || p.observation == 0 {
		return ""
	}
	return b.health.dropped[p.source]
}

// observed drops the source of observation step p when its answer res
// shows it cannot serve.
func (b *behaviourCheck) observed(p *step, res *report.StepResult) {
	if b == nil || p.observation == 0 || res.Outcome == "" {
		return
	}
	switch {
	case res.Outcome != config.OutcomeOK:
		b.health.dropped[p.source] = "not observed: it answered " + string(res.Outcome) + " in an earlier observation"
	case res.DurationMs > maxObserveMs:
		b.health.dropped[p.source] = fmt.Sprintf("not observed: it took %.0f ms (over %d) in an earlier observation", res.DurationMs, maxObserveMs)
	}
}

// observationSource is one place an observation reads.
type observationSource struct {
	name     string // "tool NAME" or "resource URI"
	tool     string
	args     map[string]any
	resource string
	required int
}

// behaviour plans a behaviour check of each allowed tool whose calls may
// be made: the read-only ones always, the others with includeDestructive
// or when the fixture's allowTools names them.
func (c *generator) behaviour(tools []tool, resources []resource) {
	var observers []observationSource
	for _, t := range sortedTools(tools) {
		if !isReadOnly(t) || !c.suite.AllowsTool(t.Name) {
			continue
		}
		args, notes := c.values.Valid(t.Name, c.input(t.Name))
		if len(notes) > 0 {
			continue // no fixed realistic input: it would observe refusals
		}
		observers = append(observers, observationSource{name: "tool " + t.Name, tool: t.Name, args: args, required: requiredCount(c.input(t.Name))})
	}
	slices.SortStableFunc(observers, func(a, b observationSource) int { return cmp.Compare(a.required, b.required) })
	var reads []observationSource
	list := slices.Clone(resources)
	slices.SortFunc(list, func(a, b resource) int { return strings.Compare(a.URI, b.URI) })
	for _, r := range list {
		if len(reads) == maxObservedResources {
			break
		}
		reads = append(reads, observationSource{name: "resource " + r.URI, resource: r.URI})
	}
	health := &observerHealth{dropped: map[string]string{}}
	for _, t := range sortedTools(tools) {
		if !c.suite.AllowsTool(t.Name) {
			continue
		}
		check := &behaviourCheck{tool: t.Name, health: health}
		if isReadOnly(t) {
			check.rules = []report.BehaviourRule{report.RuleReadOnly}
		} else {
			if !c.g.IncludeDestructive && !behaviourPermits(c.suite, t.Name) {
				continue // listed among the skipped tools already
			}
			check.rules = mutatingRules(t, c.input(t.Name))
			if in := c.input(t.Name); in != nil {
				check.key = gen.IdempotencyKey(in.Doc())
			}
		}
		var sources []observationSource
		for _, o := range observers {
			if o.tool != t.Name && len(sources) < maxObservedTools {
				sources = append(sources, o)
			}
		}
		sources = append(sources, reads...)
		if len(sources) == 0 {
			c.note("behaviour: tool %q: %s not verifiable: the server offers no other allowed read-only tool and no resource to observe its state with", t.Name, rulesText(check.rules))
			continue
		}
		check.sources = len(sources)
		c.add(c.behaviourScenario(t, check, sources))
	}
}

// behaviourPermits reports whether the fixture's allowTools names a tool
// that is not read-only: that is the permission its behaviour check needs
// without includeDestructive.
func behaviourPermits(suite *config.Suite, name string) bool {
	return suite.Generate != nil && suite.Generate.Behaviour && suite.File != "" && slices.Contains(suite.AllowTools, name)
}

// mutatingRules are the claims a tool that is not read-only makes, and
// the retry comparison when it claims no idempotence.
func mutatingRules(t tool, in *schema.Schema) []report.BehaviourRule {
	var rules []report.BehaviourRule
	if v, present := gen.Hint(t.Annotations, "destructiveHint"); present && !v {
		rules = append(rules, report.RuleNonDestructive)
	}
	idem, _ := gen.Hint(t.Annotations, "idempotentHint")
	if idem {
		rules = append(rules, report.RuleIdempotent)
	}
	key := ""
	if in != nil {
		key = gen.IdempotencyKey(in.Doc())
	}
	if key != "" {
		rules = append(rules, report.RuleIdempotencyKey)
	}
	if !idem && key == "" {
		rules = append(rules, report.RuleRetry)
	}
	return rules
}

// behaviourScenario plans one check: two observations, the call, an
// observation, and for a tool that is not read-only the same call again
// (its retry) and a last observation.
func (c *generator) behaviourScenario(t tool, check *behaviourCheck, sources []observationSource) *scenario {
	sc := c.scenario("behaviour: " + t.Name)
	sc.isolation, sc.continueOnFailure, sc.behaviour = config.IsolationScenario, true, check
	if isReadOnly(t) {
		// A read-only check changes nothing if the claim holds, and if it
		// does not, the next check's two first observations take the
		// change in as where it starts: it can share the run's session
		// (a fresh server per check cost server-everything's quick mode
		// 9 node processes, 17 s → 55 s).
		sc.isolation = config.IsolationShared
	}
	args, _ := c.values.Valid(t.Name, c.input(t.Name))
	if check.key != "" {
		if _, ok := args[check.key]; !ok {
			args[check.key] = "mcpcheck-behaviour-key-1"
		}
	}
	observation := func(k int) {
		for _, s := range sources {
			// The id names the source, cut: a server's tool name or URI
			// may be thousands of characters, and ids are columns of the
			// human report (the source itself is kept whole in st.source).
			spec := &config.Step{ID: fmt.Sprintf("observe-%d %s", k, cutID(s.name)), Origin: config.OriginBehaviour, Advisory: true}
			if s.tool != "" {
				spec.Kind, spec.Tool, spec.Arguments = config.KindTool, s.tool, s.args
			} else {
				spec.Kind, spec.Resource = config.KindResource, s.resource
			}
			st := newStep(spec, c.suite.TimeoutMs)
			st.caseName, st.validate, st.record = caseObserve, false, true
			st.observation, st.source = k, s.name
			sc.steps = append(sc.steps, st)
		}
	}
	action := func(id, kind string) {
		st := c.call(id, t.Name, args, config.OriginBehaviour, kind)
		st.spec.Advisory = true
		sc.steps = append(sc.steps, st)
	}
	observation(1)
	observation(2)
	action("call", caseCall)
	observation(3)
	if check.rules[0] != report.RuleReadOnly {
		action("retry", caseRetry)
		observation(4)
	}
	return sc
}

func requiredCount(in *schema.Schema) int {
	if in == nil {
		return 0
	}
	m, _ := in.Doc().(map[string]any)
	req, _ := m["required"].([]any)
	return len(req)
}

func rulesText(rules []report.BehaviourRule) string {
	var parts []string
	for _, r := range rules {
		parts = append(parts, ruleClaims[r])
	}
	return strings.Join(parts, ", ")
}

// ruleClaims say each rule's claim in the annotation's words.
var ruleClaims = map[report.BehaviourRule]string{
	report.RuleReadOnly:       "readOnlyHint: true",
	report.RuleIdempotent:     "idempotentHint: true",
	report.RuleNonDestructive: "destructiveHint: false",
	report.RuleIdempotencyKey: "its idempotency key",
	report.RuleRetry:          "a retry after a lost response",
}

// release closes the link of a scenario of its own. A behaviour check's
// server is closed in the background: the next check starts on a fresh
// server of its own meanwhile, and a server that only exits when
// signalled (after the grace period) would otherwise cost every check
// that grace. The run waits for them all after the last check.
func (r *runState) release(sc *scenario, l *link) {
	if sc.behaviour == nil {
		l.close(r)
		return
	}
	r.checkClosers.Go(func() { l.close(r) })
}

// judgeBehaviour judges a behaviour scenario that ended, from its
// observation steps' answers (which it then lets go: the report keeps
// only the verdicts and the changed paths).
func (r *runState) judgeBehaviour(sc *scenario) {
	res := &r.rep.Scenarios[sc.index]
	check := sc.behaviour
	obs := make([]observe.Observation, 5)
	for k := range obs {
		obs[k] = observe.Observation{}
	}
	var call, retry *report.StepResult
	for j := range sc.steps {
		p, st := &sc.steps[j], &res.Steps[j]
		switch {
		case p.observation > 0:
			if st.Outcome == config.OutcomeOK && st.Decoded != nil {
				obs[p.observation][p.source] = observe.Normalize(observedAnswer(p.call.kind, st.Decoded))
			}
			st.Decoded = nil
		case p.caseName == caseCall:
			call = st
		case p.caseName == caseRetry:
			retry = st
		}
	}
	verdict := func(rule report.BehaviourRule, status report.BehaviourStatus, reason string, changes []observe.Change) report.BehaviourVerdict {
		return report.BehaviourVerdict{Tool: check.tool, Rule: rule, Status: status, Reason: reason, Changes: r.observedChanges(changes)}
	}
	all := func(status report.BehaviourStatus, reason string) {
		for _, rule := range check.rules {
			res.Behaviour = append(res.Behaviour, verdict(rule, status, reason, nil))
		}
	}
	if call == nil || call.Outcome == "" {
		why := "the call was not made"
		if call != nil && call.Reason != "" {
			why += " (" + call.Reason + ")"
		}
		all(report.BehaviourNotVerifiable, why)
		return
	}
	vol := observe.Volatile(obs[1], obs[2])
	seen := observe.Comparable(obs[2], obs[3], vol)
	if len(seen) == 0 {
		all(report.BehaviourNotVerifiable, fmt.Sprintf("none of the %d observed sources answered in every observation without moving by itself: nothing to compare", check.sources))
		return
	}
	first := observe.Diff(obs[2], obs[3], vol)
	where := fmt.Sprintf("%d observed source(s)", len(seen))
	if check.rules[0] == report.RuleReadOnly {
		switch {
		case len(first) > 0:
			res.Behaviour = append(res.Behaviour, verdict(report.RuleReadOnly, report.BehaviourViolated, "annotated readOnlyHint: true, but the call changed the observed state: "+changesText(first), first))
		case call.Outcome != config.OutcomeOK:
			res.Behaviour = append(res.Behaviour, verdict(report.RuleReadOnly, report.BehaviourNotVerifiable, "the call came back "+string(call.Outcome)+", so it exercised nothing to judge", nil))
		default:
			res.Behaviour = append(res.Behaviour, verdict(report.RuleReadOnly, report.BehaviourVerified, "nothing changed in "+where+" after the call", nil))
		}
		return
	}
	if len(first) == 0 {
		all(report.BehaviourNotVerifiable, fmt.Sprintf("the call (%s) changed nothing in %s: with these arguments it had no visible effect (they may name nothing that exists, or it acts outside what the server lets a client read)", call.Outcome, where))
		return
	}
	var second []observe.Change
	secondSeen := retry != nil && retry.Outcome != "" && len(observe.Comparable(obs[3], obs[4], vol)) > 0
	if secondSeen {
		second = observe.Diff(obs[3], obs[4], vol)
	}
	for _, rule := range check.rules {
		switch rule {
		case report.RuleNonDestructive:
			var lost []observe.Change
			for _, ch := range first {
				if ch.Loses() {
					lost = append(lost, ch)
				}
			}
			if len(lost) > 0 {
				res.Behaviour = append(res.Behaviour, verdict(rule, report.BehaviourViolated, "annotated destructiveHint: false, but the call removed or overwrote what was observed before: "+changesText(lost), lost))
			} else {
				res.Behaviour = append(res.Behaviour, verdict(rule, report.BehaviourVerified, "the call only added to the observed state: "+changesText(first), nil))
			}
		case report.RuleIdempotent, report.RuleIdempotencyKey, report.RuleRetry:
			switch {
			case !secondSeen:
				why := "the repeated call could not be compared"
				if retry != nil && retry.Outcome == "" && retry.Reason != "" {
					why += " (" + retry.Reason + ")"
				}
				res.Behaviour = append(res.Behaviour, verdict(rule, report.BehaviourNotVerifiable, why, nil))
			case len(second) > 0:
				res.Behaviour = append(res.Behaviour, verdict(rule, report.BehaviourViolated, repeatViolation(rule, check.key)+changesText(second), second))
			default:
				res.Behaviour = append(res.Behaviour, verdict(rule, report.BehaviourVerified, "the call changed the observed state once; the same call again (a new JSON-RPC id, as a retry) changed nothing more", nil))
			}
		}
	}
}

// repeatViolation says what a second change means under each rule.
func repeatViolation(rule report.BehaviourRule, key string) string {
	switch rule {
	case report.RuleIdempotent:
		return "annotated idempotentHint: true, but the same call again (same arguments, a new JSON-RPC id, as a retry) changed the state again: "
	case report.RuleIdempotencyKey:
		return fmt.Sprintf("the idempotency key %q was repeated with the same arguments and the state changed again (the key is ignored): ", key)
	}
	return "a retry after a lost response applies the change twice (the same call, a new JSON-RPC id, changed the state again): "
}

// observedAnswer is what an observation keeps of a source's answer: a
// resource's contents; a tool's structuredContent when it has one (its
// text content is most often the same data serialised, which would show
// every change twice), else its content.
func observedAnswer(kind config.StepKind, result map[string]any) any {
	if kind == config.KindResource {
		return map[string]any{"contents": result["contents"]}
	}
	if sc, ok := result["structuredContent"]; ok && sc != nil {
		return map[string]any{"structuredContent": sc}
	}
	return map[string]any{"content": result["content"]}
}

// maxChangeValue bounds an old or new value in the human report.
const maxChangeValue = 200

// observedChanges are changes as the report keeps them: the values
// encoded, redacted and shortened (the JSON report drops them).
func (r *runState) observedChanges(changes []observe.Change) []report.ObservedChange {
	out := make([]report.ObservedChange, 0, len(changes))
	for _, ch := range changes {
		oc := report.ObservedChange{Source: ch.Source, Path: ch.Path, Kind: string(ch.Kind)}
		if ch.Kind != observe.Added {
			oc.Old = r.clean(encodeValue(ch.Old), maxChangeValue)
		}
		if ch.Kind != observe.Removed {
			oc.New = r.clean(encodeValue(ch.New), maxChangeValue)
		}
		out = append(out, oc)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func encodeValue(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// changesText names the first few changes: "resource household://tasks
// /tasks/0 added, tool get_household /structuredContent/revision grew".
func changesText(changes []observe.Change) string {
	const shown = 3
	var parts []string
	for i, ch := range changes {
		if i == shown {
			parts = append(parts, fmt.Sprintf("and %d more", len(changes)-shown))
			break
		}
		path := ch.Path
		if path == "" {
			path = "/"
		}
		parts = append(parts, ch.Source+" "+path+" "+string(ch.Kind))
	}
	return strings.Join(parts, ", ")
}

// behaviourFindings turns the behaviour checks' verdicts into findings (a
// violated claim fails; a retry that applies a change twice is flagged,
// since the tool claimed nothing), notes (what could not be verified, and
// why) and the annotation honesty score: verified claims over the claims
// that could be judged, n/a when none could.
func (a *analysis) behaviourFindings() {
	verified, judged, inconclusive, found := 0, 0, 0, false
	for i := range a.scenarios {
		sc := &a.scenarios[i]
		if sc.NotSelected != "" {
			continue
		}
		for _, v := range sc.Behaviour {
			found = true
			claim := v.Rule != report.RuleRetry
			switch v.Status {
			case report.BehaviourVerified:
				if claim {
					verified++
					judged++
				}
			case report.BehaviourNotVerifiable:
				if claim {
					inconclusive++
				}
				a.notes = append(a.notes, fmt.Sprintf("behaviour: tool %q: %s not verifiable: %s", v.Tool, ruleClaims[v.Rule], v.Reason))
			case report.BehaviourViolated:
				f := report.Finding{Tool: v.Tool, Origin: config.OriginBehaviour, Kind: report.FindingKind(v.Rule), Message: v.Reason, Changes: v.Changes}
				if claim {
					judged++
					f.Status, f.Score = report.StatusFailed, config.ScoreAnnotationHonesty
				} else {
					f.Flagged = true
				}
				a.findings = append(a.findings, f)
			}
		}
	}
	if found {
		s := percentScore(config.ScoreAnnotationHonesty, verified, judged)
		s.Inconclusive = inconclusive
		a.scores = append(a.scores, s)
	}
}

// cutID bounds a generated step id made of a server's words to 80
// characters.
func cutID(s string) string {
	if r := []rune(s); len(r) > 80 {
		return string(r[:79]) + "…"
	}
	return s
}

// A fixture's observe step records the server's state under a name, and a
// later step's expect.unchanged compares with it, so that a fixture can say
// "this leaves the state as it was" without naming every field. The
// sources are fixed by rule: the allowed read-only tools that need no
// argument (called with {}) and the listed resources, at most
// maxObservedTools and maxObservedResources of each, by name. Each is read
// twice by the observe step, to learn what moves by itself.

// fixtureObservation is an observe step's record, kept in the scenario's
// results under observationKey (no step id can reach it by $ref).
type fixtureObservation struct {
	state    observe.Observation
	volatile observe.Paths
}

func observationKey(name string) string { return "\x00observe " + name }

// observedSource is one place a fixture observation reads.
type observedSource struct {
	name string // as the changes name it: the tool's name, the resource's URI
	c    call
}

// fixtureSources are the places a fixture observation reads, by rule.
func (r *runState) fixtureSources() []observedSource {
	var tools, reads []observedSource
	if r.found == nil {
		return nil
	}
	for _, t := range sortedTools(r.found.tools) {
		if len(tools) == maxObservedTools {
			break
		}
		var in struct {
			Required []string `json:"required"`
		}
		_ = json.Unmarshal(t.InputSchema, &in)
		if !isReadOnly(t) || !r.suite.AllowsTool(t.Name) || len(in.Required) > 0 {
			continue
		}
		tools = append(tools, observedSource{name: t.Name, c: call{kind: config.KindTool, method: methods[config.KindTool], name: t.Name, raw: json.RawMessage(`{}`)}})
	}
	list := slices.Clone(r.found.resources)
	slices.SortFunc(list, func(a, b resource) int { return strings.Compare(a.URI, b.URI) })
	for _, res := range list {
		if len(reads) == maxObservedResources {
			break
		}
		raw, _ := json.Marshal(res.URI)
		reads = append(reads, observedSource{name: res.URI, c: call{kind: config.KindResource, method: methods[config.KindResource], name: res.URI, raw: raw}})
	}
	return append(tools, reads...)
}

// observeNow reads every source once on sess: the sources that answered
// ok, by name.
func (r *runState) observeNow(ctx context.Context, sess *session, sc *scenario, j int, sources []observedSource) observe.Observation {
	obs := observe.Observation{}
	for _, s := range sources {
		callCtx, cancel := context.WithTimeout(ctx, ms2d(r.suite.TimeoutMs))
		tp := &tap{label: sc.label(j)}
		rep, err := s.c.do(withTap(callCtx, tp), sess, s.c.raw, r.progressToken())
		cancel()
		sess.finish(tp)
		if err != nil || rep == nil || rep.isError {
			continue
		}
		if decoded := decodeResult(rep.raw); decoded != nil {
			obs[s.name] = observe.Normalize(observedAnswer(s.c.kind, decoded))
		}
	}
	return obs
}

// runObserve runs an observe step: two reads of every source, kept in
// results under the step's name. A server with nothing to read fails the
// step: the fixture asked for what cannot be had.
func (r *runState) runObserve(ctx context.Context, sess *session, sc *scenario, j int, out report.StepResult, results map[string]any) report.StepResult {
	p := &sc.steps[j]
	began := time.Now()
	sources := r.fixtureSources()
	first := r.observeNow(ctx, sess, sc, j, sources)
	second := r.observeNow(ctx, sess, sc, j, sources)
	out.DurationMs = ms(time.Since(began))
	seen := observe.Comparable(first, second, observe.Paths{})
	if len(seen) == 0 {
		out.Reason = fmt.Sprintf("nothing to observe: of %d read-only tools without arguments and listed resources, none answered ok", len(sources))
		r.traceStep(sc, p, &out, nil, began)
		return out
	}
	out.Outcome, out.Status = config.OutcomeOK, report.StatusPassed
	vol := observe.Volatile(first, second)
	out.Notes = append(out.Notes, fmt.Sprintf("observed %d source(s): %s", len(seen), r.clean(strings.Join(seen, ", "), 600)))
	results[observationKey(p.spec.Observe)] = &fixtureObservation{state: second, volatile: vol}
	r.traceStep(sc, p, &out, nil, began)
	return out
}

// expectUnchanged observes the state again after step j's call and fails
// the step (or, advisory, flags it) for every change since the named
// observation outside its changedOnly places.
func (r *runState) expectUnchanged(ctx context.Context, sess *session, sc *scenario, j int, out *report.StepResult, results map[string]any) {
	e := &sc.steps[j].spec.Expect
	if e.Unchanged == "" || out.Outcome == "" {
		return
	}
	var fails []assert.Failure
	was, _ := results[observationKey(e.Unchanged)].(*fixtureObservation)
	if was == nil {
		fails = append(fails, assert.Failure{Kind: assert.KindUnchanged, Message: "the observation " + e.Unchanged + " was not made (its step did not pass)"})
	} else {
		now := r.observeNow(ctx, sess, sc, j, r.fixtureSources())
		for _, ch := range observe.Diff(was.state, now, was.volatile) {
			if allowedChange(e.ChangedOnly, ch) {
				continue
			}
			fails = append(fails, assert.Failure{Kind: assert.KindUnchanged, Path: ch.Source + "#" + ch.Path,
				Message:  "changed since observation " + e.Unchanged + " (" + string(ch.Kind) + ")",
				Expected: ch.Old, HasExpected: ch.Kind != observe.Added, Actual: ch.New, HasActual: ch.Kind != observe.Removed})
		}
	}
	for _, f := range fails {
		if sc.steps[j].spec.Advisory {
			out.Notes = append(out.Notes, r.clean(string(f.Kind)+" "+f.Path+": "+f.Message, 600))
			out.Flagged = true
			continue
		}
		out.Status = report.StatusFailed
		out.Assertions = append(out.Assertions, report.AssertionResult{Kind: f.Kind, Path: r.clean(f.Path, 600), Message: f.Message,
			Position: positionOf(assert.Position(e, f.Kind)), Expected: r.red.Value(f.Expected), HasExpected: f.HasExpected,
			Actual: r.red.Value(f.Actual), HasActual: f.HasActual})
	}
}

// allowedChange reports whether ch is at or under one of the places
// changedOnly names ("SOURCE" or "SOURCE#/pointer").
func allowedChange(places []string, ch observe.Change) bool {
	for _, pl := range places {
		src, ptr, _ := strings.Cut(pl, "#")
		if src != ch.Source {
			continue
		}
		if ptr == "" || ch.Path == ptr || strings.HasPrefix(ch.Path, ptr+"/") {
			return true
		}
	}
	return false
}
