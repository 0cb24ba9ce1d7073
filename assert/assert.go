package assert

import (
	"time"

	"github.com/mcpcheck/mcpcheck/config"
)

// Result is what checkers see of one step's answer.
type Result struct {
	// Kind is the step's kind (tool, resource, prompt, ...).
	Kind config.StepKind
	// Outcome is the call's outcome class.
	Outcome config.Outcome
	// ErrorCode is the JSON-RPC error code when Outcome is protocol_error,
	// and ErrorText its message.
	ErrorCode *int64
	ErrorText string
	// PlainOfTaskOnly: a tool whose execution.taskSupport is "required"
	// was called without task augmentation (its refusal is the spec's
	// answer, not a defect of the input).
	PlainOfTaskOnly bool
	// HasResult reports whether a result arrived (for a tool step the
	// outcomes ok, tool_error and output_invalid; for the other kinds ok).
	HasResult bool
	// Whole is the whole JSON-RPC result, decoded (generic JSON with
	// json.Number numbers): {content, structuredContent, isError} for a tool,
	// {contents} for a resource, {messages} for a prompt, {completion}, the
	// merged {tools|resources|resourceTemplates|prompts} of a list, {} for
	// ping and setLogLevel, and {method, params} of the notification an
	// await step received. Nil when no result arrived.
	Whole any
	// WholeRaw is the whole result as the server sent it, when known:
	// result.paths runs its gjson queries on it (on Whole marshalled to
	// JSON when it is nil).
	WholeRaw []byte
	// IsError is the result's isError flag.
	IsError bool
	// Structured is the decoded structuredContent (generic JSON with
	// json.Number numbers); HasStructured tells absent from null.
	Structured    any
	HasStructured bool
	// StructuredRaw is structuredContent as the server sent it, when known
	// (path queries run on it).
	StructuredRaw []byte
	// Duration is the call's wall time.
	Duration time.Duration
	// Text is the answer's text joined by newlines: a tool result's text
	// content, a prompt's messages' text, a resource's contents' text.
	// HasContent reports whether the result had any content item at all.
	Text       string
	HasContent bool
	// Notifications are the server's notifications that arrived while the
	// step was in flight, in arrival order (progress notifications only
	// those carrying the step's own progress token).
	Notifications []Notification
	// Arguments are the arguments the call was made with (for checks that
	// compare the answer with the question).
	Arguments map[string]any
	// MIMETypes are the mimeTypes a resource's contents carry, and
	// DeclaredMIME the one its listing declares ("" when not known).
	MIMETypes    []string
	DeclaredMIME string
	// Absent is the resolved value of expect.absent (its $refs replaced).
	Absent any
}

// Notification is one notification from the server: its method and its
// params (generic JSON with json.Number numbers; nil when it had none).
type Notification struct {
	Method string
	Params any
}

// Failure is one mismatch between an expectation and the answer.
type Failure struct {
	// Kind is the expectation kind (the fixture key), e.g. KindStructuredEquals.
	Kind KindName
	// Path is an RFC 6901 JSON Pointer into the value the kind checks
	// (structuredContent, the whole result, the text parsed as JSON; "" is
	// the whole value), or for path queries the gjson path as written,
	// then a pointer below it; empty for kinds that are not about a value.
	Path string
	// Message says what is wrong without showing any result value, so it is
	// safe for the JSON report.
	Message string
	// Expected and Actual are the values at Path (generic JSON), for the
	// human report only. HasActual is false when the path is absent.
	Expected, Actual any
	HasExpected      bool
	HasActual        bool
	// Note marks an observation worth a look rather than a failure: it
	// flags the step but does not fail it.
	Note bool
}

// Checker checks one expectation.
type Checker interface {
	// Kind is the fixture key of the expectation.
	Kind() KindName
	// Check returns the mismatches; none means the expectation holds.
	Check(r *Result) []Failure
}

// Kind is one entry of the registry: the fixture key of an expectation kind
// and how to build its checker from an Expect (nil when the expectation is
// not set).
type Kind struct {
	Name  KindName
	Build func(e *config.Expect) Checker
	// Pos is where the expectation is written, when it knows better than
	// the expect block's position.
	Pos func(e *config.Expect) config.Pos
}

// KindName names an expectation kind: its key under `expect` in a fixture,
// and an assertion's kind in the report.
type KindName string

// The expectation kinds, in the registry's order (the report schema's
// assertion kind enum).
const (
	KindOutcome            KindName = "outcome"
	KindIsError            KindName = "isError"
	KindErrorCode          KindName = "errorCode"
	KindStructuredEquals   KindName = "structuredEquals"
	KindStructuredIncludes KindName = "structuredIncludes"
	KindStructuredPaths    KindName = "structuredPaths"
	KindStructuredSchema   KindName = "structuredSchema"
	KindText               KindName = "text"
	KindTextJSON           KindName = "textJSON"
	KindResult             KindName = "result"
	KindNotifications      KindName = "notifications"
	KindMaxDuration        KindName = "maxDurationMs"
	KindFidelity           KindName = "fidelity"
	KindAbsent             KindName = "absent"
	KindSnapshot           KindName = "snapshot"
	KindUnchanged          KindName = "unchanged"
	KindChangedOnly        KindName = "changedOnly"
)

// Kinds is the registry of expectation kinds, one per key of `expect` in
// schemas/fixture.schema.json. A test keeps the two in step.
var Kinds = []Kind{
	{KindOutcome, buildOutcome, nil},
	{KindIsError, func(*config.Expect) Checker { return nil }, nil}, // folded into the outcome check
	{KindErrorCode, buildErrorCode, nil},
	{KindStructuredEquals, buildEquals, func(e *config.Expect) config.Pos { return valuePos(e.StructuredEquals) }},
	{KindStructuredIncludes, buildIncludes, func(e *config.Expect) config.Pos { return valuePos(e.StructuredIncludes) }},
	{KindStructuredPaths, buildPaths, nil},
	{KindStructuredSchema, buildStructuredSchema, func(e *config.Expect) config.Pos {
		if e.StructuredSchema != nil {
			return e.StructuredSchema.Pos
		}
		return config.Pos{}
	}},
	{KindText, buildText, func(e *config.Expect) config.Pos {
		if e.Text != nil {
			return e.Text.Pos
		}
		return config.Pos{}
	}},
	{KindTextJSON, buildTextJSON, func(e *config.Expect) config.Pos {
		if e.TextJSON != nil {
			return e.TextJSON.Pos
		}
		return config.Pos{}
	}},
	{KindResult, buildResult, func(e *config.Expect) config.Pos {
		if e.Result != nil {
			return e.Result.Pos
		}
		return config.Pos{}
	}},
	{KindNotifications, buildNotifications, nil},
	{KindMaxDuration, buildMaxDuration, nil},
	{KindFidelity, buildFidelity, nil},
	{KindAbsent, buildAbsent, func(e *config.Expect) config.Pos { return valuePos(e.Absent) }},
	// The stored answer is the runner's to load; it compares with Snapshot.
	{KindSnapshot, func(*config.Expect) Checker { return nil }, nil},
	// The state is the runner's to observe again; it compares with
	// runner/internal/observe (changedOnly qualifies unchanged).
	{KindUnchanged, func(*config.Expect) Checker { return nil }, nil},
	{KindChangedOnly, func(*config.Expect) Checker { return nil }, nil},
}

func valuePos(v *config.Value) config.Pos {
	if v == nil {
		return config.Pos{}
	}
	return v.Pos
}

// Position is where the expectation of kind is written in the fixture:
// its value when known, else the expect block (zero for generated steps).
func Position(e *config.Expect, kind KindName) config.Pos {
	for _, k := range Kinds {
		if k.Name == kind && k.Pos != nil {
			if p := k.Pos(e); p.Line > 0 {
				return p
			}
		}
	}
	return e.Pos
}

// Build returns the checkers of e, outcome first. The outcome check is always
// present: a step expects `ok` unless it says otherwise.
func Build(e *config.Expect) []Checker {
	var out []Checker
	for _, k := range Kinds {
		if c := k.Build(e); c != nil {
			out = append(out, c)
		}
	}
	return out
}

// ExpectedOutcomes are the outcome classes e accepts: its `outcome` (one
// or a list), else tool_error when `isError: true`, else ok.
func ExpectedOutcomes(e *config.Expect) []config.Outcome {
	switch {
	case len(e.OutcomeAny) > 0:
		return e.OutcomeAny
	case e.Outcome != "":
		return []config.Outcome{e.Outcome}
	case e.IsError != nil && *e.IsError:
		return []config.Outcome{config.OutcomeToolError}
	default:
		return []config.Outcome{config.OutcomeOK}
	}
}
