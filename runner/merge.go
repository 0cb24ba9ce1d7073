package runner

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/mcpcheck/mcpcheck/config"
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
		if err := sameSuite(first, p); err != nil {
			return nil, err
		}
		sh := p.Report.Shard
		if sh.Total != total {
			return nil, fmt.Errorf("%w: %s is shard %s and %s shard %s: shards of different splits", ErrMerge, first.Source, first.Report.Shard, p.Source, sh)
		}
		if prev, ok := seen[sh.Index]; ok {
			return nil, fmt.Errorf("%w: %s and %s are both shard %s", ErrMerge, prev, p.Source, sh)
		}
		seen[sh.Index] = p.Source
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
