package report

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/mcpcheck/mcpcheck/assert"
	"github.com/mcpcheck/mcpcheck/config"
	cfile "github.com/mcpcheck/mcpcheck/runner/internal/contract"
	"github.com/mcpcheck/mcpcheck/runner/internal/hist"
)

// This file holds every type of the JSON report (schemas/report.schema.json),
// as go-sdk keeps its wire types in protocol.go: what a report carries is
// read in one place; what computes it lives in package runner, beside its
// concern. The writers in this package read nothing else of a run.

// ——— The report and its parts.

// SchemaVersion is the version of the JSON report format
// (schemas/report.schema.json).
const SchemaVersion = 1

// Status is what became of a step, a scenario or a finding.
type Status string

// The statuses, as the report schema lists them.
const (
	StatusPassed  Status = "passed"
	StatusFailed  Status = "failed"
	StatusSkipped Status = "skipped"
)

// Statuses lists every status in the order of the report schema.
var Statuses = []Status{StatusPassed, StatusFailed, StatusSkipped}

// Report is the result of one run: the single model every writer (human
// text, JSON, ...) renders. Fields tagged `json:"-"` are for the human report
// only; the JSON report never carries tool arguments, result values,
// headers, URL paths or raw server error text.
type Report struct {
	SchemaVersion int    `json:"schemaVersion"`
	Suite         string `json:"suite"`
	// Shard says which part of the suite this run was (--shard K/N).
	Shard  *Shard `json:"shard,omitempty"`
	Passed bool   `json:"passed"`
	// NothingTested, when set, says why a run of generated checks called
	// nothing: its verdict is NOTHING TESTED, not PASS.
	NothingTested *NothingTested `json:"nothingTested,omitempty"`
	// Coverage, in a run of generated checks that called some of the
	// server's tools but not all, says how many and why the others were
	// not ("3 of 4 tools called; 1 not: ..."): the headline of a PASS
	// says what it covers.
	Coverage        string `json:"coverage,omitempty"`
	Target          Target `json:"target"`
	ProtocolVersion string `json:"protocolVersion"`
	// RequestedProtocolVersion is the version the run asked for, when the
	// server negotiated another (ProtocolVersion): a run pinned to
	// 2026-07-28 against a 2025-11-25 server says both.
	RequestedProtocolVersion string      `json:"requestedProtocolVersion,omitempty"`
	Server                   *ServerInfo `json:"server,omitempty"`
	ToolsDiscovered          []string    `json:"toolsDiscovered"`
	// ResourcesDiscovered, ResourceTemplatesDiscovered and
	// PromptsDiscovered list what the server offers besides tools, when it
	// declares resources or prompts.
	ResourcesDiscovered         []string `json:"resourcesDiscovered,omitempty"`
	ResourceTemplatesDiscovered []string `json:"resourceTemplatesDiscovered,omitempty"`
	PromptsDiscovered           []string `json:"promptsDiscovered,omitempty"`
	Summary                     Summary  `json:"summary"`
	// Connections counts MCP sessions opened; Restarts counts the ones
	// opened to replace a session that was lost.
	Connections int `json:"connections"`
	Restarts    int `json:"restarts"`
	// Failure says why the suite failed before or outside any step (the
	// server would not start, discovery failed, a tool is missing, the run
	// was interrupted).
	Failure *SuiteFailure `json:"failure,omitempty"`
	// TerminatedEarly names the step at which the server became unreachable
	// and the run stopped calling it.
	TerminatedEarly *Termination `json:"terminatedEarly,omitempty"`
	// ProtocolRuns lists the passes of a multi-protocol run (--protocol
	// given more than once), and Divergences the steps whose results
	// differ between them.
	ProtocolRuns []ProtocolRun `json:"protocolRuns,omitempty"`
	Divergences  []Divergence  `json:"divergences,omitempty"`
	// Findings, SkippedTools, Tokens and Notes come from generated checks
	// (the generate block, or quick mode); their scores are in Summary.
	Findings     []Finding     `json:"findings,omitempty"`
	SkippedTools []SkippedTool `json:"skippedTools,omitempty"`
	Tokens       *Tokens       `json:"tokens,omitempty"`
	Notes        []string      `json:"notes,omitempty"`
	// Analysis is what the generated checks are judged by besides their
	// steps (the generate block's thresholds), present when the run
	// generated checks: a report read back from JSON (a shard's, for
	// merge) is analysed as the run was (runner.Analyze).
	Analysis *AnalysisSettings `json:"analysis,omitempty"`
	// StaleBaseline lists the entries of the baseline of known failures
	// whose failure is gone: each one fails the run until it is removed.
	StaleBaseline []StaleEntry `json:"staleBaseline,omitempty"`
	// Drift lists the changes between the suite's contract file and the
	// live server's contract, most severe first; Summary.Drift counts them.
	Drift []Drift `json:"drift,omitempty"`
	// StdoutNoise is what a stdio server wrote on stdout that was not
	// JSON-RPC (skipped by the client); analysis makes it a finding.
	StdoutNoise *StdoutNoise `json:"stdoutNoise,omitempty"`
	// Warnings are observations that do not fail the suite.
	// Load is what a load run measured (mcpcheck load; runner.Load): its
	// scenarios are not listed, its calls are counted.
	Load     *LoadResult `json:"load,omitempty"`
	Warnings []string    `json:"warnings,omitempty"`
	// FailOnFlaky makes a flaky scenario fail the run (--fail-on-flaky).
	FailOnFlaky bool             `json:"failOnFlaky,omitempty"`
	Scenarios   []ScenarioResult `json:"scenarios"`

	// StartedAt is when the run began (human report and traces only; it
	// would make JSON reports differ run to run).
	StartedAt time.Time `json:"-"`
	// ServerStderr holds the last lines the server wrote to stderr when it
	// died or the suite failed, sanitized and redacted.
	ServerStderr []string `json:"-"`
	// NotConnected marks a --list of a fixture's own steps, which needs
	// no server: nothing was discovered.
	NotConnected bool `json:"-"`
	// Surface is what discovery found, as the server sent it (mcpcheck
	// tools); nil when the run failed before discovery.
	Surface *Surface `json:"-"`
	// KeptScratch lists the ${tmp} directories kept (Options.KeepTmp).
	KeptScratch []string `json:"-"`
	// Contract is the server's contract file (runner.Snapshot).
	Contract []byte `json:"-"`
}

// Target says what was tested without leaking paths or secrets: the
// transport and either the command's program name or the endpoint's origin.
type Target struct {
	Transport TargetTransport `json:"transport"`
	Program   string          `json:"program,omitempty"` // stdio: base name of the program
	Origin    string          `json:"origin,omitempty"`  // http, sse: scheme://host[:port]
}

// TargetTransport is how a run reached its server.
type TargetTransport string

// The target transports, in the order of the report schema.
const (
	TargetStdio  TargetTransport = "stdio"
	TargetHTTP   TargetTransport = "http"
	TargetSSE    TargetTransport = "sse"
	TargetMemory TargetTransport = "memory" // Options.Dial: an in-process server
	TargetNone   TargetTransport = "none"   // mcpcheck diff: no server reached
)

// TargetTransports lists every target transport, in the order of the
// report schema.
var TargetTransports = []TargetTransport{TargetStdio, TargetHTTP, TargetSSE, TargetMemory, TargetNone}

// ServerInfo is the server's self-description from initialize.
type ServerInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Summary counts steps by status.
type Summary struct {
	Passed     int     `json:"passed"`
	Failed     int     `json:"failed"`
	Skipped    int     `json:"skipped"`
	DurationMs float64 `json:"durationMs"`
	// ExpectedFailures counts the failed steps a baseline of known
	// failures lists (among Failed).
	ExpectedFailures int `json:"expectedFailures,omitempty"`
	// Flaky counts the flaky scenarios: failed, run again, then passed.
	Flaky int `json:"flaky,omitempty"`
	// Scores of the generated checks.
	Scores []Score `json:"scores,omitempty"`
	// Drift counts the contract drift by severity, when a contract was
	// compared.
	Drift *DriftSummary `json:"drift,omitempty"`
}

// SuiteFailure is a failure that is not any one step's.
type SuiteFailure struct {
	// Stage is where the run failed.
	Stage   Stage  `json:"stage"`
	Message string `json:"message"`
}

// Stage is where a run failed as a whole.
type Stage string

// The Stages, in the order of the report schema.
const (
	StageConnect     Stage = "connect"
	StageDiscovery   Stage = "discovery"
	StageAllowlist   Stage = "allowlist"
	StageInterrupted Stage = "interrupted"
	// StageSnapshot: the golden answers could not be written.
	StageSnapshot Stage = "snapshot"
)

// Stages lists every stage, in the order of the report schema.
var Stages = []Stage{StageConnect, StageDiscovery, StageAllowlist, StageInterrupted, StageSnapshot}

// Termination says where and why a run stopped early.
type Termination struct {
	Scenario string `json:"scenario"`
	Step     string `json:"step"`
	Reason   string `json:"reason"`
}

// ScenarioResult is one scenario's steps, in fixture order.
type ScenarioResult struct {
	Name string `json:"name"`
	// ProtocolVersion is the negotiated version this scenario ran under, in
	// a multi-protocol run.
	ProtocolVersion string `json:"protocolVersion,omitempty"`
	Status          Status `json:"status"`
	// NotSelected says why the scenario was left out of the run (its
	// steps are skipped with the reason).
	NotSelected Exclusion `json:"notSelected,omitempty"`
	// AnswersDiffer marks a scenario of overlapping calls, each planned to
	// get the answer its input got one by one, in which one came back ok
	// with another answer. Which call it was is chance, so the scenario
	// says it, not a step; analysis reads it.
	AnswersDiffer bool `json:"answersDiffer,omitempty"`
	// Behaviour holds a behaviour check's verdicts on its tool's
	// annotations, judged when the scenario ended (runner/behaviour.go).
	Behaviour []BehaviourVerdict `json:"behaviour,omitempty"`
	// NotRun says why a selected scenario was not run (--fail-fast).
	NotRun NotRun `json:"notRun,omitempty"`
	// Flaky marks a scenario that failed, was run again (retries) and then
	// passed; Attempts are its runs that failed, its steps the last run's.
	Flaky    bool         `json:"flaky,omitempty"`
	Attempts []Attempt    `json:"attempts,omitempty"`
	Steps    []StepResult `json:"steps"`
	// Pos is where the scenario was written (human report only).
	Pos config.Pos `json:"-"`
}

// StepResult is one step's result.
type StepResult struct {
	ID string `json:"id"`
	// Kind is what the step asked of the server; Tool names the tool of a
	// tool step, Target what any other step addressed (the resource URI
	// without query or fragment, the prompt, the list, ...).
	Kind   config.StepKind `json:"kind"`
	Tool   string          `json:"tool,omitempty"`
	Target string          `json:"target,omitempty"`
	Origin config.Origin   `json:"origin"`
	Status Status          `json:"status"`
	// Outcome is the outcome class of the call; empty when no call was made
	// (skipped, or failed before sending: an unresolvable $ref).
	Outcome    config.Outcome    `json:"outcome,omitempty"`
	ErrorCode  *int64            `json:"errorCode,omitempty"`
	DurationMs float64           `json:"durationMs"`
	Assertions []AssertionResult `json:"assertions,omitempty"`
	// ExitStatus is how a stdio server ended when this step's call lost it
	// ("exit status 3", "signal: killed").
	ExitStatus string `json:"exitStatus,omitempty"`
	// Reason says why a step was skipped or failed before or outside its
	// assertions, in the runner's words (never server text).
	Reason string `json:"reason,omitempty"`
	// Expected marks a failure a baseline of known failures lists
	// (--expected-failures): the step failed, and does not fail the run.
	Expected *Expected `json:"expectedFailure,omitempty"`
	// Flagged marks a step with observations worth a look that do not fail
	// it (Notes): an echo mismatch, a generated valid call that a server
	// rejected, an advisory step's mismatches.
	Flagged bool     `json:"flagged,omitempty"`
	Notes   []string `json:"notes,omitempty"`
	// AsTask: the tool was called as a task; its duration is the task's.
	AsTask bool `json:"asTask,omitempty"`
	// Score is the score a generated step counts toward; Case and Property
	// say which generated case it is ("wrong-type", "location").
	Score    config.ScoreName `json:"score,omitempty"`
	Case     string           `json:"case,omitempty"`
	Property string           `json:"property,omitempty"`
	// ServerRequests are the requests the server made of the client while
	// the step was in flight (sampling, elicitation, roots, ping), counted
	// by method.
	ServerRequests []ServerRequest `json:"serverRequests,omitempty"`
	// ResponseChars is the size of the raw result of a tool's generated
	// valid call, which the size probe measures (other steps leave it 0).
	ResponseChars int `json:"responseChars,omitempty"`
	// Forbidden marks a fuzz case whose input the tool's own inputSchema
	// forbids: schema enforcement judges the answer to it.
	Forbidden bool `json:"forbidden,omitempty"`
	// TimedBy names the argument of a tool's valid call that asks for the
	// time the call takes (delayMs, duration, ...): latency does not judge
	// the call.
	TimedBy string `json:"timedBy,omitempty"`
	// AnswerDiffers marks a one-by-one call that repeats the step before
	// it (the same input) and came back ok with another answer. It is
	// judged when the call ends, since answers are not in the report;
	// analysis reads it.
	AnswerDiffers bool `json:"answerDiffers,omitempty"`
	// Probe is a protocol probe's verdict on its answer, when it is a
	// finding (failed or flagged).
	Probe *ProbeVerdict `json:"probe,omitempty"`
	// AnswerDigests, in a run in several protocol eras, digest each
	// top-level member of the step's result (runner/eradiff.go), so that the
	// eras' answers are compared by value.
	AnswerDigests map[string]string `json:"answerDigests,omitempty"`
	// Exchange is the request the step sent and the answer it got, when
	// the run keeps them (runner.Options.Exchanges: -v, -vv, the HTML report).
	Exchange *Exchange `json:"exchange,omitempty"`
	// WithoutProgress is the check under a step that asks for progress:
	// its call made once more without _meta (runner/notify.go).
	WithoutProgress *PlainCall `json:"withoutProgress,omitempty"`

	// The fields below are a run's own working state, read while the run
	// is in progress and never written to the JSON report.
	//
	// Cause says, for a skipped step, why in a word the runner reads
	// (Reason says it to the user).
	Cause SkipCause `json:"-"`
	// Decoded is the decoded result of a generated step, for analyzers.
	Decoded map[string]any `json:"-"`
	// Stop ends the scenario here without failing it (a lifecycle check
	// that gives up), with this reason for the steps after.
	Stop string `json:"-"`
	// GoesOn: the step failed on its golden answer alone, so the scenario
	// goes on (the answer held every other expectation; a golden mismatch
	// is usually one volatile value, and the next steps' are worth seeing
	// in the same run).
	GoesOn bool `json:"-"`

	// Position is where the step is written in the fixture (none for a
	// generated step); Pos is the same for the human report.
	Position *Position  `json:"position,omitempty"`
	Pos      config.Pos `json:"-"`
	// Detail is server-provided text for the human report (a tool error's
	// text, a JSON-RPC error message), sanitized and redacted.
	Detail string `json:"-"`
	// Stderr is the tail of a stdio server's stderr when this step's call
	// lost it, sanitized and redacted (human report only).
	Stderr []string `json:"-"`
}

// skipCause is why a step was skipped, for code that treats some skips
// apart (a step that is not for the negotiated protocol version is, by
// design, no divergence); the step's Reason says it to the user. It is not
// in the JSON report: only a run in progress reads it.
type SkipCause uint8

// The skip causes the runner tells apart.
const (
	// skipOther is every cause no code reads: the reason says it.
	SkipOther SkipCause = iota
	// skipNotForProtocol: the step or its scenario is tagged `protocols`
	// without the negotiated version.
	SkipNotForProtocol
	// skipNotSelected: the scenario was left out of the run (--tag,
	// --skip-tag, --run, --shard); its Exclusion says which.
	SkipNotSelected
)

// ProbeVerdict is what a protocol probe found: what the negotiated
// protocol version asks of the answer, what came back, and where the spec
// says so.
type ProbeVerdict struct {
	// Tool is the tool a tools/call probe called.
	Tool      string `json:"tool,omitempty"`
	Expected  string `json:"expected"`
	Got       string `json:"got"`
	Reference string `json:"reference"`
}

// ServerRequest is one method the server called on the client during a
// step, and how many times.
type ServerRequest struct {
	Method string `json:"method"`
	Count  int    `json:"count"`
	// During, when set, names the other steps in flight when these
	// requests came: nothing proves they were this step's (see
	// attribute), so they are listed as "during" it and them.
	During []string `json:"during,omitempty"`
}

// Position is a place in a fixture file, for CI tools that annotate the
// line a step or an expectation was written at.
type Position struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
}

// AssertionResult is one failed expectation: its kind, the JSON Pointer path
// of the mismatch and a message that shows no result values. Expected and
// actual values are carried for the human report only.
type AssertionResult struct {
	Kind    assert.KindName `json:"kind"`
	Path    string          `json:"path"`
	Message string          `json:"message"`
	// Position is where the expectation is written.
	Position *Position `json:"position,omitempty"`

	Expected    any  `json:"-"`
	Actual      any  `json:"-"`
	HasExpected bool `json:"-"`
	HasActual   bool `json:"-"`
}

// Tally recomputes Summary counts and scenario statuses from the steps, and
// Passed from those, the findings, the score thresholds and Failure.
//
// A failed step or finding that counts toward a score with a threshold
// (--fail-under and friends) does not fail the run by itself: the threshold
// decides. Every other failed step or finding does.
func (r *Report) Tally() {
	r.Summary.Passed, r.Summary.Failed, r.Summary.Skipped, r.Summary.ExpectedFailures, r.Summary.Flaky = 0, 0, 0, 0, 0
	gated := map[config.ScoreName]bool{}
	thresholdsMet := true
	for _, sc := range r.Summary.Scores {
		if sc.FailUnder != nil {
			gated[sc.Name] = true
			if sc.Met != nil && !*sc.Met {
				thresholdsMet = false
			}
		}
	}
	failing := 0
	for i := range r.Scenarios {
		sc := &r.Scenarios[i]
		sc.Status = StatusPassed
		skipped := 0
		for _, st := range sc.Steps {
			switch st.Status {
			case StatusPassed:
				r.Summary.Passed++
			case StatusFailed:
				r.Summary.Failed++
				sc.Status = StatusFailed
				switch {
				case st.Expected != nil:
					r.Summary.ExpectedFailures++
				case st.Score == "" || !gated[st.Score]:
					failing++
				}
			default:
				r.Summary.Skipped++
				skipped++
			}
		}
		if sc.Status == StatusPassed && skipped == len(sc.Steps) && skipped > 0 {
			sc.Status = StatusSkipped
		}
		// A scenario that passed after failing is flaky; under FailOnFlaky
		// it fails the run.
		if sc.Flaky = sc.Status == StatusPassed && len(sc.Attempts) > 0; sc.Flaky {
			r.Summary.Flaky++
			if r.FailOnFlaky {
				failing++
			}
		}
	}
	for _, f := range r.Findings {
		if f.Step == "" && f.Status == StatusFailed && (f.Score == "" || !gated[f.Score]) {
			failing++
		}
	}
	for _, d := range r.Drift {
		if d.Failing {
			failing++
		}
	}
	r.Passed = r.Failure == nil && r.TerminatedEarly == nil && failing == 0 && thresholdsMet && len(r.StaleBaseline) == 0
}

// Score is one generated check's score: the share of its cases that held.
type Score struct {
	Name config.ScoreName `json:"name"`
	// ProtocolVersion is the version whose pass it scores (as asked for
	// with --protocol), in a multi-protocol run: each version is scored
	// apart.
	ProtocolVersion string `json:"protocolVersion,omitempty"`
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
	// TooFew says why a score with judged cases has no grade: too few of
	// them (see enoughToGrade). Percent is nil then, and Grade "n/a";
	// Passed and Total keep the counts.
	TooFew string `json:"tooFew,omitempty"`
	// FailUnder is the threshold given for this score, if any, and Met
	// whether the score reached it.
	FailUnder *float64 `json:"failUnder,omitempty"`
	Met       *bool    `json:"met,omitempty"`
}

// Finding is an observation about one tool that no single step carries: a
// probe's flag, a concurrency failure. Status is "failed" when it counts
// against a score and fails the run; Flagged marks a note worth a look.
type Finding struct {
	Tool   string        `json:"tool"`
	Origin config.Origin `json:"origin"`
	Kind   FindingKind   `json:"kind"`
	// ProtocolVersion is the version whose pass found it (as asked for
	// with --protocol), in a multi-protocol run: each version's checks are
	// judged apart.
	ProtocolVersion string `json:"protocolVersion,omitempty"`
	Status          Status `json:"status,omitempty"`
	Flagged         bool   `json:"flagged,omitempty"`
	Message         string `json:"message"`
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
	// Changes are what a behaviour finding's call changed in the
	// observed state.
	Changes []ObservedChange `json:"changes,omitempty"`
}

// FindingKind is what a finding is about. A probe's or a concurrency
// check's finding has one of the constants; one that repeats or sums up
// generated steps is named by their case (see [caseKind]).
type FindingKind string

// The kinds of the findings no single step carries.
const (
	FindingLatency                FindingKind = "latency"
	FindingResponseSize           FindingKind = "responseSize"
	FindingIndependentConnections FindingKind = "independent-connections"
	FindingCrossedResponses       FindingKind = "crossed-responses"
	FindingStdoutNoise            FindingKind = "stdout-noise"
)

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

// AnalysisSettings are what the generated checks are judged by besides
// their steps: the generate block's probe thresholds and score thresholds.
type AnalysisSettings struct {
	// Probes, when set, has the valid calls judged for latency and size
	// against these thresholds.
	Probes *ProbeSettings `json:"probes,omitempty"`
	// FailUnder maps a score to the lowest acceptable percentage.
	FailUnder map[config.ScoreName]float64 `json:"failUnder,omitempty"`
}

// ProbeSettings are the probes' absolute thresholds and the model the
// token estimate is priced at.
type ProbeSettings struct {
	SlowThresholdMs     float64 `json:"slowThresholdMs"`
	BloatThresholdChars float64 `json:"bloatThresholdChars"`
	PriceModel          string  `json:"priceModel,omitempty"`
}

// NothingTested says why a run of generated checks called nothing, and
// what would lift it.
type NothingTested struct {
	Reason string `json:"reason"`
	Fix    string `json:"fix"`
	// Ran, when set, is what did run although no tool was called (protocol
	// probes, resource reads, prompts): the run tested the server, not
	// its tools, and says so (verdict "NO TOOL TESTED").
	Ran string `json:"ran,omitempty"`
}

// ProtocolRun is one pass of a multi-protocol run.
type ProtocolRun struct {
	Requested  string `json:"requested"`
	Negotiated string `json:"negotiated"`
	Passed     bool   `json:"passed"`

	// From and To are the pass's scenarios in the joined report; Failed
	// says the pass failed outside its steps and findings (it could not
	// start, was cut short, or its contract drifted). A run's working
	// state, not in the JSON report.
	From   int  `json:"-"`
	To     int  `json:"-"`
	Failed bool `json:"-"`
}

// Divergence is a step whose result differs between protocol versions.
type Divergence struct {
	Scenario string             `json:"scenario"`
	Step     string             `json:"step"`
	Results  []DivergentOutcome `json:"results"`
	// Values names the result members whose values differ between the
	// versions (structuredContent, content, ...), fields the 2026-07-28
	// revision added aside.
	Values []string `json:"values,omitempty"`
}

// DivergentOutcome is one protocol version's result of a divergent step.
type DivergentOutcome struct {
	ProtocolVersion string         `json:"protocolVersion"`
	Status          Status         `json:"status"`
	Outcome         config.Outcome `json:"outcome,omitempty"`
	ErrorCode       *int64         `json:"errorCode,omitempty"`
}

// Expected marks a failed step that a baseline of known failures lists:
// it stays failed in the report, and does not fail the run.
type Expected struct {
	Reason string `json:"reason,omitempty"`
}

// StaleEntry is an entry of a baseline of known failures whose scenario or
// step now passes: the run fails until the entry is removed, so the list
// cannot hide the bug's return.
type StaleEntry struct {
	Scenario string    `json:"scenario"`
	Step     string    `json:"step,omitempty"`
	Reason   string    `json:"reason,omitempty"`
	Position *Position `json:"position,omitempty"`
}

// Drift is one change between a contract file and the live server's
// contract (or between two files, mcpcheck diff).
type Drift struct {
	Severity Severity     `json:"severity"`
	Kind     DriftKind    `json:"kind"`
	Subject  DriftSubject `json:"subject"`
	// Name is the tool, prompt, resource URI, template or capability.
	Name string `json:"name,omitempty"`
	// Path is the JSON Pointer of the change in the contract file (in the
	// new contract for an addition, the old one otherwise).
	Path string `json:"path"`
	// Failing is set when the severity is at or above the run's failOn.
	Failing bool `json:"failing,omitempty"`
	// Old and New are the values before and after as compact JSON (human
	// report only).
	Old string `json:"-"`
	New string `json:"-"`
}

// DriftSummary counts a run's drift by severity.
type DriftSummary struct {
	Breaking   int `json:"breaking"`
	Risky      int `json:"risky"`
	Compatible int `json:"compatible"`
	Info       int `json:"info"`
	// FailOn is the least severity that fails the run ("none": nothing).
	FailOn config.FailOn `json:"failOn"`
	// Updated is set when the contract file was rewritten (--update)
	// instead of failing.
	Updated bool `json:"updated,omitempty"`
}

// SkippedTool is a discovered tool that generation left alone, why, and
// what would lift it.
type SkippedTool struct {
	Tool string `json:"tool"`
	// ProtocolVersion is the version whose pass left it alone (as asked
	// for with --protocol), in a multi-protocol run.
	ProtocolVersion string `json:"protocolVersion,omitempty"`
	Reason          string `json:"reason"`
	Fix             string `json:"fix,omitempty"`
}

// BehaviourVerdict is a behaviour check's verdict on one annotation
// (Rule) of a tool: verified, violated (with the changes observed) or not
// verifiable (with the reason), never a pass by default.
type BehaviourVerdict struct {
	Tool    string           `json:"tool"`
	Rule    BehaviourRule    `json:"rule"`
	Status  BehaviourStatus  `json:"status"`
	Reason  string           `json:"reason"`
	Changes []ObservedChange `json:"changes,omitempty"`
}

// BehaviourRule is the claim a behaviour verdict judges.
type BehaviourRule string

// The behaviour rules, in the order of the report schema.
const (
	RuleReadOnly       BehaviourRule = "readOnly"
	RuleIdempotent     BehaviourRule = "idempotent"
	RuleNonDestructive BehaviourRule = "nonDestructive"
	RuleIdempotencyKey BehaviourRule = "idempotencyKey"
	// RuleRetry is no claim: whether a retry after a lost response applies
	// the change twice, for a tool that claims no idempotence.
	RuleRetry BehaviourRule = "retry"
)

// BehaviourRules lists every rule, in the order of the report schema.
var BehaviourRules = []BehaviourRule{RuleReadOnly, RuleIdempotent, RuleNonDestructive, RuleIdempotencyKey, RuleRetry}

// BehaviourStatus is what a behaviour check concluded.
type BehaviourStatus string

// The behaviour statuses, in the order of the report schema.
const (
	BehaviourVerified      BehaviourStatus = "verified"
	BehaviourViolated      BehaviourStatus = "violated"
	BehaviourNotVerifiable BehaviourStatus = "notVerifiable"
)

// BehaviourStatuses lists every status, in the order of the report schema.
var BehaviourStatuses = []BehaviourStatus{BehaviourVerified, BehaviourViolated, BehaviourNotVerifiable}

// ObservedChange is one difference between two observations of the
// server's state: where (the source, a JSON Pointer into its answer) and
// how. Old and New are the values, shortened, for the human report only.
type ObservedChange struct {
	Source string `json:"source"`
	Path   string `json:"path"`
	Kind   string `json:"kind"`
	Old    string `json:"-"`
	New    string `json:"-"`
}

// Suites is the JSON report of a run of several suites (several --config
// files, or a directory of fixtures): each suite's report, in the order
// the suites were given. A run of one suite writes its [Report] alone.
type Suites struct {
	SchemaVersion int       `json:"schemaVersion"`
	Suites        []*Report `json:"suites"`
}

// ——— Skipped tools, grouped for the writers.

// SkippedGroup is the skipped tools that share a reason (and protocol
// version, in a multi-protocol run), for reports that say it once.
type SkippedGroup struct {
	ProtocolVersion string
	Reason, Fix     string
	Tools           []string
}

// SkippedGroupsOf groups skipped tools by version, reason and fix, in the
// order the reasons first appear.
func SkippedGroupsOf(list []SkippedTool) []SkippedGroup {
	var out []SkippedGroup
	for _, s := range list {
		i := slices.IndexFunc(out, func(g SkippedGroup) bool {
			return g.ProtocolVersion == s.ProtocolVersion && g.Reason == s.Reason && g.Fix == s.Fix
		})
		if i < 0 {
			out = append(out, SkippedGroup{ProtocolVersion: s.ProtocolVersion, Reason: s.Reason, Fix: s.Fix})
			i = len(out) - 1
		}
		out[i].Tools = append(out[i].Tools, s.Tool)
	}
	return out
}

// SkippedGroups groups a report's skipped tools by reason.
func (r *Report) SkippedGroups() []SkippedGroup { return SkippedGroupsOf(r.SkippedTools) }

// ——— Selection: why a scenario was left out (runner/merge.go decides; Shard
// is --shard K/N).

// Exclusion says why a scenario was left out of a run: it is in the report
// all the same, every step skipped with the reason, never dropped.
type Exclusion string

// The Exclusions, in the order of the report schema.
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

// Shard is one part of a suite split over several runs (--shard K/N), for
// a CI job matrix; mcpcheck merge puts the parts' reports back together.
type Shard struct {
	// Index is K, counting from 1; Total is N.
	Index int `json:"index"`
	Total int `json:"total"`
}

// String renders the shard as K/N.
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Total) }

// ParseShard reads K/N, 1 <= K <= N.
func ParseShard(v string) (Shard, error) {
	var s Shard
	var rest string
	if n, _ := fmt.Sscanf(v, "%d/%d%s", &s.Index, &s.Total, &rest); n != 2 || s.Total < 1 || s.Index < 1 || s.Index > s.Total {
		return Shard{}, fmt.Errorf("want K/N with 1 <= K <= N, such as 2/3, got %q", v)
	}
	return s, nil
}

// ——— Retries and fail-fast: the attempts before a flaky pass, and why a
// selected scenario did not run.

// NotRun says why a selected scenario was not run although the run went
// on: it is in the report, every step skipped with the reason.
type NotRun string

// The reasons a selected scenario was not run, in the order of the report
// schema.
const (
	// NotRunFailFast: an earlier scenario failed and the run was asked to
	// stop at the first failure (--fail-fast).
	NotRunFailFast NotRun = "failFast"
)

// NotRuns lists every NotRun, in the order of the report schema.
var NotRuns = []NotRun{NotRunFailFast}

// Attempt is one run of a scenario that failed and was run again: its
// steps as that run left them.
type Attempt struct {
	Steps []StepResult `json:"steps"`
}

// ——— Exchanges: the request a step sent and the answer it got (-v, -vv).

// Exchange is a step's request and the answer to it, as the server saw and
// sent them (sanitized, redacted and cut; see "Exchanges" in the runner's
// code). Params and Result are indented JSON text.
type Exchange struct {
	Method string `json:"method"`
	Params string `json:"params,omitempty"`
	// Result is the JSON-RPC result; Error the JSON-RPC error. Neither
	// means no answer came (the step's outcome says why), or nothing was
	// sent (NotSent).
	Result string         `json:"result,omitempty"`
	Error  *ExchangeError `json:"error,omitempty"`
	// NotSent marks a request that was never sent (its arguments failed the
	// tool's inputSchema).
	NotSent bool `json:"notSent,omitempty"`
	// Omitted says why the parameters and answer are not shown (the run's
	// budget for exchanges was spent).
	Omitted string `json:"omitted,omitempty"`
}

// ExchangeError is a JSON-RPC error answer.
type ExchangeError struct {
	Code    int64  `json:"code"`
	Message string `json:"message,omitempty"`
}

// ——— Stdout noise: what a stdio server wrote on stdout that was not
// JSON-RPC.

// StdoutNoise is what a stdio server wrote on stdout that was not a
// JSON-RPC message: its first lines (sanitized, redacted, cut) and how
// many there were in all.
type StdoutNoise struct {
	Lines []string `json:"lines"`
	Count int      `json:"count"`
}

// Join is n and o of two parts of one run (shards, protocol passes): the
// counts added, the first keep lines kept.
func (n *StdoutNoise) Join(o *StdoutNoise, keep int) *StdoutNoise {
	switch {
	case o == nil:
		return n
	case n == nil:
		c := *o
		c.Lines = slices.Clone(o.Lines)
		return &c
	}
	j := &StdoutNoise{Count: n.Count + o.Count, Lines: slices.Clone(n.Lines)}
	for _, l := range o.Lines {
		if len(j.Lines) < keep && !slices.Contains(j.Lines, l) {
			j.Lines = append(j.Lines, l)
		}
	}
	return j
}

// ——— Surface: what a server offers, as discovery found it (mcpcheck tools,
// the HTML report).

// Surface is what a server offers, as discovery found it: its tools with
// their schemas and annotations as sent, its resources, resource templates
// and prompts (mcpcheck tools prints it). Lists are sorted by name or URI.
// Strings are the server's own, sanitized and redacted with the rest of the
// report; the schemas (raw JSON) are redacted, and a writer for a terminal
// or a page escapes what it prints of them.
type Surface struct {
	Server            *ServerInfo       `json:"server,omitempty"`
	ProtocolVersion   string            `json:"protocolVersion"`
	Capabilities      []string          `json:"capabilities"`
	Instructions      string            `json:"instructions,omitempty"`
	Tools             []SurfaceTool     `json:"tools"`
	Resources         []SurfaceResource `json:"resources,omitempty"`
	ResourceTemplates []SurfaceResource `json:"resourceTemplates,omitempty"`
	Prompts           []SurfacePrompt   `json:"prompts,omitempty"`
}

// SurfaceTool is one listed tool.
type SurfaceTool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  json.RawMessage `json:"annotations,omitempty"`
	// Execution ({"taskSupport": ...}), Icons and Meta (_meta) are kept
	// as sent: the SDK's Tool type drops the first, and a UI (an app's
	// _meta.ui.resourceUri) lives in the last.
	Execution json.RawMessage `json:"execution,omitempty"`
	Icons     json.RawMessage `json:"icons,omitempty"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
}

// SurfaceResource is a listed resource (URI) or resource template
// (URITemplate).
type SurfaceResource struct {
	URI         string `json:"uri,omitempty"`
	URITemplate string `json:"uriTemplate,omitempty"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
}

// SurfacePrompt is a listed prompt with its arguments, in the server's
// order.
type SurfacePrompt struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
}

// PromptArgument is one argument a prompt takes.
type PromptArgument struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required"` // false written too, as the spec's default
}

// AddCapability adds a capability the SDK's type does not know, keeping
// the list sorted.
func (s *Surface) AddCapability(name string) {
	if !slices.Contains(s.Capabilities, name) {
		s.Capabilities = append(s.Capabilities, name)
		slices.Sort(s.Capabilities)
	}
}

// UIResource is the ui:// resource a tool's _meta names as its MCP App
// (_meta.ui.resourceUri), or "".
func UIResource(t SurfaceTool) string {
	var m struct {
		UI struct {
			ResourceURI string `json:"resourceUri"`
		} `json:"ui"`
	}
	if len(t.Meta) == 0 || json.Unmarshal(t.Meta, &m) != nil {
		return ""
	}
	return m.UI.ResourceURI
}

// ——— Drift: the vocabularies of contract changes (runner/internal/contract
// defines them).

// Severity grades a contract change by what it breaks for a client.
type Severity = cfile.Severity

// The severities, most severe first.
const (
	SeverityBreaking   = cfile.Breaking
	SeverityRisky      = cfile.Risky
	SeverityCompatible = cfile.Compatible
	SeverityInfo       = cfile.Info
)

// Severities lists every severity, most severe first (the report schema's
// order).
var Severities = cfile.Severities

// DriftKind names a contract change (property_added, renamed, ...).
type DriftKind = cfile.Kind

// DriftKinds lists every kind of contract change, in the report schema's
// order.
var DriftKinds = cfile.Kinds

// DriftSubject is what a contract change concerns (tool, prompt, ...).
type DriftSubject = cfile.Subject

// DriftSubjects lists every subject, in the report schema's order.
var DriftSubjects = cfile.Subjects

// ——— Load: the results of mcpcheck load.

// LoadResult is what a load run measured (Report.Load).
type LoadResult struct {
	// Model is "closed" (VUs users) or "open" (Rate iterations a second on
	// at most MaxVUs users).
	Model  string  `json:"model"`
	VUs    int     `json:"vus,omitempty"`
	Rate   float64 `json:"rate,omitempty"`
	MaxVUs int     `json:"maxVUs,omitempty"`
	Stages string  `json:"Stages,omitempty"`
	// Segment is the part of the load this process ran (--segment K/N).
	Segment *Shard `json:"segment,omitempty"`
	// PlannedMs is the duration asked for (0: the run ended on iterations);
	// ElapsedMs how long the users ran.
	PlannedMs  int64  `json:"plannedMs"`
	ElapsedMs  int64  `json:"elapsedMs"`
	Iterations uint64 `json:"iterations"`
	// Dropped are the open model's iterations that found every user busy.
	Dropped uint64 `json:"dropped,omitempty"`
	// SessionsOpened and SessionsFailed count the users' sessions
	// (connection failures are the latter).
	SessionsOpened int64 `json:"sessionsOpened"`
	SessionsFailed int64 `json:"sessionsFailed"`
	// Aborted says why the run stopped before its end, if it did.
	Aborted string `json:"aborted,omitempty"`
	// Overall is every call of the run; Steps each step's calls, in plan
	// order.
	Overall    LoadStats         `json:"overall"`
	Steps      []LoadStats       `json:"steps"`
	Series     LoadSeries        `json:"series"`
	Thresholds []ThresholdResult `json:"thresholds"`
	Passed     bool              `json:"passed"`
}

// LoadStats are the measurements of a set of calls.
type LoadStats struct {
	Scenario string `json:"scenario,omitempty"`
	Step     string `json:"step,omitempty"`
	Target   string `json:"target,omitempty"`
	Calls    uint64 `json:"calls"`
	// Errors are the calls that failed (their outcome or expectations);
	// Failed those of them whose expectations failed.
	Errors   uint64            `json:"errors"`
	Failed   uint64            `json:"failedExpectations"`
	Outcomes map[string]uint64 `json:"outcomes"`
	// FirstError is the first failed call (of these, in the plan's order
	// for a join): its outcome and why it failed, so an errors count is
	// never all a reader has.
	FirstError *LoadError `json:"firstError,omitempty"`
	// RPS is calls per second over the run's elapsed time.
	RPS float64 `json:"rps"`
	// Latency in milliseconds, read from Histogram (microseconds).
	Latency   Latency      `json:"latency"`
	Histogram hist.Encoded `json:"histogram"`
}

// LoadError is one failed call of a load run: its outcome class and the
// reason, on one line, as a failed step states it.
type LoadError struct {
	// Step is the call's scenario/step.
	Step    string `json:"step"`
	Outcome string `json:"outcome"`
	Message string `json:"message"`
}

// Latency are a histogram's percentiles in milliseconds.
type Latency struct {
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P95  float64 `json:"p95"`
	P99  float64 `json:"p99"`
	Max  float64 `json:"max"`
	Mean float64 `json:"mean"`
}

// LoadSeries is the run over time: windows of WindowMs each.
type LoadSeries struct {
	WindowMs int64        `json:"windowMs"`
	Windows  []LoadWindow `json:"windows"`
}

// LoadWindow is one window of the series: the calls that ended in it.
type LoadWindow struct {
	AtMs      int64        `json:"atMs"` // the window's end, from the start
	Calls     uint64       `json:"calls"`
	Errors    uint64       `json:"errors"`
	P50       float64      `json:"p50"`
	P95       float64      `json:"p95"`
	P99       float64      `json:"p99"`
	Max       float64      `json:"max"`
	Histogram hist.Encoded `json:"histogram"`
}

// ThresholdResult is one threshold's verdict.
type ThresholdResult struct {
	Rule   string  `json:"rule"`
	Actual float64 `json:"actual"`
	Unit   string  `json:"unit"` // "ms", "%", "calls", "calls/s"
	Met    bool    `json:"met"`
	// Default marks the rule used when none was given: every call passes.
	Default bool   `json:"default,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

func usToMs(v float64) float64 { return math.Round(v) / 1000 }

// LatencyOf reads a histogram of microseconds as the report's latency
// figures, in milliseconds.
func LatencyOf(h *hist.H) Latency {
	q := func(p float64) float64 { return usToMs(float64(h.Quantile(p))) }
	return Latency{P50: q(0.5), P90: q(0.9), P95: q(0.95), P99: q(0.99), Max: usToMs(float64(h.Max())), Mean: math.Round(h.Mean()) / 1000}
}

// Fill sets the window's percentiles and maximum from its histogram.
func (w *LoadWindow) Fill(h *hist.H) {
	l := LatencyOf(h)
	w.P50, w.P95, w.P99, w.Max = l.P50, l.P95, l.P99, l.Max
}

// ——— Trace: one line of --trace.

// TraceEntry is one line of a --trace JSONL file: one tool call, with what
// the report leaves out (the arguments, redacted, and when it started), or
// one tool that generation skipped.
type TraceEntry struct {
	Scenario   string          `json:"scenario,omitempty"`
	Step       string          `json:"step,omitempty"`
	Origin     config.Origin   `json:"origin,omitempty"`
	Kind       config.StepKind `json:"kind,omitempty"`
	Tool       string          `json:"tool,omitempty"`
	Target     string          `json:"target,omitempty"`
	Case       string          `json:"case,omitempty"`
	Property   string          `json:"property,omitempty"`
	Outcome    config.Outcome  `json:"outcome,omitempty"`
	Status     Status          `json:"status,omitempty"`
	Detail     string          `json:"detail,omitempty"`
	Arguments  map[string]any  `json:"arguments,omitempty"`
	StartedAt  string          `json:"startedAt,omitempty"`
	DurationMs float64         `json:"durationMs"`
	Skipped    string          `json:"skipped,omitempty"`
}
