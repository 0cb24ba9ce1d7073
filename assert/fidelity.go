package assert

import (
	"fmt"
	"strings"

	"github.com/mcpcheck/mcpcheck/config"
)

// Fidelity judges whether a successful result is a genuine answer (the
// mcp-reality-check questions): not a refusal disguised as success, not
// empty, not in breach of the tool's own outputSchema. What a single call
// cannot settle is a note, not a failure: an answer that repeats none of
// the input strings (an echo mismatch), and a call that did not succeed at
// all (the input may just be unrealistic). A result that honestly says
// isError is never faulted. An empty success (no content, no
// structuredContent) is a failure where a read was expected (a resource, a
// prompt, a tool annotated read-only or declaring an outputSchema), and
// nothing to judge otherwise ([Result.MayBeEmpty]: a side effect).
type Fidelity struct{}

func buildFidelity(e *config.Expect) Checker {
	if !e.Fidelity {
		return nil
	}
	return &Fidelity{}
}

// emptyWhy says why an empty success was a read that came back with
// nothing: what the rule that lets side effects answer empty found.
func emptyWhy(r *Result) string {
	if r.Kind != config.KindTool {
		return ""
	}
	return " (a read was expected: the tool is annotated read-only or declares an outputSchema)"
}

// maxSaid bounds how much of a refusal's own words a note repeats.
const maxSaid = 200

// serverSaid repeats the start of the server's own words (said) for a
// message: "; the server said: ..." ("" when it said nothing).
func serverSaid(said string) string {
	said = strings.TrimSpace(said)
	if said == "" {
		return ""
	}
	if n := []rune(said); len(n) > maxSaid {
		said = string(n[:maxSaid]) + "…"
	}
	return fmt.Sprintf("; the server said: %q", said)
}

// Kind implements [Checker].
func (c *Fidelity) Kind() KindName { return KindFidelity }

// Check implements [Checker].
func (c *Fidelity) Check(r *Result) []Failure {
	switch r.Outcome {
	case config.OutcomeOK:
	case config.OutcomeOutputInvalid:
		return []Failure{{Kind: c.Kind(), Message: "structuredContent breaks the tool's own outputSchema"}}
	case config.OutcomeToolError, config.OutcomeProtocolError:
		msg := fmt.Sprintf("the call with realistic arguments got %s; possibly a synthetic-input false positive, not a confirmed bug", r.Outcome)
		if r.PlainOfTaskOnly {
			msg = fmt.Sprintf("the call got %s because it was called without task augmentation: the tool's execution.taskSupport is \"required\" (basic/utilities/tasks: the server MUST refuse a plain call), and it was not called as a task here (the server does not declare tasks.requests.tools.call, or the protocol era has no tasks in mcpcheck yet)", r.Outcome)
		}
		said := r.Text
		if r.Outcome == config.OutcomeProtocolError {
			said = r.ErrorText
		}
		return []Failure{{Kind: c.Kind(), Note: true, Message: msg + serverSaid(said)}}
	default:
		return []Failure{{Kind: c.Kind(), Note: true, Message: fmt.Sprintf("the call with realistic arguments ended in %s", r.Outcome)}}
	}
	if !r.HasContent && !r.HasStructured {
		if r.MayBeEmpty {
			// A side effect's honest answer: nothing more to judge.
			return nil
		}
		return []Failure{{Kind: c.Kind(), Message: "empty content on success" + emptyWhy(r)}}
	}
	if r.DeclaredMIME != "" {
		for _, m := range r.MIMETypes {
			if m != "" && m != r.DeclaredMIME {
				return []Failure{{Kind: c.Kind(), Message: fmt.Sprintf("the contents are %s where the listing declares %s", m, r.DeclaredMIME),
					Expected: r.DeclaredMIME, HasExpected: true, Actual: m, HasActual: true}}
			}
		}
	}
	if phrase, ok := Refusal(r.Text); ok {
		return []Failure{{Kind: c.Kind(), Message: fmt.Sprintf("a refusal disguised as success (%q)", phrase)}}
	}
	if r.Kind == config.KindTool {
		if f, ok := errorAsSuccess(r); ok {
			return []Failure{f}
		}
	}
	if checked, mismatch := EchoMismatch(r.Arguments, r.Text+" "+jsonText(r.Structured)); checked && mismatch {
		return []Failure{{Kind: c.Kind(), Note: true, Message: "the answer mentions none of the input strings (echo mismatch; worth a look, not scored)"}}
	}
	return nil
}
