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
)

// ErrMerge is what every refusal of [Merge] unwraps to: the reports are
// not the shards of one run (exit code 2).
var ErrMerge = errors.New("reports cannot be merged")

// Part is one shard's report for [Merge], with where it was read from
// (named in refusals).
type Part struct {
	Source string
	Report *Report
}

// Merge puts the reports of the shards of one suite back together into the
// report the unsharded run writes: the same scenarios, steps, findings,
// scores, notes and verdict, apart from the durations (each step's is the
// shard's that ran it, the suite's the sum of the shards') and the shard
// field, which the merged report has not. The probes, which judge every
// tool against the median, are judged again over the shards' samples.
// Connections and restarts are what the shards opened, the session each
// opens to discover the server counted once; they can be fewer than one
// run's, since a lost shared session is replaced only when a later
// scenario of the same run needs it.
//
// It refuses reports of different suites, reports that are not shards,
// two reports of one shard, shards that disagree on who runs a scenario,
// and, unless allowPartial, a missing shard (whose scenarios then stay
// skipped, "another shard runs it").
func Merge(parts []Part, allowPartial bool) (*Report, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("%w: no report given", ErrMerge)
	}
	parts = slices.Clone(parts)
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
				missing = append(missing, Shard{k, total}.String())
			}
		}
		return nil, fmt.Errorf("%w: shard %s missing (given: %s); --allow-partial merges what there is", ErrMerge, strings.Join(missing, ", "), sources(parts))
	}

	m, err := clone(first.Report)
	if err != nil {
		return nil, err
	}
	m.Shard, m.Probes = nil, nil
	m.Summary.DurationMs, m.Connections, m.Restarts = 0, 0, 0
	owner := make([]string, len(m.Scenarios))
	// Warnings are joined through a set: a report may hold hundreds of
	// thousands, and comparing each with every other took minutes.
	warned := make(map[string]bool, len(m.Warnings))
	for _, w := range m.Warnings {
		warned[w] = true
	}
	for _, p := range parts {
		r := p.Report
		m.Summary.DurationMs += r.Summary.DurationMs
		m.Connections += r.Connections
		m.Restarts += r.Restarts
		for i := range r.Scenarios {
			sc := &r.Scenarios[i]
			if sc.NotSelected == ExcludedShard {
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
		if m.Failure == nil {
			m.Failure = r.Failure
		}
		if m.TerminatedEarly == nil {
			m.TerminatedEarly = r.TerminatedEarly
		}
		for _, w := range r.Warnings {
			if !warned[w] {
				warned[w] = true
				m.Warnings = append(m.Warnings, w)
			}
		}
		if p != parts[0] {
			m.StaleBaseline = append(m.StaleBaseline, r.StaleBaseline...)
		}
	}
	// Every shard opens a session to discover the server; one run opens it
	// once.
	m.Connections -= len(parts) - 1
	sort.Strings(m.Warnings)
	// Each stale entry is judged where its scenario ran: listed once, in
	// the baseline's order.
	slices.SortStableFunc(m.StaleBaseline, func(a, b StaleEntry) int { return cmp.Compare(line(a.Position), line(b.Position)) })
	m.StaleBaseline = slices.CompactFunc(m.StaleBaseline, func(a, b StaleEntry) bool { return a.Scenario == b.Scenario && a.Step == b.Step })
	if len(seen) == total {
		for i, sc := range m.Scenarios {
			if owner[i] == "" && sc.NotSelected == ExcludedShard {
				return nil, fmt.Errorf("%w: no shard ran scenario %q: the shards were split differently (another fixture file name, --tag or --run?)", ErrMerge, sc.Name)
			}
		}
	}
	mergeGenerated(m, parts)
	restorePositions(m)
	m.Tally()
	return m, nil
}

// restorePositions gives the steps and expectations of a report read from
// JSON the positions the human report and the CI writers show ("at
// FILE:LINE:COL"). The values of failed expectations are never in the
// JSON, so a merged report shows none.
func restorePositions(r *Report) {
	pos := func(p *Position) config.Pos {
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
func clone(r *Report) (*Report, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	var c Report
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, err
	}
	return &c, nil
}

// mergeGenerated puts together what analysis adds for generated checks.
// Each tool's checks and their analysis are in one shard (shardScenarios),
// so a finding, a score's cases and a note about one tool come from that
// shard alone: findings are taken from every shard and put in the order one
// run lists them; scores add up their cases; notes every shard has (those
// of generation) come first, then the others in their order (each names
// its tool, and tools are judged in name order). Only the probes judge
// tools against each other: they are judged again.
func mergeGenerated(m *Report, parts []Part) {
	var findings []Finding
	var probes *ProbeInputs
	scores := map[config.ScoreName]*Score{}
	var notes []string
	count := map[string]int{}
	nothing := 0
	for _, p := range parts {
		r := p.Report
		for _, f := range r.Findings {
			if f.Origin == config.OriginProbe && f.Step == "" && r.Probes != nil {
				continue // judged again below
			}
			findings = append(findings, f)
		}
		if r.Probes != nil {
			if probes == nil {
				probes = &ProbeInputs{SlowThresholdMs: r.Probes.SlowThresholdMs, BloatThresholdChars: r.Probes.BloatThresholdChars, PriceModel: r.Probes.PriceModel, Samples: []ProbeSample{}}
			}
			probes.Samples = append(probes.Samples, r.Probes.Samples...)
		}
		for _, sc := range r.Summary.Scores {
			if r.Probes != nil && (sc.Name == config.ScoreLatency || sc.Name == config.ScoreResponseSize) {
				continue
			}
			s := scores[sc.Name]
			if s == nil {
				s = &Score{Name: sc.Name}
				scores[sc.Name] = s
			}
			s.Passed += sc.Passed
			s.Total += sc.Total
			s.Inconclusive += sc.Inconclusive
		}
		for _, n := range r.Notes {
			if count[n] == 0 {
				notes = append(notes, n)
			}
			count[n]++
		}
		if r.NothingTested != nil {
			nothing++
		}
	}
	m.Findings, m.Tokens, m.Summary.Scores = nil, nil, nil
	if nothing < len(parts) {
		m.NothingTested = nil
	}
	if probes != nil {
		judgeProbes(m, probes)
	}
	order := findingOrder(m)
	slices.SortStableFunc(findings, func(a, b Finding) int { return slices.Compare(order(a), order(b)) })
	// The protocol probes' findings come last, after the server-level fuzz
	// findings, which a shard leaves to merge (it sees some tools only).
	probed := slices.IndexFunc(findings, func(f Finding) bool { return order(f)[0] == stageProtocol })
	if probed < 0 {
		probed = len(findings)
	}
	m.Findings = append(m.Findings, findings[:probed]...)
	sdkFindings(m)
	m.Findings = append(m.Findings, findings[probed:]...)
	if len(m.Findings) == 0 {
		m.Findings = nil
	}
	for _, s := range scores {
		sc := percentScore(s.Name, s.Passed, s.Total)
		sc.Inconclusive = s.Inconclusive
		m.Summary.Scores = append(m.Summary.Scores, sc)
	}
	// Thresholds are the shards' (the same in each), met or not by the
	// merged score.
	for i := range m.Summary.Scores {
		sc := &m.Summary.Scores[i]
		for _, p := range parts {
			k := slices.IndexFunc(p.Report.Summary.Scores, func(x Score) bool { return x.Name == sc.Name })
			if k >= 0 && p.Report.Summary.Scores[k].FailUnder != nil {
				th := *p.Report.Summary.Scores[k].FailUnder
				met := sc.Percent != nil && *sc.Percent >= th
				sc.FailUnder, sc.Met = &th, &met
				break
			}
		}
	}
	sort.SliceStable(m.Summary.Scores, func(i, j int) bool {
		return scoreOrder(m.Summary.Scores[i].Name) < scoreOrder(m.Summary.Scores[j].Name)
	})
	if len(m.Summary.Scores) == 0 {
		m.Summary.Scores = nil
	}
	var common, own []string
	for _, n := range notes {
		if count[n] == len(parts) {
			common = append(common, n)
		} else {
			own = append(own, n)
		}
	}
	sort.Strings(own)
	m.Notes = append(common, own...)
	if len(m.Notes) == 0 {
		m.Notes = nil
	}
}

// findingOrder returns the place of a finding in the order analysis lists
// them: probes, then concurrency (independent connections before crossed
// responses), then schema enforcement, then the failed and flagged steps,
// then the protocol probes'; within each, by the place of the checks in
// the report.
func findingOrder(m *Report) func(Finding) []int {
	firstOf := map[string]int{} // origin + tool → first scenario
	stepAt := map[string][2]int{}
	for i := range m.Scenarios {
		sc := &m.Scenarios[i]
		for j := range sc.Steps {
			st := &sc.Steps[j]
			key := string(st.Origin) + "\x00" + st.Tool
			if _, ok := firstOf[key]; !ok {
				firstOf[key] = i
			}
			stepAt[sc.Name+" / "+st.ID] = [2]int{i, j}
		}
	}
	return func(f Finding) []int {
		where := firstOf[string(f.Origin)+"\x00"+f.Tool]
		switch {
		case f.Step != "" && f.Origin == config.OriginProtocol:
			at := stepAt[f.Step]
			return []int{stageProtocol, at[0], at[1]}
		case f.Step != "":
			at := stepAt[f.Step]
			return []int{4, at[0], at[1]}
		case f.Origin == config.OriginProbe:
			return []int{1}
		case f.Origin == config.OriginConcurrency:
			kind := 1
			if f.Kind == caseIndependent {
				kind = 0
			}
			return []int{2, kind, where}
		default:
			return []int{3, where}
		}
	}
}

func line(p *Position) int {
	if p == nil {
		return 0
	}
	return p.Line
}

// stageProtocol is the place of the protocol probes' findings (findingOrder).
const stageProtocol = 6
