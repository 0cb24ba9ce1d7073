package runner

import (
	"encoding/json"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/runner/internal/golden"
)

// ChildEnv is the environment mcpcheck gives a stdio server it starts: the
// base variables (PATH, HOME, LANG, ...) of environ (nil: os.Environ())
// and extra on top; nothing else of the caller's environment.
func ChildEnv(environ []string, extra map[string]string) []string {
	return childEnv(&config.Suite{Env: extra}, newEnviron(environ), &secrets{})
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

// Redactor returns the function every output of a run passes its strings
// through: [Sanitize], then each of secrets replaced by [Redacted] (see
// "What is a secret" in redact.go).
func Redactor(secrets []Secret) func(string) string {
	return newRedactor(secrets, "").String
}
