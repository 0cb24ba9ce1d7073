package assert

import (
	"time"

	"github.com/mcpcheck/mcpcheck/config"
)

// Result is what checkers see of one step's answer.
type Result struct {
	// Outcome is the call's outcome class.
	Outcome config.Outcome
	// ErrorCode is the JSON-RPC error code when Outcome is protocol_error.
	ErrorCode *int64
	// HasResult reports whether a tools/call result arrived (outcomes ok,
	// tool_error and output_invalid).
	HasResult bool
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
	// Text is the result's text content joined by newlines; HasContent
	// reports whether the result had any content item at all.
	Text       string
	HasContent bool
	// Arguments are the arguments the call was made with (for checks that
	// compare the answer with the question).
	Arguments map[string]any
	// Absent is the resolved value of expect.absent (its $refs replaced).
	Absent any
}

// Failure is one mismatch between an expectation and the answer.
type Failure struct {
	// Kind is the expectation kind (the fixture key), e.g. "structuredEquals".
	Kind string
	// Path is an RFC 6901 JSON Pointer into structuredContent ("" is the whole
	// value); empty for kinds that are not about structured content.
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
	Kind() string
	// Check returns the mismatches; none means the expectation holds.
	Check(r *Result) []Failure
}

// Kind is one entry of the registry: the fixture key of an expectation kind
// and how to build its checker from an Expect (nil when the expectation is
// not set).
type Kind struct {
	Name  string
	Build func(e *config.Expect) Checker
}

// Kinds is the registry of expectation kinds, one per key of `expect` in
// schemas/fixture.schema.json. A test keeps the two in step.
var Kinds = []Kind{
	{"outcome", buildOutcome},
	{"isError", func(*config.Expect) Checker { return nil }}, // folded into the outcome check
	{"errorCode", buildErrorCode},
	{"structuredEquals", buildEquals},
	{"structuredIncludes", buildIncludes},
	{"structuredPaths", buildPaths},
	{"maxDurationMs", buildMaxDuration},
	{"fidelity", buildFidelity},
	{"absent", buildAbsent},
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

// Failed reports whether any failure is not a note.
func Failed(fs []Failure) bool {
	for _, f := range fs {
		if !f.Note {
			return true
		}
	}
	return false
}
