package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/assert"
	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/runner/internal/observe"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

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
