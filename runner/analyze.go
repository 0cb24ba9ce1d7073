package runner

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpcheck/mcpcheck/assert"
	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/runner/internal/score"
)

// Score is one generated check's score: the share of its cases that held.
type Score struct {
	Name config.ScoreName `json:"name"`
	// Percent is nil, and Grade "n/a", when there was no case to judge:
	// no grade without data.
	Percent *float64 `json:"percent,omitempty"`
	Grade   string   `json:"grade"`
	Passed  int      `json:"passed"`
	Total   int      `json:"total"`
	// Inconclusive counts the cases that could not be judged (valid calls
	// the server refused, perhaps because the generated input was
	// unrealistic); they are not in Total.
	Inconclusive int `json:"inconclusive,omitempty"`
	// FailUnder is the threshold given for this score, if any, and Met
	// whether the score reached it.
	FailUnder *float64 `json:"failUnder,omitempty"`
	Met       *bool    `json:"met,omitempty"`
}

// Finding is an observation about one tool that no single step carries: a
// probe's flag, a concurrency failure. Status is "failed" when it counts
// against a score and fails the run; Flagged marks a note worth a look.
type Finding struct {
	Tool    string        `json:"tool"`
	Origin  config.Origin `json:"origin"`
	Kind    string        `json:"kind"`
	Status  Status        `json:"status,omitempty"`
	Flagged bool          `json:"flagged,omitempty"`
	Message string        `json:"message"`
	// Score is the score a failed finding counts against.
	Score config.ScoreName `json:"score,omitempty"`
	// Step names the generated step ("scenario / step") a finding repeats,
	// so the findings list holds every finding in one place; the step
	// itself carries the verdict.
	Step string `json:"step,omitempty"`
	// Expected, Got and Reference are a protocol probe's: what the pinned
	// protocol version asks, what came back, and where the spec says so.
	Expected  string `json:"expected,omitempty"`
	Got       string `json:"got,omitempty"`
	Reference string `json:"reference,omitempty"`
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
// tokens), the concurrency comparisons, and the scores. It makes no calls,
// and reads the steps through the handles generation gave.
func (r *runState) analyze() {
	g := r.suite.Generate
	if g.Probes {
		r.probes(g)
	}
	checked, failedTools := 0, 0
	if g.Concurrency > 1 {
		checked, failedTools = r.concurrencyFindings()
	}
	r.schemaEnforcement()
	r.scores(g, checked, failedTools)
	r.stepFindings()
	if r.rep.Shard == nil {
		// A shard sees some of the tools only: merge judges this over all.
		sdkFindings(r.rep)
	}
	r.rep.Findings = append(r.rep.Findings, r.probeFindings...)
	r.nothingTested()
}

// schemaEnforcement judges the fuzz cases by whether the server refused
// input its own inputSchema forbids: a tool error or a JSON-RPC error is
// enforcement, a result (ok, or output_invalid) is acceptance, and each
// accepted case is a failed finding naming the tool, the case and the
// property. Cases that crashed, hung or lost the transport say nothing
// about enforcement; crash resilience counts them.
func (r *runState) schemaEnforcement() {
	if len(r.gen.badInput) == 0 {
		return
	}
	enforced, accepted := 0, 0
	// One finding per tool and property, naming the cases it accepted.
	type key struct{ tool, property string }
	var order []key
	cases := map[key][]string{}
	outcomes := map[key][]string{}
	for _, ref := range r.gen.badInput {
		st := &r.rep.Scenarios[ref.scenario].Steps[ref.step]
		switch st.Outcome {
		case config.OutcomeToolError, config.OutcomeProtocolError:
			enforced++
		case config.OutcomeOK, config.OutcomeOutputInvalid:
			accepted++
			k := key{st.Tool, st.Property}
			if _, seen := cases[k]; !seen {
				order = append(order, k)
			}
			cases[k] = append(cases[k], st.Case)
			if !slices.Contains(outcomes[k], string(st.Outcome)) {
				outcomes[k] = append(outcomes[k], string(st.Outcome))
			}
		}
	}
	for _, k := range order {
		kind := strings.Join(cases[k], ",")
		if k.property != "" {
			kind += " " + k.property
		}
		r.rep.Findings = append(r.rep.Findings, Finding{Tool: k.tool, Origin: config.OriginFuzz, Kind: kind, Status: StatusFailed,
			Score: config.ScoreSchemaEnforcement, Message: "answered " + strings.Join(outcomes[k], ", ") + " to arguments its own inputSchema forbids (" + kind + "): the server does not enforce its schema"})
	}
	r.rep.Summary.Scores = append(r.rep.Summary.Scores, percentScore(config.ScoreSchemaEnforcement, enforced, enforced+accepted))
}

// stepFindings lists the failed and flagged generated steps as findings,
// after the probe and concurrency findings, in report order, as each
// scenario's plan says (a concurrency check's calls are judged together).
func (r *runState) stepFindings() {
	for _, sc := range r.plan {
		if sc.findings == findingsNone {
			continue
		}
		res := &r.rep.Scenarios[sc.index]
		for j := range res.Steps {
			st := &res.Steps[j]
			failed := st.Status == StatusFailed
			if !failed && (!st.Flagged || sc.findings == findingsFailed) {
				continue
			}
			f := Finding{Tool: st.Tool, Origin: st.Origin, Kind: st.Case, Score: st.Score, Step: res.Name + " / " + st.ID}
			if st.Property != "" {
				f.Kind += " " + st.Property
			}
			if failed {
				f.Status = StatusFailed
				f.Message = stepMessage(st)
			} else {
				f.Flagged = true
				f.Message = st.Notes[0]
				f.Score = ""
			}
			r.rep.Findings = append(r.rep.Findings, f)
		}
	}
}

// sdkFindings reports once, at server level, a fuzz case that every tool
// given it failed the same way (the same outcome and error code, two tools
// at least): that comes from the server's SDK, not from its tools. The
// steps keep their verdicts; the per-tool findings are replaced by one
// whose tool is empty.
func sdkFindings(rep *Report) {
	type key struct {
		kase, outcome string
		code          int64
	}
	tried := map[string]map[string]bool{} // case → the tools it was tried on
	failed := map[key][]string{}          // → the findings' step references
	tools := map[key]map[string]bool{}
	var order []key
	for i := range rep.Scenarios {
		res := &rep.Scenarios[i]
		for j := range res.Steps {
			st := &res.Steps[j]
			if st.Origin != config.OriginFuzz || st.Status == StatusSkipped || st.Case == caseValid {
				continue
			}
			if tried[st.Case] == nil {
				tried[st.Case] = map[string]bool{}
			}
			tried[st.Case][st.Tool] = true
			if st.Status != StatusFailed || st.Score != config.ScoreCrashResilience {
				continue
			}
			k := key{kase: st.Case, outcome: string(st.Outcome)}
			if st.ErrorCode != nil {
				k.code = *st.ErrorCode
			}
			if tools[k] == nil {
				order = append(order, k)
				tools[k] = map[string]bool{}
			}
			tools[k][st.Tool] = true
			failed[k] = append(failed[k], res.Name+" / "+st.ID)
		}
	}
	drop := map[string]bool{}
	var add []Finding
	for _, k := range order {
		if len(tools[k]) < 2 || len(tools[k]) != len(tried[k.kase]) {
			continue
		}
		got := k.outcome
		if k.code != 0 {
			got += " " + strconv.FormatInt(k.code, 10)
		}
		add = append(add, Finding{Origin: config.OriginFuzz, Kind: k.kase, Status: StatusFailed, Score: config.ScoreCrashResilience, Step: failed[k][0],
			Message: fmt.Sprintf("every tool given a %s case (%d) answered %s: this comes from the server's SDK or transport, not from its tools", k.kase, len(tools[k]), got)})
		for _, ref := range failed[k] {
			drop[ref] = true
		}
	}
	if len(add) == 0 {
		return
	}
	kept := rep.Findings[:0:0]
	for _, f := range rep.Findings {
		if f.Origin != config.OriginFuzz || !drop[f.Step] {
			kept = append(kept, f)
		}
	}
	rep.Findings = append(kept, add...)
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
		return "failed with outcome " + string(st.Outcome)
	}
}

// validRuns are the tools' valid calls that ran, for the probes.
func (r *runState) validRuns() []*StepResult {
	var out []*StepResult
	for _, v := range r.gen.valid {
		if st := &r.rep.Scenarios[v.scenario].Steps[v.step]; st.Status != StatusSkipped {
			out = append(out, st)
		}
	}
	return out
}

// measurable reports whether a call produced a real response to measure:
// crashed, hung or broken calls are excluded from the probes.
func measurable(st *StepResult) bool {
	switch st.Outcome {
	case config.OutcomeOK, config.OutcomeToolError, config.OutcomeProtocolError, config.OutcomeOutputInvalid:
		return true
	}
	return false
}

func (r *runState) probes(g *config.Generate) {
	slow, bloat := float64(defaultSlowMs), float64(defaultBloatChars)
	if g.SlowThresholdMs > 0 {
		slow = float64(g.SlowThresholdMs)
	}
	if g.BloatThresholdChars > 0 {
		bloat = float64(g.BloatThresholdChars)
	}
	in := &ProbeInputs{SlowThresholdMs: slow, BloatThresholdChars: bloat, PriceModel: g.PriceModel, Samples: []ProbeSample{}}
	for _, st := range r.validRuns() {
		if measurable(st) {
			in.Samples = append(in.Samples, ProbeSample{Tool: st.Tool, DurationMs: st.DurationMs, ResponseChars: st.ResponseChars})
		}
	}
	if r.rep.Shard != nil {
		// Outliers are judged against every tool's median: merge judges
		// them again over the shards' samples.
		r.rep.Probes = in
	}
	judgeProbes(r.rep, in)
}

// judgeProbes flags the latency and size outliers among the samples and
// adds the two scores and the token estimate to rep.
func judgeProbes(rep *Report, in *ProbeInputs) {
	slow, bloat := in.SlowThresholdMs, in.BloatThresholdChars
	latency, size := map[string]float64{}, map[string]float64{}
	chars := 0
	for _, s := range in.Samples {
		latency[s.Tool] = s.DurationMs
		size[s.Tool] = float64(s.ResponseChars)
		chars += s.ResponseChars
	}
	add := func(kind string, score config.ScoreName, unit string, values map[string]float64, flags map[string]string, measured int) {
		names := make([]string, 0, len(flags))
		for t := range flags {
			names = append(names, t)
		}
		sort.Strings(names)
		for _, t := range names {
			msg := fmt.Sprintf("valid call: %.0f %s (%s)", values[t], unit, flags[t])
			rep.Findings = append(rep.Findings, Finding{Tool: t, Origin: config.OriginProbe, Kind: kind, Flagged: true, Score: score, Message: msg})
		}
		rep.Summary.Scores = append(rep.Summary.Scores, percentScore(score, measured-len(flags), measured))
	}
	add("latency", config.ScoreLatency, "ms", latency, score.Outliers(latency, slow, outlierRatio, slowFloorMs, minProbeSamples), len(latency))
	add("responseSize", config.ScoreResponseSize, "characters", size, score.Outliers(size, bloat, outlierRatio, bloatFloorChars, minProbeSamples), len(size))
	if len(size) > 0 {
		tok := &Tokens{Total: score.EstimateTokens(chars), Calls: len(size), Method: "about 4 characters a token over each tool's valid call, an estimate, not a tokenizer"}
		tok.PerCall = tok.Total / tok.Calls
		if m := in.PriceModel; m != "" {
			if price, ok := score.PricePerMTok(m); ok {
				tok.Model, tok.PricesAsOf = m, score.PricesAsOf
				tok.USD = math.Round(float64(tok.Total)*price/1e6*1e6) / 1e6
			}
		}
		rep.Tokens = tok
	}
}

// ProbeInputs are what the probes judged: each tool's valid call, and the
// thresholds. A shard's report keeps them (outliers are judged against
// the median of every tool, which no one shard sees) so that merge can
// judge them again across the shards.
type ProbeInputs struct {
	SlowThresholdMs     float64       `json:"slowThresholdMs"`
	BloatThresholdChars float64       `json:"bloatThresholdChars"`
	PriceModel          string        `json:"priceModel,omitempty"`
	Samples             []ProbeSample `json:"samples"`
}

// ProbeSample is one tool's valid call as the probes measure it: a
// duration and a size, no values.
type ProbeSample struct {
	Tool          string  `json:"tool"`
	DurationMs    float64 `json:"durationMs"`
	ResponseChars int     `json:"responseChars"`
}

// concurrencyFindings judges the concurrency checks and returns how many
// tools were checked and how many failed. Independent connections: a tool
// is flagged only when the failure is informative — some calls succeeded
// and some did not on identical input, or the sequential call succeeded and
// concurrent ones failed. Crossed responses: an overlapping call whose
// result differs from its one-by-one twin, or never arrives, is a failure;
// a tool that answers the same input differently one by one is skipped as
// non-deterministic.
func (r *runState) concurrencyFindings() (checked, failedTools int) {
	seqOK := map[string]bool{}
	for _, st := range r.validRuns() {
		seqOK[st.Tool] = st.Outcome == config.OutcomeOK
	}
	fail := func(tool, kind, msg string) {
		r.rep.Findings = append(r.rep.Findings, Finding{Tool: tool, Origin: config.OriginConcurrency, Kind: kind, Status: StatusFailed, Score: config.ScoreConcurrency, Message: msg})
	}
	for _, c := range r.gen.independent {
		ran, okCount := 0, 0
		var outcomes []string
		for _, st := range r.rep.Scenarios[c.scenario].Steps {
			if st.Status == StatusSkipped && st.Outcome == "" {
				continue
			}
			ran++
			if st.Outcome == config.OutcomeOK {
				okCount++
			} else if !slices.Contains(outcomes, string(st.Outcome)) {
				outcomes = append(outcomes, string(st.Outcome))
			}
		}
		if ran == 0 {
			continue
		}
		checked++
		switch {
		case okCount > 0 && okCount < ran:
			fail(c.tool, caseIndependent, fmt.Sprintf("%d of %d identical calls on independent connections succeeded and the rest ended in %s: the failure depends on load", okCount, ran, strings.Join(outcomes, ", ")))
		case okCount == 0 && seqOK[c.tool]:
			fail(c.tool, caseIndependent, fmt.Sprintf("the call succeeds alone but all %d concurrent calls on independent connections ended in %s", ran, strings.Join(outcomes, ", ")))
		}
	}
	for _, c := range r.gen.crossed {
		seq, par := &r.rep.Scenarios[c.sequential], &r.rep.Scenarios[c.together]
		if len(par.Steps) == 0 || r.plan[c.together].excluded != "" {
			continue
		}
		if why := referenceStop(r.plan[c.sequential], seq.Steps); why != "" {
			r.rep.Notes = append(r.rep.Notes, fmt.Sprintf("tool %q: %s", c.tool, why))
			continue
		}
		checked++
		// One finding per tool: which of the overlapping calls lost a race
		// is chance, the defect is not.
		var failedOutcomes []string
		differs := false
		for j := range par.Steps {
			st, twin := &par.Steps[j], &seq.Steps[c.twins[j]]
			switch {
			case st.Outcome != config.OutcomeOK:
				if !slices.Contains(failedOutcomes, string(st.Outcome)) {
					failedOutcomes = append(failedOutcomes, string(st.Outcome))
				}
			case !assert.Equal(answer(st), answer(twin)):
				differs = true
			}
		}
		switch {
		case differs:
			fail(c.tool, "crossed-responses", fmt.Sprintf("%d distinct calls overlapping on one session did not all get the answer each gets alone: responses crossed", len(par.Steps)))
		case len(failedOutcomes) > 0:
			sort.Strings(failedOutcomes)
			fail(c.tool, "crossed-responses", fmt.Sprintf("%d distinct calls overlapping on one session did not all come back (%s); each succeeds alone", len(par.Steps), strings.Join(failedOutcomes, ", ")))
		}
	}
	tools := map[string]bool{}
	for _, f := range r.rep.Findings {
		if f.Score == config.ScoreConcurrency && f.Status == StatusFailed {
			tools[f.Tool] = true
		}
	}
	return checked, len(tools)
}

// scores computes each generated score and applies the thresholds.
func (r *runState) scores(g *config.Generate, concurrencyChecked, concurrencyFailed int) {
	type tally struct{ passed, total, inconclusive int }
	t := map[config.ScoreName]*tally{}
	for i := range r.rep.Scenarios {
		for j := range r.rep.Scenarios[i].Steps {
			st := &r.rep.Scenarios[i].Steps[j]
			if st.Score == "" || st.Status == StatusSkipped {
				continue
			}
			c := t[st.Score]
			if c == nil {
				c = &tally{}
				t[st.Score] = c
			}
			if st.Score == config.ScoreResponseFidelity && st.Outcome != config.OutcomeOK && st.Outcome != config.OutcomeOutputInvalid {
				// An honest error or a crash says nothing about fidelity:
				// the generated input may just be unrealistic.
				c.inconclusive++
				continue
			}
			c.total++
			if st.Status == StatusPassed {
				c.passed++
			}
		}
	}
	for _, name := range []config.ScoreName{config.ScoreCrashResilience, config.ScoreResponseFidelity, config.ScoreLifecycle, config.ScoreProtocol} {
		if c := t[name]; c != nil {
			sc := percentScore(name, c.passed, c.total)
			sc.Inconclusive = c.inconclusive
			r.rep.Summary.Scores = append(r.rep.Summary.Scores, sc)
		}
	}
	if concurrencyChecked > 0 {
		r.rep.Summary.Scores = append(r.rep.Summary.Scores, percentScore(config.ScoreConcurrency, concurrencyChecked-concurrencyFailed, concurrencyChecked))
	}
	// A threshold on a score nothing was generated for has no case to
	// meet it: the score is listed as n/a, and the threshold as not met.
	for _, name := range config.ScoreNames {
		if _, ok := g.FailUnder[name]; ok && !slices.ContainsFunc(r.rep.Summary.Scores, func(sc Score) bool { return sc.Name == name }) {
			r.rep.Summary.Scores = append(r.rep.Summary.Scores, percentScore(name, 0, 0))
		}
	}
	sort.SliceStable(r.rep.Summary.Scores, func(i, j int) bool {
		return scoreOrder(r.rep.Summary.Scores[i].Name) < scoreOrder(r.rep.Summary.Scores[j].Name)
	})
	for i := range r.rep.Summary.Scores {
		sc := &r.rep.Summary.Scores[i]
		if th, ok := g.FailUnder[sc.Name]; ok {
			// A score with no case has nothing to meet a threshold with.
			met := sc.Percent != nil && *sc.Percent >= th
			sc.FailUnder, sc.Met = &th, &met
		}
	}
}

func scoreOrder(name config.ScoreName) int { return slices.Index(config.ScoreNames, name) }

func percentScore(name config.ScoreName, passed, total int) Score {
	s := Score{Name: name, Passed: passed, Total: total, Grade: "n/a"}
	if total > 0 {
		pct := math.Round(float64(passed)/float64(total)*10000) / 100
		s.Percent, s.Grade = &pct, score.Grade(pct)
	}
	return s
}

// NothingTested says why a run of generated checks called nothing, and
// what would lift it.
type NothingTested struct {
	Reason string `json:"reason"`
	Fix    string `json:"fix"`
}

// nothingTested marks a run that only generates checks (no scenario of the
// fixture's own) and made no call at all: it tested nothing, whatever its
// scores say. The run still passes unless a threshold was given, which
// then has no case to meet.
func (r *runState) nothingTested() {
	if len(r.suite.Scenarios) > 0 {
		return
	}
	for i := range r.rep.Scenarios {
		for _, st := range r.rep.Scenarios[i].Steps {
			if st.Outcome != "" {
				return
			}
		}
	}
	n := &NothingTested{Reason: "the server lists no tool", Fix: "check that the server is the one you meant"}
	if k := len(r.rep.SkippedTools); k > 0 {
		groups := skippedGroups(r.rep.SkippedTools)
		var parts, fixes []string
		for _, gr := range groups {
			parts = append(parts, fmt.Sprintf("%d %s", len(gr.Tools), gr.Reason))
			if gr.Fix != "" && !slices.Contains(fixes, gr.Fix) {
				fixes = append(fixes, gr.Fix)
			}
		}
		n.Reason = fmt.Sprintf("every tool the server lists was left alone (%d): %s", k, strings.Join(parts, "; "))
		n.Fix = strings.Join(fixes, "; ")
	}
	r.rep.NothingTested = n
}
