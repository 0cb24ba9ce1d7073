package runner

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"hash/fnv"
	"path/filepath"
	"regexp"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/internal/mix"
	"github.com/mcpcheck/mcpcheck/runner/internal/loadstat"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// ErrMerge is what every refusal of [Merge] unwraps to: the reports are
// not the shards of one run (exit code 2).
var ErrMerge = errors.New("reports cannot be merged")

// Part is one shard's report for [Merge], with where it was read from
// (named in refusals).
type Part struct {
	Source string
	Report *report.Report
}

// Merge puts the reports of the shards of one suite back together into the
// report the unsharded run writes: the same scenarios, steps, findings,
// scores, notes and verdict, apart from the durations (each step's is the
// shard's that ran it, the suite's the sum of the shards') and the shard
// field, which the merged report has not. Each scenario is taken from the
// shard that ran it, and the joined report is analysed as one run's
// ([Analyze]): findings and scores are never added up from the shards'.
// Connections and restarts are what the shards opened, the session each
// opens to discover the server counted once; they can be fewer than one
// run's, since a lost shared session is replaced only when a later
// scenario of the same run needs it.
//
// It refuses reports of different suites, reports that are not shards,
// two reports of one shard, shards that disagree on who runs a scenario,
// and, unless allowPartial, a missing shard (whose scenarios then stay
// skipped, "another shard runs it").
func Merge(parts []Part, allowPartial bool) (*report.Report, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("%w: no report given", ErrMerge)
	}
	parts = slices.Clone(parts)
	// Reports are files a hostile server's run may have written: every
	// string is sanitized before merge reads it, so its errors and the
	// merged report show nothing raw (redact.go, "What reaches an output").
	for _, p := range parts {
		(*redactor)(nil).report(p.Report)
	}
	if parts[0].Report.Load != nil {
		return mergeLoadReports(parts, allowPartial)
	}
	for _, p := range parts {
		if p.Report.Shard == nil {
			return nil, fmt.Errorf("%w: %s is not a shard's report (run with --shard K/N)", ErrMerge, p.Source)
		}
	}
	slices.SortStableFunc(parts, func(a, b Part) int { return cmp.Compare(a.Report.Shard.Index, b.Report.Shard.Index) })
	first := parts[0]
	total := first.Report.Shard.Total
	seen := map[int]string{}
	for _, p := range parts {
		if err := samePart(first, p, "shard", first.Report.Shard, p.Report.Shard, seen); err != nil {
			return nil, err
		}
	}
	if len(seen) < total && !allowPartial {
		var missing []string
		for k := 1; k <= total; k++ {
			if _, ok := seen[k]; !ok {
				missing = append(missing, report.Shard{Index: k, Total: total}.String())
			}
		}
		return nil, fmt.Errorf("%w: shard %s missing (given: %s); --allow-partial merges what there is", ErrMerge, strings.Join(missing, ", "), sources(parts))
	}

	m, err := clone(first.Report)
	if err != nil {
		return nil, err
	}
	m.Shard = nil
	m.Summary.DurationMs, m.Connections, m.Restarts = 0, 0, 0
	owner := make([]string, len(m.Scenarios))
	for _, p := range parts {
		r := p.Report
		joinPart(m, r, "")
		for i := range r.Scenarios {
			sc := &r.Scenarios[i]
			if sc.NotSelected == report.ExcludedShard {
				continue
			}
			if owner[i] != "" && owner[i] != p.Source {
				if sc.NotSelected == "" {
					return nil, fmt.Errorf("%w: scenario %q ran in both %s and %s: the shards were split differently (another fixture file name, --tag or --run?)", ErrMerge, sc.Name, owner[i], p.Source)
				}
				continue
			}
			owner[i] = p.Source
			m.Scenarios[i] = *sc
		}
		if p != parts[0] {
			m.StaleBaseline = append(m.StaleBaseline, r.StaleBaseline...)
		}
	}
	// Every shard opens a session to discover the server; one run opens it
	// once.
	m.Connections -= len(parts) - 1
	m.Warnings, m.Notes = distinct(m.Warnings), distinct(m.Notes)
	sort.Strings(m.Warnings)
	// Each stale entry is judged where its scenario ran: listed once, in
	// the baseline's order.
	slices.SortStableFunc(m.StaleBaseline, func(a, b report.StaleEntry) int { return cmp.Compare(line(a.Position), line(b.Position)) })
	m.StaleBaseline = slices.CompactFunc(m.StaleBaseline, func(a, b report.StaleEntry) bool { return a.Scenario == b.Scenario && a.Step == b.Step })
	if len(seen) == total {
		for i, sc := range m.Scenarios {
			if owner[i] == "" && sc.NotSelected == report.ExcludedShard {
				return nil, fmt.Errorf("%w: no shard ran scenario %q: the shards were split differently (another fixture file name, --tag or --run?)", ErrMerge, sc.Name)
			}
		}
	}
	restorePositions(m)
	// The shards' own analyses saw some of the tools each: the joined
	// steps are analysed again, as one run's.
	Analyze(m)
	return m, nil
}

// distinct keeps the first of each string in list, in order. Warnings and
// notes are joined through it once all parts are in: a report may hold
// hundreds of thousands, and comparing each with every other took minutes.
func distinct(list []string) []string {
	seen := make(map[string]bool, len(list))
	out := list[:0]
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// restorePositions gives the steps and expectations of a report read from
// JSON the positions the human report and the CI writers show ("at
// FILE:LINE:COL"). The values of failed expectations are never in the
// JSON, so a merged report shows none.
func restorePositions(r *report.Report) {
	pos := func(p *report.Position) config.Pos {
		if p == nil {
			return config.Pos{}
		}
		return config.Pos{File: p.File, Line: p.Line, Col: p.Column}
	}
	for i := range r.Scenarios {
		for j := range r.Scenarios[i].Steps {
			st := &r.Scenarios[i].Steps[j]
			st.Pos = pos(st.Position)
		}
	}
}

// samePart refuses p unless it reports the same suite as first and is
// another part of the same split (a shard or a segment: noun, sh its
// place) than those seen, which it joins.
func samePart(first, p Part, noun string, firstSh, sh *report.Shard, seen map[int]string) error {
	if err := sameSuite(first, p); err != nil {
		return err
	}
	if sh.Total != firstSh.Total {
		return fmt.Errorf("%w: %s is %s %s and %s %s %s: %ss of different splits", ErrMerge, first.Source, noun, firstSh, p.Source, noun, sh, noun)
	}
	if prev, ok := seen[sh.Index]; ok {
		return fmt.Errorf("%w: %s and %s are both %s %s", ErrMerge, prev, p.Source, noun, sh)
	}
	seen[sh.Index] = p.Source
	return nil
}

// sameSuite refuses p unless it reports the same suite, target and plan as
// first.
func sameSuite(first, p Part) error {
	a, b := first.Report, p.Report
	differ := func(what string) error {
		return fmt.Errorf("%w: %s and %s are reports of different suites (%s differ)", ErrMerge, first.Source, p.Source, what)
	}
	switch {
	case a.Suite != b.Suite:
		return differ(fmt.Sprintf("names %q and %q", a.Suite, b.Suite))
	case a.Target != b.Target:
		return differ("targets")
	case a.ProtocolVersion != b.ProtocolVersion:
		return differ("protocol versions")
	case len(a.ProtocolRuns) > 0 || len(b.ProtocolRuns) > 0:
		return fmt.Errorf("%w: %s: runs under several protocol versions cannot be merged; shard each version's run", ErrMerge, p.Source)
	case len(a.Scenarios) != len(b.Scenarios):
		return differ("scenarios")
	}
	for i := range a.Scenarios {
		x, y := &a.Scenarios[i], &b.Scenarios[i]
		if x.Name != y.Name || len(x.Steps) != len(y.Steps) {
			return differ(fmt.Sprintf("scenario %d, %q and %q", i+1, x.Name, y.Name))
		}
		for j := range x.Steps {
			if x.Steps[j].ID != y.Steps[j].ID {
				return differ(fmt.Sprintf("steps of %q", x.Name))
			}
		}
	}
	return nil
}

func sources(parts []Part) string {
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = p.Source
	}
	return strings.Join(out, ", ")
}

// clone is a deep copy of r's JSON fields.
func clone(r *report.Report) (*report.Report, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	var c report.Report
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, err
	}
	return &c, nil
}

func line(p *report.Position) int {
	if p == nil {
		return 0
	}
	return p.Line
}

// ApplyBaseline judges rep against a baseline of known failures: a failed
// step an entry names (or any failed step of a scenario an entry names
// without a step) is marked expected and no longer fails the run; an entry
// whose step passed, or whose scenario ran and passed, is stale and fails
// the run. An entry whose scenario or step did not run (left out by
// selection or another shard, or skipped) is not judged. It replaces the
// marks of an earlier call and tallies rep again.
func ApplyBaseline(rep *report.Report, entries []config.ExpectedFailure) {
	rep.StaleBaseline = nil
	for i := range rep.Scenarios {
		for j := range rep.Scenarios[i].Steps {
			rep.Scenarios[i].Steps[j].Expected = nil
		}
	}
	for _, e := range entries {
		stale := false
		for i := range rep.Scenarios {
			sc := &rep.Scenarios[i]
			if sc.Name != e.Scenario || sc.NotSelected != "" {
				continue
			}
			ran, failed := false, false
			for j := range sc.Steps {
				st := &sc.Steps[j]
				if e.Step != "" && st.ID != e.Step {
					continue
				}
				switch st.Status {
				case report.StatusFailed:
					st.Expected = &report.Expected{Reason: e.Reason}
					ran, failed = true, true
				case report.StatusPassed:
					ran = true
				}
			}
			stale = stale || (ran && !failed)
		}
		if stale {
			rep.StaleBaseline = append(rep.StaleBaseline, report.StaleEntry{Scenario: e.Scenario, Step: e.Step, Reason: e.Reason, Position: positionOf(e.Pos)})
		}
	}
	rep.Tally()
	// The reasons come from a file: through the edge again (only what
	// changed is written; redact.go, "What reaches an output").
	(*redactor)(nil).report(rep)
}

// Baseline is the baseline of known failures that rep would pass against
// as it stands (--update-expected-failures): an entry for each failed step
// of the fixture's scenarios, the whole-scenario entries of old that still
// meet a failure kept as they are, every kept entry's reason kept.
func Baseline(rep *report.Report, old []config.ExpectedFailure) []config.ExpectedFailure {
	var out []config.ExpectedFailure
	reason := func(scenario, step string) (string, bool) {
		for _, e := range old {
			if e.Scenario == scenario && e.Step == step {
				return e.Reason, true
			}
		}
		return "", false
	}
	for i := range rep.Scenarios {
		sc := &rep.Scenarios[i]
		whole, wholeListed := reason(sc.Name, "")
		added := false
		for j := range sc.Steps {
			st := &sc.Steps[j]
			if st.Status != report.StatusFailed || st.Origin != config.OriginFixture {
				continue
			}
			switch {
			case wholeListed && !added:
				out = append(out, config.ExpectedFailure{Scenario: sc.Name, Reason: whole})
				added = true
			case !wholeListed:
				r, _ := reason(sc.Name, st.ID)
				out = append(out, config.ExpectedFailure{Scenario: sc.Name, Step: st.ID, Reason: r})
			}
		}
	}
	// Entries this run could not judge (their steps did not run) stay.
	for _, e := range old {
		if !ranFor(rep, e) {
			out = append(out, e)
		}
	}
	return out
}

// ranFor reports whether a step e names ran (passed or failed).
func ranFor(rep *report.Report, e config.ExpectedFailure) bool {
	for i := range rep.Scenarios {
		sc := &rep.Scenarios[i]
		if sc.Name != e.Scenario || sc.NotSelected != "" {
			continue
		}
		for _, st := range sc.Steps {
			if (e.Step == "" || st.ID == e.Step) && st.Status != report.StatusSkipped {
				return true
			}
		}
	}
	return false
}

// joinPart adds to m, a report joined from parts, what part r brings
// besides its scenarios: its duration and sessions, the first failure and
// early termination, and its warnings and notes, each listed once. With a
// label (a multi-protocol run's version), the part's failure, warnings and
// notes say which part they are from: "[label] ...".
func joinPart(m, r *report.Report, label string) {
	tag := func(s string) string {
		if label == "" {
			return s
		}
		return "[" + label + "] " + s
	}
	m.Summary.DurationMs += r.Summary.DurationMs
	m.Connections += r.Connections
	m.Restarts += r.Restarts
	if m.Failure == nil && r.Failure != nil {
		f := *r.Failure
		f.Message = tag(f.Message)
		m.Failure = &f
	}
	if m.TerminatedEarly == nil {
		m.TerminatedEarly = r.TerminatedEarly
	}
	m.StdoutNoise = m.StdoutNoise.Join(r.StdoutNoise, noiseKeep)
	for _, w := range r.Warnings {
		m.Warnings = append(m.Warnings, tag(w))
	}
	for _, n := range r.Notes {
		m.Notes = append(m.Notes, tag(n))
	}
}

// reasons are the skip reasons of excluded scenarios' steps.
var reasons = map[report.Exclusion]string{
	report.ExcludedTag:        "not selected: it has no tag --tag names",
	report.ExcludedSkipTag:    "not selected: it has a tag --skip-tag names",
	report.ExcludedRun:        "not selected: --run matches neither the scenario nor one of its steps",
	report.ExcludedShard:      "not selected: another shard runs it",
	report.ExcludedLastFailed: "not selected: it did not fail last time (--last-failed)",
}

// Selection chooses the scenarios a run makes. Selection is per scenario:
// a scenario runs whole or not at all, so a selected step always has the
// steps it refers to ($ref), and a scenario another one needs (a generated
// concurrency check's one-by-one reference) runs with it. The zero
// Selection runs everything.
type Selection struct {
	// Tags, when not empty, selects the scenarios that have any of them
	// (generated scenarios have none).
	Tags []string
	// SkipTags leaves out the scenarios that have any of them.
	SkipTags []string
	// Run, when set, selects the scenarios whose name, or "name/id" for
	// one of their steps, it matches (unanchored, like grep).
	Run *regexp.Regexp
	// Shard, when set, runs only this shard's part of the selected
	// scenarios (see shardScenarios); the report says which shard it is.
	Shard *report.Shard
	// Failed, when not nil, selects only the scenarios it names: those
	// that failed in the last run (--last-failed). A scenario runs whole,
	// so every step its $refs need runs with it.
	Failed map[string]bool
}

func (sel *Selection) shard() *report.Shard {
	if sel == nil {
		return nil
	}
	return sel.Shard
}

// Excludes says why sel leaves out a fixture's scenario ("" when it runs
// it); shards aside, which depend on every scenario of the run.
func (sel *Selection) Excludes(sc *config.Scenario) report.Exclusion {
	ids := make([]string, len(sc.Steps))
	for j := range sc.Steps {
		ids[j] = sc.Steps[j].ID
	}
	return sel.exclusion(sc.Name, ids, sc.Tags)
}

// exclusion is why sel leaves out the scenario of this name, step ids and
// tags ("" when it runs).
func (sel *Selection) exclusion(name string, ids, tags []string) report.Exclusion {
	hasAny := func(list []string) bool {
		return slices.ContainsFunc(list, func(t string) bool { return slices.Contains(tags, t) })
	}
	switch {
	case len(sel.Tags) > 0 && !hasAny(sel.Tags):
		return report.ExcludedTag
	case hasAny(sel.SkipTags):
		return report.ExcludedSkipTag
	case sel.Run != nil && !sel.matches(name, ids):
		return report.ExcludedRun
	case sel.Failed != nil && !sel.Failed[name]:
		return report.ExcludedLastFailed
	}
	return ""
}

func (sel *Selection) matches(name string, ids []string) bool {
	if sel.Run.MatchString(name) {
		return true
	}
	var b strings.Builder
	for _, id := range ids {
		b.Reset()
		b.WriteString(name)
		b.WriteByte('/')
		b.WriteString(id)
		if sel.Run.MatchString(b.String()) {
			return true
		}
	}
	return false
}

// selectScenarios applies the run's selection to the planned scenarios
// from index from on: each one left out is marked in the plan (the
// scheduler passes it by) and in the report, its steps skipped with the
// reason. Scenarios a selected one needs are kept.
func (r *runState) selectScenarios(from int) {
	sel := r.opts.Select
	if sel == nil {
		return
	}
	plan := r.plan[from:]
	for _, sc := range plan {
		var tags []string
		if sc.index < len(r.suite.Scenarios) {
			tags = r.suite.Scenarios[sc.index].Tags
		}
		ids := make([]string, len(sc.steps))
		for j := range sc.steps {
			ids[j] = sc.steps[j].spec.ID
		}
		sc.excluded = sel.exclusion(sc.name, ids, tags)
	}
	// A kept scenario keeps what it runs after (always earlier in the plan).
	for k := len(plan) - 1; k >= 0; k-- {
		if sc := plan[k]; sc.excluded == "" && sc.after >= from {
			r.plan[sc.after].excluded = ""
		}
	}
	r.shardScenarios(from)
	for _, sc := range plan {
		r.exclude(sc, sc.excluded)
	}
}

// exclude marks sc left out of the run for why ("" keeps it).
func (r *runState) exclude(sc *scenario, why report.Exclusion) {
	sc.excluded = why
	res := &r.rep.Scenarios[sc.index]
	res.NotSelected = why
	if why != "" {
		skipFor(res.Steps, 0, report.SkipNotSelected, reasons[why])
	}
}

// listed marks every selected step listed, not run (--list).
func (r *runState) listed() {
	for i := range r.rep.Scenarios {
		if r.rep.Scenarios[i].NotSelected == "" {
			skipFrom(r.rep.Scenarios[i].Steps, 0, reasonListed)
		}
	}
}

// loadSlack is how far above an even share of the steps a shard may be
// filled before a scenario goes to its next preferred shard.
const loadSlack = 1.25

// shardScenarios leaves out, from index from on, the selected scenarios
// that another shard runs.
//
// The assignment is stable: each scenario prefers the shards in an order
// drawn from a hash of the suite file's name and its own key (rendezvous
// hashing), never from its position, so adding or removing a scenario
// leaves the others where they were. A scenario written in the fixture is
// keyed by its name; generated scenarios by the tool (or resource, prompt)
// their first step calls, so every check of one tool, and the analysis of
// that tool, stays in one shard. Shards are balanced by step count: a
// scenario goes to the first shard of its order that stays within
// loadSlack times an even share of the steps (only then can adding a
// scenario move another one).
func (r *runState) shardScenarios(from int) {
	sh := r.opts.Select.shard()
	if sh == nil {
		return
	}
	type unit struct {
		key    string
		hash   uint64
		weight int
		scens  []*scenario
	}
	var units []*unit
	byKey := map[string]*unit{}
	total := 0
	for _, sc := range r.plan[from:] {
		if sc.excluded != "" || len(sc.steps) == 0 {
			continue
		}
		key := "scenario\x00" + sc.name
		if sc.steps[0].origin != config.OriginFixture {
			key = "call\x00" + sc.steps[0].call.name
		}
		u := byKey[key]
		if u == nil {
			u = &unit{key: key, hash: r.shardHash(key, 0)}
			byKey[key] = u
			units = append(units, u)
		}
		u.scens = append(u.scens, sc)
		u.weight += len(sc.steps)
		total += len(sc.steps)
	}
	capacity := 0
	for _, u := range units {
		capacity = max(capacity, u.weight)
	}
	capacity = max(capacity, int(float64(total)*loadSlack/float64(sh.Total)+0.999))
	// Units are placed heaviest first, ties by hash: an order that does
	// not depend on where a scenario is written.
	slices.SortFunc(units, func(a, b *unit) int {
		return cmp.Or(cmp.Compare(b.weight, a.weight), cmp.Compare(a.hash, b.hash), cmp.Compare(a.key, b.key))
	})
	load := make([]int, sh.Total+1)
	for _, u := range units {
		prefs := make([]int, sh.Total)
		for k := range prefs {
			prefs[k] = k + 1
		}
		score := func(k int) uint64 { return r.shardHash(u.key, k) }
		slices.SortFunc(prefs, func(a, b int) int { return cmp.Or(cmp.Compare(score(b), score(a)), cmp.Compare(a, b)) })
		to := prefs[0]
		for _, k := range prefs {
			if load[k]+u.weight <= capacity {
				to = k
				break
			}
		}
		load[to] += u.weight
		if to != sh.Index {
			for _, sc := range u.scens {
				sc.excluded = report.ExcludedShard
			}
		}
	}
}

// shardHash hashes the suite file's name, a scenario's key and a shard
// number (0: the key alone).
func (r *runState) shardHash(key string, shard int) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%s\x00%d", filepath.Base(r.suite.File), key, shard)
	return mix.Spread(h.Sum64())
}

// rulesOf reads back the thresholds of a load report (the default rule is
// not one).
func rulesOf(res *report.LoadResult) ([]config.Threshold, error) {
	var out []config.Threshold
	for _, t := range res.Thresholds {
		if t.Default {
			continue
		}
		r, err := config.ParseThreshold(t.Rule)
		if err != nil {
			return nil, fmt.Errorf("%w: threshold %q: %v", ErrMerge, t.Rule, err)
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Text < out[j].Text })
	return slices.CompactFunc(out, func(a, b config.Threshold) bool { return a.Text == b.Text }), nil
}

// mergeLoadReports joins the reports of a load run's segments (--segment
// K/N): one segment each, of the same split and suite, with the same
// thresholds.
func mergeLoadReports(parts []Part, allowPartial bool) (*report.Report, error) {
	first := parts[0]
	var rules []config.Threshold
	seen := map[int]string{}
	loads := make([]*report.LoadResult, 0, len(parts))
	for i, p := range parts {
		l := p.Report.Load
		if l == nil {
			return nil, fmt.Errorf("%w: %s is a load report and %s is not", ErrMerge, first.Source, p.Source)
		}
		if l.Segment == nil {
			return nil, fmt.Errorf("%w: %s is not a segment's report (run mcpcheck load with --segment K/N)", ErrMerge, p.Source)
		}
		if err := samePart(first, p, "segment", first.Report.Load.Segment, l.Segment, seen); err != nil {
			return nil, err
		}
		r, err := rulesOf(l)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			rules = r
		} else if !slices.EqualFunc(rules, r, func(a, b config.Threshold) bool { return a.Text == b.Text }) {
			return nil, fmt.Errorf("%w: %s and %s judge different thresholds", ErrMerge, first.Source, p.Source)
		}
		loads = append(loads, l)
	}
	if total := first.Report.Load.Segment.Total; len(seen) < total && !allowPartial {
		return nil, fmt.Errorf("%w: %d of %d segments given (%s); --allow-partial merges what there is", ErrMerge, len(seen), total, sources(parts))
	}
	m, err := clone(first.Report)
	if err != nil {
		return nil, err
	}
	for _, l := range loads[1:] {
		if l.Model != loads[0].Model {
			return nil, fmt.Errorf("%w: one part is a %s-model load, another %s", ErrMerge, loads[0].Model, l.Model)
		}
	}
	m.Load = loadstat.Merge(loads, rules)
	m.Connections, m.Summary.DurationMs = 0, 0
	for _, p := range parts {
		m.Connections += p.Report.Connections
		m.Summary.DurationMs = max(m.Summary.DurationMs, p.Report.Summary.DurationMs)
		if m.Failure == nil {
			m.Failure = p.Report.Failure
		}
	}
	m.Tally()
	m.Passed = m.Failure == nil && m.Load.Passed
	return m, nil
}
