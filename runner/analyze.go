package runner

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/mcpcheck/mcpcheck/assert"
	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/runner/internal/gen"
	"github.com/mcpcheck/mcpcheck/runner/internal/score"
)

// Score is one generated check's score: the share of its cases that held.
type Score struct {
	Name    string  `json:"name"`
	Percent float64 `json:"percent"`
	Grade   string  `json:"grade"`
	Passed  int     `json:"passed"`
	Total   int     `json:"total"`
	// FailUnder is the threshold given for this score, if any, and Met
	// whether the score reached it.
	FailUnder *float64 `json:"failUnder,omitempty"`
	Met       *bool    `json:"met,omitempty"`
}

// Finding is an observation about one tool that no single step carries: a
// probe's flag, a concurrency failure. Status is "failed" when it counts
// against a score and fails the run; Flagged marks a note worth a look.
type Finding struct {
	Tool    string `json:"tool"`
	Origin  string `json:"origin"`
	Kind    string `json:"kind"`
	Status  string `json:"status,omitempty"`
	Flagged bool   `json:"flagged,omitempty"`
	Message string `json:"message"`
	// Score is the score a failed finding counts against.
	Score string `json:"score,omitempty"`
	// Step names the generated step ("scenario / step") a finding repeats,
	// so the findings list holds every finding in one place; the step
	// itself carries the verdict.
	Step string `json:"step,omitempty"`
}

// Tokens is the context-window cost estimate of calling every generated
// tool's valid case once: characters / 4, a rule of thumb stated as such.
type Tokens struct {
	Total   int    `json:"total"`
	Calls   int    `json:"calls"`
	PerCall int    `json:"perCall"`
	Method  string `json:"method"`
	// Model and USD price the estimate at the model's list input price, when
	// asked for.
	Model      string  `json:"model,omitempty"`
	USD        float64 `json:"usd,omitempty"`
	PricesAsOf string  `json:"pricesAsOf,omitempty"`
}

// Probe defaults (mcp-fuzz's): absolute thresholds, and the relative rule
// of more than 3× the server's median above a floor, only with ≥ 3 tools.
const (
	defaultSlowMs     = 5000
	defaultBloatChars = 20000
	outlierRatio      = 3
	slowFloorMs       = 100
	bloatFloorChars   = 1000
	minProbeSamples   = 3
)

// analyze reads the finished generated steps: probes (latency, size,
// tokens), the concurrency comparisons, and the scores. It makes no calls.
func (r *runState) analyze() {
	g := r.suite.Generate
	valid := r.validSteps()
	if g.Probes {
		r.probes(g, valid)
	}
	if g.Concurrency > 1 {
		r.concurrencyFindings(valid)
	}
	r.scores(g)
	r.stepFindings()
}

// orphanNote replaces the absent check's words on a parent/child read:
// whether a child may outlive its parent is a design choice.
const orphanNote = "the child is still readable after its parent was deleted: cascade, orphan or refusal are all legitimate designs — worth confirming this one is intended"

// stepFindings lists every failed or flagged generated step as a finding,
// after the probe and concurrency findings, in report order; the calls of
// a concurrency check are judged together by concurrencyFindings instead.
func (r *runState) stepFindings() {
	for i := range r.rep.Scenarios {
		if i < r.fixtureScenarios {
			continue
		}
		sc := &r.rep.Scenarios[i]
		for j := range sc.Steps {
			st := &sc.Steps[j]
			if st.Status != StatusFailed && !st.Flagged {
				continue
			}
			if st.Origin == config.OriginConcurrency && st.Status != StatusFailed {
				// One call of a concurrency check says nothing alone: the
				// verdicts above compare them (a tool failing the same way
				// concurrently as alone is not news, as in mcp-fuzz).
				continue
			}
			if st.Case == "orphan-read" && st.Flagged {
				st.Notes = []string{orphanNote}
			}
			f := Finding{Tool: st.Tool, Origin: st.Origin, Kind: st.Case, Score: st.Score, Step: sc.Name + " / " + st.ID}
			if st.Property != "" {
				f.Kind += " " + st.Property
			}
			switch {
			case st.Status == StatusFailed:
				f.Status = StatusFailed
				f.Message = stepMessage(st)
			default:
				f.Flagged = true
				f.Message = st.Notes[0]
				f.Score = ""
			}
			r.rep.Findings = append(r.rep.Findings, f)
		}
	}
}

// stepMessage summarises why a step failed, in the runner's words.
func stepMessage(st *StepResult) string {
	switch {
	case len(st.Assertions) > 0:
		a := st.Assertions[0]
		return strings.TrimSpace(a.Kind + " " + a.Path + ": " + a.Message)
	case st.Reason != "":
		return st.Reason
	default:
		return "failed with outcome " + st.Outcome
	}
}

// validStep is a tool's generated valid call, as it ran.
type validRun struct {
	tool string
	st   *StepResult
}

func (r *runState) validSteps() []validRun {
	var out []validRun
	for i := range r.rep.Scenarios {
		for j := range r.rep.Scenarios[i].Steps {
			st := &r.rep.Scenarios[i].Steps[j]
			if st.Case == gen.CaseValid && st.Status != StatusSkipped {
				out = append(out, validRun{st.Tool, st})
			}
		}
	}
	return out
}

// measurable reports whether a call produced a real response to measure:
// crashed, hung or broken calls are excluded from the probes.
func measurable(st *StepResult) bool {
	switch st.Outcome {
	case assert.OutcomeOK, assert.OutcomeToolError, assert.OutcomeProtocolError, assert.OutcomeOutputInvalid:
		return true
	}
	return false
}

func (r *runState) probes(g *config.Generate, valid []validRun) {
	slow, bloat := float64(defaultSlowMs), float64(defaultBloatChars)
	if g.SlowThresholdMs > 0 {
		slow = float64(g.SlowThresholdMs)
	}
	if g.BloatThresholdChars > 0 {
		bloat = float64(g.BloatThresholdChars)
	}
	latency, size := map[string]float64{}, map[string]float64{}
	chars := 0
	for _, v := range valid {
		if !measurable(v.st) {
			continue
		}
		latency[v.tool] = v.st.DurationMs
		size[v.tool] = float64(v.st.ResponseChars)
		chars += v.st.ResponseChars
	}
	add := func(kind, score, unit string, values map[string]float64, flags map[string]string, measured int) {
		names := make([]string, 0, len(flags))
		for t := range flags {
			names = append(names, t)
		}
		sort.Strings(names)
		for _, t := range names {
			msg := fmt.Sprintf("valid call: %.0f %s (%s)", values[t], unit, flags[t])
			r.rep.Findings = append(r.rep.Findings, Finding{Tool: t, Origin: config.OriginProbe, Kind: kind, Flagged: true, Score: score, Message: msg})
		}
		r.rep.Summary.Scores = append(r.rep.Summary.Scores, percentScore(score, measured-len(flags), measured))
	}
	add("latency", config.ScoreLatency, "ms", latency, score.Outliers(latency, slow, outlierRatio, slowFloorMs, minProbeSamples), len(latency))
	add("responseSize", config.ScoreResponseSize, "characters", size, score.Outliers(size, bloat, outlierRatio, bloatFloorChars, minProbeSamples), len(size))
	if len(size) > 0 {
		tok := &Tokens{Total: score.EstimateTokens(chars), Calls: len(size), Method: "about 4 characters a token over each tool's valid call, an estimate, not a tokenizer"}
		tok.PerCall = tok.Total / tok.Calls
		if m := g.PriceModel; m != "" {
			if price, ok := score.PricePerMTok(m); ok {
				tok.Model, tok.PricesAsOf = m, score.PricesAsOf
				tok.USD = math.Round(float64(tok.Total)*price/1e6*1e6) / 1e6
			}
		}
		r.rep.Tokens = tok
	}
}

// concurrencyFindings judges the concurrency scenarios. Independent
// connections: a tool is flagged only when the failure is informative —
// some calls succeeded and some did not on identical input, or the
// sequential call succeeded and concurrent ones failed. Crossed responses:
// an overlapping call whose result differs from its one-by-one twin, or
// never arrives, is a failure; a tool that answers the same input
// differently one by one is skipped as non-deterministic.
func (r *runState) concurrencyFindings(valid []validRun) {
	seqOK := map[string]bool{}
	for _, v := range valid {
		seqOK[v.tool] = v.st.Outcome == assert.OutcomeOK
	}
	checked := 0
	byName := map[string]int{}
	for i := range r.rep.Scenarios {
		byName[r.rep.Scenarios[i].Name] = i
	}
	fail := func(tool, kind, msg string) {
		r.rep.Findings = append(r.rep.Findings, Finding{Tool: tool, Origin: config.OriginConcurrency, Kind: kind, Status: StatusFailed, Score: config.ScoreConcurrency, Message: msg})
	}
	for i := range r.rep.Scenarios {
		sc := &r.rep.Scenarios[i]
		tool, ok := strings.CutPrefix(sc.Name, "concurrency: ")
		if !ok {
			continue
		}
		ran, okCount := 0, 0
		var outcomes []string
		for _, st := range sc.Steps {
			if st.Status == StatusSkipped && st.Outcome == "" {
				continue
			}
			ran++
			if st.Outcome == assert.OutcomeOK {
				okCount++
			} else if !slices.Contains(outcomes, st.Outcome) {
				outcomes = append(outcomes, st.Outcome)
			}
		}
		if ran == 0 {
			continue
		}
		checked++
		switch {
		case okCount > 0 && okCount < ran:
			fail(tool, "independent-connections", fmt.Sprintf("%d of %d identical calls on independent connections succeeded and the rest ended in %s: the failure depends on load", okCount, ran, strings.Join(outcomes, ", ")))
		case okCount == 0 && seqOK[tool]:
			fail(tool, "independent-connections", fmt.Sprintf("the call succeeds alone but all %d concurrent calls on independent connections ended in %s", ran, strings.Join(outcomes, ", ")))
		}
	}
	for i := range r.rep.Scenarios {
		// A crossed-responses check: the all-at-once half runs After its
		// Reference, the one-by-one half.
		after := r.suite.Scenarios[i].After
		k, ok := byName[after]
		par := &r.rep.Scenarios[i]
		if after == "" || !ok || !r.suite.Scenarios[k].Reference || len(par.Steps) == 0 {
			continue
		}
		seq, tool := &r.rep.Scenarios[k], par.Steps[0].Tool
		first := map[string]*StepResult{}
		for j := range seq.Steps {
			if st := &seq.Steps[j]; !strings.HasSuffix(st.ID, "-again") {
				first[st.ID] = st
			}
		}
		if why := referenceStop(&r.suite.Scenarios[k], seq.Steps); why != "" {
			r.rep.Notes = append(r.rep.Notes, fmt.Sprintf("tool %q: %s", tool, why))
			continue
		}
		checked++
		// One finding per tool: which of the overlapping calls lost a race
		// is chance, the defect is not.
		var failedOutcomes []string
		differs := false
		for j := range par.Steps {
			st := &par.Steps[j]
			twin := first[st.ID]
			switch {
			case twin == nil:
			case st.Outcome != assert.OutcomeOK:
				if !slices.Contains(failedOutcomes, st.Outcome) {
					failedOutcomes = append(failedOutcomes, st.Outcome)
				}
			case !assert.Equal(answer(st), answer(twin)):
				differs = true
			}
		}
		switch {
		case differs:
			fail(tool, "crossed-responses", fmt.Sprintf("%d distinct calls overlapping on one session did not all get the answer each gets alone: responses crossed", len(par.Steps)))
		case len(failedOutcomes) > 0:
			sort.Strings(failedOutcomes)
			fail(tool, "crossed-responses", fmt.Sprintf("%d distinct calls overlapping on one session did not all come back (%s); each succeeds alone", len(par.Steps), strings.Join(failedOutcomes, ", ")))
		}
	}
	if checked > 0 {
		r.concurrencyChecked, r.concurrencyFailedTools = checked, 0
		tools := map[string]bool{}
		for _, f := range r.rep.Findings {
			if f.Score == config.ScoreConcurrency && f.Status == StatusFailed {
				tools[f.Tool] = true
			}
		}
		r.concurrencyFailedTools = len(tools)
	}
}

// referenceStop says why a Reference scenario (the one-by-one half of a
// crossed-responses check; done are its steps run so far) can already not
// serve as the reference: a call that did not come back ok, or a repeat
// whose answer differs from the first. Nothing more is called then, and
// the all-at-once half (After it) is skipped too: there would be nothing
// to compare with.
func referenceStop(sc *config.Scenario, done []StepResult) string {
	if !sc.Reference {
		return ""
	}
	first := map[string]*StepResult{}
	for k := range done {
		st := &done[k]
		if st.Status == StatusSkipped && st.Outcome == "" {
			if strings.HasSuffix(st.Reason, "crossed-responses check skipped") {
				continue // the stop this function gave, already reported above
			}
			return "not run one by one (" + st.Reason + "); crossed-responses check skipped"
		}
		if st.Outcome != assert.OutcomeOK {
			return fmt.Sprintf("%s came back %s one by one, so this tool has no reference answer; crossed-responses check skipped", st.ID, st.Outcome)
		}
		id, repeat := strings.CutSuffix(st.ID, "-again")
		if !repeat {
			first[id] = st
			continue
		}
		if a := first[id]; a == nil || !assert.Equal(answer(a), answer(st)) {
			return fmt.Sprintf("the same input (%s) one by one gave two different answers, so this tool is not deterministic; crossed-responses check skipped", id)
		}
	}
	return ""
}

// afterStopped is why a scenario that runs After another is not run: that
// one (run before it: parallel scenarios run last) stopped early.
func (r *runState) afterStopped(name string) string {
	if name == "" {
		return ""
	}
	for i := range r.rep.Scenarios {
		if sc := &r.rep.Scenarios[i]; sc.Name == name {
			for k := range sc.Steps {
				if st := &sc.Steps[k]; st.Status == StatusSkipped && st.Reason != "" && st.Outcome == "" {
					return "not run: " + st.Reason
				}
			}
		}
	}
	return ""
}

// answer is what two calls are compared on: content and structuredContent.
func answer(st *StepResult) any {
	if st.result == nil {
		return nil
	}
	return map[string]any{"content": st.result["content"], "structuredContent": st.result["structuredContent"]}
}

// scores computes each generated score and applies the thresholds.
func (r *runState) scores(g *config.Generate) {
	type tally struct{ passed, total int }
	t := map[string]*tally{}
	for i := range r.rep.Scenarios {
		for j := range r.rep.Scenarios[i].Steps {
			st := &r.rep.Scenarios[i].Steps[j]
			if st.Score == "" || st.Status == StatusSkipped {
				continue
			}
			if st.Score == config.ScoreResponseFidelity && st.Outcome != assert.OutcomeOK && st.Outcome != assert.OutcomeOutputInvalid {
				continue // an honest error or a crash says nothing about fidelity
			}
			c := t[st.Score]
			if c == nil {
				c = &tally{}
				t[st.Score] = c
			}
			c.total++
			if st.Status == StatusPassed {
				c.passed++
			}
		}
	}
	for _, name := range []string{config.ScoreCrashResilience, config.ScoreResponseFidelity, config.ScoreLifecycle} {
		if c := t[name]; c != nil {
			r.rep.Summary.Scores = append(r.rep.Summary.Scores, percentScore(name, c.passed, c.total))
		}
	}
	if r.concurrencyChecked > 0 {
		r.rep.Summary.Scores = append(r.rep.Summary.Scores, percentScore(config.ScoreConcurrency, r.concurrencyChecked-r.concurrencyFailedTools, r.concurrencyChecked))
	}
	sort.SliceStable(r.rep.Summary.Scores, func(i, j int) bool {
		return scoreOrder(r.rep.Summary.Scores[i].Name) < scoreOrder(r.rep.Summary.Scores[j].Name)
	})
	for i := range r.rep.Summary.Scores {
		sc := &r.rep.Summary.Scores[i]
		if th, ok := g.FailUnder[sc.Name]; ok {
			met := sc.Total == 0 || sc.Percent >= th
			sc.FailUnder, sc.Met = &th, &met
		}
	}
}

var scoreNames = []string{config.ScoreCrashResilience, config.ScoreResponseFidelity, config.ScoreLatency, config.ScoreResponseSize, config.ScoreConcurrency, config.ScoreLifecycle}

func scoreOrder(name string) int { return slices.Index(scoreNames, name) }

func percentScore(name string, passed, total int) Score {
	s := Score{Name: name, Passed: passed, Total: total, Percent: 100}
	if total > 0 {
		s.Percent = math.Round(float64(passed)/float64(total)*10000) / 100
	}
	s.Grade = score.Grade(s.Percent)
	return s
}
