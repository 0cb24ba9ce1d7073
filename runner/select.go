package runner

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/internal/mix"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

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
