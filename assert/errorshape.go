package assert

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
)

// An error reported as success is a tool result without isError whose
// answer reads as an error: the client (and the model behind it) takes it
// for data. [ErrorShaped] tells the shapes apart by how sure they are,
// since a genuine answer may talk about errors (a job's status, a log
// line, a lookup that found nothing):
//
//   - unmistakable (a finding): structuredContent, or text that is one
//     JSON object, whose members are only an error envelope's: "error"
//     (a non-empty string or an object) and at most "code", "status",
//     "statusCode", "message", "details", "type", "success": false; text
//     that begins with "Error:"; a stack trace (a Python traceback, a Go
//     panic with its goroutine, two or more JavaScript/Java "at" frames);
//   - possible (a note): an "error" member beside members of the answer
//     itself; text whose first sentence says that something was "not
//     found", "does not exist" or that there is "no such" thing (an empty
//     search may say so honestly).
//
// Words are matched on the answer's own text. An answer to arguments that
// ask for an error (a value that says "error", as server-everything's
// get-annotated-message {messageType: "error"} does) is what was asked
// for, and is not judged.

// envelopeMembers are the members an error envelope has beside "error".
var envelopeMembers = map[string]bool{
	"error": true, "code": true, "status": true, "statusCode": true, "message": true,
	"details": true, "type": true, "success": true,
}

// maxShapeJSON bounds the text that is parsed as JSON to look for an error
// envelope: a larger answer is data, not an error body.
const maxShapeJSON = 64 << 10

var (
	stackTrace = regexp.MustCompile(`(?m)^Traceback \(most recent call last\):|^goroutine \d+ \[[a-z ]+\]:|^panic: `)
	atFrame    = regexp.MustCompile(`(?m)^\s+at \S.*(\(.*:\d+(:\d+)?\)|:\d+(:\d+)?)\s*$`)
	notFound   = regexp.MustCompile(`(?i)\b(not found|does not exist|doesn't exist|no such)\b`)
)

// ErrorShaped reports whether a successful tool result's answer (its
// text and decoded structuredContent, nil when absent) reads as an error,
// what it is (a few words, for the report) and whether the shape is
// unmistakable (sure) or only possible.
func ErrorShaped(text string, structured any) (what string, sure, ok bool) {
	if what, sure, ok := errorMember(structured, "structuredContent"); ok {
		return what, sure, true
	}
	t := strings.TrimSpace(text)
	if t == "" {
		return "", false, false
	}
	if t[0] == '{' && len(t) <= maxShapeJSON {
		var v any
		d := json.NewDecoder(strings.NewReader(t))
		d.UseNumber()
		if d.Decode(&v) == nil && !d.More() {
			if what, sure, ok := errorMember(v, "the text, a JSON object,"); ok {
				return what, sure, true
			}
		}
	}
	switch {
	case strings.HasPrefix(t, "Error:") || strings.HasPrefix(t, "ERROR:") || strings.HasPrefix(t, "error:"):
		return `the text begins with "Error:"`, true, true
	case stackTrace.MatchString(t) || len(atFrame.FindAllStringIndex(t, 3)) >= 2:
		return "the text holds a stack trace", true, true
	}
	if m := notFound.FindString(firstSentence(t)); m != "" {
		return `the text says "` + strings.ToLower(m) + `"`, false, true
	}
	return "", false, false
}

// errorMember judges an object with an "error" member; where names the
// value in the report's words.
func errorMember(v any, where string) (what string, sure, ok bool) {
	obj, isObj := v.(map[string]any)
	if !isObj {
		return "", false, false
	}
	e, has := obj["error"]
	if !has || !errorValue(e) {
		return "", false, false
	}
	if s, ok := obj["success"]; ok && s != false {
		return "", false, false // an answer that says it succeeded
	}
	for k := range obj {
		if !envelopeMembers[k] {
			return where + ` has an "error" member beside the answer's own`, false, true
		}
	}
	return where + ` is an error object ("error" and no answer)`, true, true
}

// errorValue reports whether an "error" member holds an error: a
// non-empty string, or an object with something in it (null, false, ""
// and {} say there was none).
func errorValue(e any) bool {
	switch x := e.(type) {
	case string:
		return strings.TrimSpace(x) != ""
	case map[string]any:
		return len(x) > 0
	}
	return false
}

// firstSentence is text up to its first line break or sentence end (at
// most 300 bytes): "not found" in the body of a long answer is content.
func firstSentence(t string) string {
	if i := strings.IndexAny(t, "\n"); i >= 0 {
		t = t[:i]
	}
	if i := strings.Index(t, ". "); i >= 0 {
		t = t[:i]
	}
	if len(t) > 300 {
		t = t[:300]
	}
	return t
}

// errorAsSuccess is fidelity's verdict on an error-shaped answer: a
// failure where the shape is unmistakable, else a note. It repeats the
// start of the server's own words.
func errorAsSuccess(r *Result) (Failure, bool) {
	var structured any
	if r.HasStructured {
		structured = r.Structured
	}
	what, sure, ok := ErrorShaped(r.Text, structured)
	if !ok || askedForError(r.Arguments, 0) {
		return Failure{}, false
	}
	msg := "an error reported as success (isError false): " + what + serverSaid(r.Text)
	if !sure {
		msg += " (worth a look, not scored)"
	}
	return Failure{Kind: KindFidelity, Note: !sure, Message: msg}, true
}

// askedForError reports whether any string in the arguments says "error".
func askedForError(v any, depth int) bool {
	if depth > maxEchoDepth {
		return false
	}
	switch x := v.(type) {
	case string:
		return strings.Contains(strings.ToLower(x), "error")
	case map[string]any:
		for _, e := range x {
			if askedForError(e, depth+1) {
				return true
			}
		}
	case []any:
		return slices.ContainsFunc(x, func(e any) bool { return askedForError(e, depth+1) })
	}
	return false
}
