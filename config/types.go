package config

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Pos is a place in a fixture file. Line and Col are 1-based; a zero Line
// means the position is unknown (the value came from a command-line flag or
// the environment, or was generated).
type Pos struct {
	File string
	Line int
	Col  int
}

// String renders the position as file:line:col, the form editors jump to.
func (p Pos) String() string {
	switch {
	case p.File == "":
		return "<generated>"
	case p.Line == 0:
		return p.File
	default:
		return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
	}
}

// Origin says where a step came from. Hand-written steps come from the
// fixture; the others are produced by generators from discovered tool
// contracts. The runner never branches on origin: it is carried into the
// report so users can see where a step came from.
type Origin string

// The origins, in the order of the report schema.
const (
	OriginFixture     Origin = "fixture"
	OriginFuzz        Origin = "fuzz"
	OriginFidelity    Origin = "fidelity"
	OriginLifecycle   Origin = "lifecycle"
	OriginProbe       Origin = "probe"
	OriginConcurrency Origin = "concurrency"
	OriginProtocol    Origin = "protocol"
	// OriginBehaviour: a check of a tool's annotations against what its
	// calls do to the server's observed state.
	OriginBehaviour Origin = "behaviour"
)

// Origins lists every origin, in the order of the report schema.
var Origins = []Origin{OriginFixture, OriginFuzz, OriginFidelity, OriginLifecycle, OriginProbe, OriginConcurrency, OriginProtocol, OriginBehaviour}

// Outcome is the class of what became of one call, one vocabulary shared
// by expectations, steps and reports: the outcome enum of the fixture
// schema ($defs/outcome), which README lists with what each class means.
type Outcome string

// The outcomes, in the order of the fixture schema's outcome enum.
const (
	OutcomeOK                Outcome = "ok"
	OutcomeToolError         Outcome = "tool_error"
	OutcomeProtocolError     Outcome = "protocol_error"
	OutcomeInputRejected     Outcome = "input_rejected"
	OutcomeOutputInvalid     Outcome = "output_invalid"
	OutcomeTimeout           Outcome = "timeout"
	OutcomeTransportClosed   Outcome = "transport_closed"
	OutcomeSessionLost       Outcome = "session_lost"
	OutcomeMalformedResponse Outcome = "malformed_response"
	// OutcomeOversizedResponse: a message from the server (a line, an SSE
	// event, a response body) was larger than maxMessageBytes; it was cut
	// off, never held whole, and the connection it came on is closed.
	OutcomeOversizedResponse Outcome = "oversized_response"
)

// Outcomes lists every outcome class, in the order of the fixture schema.
var Outcomes = []Outcome{
	OutcomeOK, OutcomeToolError, OutcomeProtocolError, OutcomeInputRejected,
	OutcomeOutputInvalid, OutcomeTimeout, OutcomeTransportClosed,
	OutcomeSessionLost, OutcomeMalformedResponse, OutcomeOversizedResponse,
}

// Transport is how an endpoint target is spoken to: the fixture's
// transport.
type Transport string

// The transports of an endpoint target, in the fixture schema's order.
const (
	TransportHTTP Transport = "http"
	TransportSSE  Transport = "sse"
)

// Transports lists transport's values, in the fixture schema's order.
var Transports = []Transport{TransportHTTP, TransportSSE}

// FailOn is the least contract drift severity that fails a run, or none:
// the fixture's failOn (and --fail-on).
type FailOn string

// The values of failOn.
const (
	FailOnBreaking   FailOn = "breaking"
	FailOnRisky      FailOn = "risky"
	FailOnCompatible FailOn = "compatible"
	FailOnNone       FailOn = "none"
	DefaultFailOn           = FailOnBreaking
)

// FailOns lists failOn's values, strictest last.
var FailOns = []FailOn{FailOnBreaking, FailOnRisky, FailOnCompatible, FailOnNone}

// Join is the values of a vocabulary such as [FailOns], joined by sep.
func Join[T ~string](list []T, sep string) string {
	out := make([]string, len(list))
	for i, v := range list {
		out[i] = string(v)
	}
	return strings.Join(out, sep)
}

// Isolation is how scenarios (or one scenario's steps) share MCP sessions:
// the fixture's isolation, suite-wide or per scenario.
type Isolation string

// The isolation modes.
const (
	// IsolationShared runs every scenario on one session (the default).
	IsolationShared Isolation = "shared"
	// IsolationScenario gives each scenario a fresh session (and, over stdio,
	// a fresh server process).
	IsolationScenario Isolation = "scenario"
	// IsolationStep gives each step of a scenario its own session; only a
	// scenario may ask for it.
	IsolationStep Isolation = "step"
)

// Protocol versions mcpcheck can pin. DefaultProtocolVersion is used when a
// fixture names none.
const (
	DefaultProtocolVersion = "2025-11-25"
	ProtocolVersion2026    = "2026-07-28"
)

// SupportedProtocolVersions lists the versions a fixture may pin, newest first.
var SupportedProtocolVersions = []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// Defaults applied by [Load] when the fixture leaves a setting out.
const (
	DefaultTimeoutMs          = 30000
	DefaultInitTimeoutMs      = 30000
	DefaultDiscoveryTimeoutMs = 30000
	DefaultConcurrency        = 1
	MaxConcurrency            = 16
	// MaxRetries bounds retries (a suite's, a scenario's, --retries).
	MaxRetries = 10
	// DefaultMaxMessageBytes bounds one message from a server (a stdio
	// line, an SSE event, an HTTP response body): 4 MiB, far above any
	// honest tool answer, far below what would hurt the machine.
	// MinMessageBytes and MaxMessageBytes bound the setting itself.
	DefaultMaxMessageBytes = 4 << 20
	MinMessageBytes        = 1 << 10
	MaxMessageBytes        = 1 << 30
)

// Suite is one loaded fixture: a target, its settings and its scenarios.
type Suite struct {
	// File is the path the suite was loaded from ("" when built in code).
	File string
	// Name labels the suite in reports.
	Name string
	// NameFromServer (quick mode) makes the report's title name the server
	// by the name it gives in initialize, when it gives one: "quick check
	// of " + serverInfo.name instead of Name.
	NameFromServer bool

	// Target: exactly one of Command (stdio) and Endpoint (Streamable HTTP).
	Command    []string
	Env        map[string]string // literal extra variables for the child
	EnvFromEnv map[string]string // child variable name → runner variable name
	Cwd        string            // child working directory, resolved against the fixture's directory
	Endpoint   string
	// Transport is how Endpoint is spoken to: TransportHTTP (Streamable
	// HTTP, also when empty) or TransportSSE (HTTP+SSE, protocol
	// 2024-11-05).
	Transport Transport
	// HeadersFromEnv maps an HTTP header name to the runner environment
	// variable holding its value.
	HeadersFromEnv map[string]string
	// SecretEnv (child variables) and SecretHeaders (HTTP headers) are
	// values given on the command line (quick mode's --env and --header),
	// credentials or configuration: the runner redacts one from every
	// output when its name says credential (API_KEY, Authorization) or it
	// looks like one, so that MODE=string never rewrites the server's
	// words (runner's redact.go, "What is a secret").
	SecretEnv, SecretHeaders map[string]string

	ProtocolVersion string
	// ProtocolVersions, when the fixture's protocolVersion is a list of
	// more than one, runs the suite once in each (as --protocol given
	// more than once does); ProtocolVersion is then its first. A version
	// set by the environment or a flag replaces it (nil).
	ProtocolVersions []string
	// AllowTools bounds which tools steps name and generation calls: a
	// fixture's list (empty when it has none), or nil in quick mode
	// without --allow-tools, meaning every discovered tool. See AllowsTool.
	AllowTools         []string
	TimeoutMs          int // bounds each request
	InitTimeoutMs      int // bounds connect + initialize
	DiscoveryTimeoutMs int // bounds the whole tools/list walk
	Concurrency        int // scenarios in flight at once, 1..16
	// Retries is how many times a failed scenario whose tools are all
	// annotated readOnlyHint runs again on a fresh session (retries:,
	// --retries); one that then passes is flaky.
	Retries int
	// MaxMessageBytes bounds one message from the server (a stdio line, an
	// SSE event, a response body); a larger one ends its call as
	// oversized_response.
	MaxMessageBytes int
	Isolation       Isolation

	// Contract is a contract file (mcpcheck snapshot) the live server is
	// compared with, resolved against the fixture's directory; "" compares
	// nothing. FailOn is the least drift severity that fails the run, one
	// of FailOns ("" means DefaultFailOn).
	Contract string
	FailOn   FailOn

	// Snapshots say what every golden answer (expect.snapshot) of the suite
	// leaves out and sanitizes; scenarios and steps add their own.
	Snapshots SnapshotRules

	// Client says what mcpcheck declares and answers when the server asks;
	// nil declares no capabilities.
	Client *Client

	// Warnings are what the fixture says that has no effect (a generate
	// setting whose check is off), with its place; a run reports them.
	Warnings []string

	Scenarios []Scenario

	// Generate, when set, adds checks generated from the discovered tool
	// contracts to the hand-written scenarios.
	Generate *Generate
	// Load is how `mcpcheck load` repeats the scenarios (the fixture's
	// load block; nil without one).
	Load *LoadRun

	// ExpectedFailuresPath is the fixture's expectedFailures: a baseline
	// file of known failures, as written (see ExpectedFailuresFile).
	ExpectedFailuresPath string

	// Pos of the document root and of selected settings, for error messages
	// raised after loading (for example a tool missing from tools/list).
	Pos      Pos
	FieldPos map[string]Pos
}

// Scenario is an ordered list of steps. Steps of one scenario run strictly in
// order; a failed step skips the rest of its scenario.
type Scenario struct {
	Name  string
	Steps []Step
	// Reconnect asks the runner to relaunch a dead stdio server before the
	// next step of this scenario instead of skipping the rest.
	Reconnect bool
	// Protocols, when set, limits the scenario to these protocol versions;
	// under any other it is skipped with a reason.
	Protocols []string
	// ContinueOnFailure runs every step even after one fails (fuzz cases
	// of one tool are independent of each other).
	ContinueOnFailure bool
	// Parallel runs all the scenario's steps at once instead of in order;
	// its steps may not $ref each other, and a failure skips nothing.
	Parallel bool
	// Isolation overrides the suite's for this scenario: "" (inherit),
	// IsolationShared, IsolationScenario, or IsolationStep (every step on a
	// session of its own: over stdio, a server process each).
	Isolation Isolation
	// Tags label the scenario for --tag and --skip-tag.
	Tags []string
	// Retries, when set, is how many times the scenario is run again on a
	// fresh session after it fails, whatever its steps call: set on a
	// scenario, it is the fixture's word that a rerun is safe (the suite's
	// Retries reach only scenarios whose tools are all read-only).
	Retries *int
	// Snapshots add to the suite's golden-answer rules for this scenario.
	Snapshots SnapshotRules
	Pos       Pos
}

// SnapshotRules are the snapshotIgnore and snapshotSanitize of a suite,
// scenario or step.
type SnapshotRules struct {
	// Ignore are JSON Pointers (a * segment matches any one key or index)
	// left out of the golden answer.
	Ignore []string
	// Sanitize are the built-in sanitizers applied (SanitizerNames).
	Sanitize []string
}

// Merge is r with more's entries added.
func (r SnapshotRules) Merge(more SnapshotRules) SnapshotRules {
	return SnapshotRules{Ignore: append(slices.Clip(r.Ignore), more.Ignore...), Sanitize: append(slices.Clip(r.Sanitize), more.Sanitize...)}
}

// SanitizerNames are the built-in snapshotSanitize sanitizers, in the
// fixture schema's order.
var SanitizerNames = []string{"uuid", "timestamp", "date", "time", "epoch", "hex"}

// StepKind is what a step asks of the server, named by the step's one key
// that says so.
type StepKind string

// The step kinds, in the order of the fixture schema.
const (
	KindTool        StepKind = "tool"        // tools/call
	KindResource    StepKind = "resource"    // resources/read
	KindPrompt      StepKind = "prompt"      // prompts/get
	KindComplete    StepKind = "complete"    // completion/complete
	KindList        StepKind = "list"        // tools/list, resources/list, ... (every page)
	KindPing        StepKind = "ping"        // ping
	KindSetLogLevel StepKind = "setLogLevel" // logging/setLevel
	KindSubscribe   StepKind = "subscribe"   // resources/subscribe
	KindUnsubscribe StepKind = "unsubscribe" // resources/unsubscribe
	KindAwait       StepKind = "await"       // a notification from the server
	KindObserve     StepKind = "observe"     // an observation of the server's state, kept by name
)

// StepKinds lists every step kind, in the order of the fixture schema.
var StepKinds = []StepKind{KindTool, KindResource, KindPrompt, KindComplete, KindList, KindPing, KindSetLogLevel, KindSubscribe, KindUnsubscribe, KindAwait, KindObserve}

// Step is one call (or, with await, one notification) and what must hold of
// its answer. Hand-written and generated steps share this type. Which of
// the kind fields is set follows Kind.
type Step struct {
	ID   string
	Kind StepKind
	// Tool is the tool of a tool step; Prompt the prompt of a prompt step.
	Tool, Prompt string
	// Resource is the URI of a resource, subscribe or unsubscribe step: a
	// string, or a $ref marker resolved when the step runs.
	Resource any
	// List is what a list step lists: tools, resources, resourceTemplates
	// or prompts. LogLevel is the level a setLogLevel step sets.
	List, LogLevel string
	// Complete is a complete step's request as written ({ref, argument,
	// context}), which is completion/complete's params; it may hold $ref
	// markers.
	Complete map[string]any
	// Await is an await step's notification.
	Await *Await
	// Observe names the observation an observe step records: the answers
	// of the allowed read-only tools that need no argument and the
	// contents of the listed resources, each read twice.
	Observe string
	// Arguments are a tool step's arguments, or a prompt step's (string
	// values, or $ref markers), as the decoded JSON object:
	// map[string]any, []any, string, bool, nil and json.Number (numbers keep
	// their exact text). It may contain $ref markers (see [Ref]). It is
	// read-only: steps whose arguments are written the same may share one
	// map (see values.go).
	Arguments map[string]any
	Expect    Expect
	// Origin says where the step came from.
	Origin Origin
	// ValidateArguments, when false, sends the arguments without checking
	// them against the tool's discovered inputSchema. Nil means true.
	ValidateArguments *bool
	// TimeoutMs overrides the suite's per-request timeout for this step.
	TimeoutMs int
	// Protocols, when set, limits the step to these protocol versions.
	Protocols []string
	// Advisory turns the step's failed expectations into notes: the step
	// is flagged for a look instead of failing the run.
	Advisory bool
	// Snapshots add to the scenario's golden-answer rules for this step.
	Snapshots SnapshotRules
	// Task, when set, calls the tool as a task (task: true or an object).
	Task *TaskCall
	Pos  Pos
}

// TaskCall is how a tool step is called as a task: the ttl it asks for and,
// when CancelAfterMs is set, the tasks/cancel sent that long after the task
// was created (the task must then end cancelled).
type TaskCall struct {
	CancelAfterMs int
	TTLMs         int
	// Off is task: false, a plain call even of a tool that requires a
	// task (to check how it refuses one).
	Off bool
}

// ScoreName names a score of the generated checks, as failUnder keys and
// reports write it.
type ScoreName string

// The scores, in the order the fixture schema's failUnder lists them.
const (
	ScoreCrashResilience   ScoreName = "crashResilience"
	ScoreSchemaEnforcement ScoreName = "schemaEnforcement"
	ScoreResponseFidelity  ScoreName = "responseFidelity"
	ScoreLatency           ScoreName = "latency"
	ScoreResponseSize      ScoreName = "responseSize"
	ScoreConcurrency       ScoreName = "concurrency"
	ScoreLifecycle         ScoreName = "lifecycle"
	ScoreProtocol          ScoreName = "protocolRobustness"
	// ScoreAnnotationHonesty: the tools' annotations verified true over
	// those that could be verified.
	ScoreAnnotationHonesty ScoreName = "annotationHonesty"
)

// ScoreNames lists every score, in the order of the fixture schema.
var ScoreNames = []ScoreName{
	ScoreCrashResilience, ScoreSchemaEnforcement, ScoreResponseFidelity, ScoreLatency,
	ScoreResponseSize, ScoreConcurrency, ScoreLifecycle, ScoreProtocol, ScoreAnnotationHonesty,
}

// Expect is what must hold of a step's answer. Zero value: the call returns a
// result with isError false. Its expected values (the Value.V of the
// structured checks, of TextJSON, Result and Notifications) are decoded
// JSON in which matchers stand as *Matcher values (see [Matcher]); like
// every decoded value they are read-only and may be shared between steps.
type Expect struct {
	// IsError, when set, demands a result whose isError equals it.
	IsError *bool
	// StructuredEquals demands deep equality with structuredContent.
	StructuredEquals *Value
	// StructuredIncludes demands a recursive object subset of structuredContent.
	StructuredIncludes *Value
	// StructuredPaths maps gjson paths into structuredContent to the value
	// each must find (compared like StructuredEquals).
	StructuredPaths map[string]*Value
	// StructuredSchema demands that structuredContent is valid against an
	// inline JSON Schema.
	StructuredSchema *JSONSchema
	// Text demands things of the answer's text (tool, prompt and resource
	// steps).
	Text *TextExpect
	// TextJSON parses the answer's text as JSON and demands things of the
	// value (tool, prompt and resource steps). Text is never parsed unless
	// this asks for it.
	TextJSON *JSONExpect
	// Result demands things of the whole JSON-RPC result.
	Result *JSONExpect
	// Notifications are notifications the server must have sent while the
	// step was in flight, each with how many must match.
	Notifications []NotificationExpect
	// Outcome demands an outcome class; "" means "ok", or "tool_error" when
	// IsError is true.
	Outcome Outcome
	// OutcomeAny, when `outcome` is a list, accepts any of these classes
	// (Outcome is then empty).
	OutcomeAny []Outcome
	// Fidelity checks a successful result for what a flag cannot show: a
	// refusal disguised as success, or empty content; an echo mismatch is a
	// note. Outcomes other than ok and output_invalid are notes too (the
	// call's input may just be unrealistic).
	Fidelity bool
	// Absent demands that the call no longer returns this value (a deleted
	// resource's id): the outcome is ok, tool_error or protocol_error, and an
	// ok result does not contain it. It may hold $ref markers.
	Absent *Value
	// ErrorCode demands this JSON-RPC error code (with outcome protocol_error).
	ErrorCode *int64
	// Snapshot compares the step's result with its stored golden answer.
	Snapshot bool
	// Unchanged names an earlier observe step of the scenario: after the
	// call, the state observed again must equal it (what moved between
	// its two reads ignored), except under the ChangedOnly places
	// ("SOURCE#/pointer": a tool's name or a resource's URI, then a JSON
	// Pointer into its answer; "SOURCE" alone is all of it).
	Unchanged   string
	ChangedOnly []string
	// MaxDurationMs fails the step when the call took longer.
	MaxDurationMs int
	// Pos of the expect block (of the step when it has none).
	Pos Pos
}

// TextExpect is what must hold of a text; every check that is set must.
// A fixture's `text: STRING` sets Equals only.
type TextExpect struct {
	// Equals, when set, is the whole text.
	Equals *string
	// Contains are strings the text must contain, NotContains strings it
	// must not.
	Contains, NotContains []string
	// Matches, when set, must match somewhere in the text (RE2).
	Matches *regexp.Regexp
	Pos     Pos
}

// JSONExpect is what must hold of a JSON value: the whole result
// (expect.result) or the text parsed as JSON (expect.textJSON). Every check
// that is set must hold.
type JSONExpect struct {
	// Equals demands deep equality, like structuredEquals.
	Equals *Value
	// Includes demands a recursive object subset, like structuredIncludes.
	Includes *Value
	// Paths maps gjson paths to the value each must find, like
	// structuredPaths.
	Paths map[string]*Value
	// Schema demands validity against an inline JSON Schema (the result
	// only).
	Schema *JSONSchema
	Pos    Pos
}

// NotificationExpect demands notifications with a method (and params) sent
// while the step was in flight.
type NotificationExpect struct {
	Method string
	// Params, when set, must be included in a notification's params for it
	// to count (recursive object subset; matchers allowed).
	Params *Value
	// Count is how many must match: a json.Number (exactly that many) or a
	// *Matcher. Nil means at least one.
	Count *Value
	Pos   Pos
}

// Await is the notification an await step waits for.
type Await struct {
	// Method is the notification's method.
	Method string
	// Params, when set, must be included in the notification's params
	// (recursive object subset; matchers allowed).
	Params *Value
	// TimeoutMs bounds the wait; 0 means the step's time limit.
	TimeoutMs int
	Pos       Pos
}

// Client is the fixture's client block.
type Client struct {
	// Roots are declared and returned for roots/list.
	Roots []Root
	// Sampling, when set, declares sampling and answers every
	// sampling/createMessage; Elicitation likewise for elicitation/create.
	Sampling    *Sampling
	Elicitation *Elicitation
	Pos         Pos
}

// Root is one root the client offers.
type Root struct{ URI, Name string }

// Sampling is the answer to every sampling/createMessage.
type Sampling struct{ Text, Model, StopReason string }

// Elicitation is the answer to every elicitation/create: the action
// (accept, decline, cancel) and, with accept, the form's content.
type Elicitation struct {
	Action  string
	Content map[string]any
}

// Value is a decoded JSON value from a fixture (see [Step.Arguments] for the
// Go types used), with the position it was written at. A Value whose V is nil
// stands for JSON null. V is read-only, and may be shared with other steps'
// values like Step.Arguments.
type Value struct {
	V   any
	Pos Pos
}

// Generate configures the generated checks (the fixture's `generate` block,
// or quick mode's flags).
type Generate struct {
	Fuzz      bool // schema-derived valid, missing-required and wrong-type calls
	Fidelity  bool // disguised refusals, empty success, output validity, echo
	Probes    bool // latency, response size and token estimate of the valid calls
	Lifecycle bool // create → read → delete → stale read, on groups found by name
	// Protocol sends the server's MCP layer raw JSON-RPC it must survive
	// (null arguments, unknown methods, malformed JSON, batches, bad
	// headers, ...), each followed by an observer call.
	Protocol bool
	// Behaviour verifies the tools' annotations by what their calls do
	// to the server's observed state (read-only tools always; the others
	// with IncludeDestructive or when allowTools names them).
	Behaviour bool
	// FuzzCases bounds the bad-input cases per tool (default 30), chosen
	// by Seed when a schema yields more.
	FuzzCases int
	// LifecycleGroups are explicit groups for servers whose tool names do
	// not follow create_X/get_X/delete_X.
	LifecycleGroups []LifecycleGroup
	// Concurrency, when > 1, calls each tool's valid case on that many
	// independent connections at once, and checks for crossed responses on
	// one session.
	Concurrency int
	// IncludeDestructive lifts the default: only tools annotated
	// readOnlyHint: true are generated against.
	IncludeDestructive bool
	// NoOfferedInputs turns off the offered inputs (offeredInputs: false,
	// --no-offered-inputs): by default the runner calls the allowed
	// argument-free read-only tools once before generating and uses the
	// ids, directories and URIs they answer as arguments.
	NoOfferedInputs bool
	Seed            int64
	// Probe thresholds (defaults 5000 ms and 20000 characters) and an
	// optional model for a price estimate.
	SlowThresholdMs     int
	BloatThresholdChars int
	PriceModel          string
	// FailUnder maps a score to the lowest acceptable percentage.
	FailUnder map[ScoreName]float64
	Pos       Pos
}

// LifecycleGroup is an explicit create/read/delete trio. Read and Delete
// arguments refer to the created resource with $ref markers into the step
// "create" (e.g. {$ref: "create#/structuredContent/entities/0/name"}), and
// IDPointer says where in the create result the resource's id is, for the
// stale-read check.
type LifecycleGroup struct {
	Name      string
	Create    Call
	Read      Call
	Delete    Call
	IDPointer string
	Pos       Pos
}

// Call is one tool call of a lifecycle group.
type Call struct {
	Tool      string
	Arguments map[string]any
	Pos       Pos
}

// AllowsTool reports whether AllowTools lets steps and generation call the
// named tool: nil allows every tool, a list only its members.
func (s *Suite) AllowsTool(name string) bool {
	return s.AllowTools == nil || slices.Contains(s.AllowTools, name)
}
