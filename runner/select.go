package runner

import (
	"regexp"
	"slices"
	"strings"

	"github.com/mcpcheck/mcpcheck/config"
)

// Exclusion says why a scenario was left out of a run: it is in the report
// all the same, every step skipped with the reason, never dropped.
type Exclusion string

// The exclusions, in the order of the report schema.
const (
	// ExcludedTag: --tag was given and the scenario has none of its tags.
	ExcludedTag Exclusion = "tag"
	// ExcludedSkipTag: the scenario has a tag --skip-tag names.
	ExcludedSkipTag Exclusion = "skipTag"
	// ExcludedRun: --run matches neither the scenario's name nor
	// "scenario/step" for any of its steps.
	ExcludedRun Exclusion = "run"
	// ExcludedShard: the scenario belongs to another shard (--shard).
	ExcludedShard Exclusion = "shard"
	// ExcludedLastFailed: --last-failed was given and the scenario did not
	// fail in the last run.
	ExcludedLastFailed Exclusion = "lastFailed"
)

// Exclusions lists every exclusion, in the order of the report schema.
var Exclusions = []Exclusion{ExcludedTag, ExcludedSkipTag, ExcludedRun, ExcludedShard, ExcludedLastFailed}

// reasons are the skip reasons of excluded scenarios' steps.
var reasons = map[Exclusion]string{
	ExcludedTag:        "not selected: it has no tag --tag names",
	ExcludedSkipTag:    "not selected: it has a tag --skip-tag names",
	ExcludedRun:        "not selected: --run matches neither the scenario nor one of its steps",
	ExcludedShard:      "not selected: another shard runs it",
	ExcludedLastFailed: "not selected: it did not fail last time (--last-failed)",
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
	Shard *Shard
	// Failed, when not nil, selects only the scenarios it names: those
	// that failed in the last run (--last-failed). A scenario runs whole,
	// so every step its $refs need runs with it.
	Failed map[string]bool
}

func (sel *Selection) shard() *Shard {
	if sel == nil {
		return nil
	}
	return sel.Shard
}

// Excludes says why sel leaves out a fixture's scenario ("" when it runs
// it); shards aside, which depend on every scenario of the run.
func (sel *Selection) Excludes(sc *config.Scenario) Exclusion {
	ids := make([]string, len(sc.Steps))
	for j := range sc.Steps {
		ids[j] = sc.Steps[j].ID
	}
	return sel.exclusion(sc.Name, ids, sc.Tags)
}

// exclusion is why sel leaves out the scenario of this name, step ids and
// tags ("" when it runs).
func (sel *Selection) exclusion(name string, ids, tags []string) Exclusion {
	hasAny := func(list []string) bool {
		return slices.ContainsFunc(list, func(t string) bool { return slices.Contains(tags, t) })
	}
	switch {
	case len(sel.Tags) > 0 && !hasAny(sel.Tags):
		return ExcludedTag
	case hasAny(sel.SkipTags):
		return ExcludedSkipTag
	case sel.Run != nil && !sel.matches(name, ids):
		return ExcludedRun
	case sel.Failed != nil && !sel.Failed[name]:
		return ExcludedLastFailed
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
func (r *runState) exclude(sc *scenario, why Exclusion) {
	sc.excluded = why
	res := &r.rep.Scenarios[sc.index]
	res.NotSelected = why
	if why != "" {
		skipFor(res.Steps, 0, skipNotSelected, reasons[why])
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
