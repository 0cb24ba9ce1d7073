package runner

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpcheck/mcpcheck/assert"
	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/internal/jsonx"
	"github.com/mcpcheck/mcpcheck/runner/internal/golden"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// goldenStep is what a step with expect.snapshot needs: its key in the
// snapshot file and the rules of its suite, scenario and step together.
type goldenStep struct {
	scenario string
	rules    config.SnapshotRules
}

// goldens is a run's snapshot file and what the run does with it.
type goldens struct {
	file *golden.File
	// update rewrites changed answers and prunes unused ones (--update);
	// ci refuses to record a missing answer (the CI variable is set).
	update, ci bool
	// used are the scenario and step ids with expect.snapshot in the
	// suite, whether or not they ran: only the others are pruned.
	used map[string]map[string]bool
}

// openGoldens loads the suite's snapshot file when a step asks for one.
func openGoldens(suite *config.Suite, plan []*scenario, opts *Options, env environ) (*goldens, error) {
	used := map[string]map[string]bool{}
	for _, sc := range plan {
		for j := range sc.steps {
			if g := sc.steps[j].golden; g != nil {
				if used[g.scenario] == nil {
					used[g.scenario] = map[string]bool{}
				}
				used[g.scenario][sc.steps[j].spec.ID] = true
			}
		}
	}
	if len(used) == 0 {
		return nil, nil
	}
	if suite.File == "" {
		return nil, fmt.Errorf("expect.snapshot needs a fixture file to keep its answers beside")
	}
	f, err := golden.Load(golden.PathFor(suite.File))
	if err != nil {
		return nil, err
	}
	ci := env["CI"]
	return &goldens{file: f, update: opts.Update, used: used,
		ci: ci != "" && ci != "false" && ci != "0"}, nil
}

// checkGolden compares a step's answer with its golden one: the result
// when one arrived, else its outcome and error code. The answer is
// redacted before it is reduced, stored or compared.
func (r *runState) checkGolden(p *step, ar *assert.Result) (fails []assert.Failure, note string) {
	g := r.golden
	var answer any = ar.Whole
	if answer == nil {
		o := map[string]any{"outcome": string(ar.Outcome)}
		if ar.ErrorCode != nil {
			o["errorCode"] = *ar.ErrorCode
		}
		answer = o
	}
	if m, ok := answer.(map[string]any); ok {
		// What 2026-07-28 added to every result is no part of the answer:
		// one golden file holds in both eras.
		answer = withoutEraFields(m)
	}
	answer = golden.Reduce(r.red.Value(answer), p.golden.rules.Ignore, p.golden.rules.Sanitize)
	// A round trip through JSON makes the answer compare like a stored one.
	answer = roundTrip(answer)
	stored, ok := g.file.Get(p.golden.scenario, p.spec.ID)
	switch {
	case !ok && g.ci && !g.update:
		return []assert.Failure{{Kind: assert.KindSnapshot, Message: "no stored answer, and CI is set: run with --update and commit " + g.file.Path}}, ""
	case !ok:
		g.file.Put(p.golden.scenario, p.spec.ID, answer)
		return nil, "snapshot: no stored answer; this one was written to " + g.file.Path
	}
	if m, ok := stored.(map[string]any); ok {
		// Answers stored before this rule keep their caching hints: they
		// are left out of the comparison on both sides.
		stored = withoutEraFields(m)
	}
	fails = assert.Snapshot(stored, answer)
	if len(fails) > 0 && g.update {
		g.file.Put(p.golden.scenario, p.spec.ID, answer)
		return nil, "snapshot: the stored answer was updated (--update)"
	}
	return fails, ""
}

// roundTrip is v encoded and decoded again (numbers as json.Number).
func roundTrip(v any) any {
	data, err := json.Marshal(v)
	if err != nil {
		return v
	}
	return jsonx.Value(data)
}

// saveGoldens writes the snapshot file when the run changed it (and, with
// --update, pruned answers no step asks for any more). A file that could
// not be written fails the run (stage "snapshot", naming the file): the
// answers its steps recorded or updated were not kept, and the file holds
// what it held before.
func (r *runState) saveGoldens() {
	g := r.golden
	if g == nil {
		return
	}
	if g.update {
		if n := g.file.Prune(g.used); n > 0 {
			r.rep.Notes = append(r.rep.Notes, fmt.Sprintf("snapshot: removed %d unused answer(s) from %s (--update)", n, g.file.Path))
		}
	}
	if _, err := g.file.Save(); err != nil {
		msg := r.clean("the golden answers were not saved: "+strings.TrimSpace(err.Error()), 1000)
		if r.rep.Failure == nil {
			r.rep.Failure = &report.SuiteFailure{Stage: report.StageSnapshot, Message: msg}
		} else {
			r.rep.Warnings = append(r.rep.Warnings, "snapshot: "+msg)
		}
	}
}

// RecordedAnswer is one step's answer as a recording saw it: the JSON-RPC
// result as the server sent it, or the code of the error it answered with.
type RecordedAnswer struct {
	Step      string
	Result    json.RawMessage
	ErrorCode *int64
}

// RecordAnswers writes answers as the golden answers of the steps of a
// fixture's scenario (mcpcheck record), exactly as a run of the fixture
// would store them, sanitized and with secrets redacted. It replaces what
// the fixture's snapshot file held.
func RecordAnswers(fixture, scenario string, answers []RecordedAnswer, secrets []Secret) (path string, err error) {
	path = golden.PathFor(fixture)
	f := golden.New(path)
	red := newRedactor(secrets, "")
	for _, a := range answers {
		var v any
		if a.ErrorCode != nil {
			v = map[string]any{"outcome": string(config.OutcomeProtocolError), "errorCode": *a.ErrorCode}
		} else {
			v = decodeResult(a.Result)
		}
		f.Put(scenario, a.Step, roundTrip(golden.Reduce(red.Value(v), nil, nil)))
	}
	_, err = f.Save()
	return path, err
}

// CheckRecordAnswers refuses a fixture path whose golden answers
// (__snapshots__ beside it) a recording could not write without following
// a symbolic link out of the fixture's directory; the error names the
// link. mcpcheck record checks before the session starts.
func CheckRecordAnswers(fixture string) error {
	return golden.Check(golden.PathFor(fixture))
}
