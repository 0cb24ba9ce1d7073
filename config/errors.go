package config

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrInvalid is what every fixture, environment and flag problem unwraps to:
// `errors.Is(err, config.ErrInvalid)` tells "the user's input is wrong" from
// "the file could not be read" ([ErrFile]).
var ErrInvalid = errors.New("invalid fixture")

// ErrFile is what an error unwraps to when the fixture file could not be read
// at all (missing, a directory, permission denied). The underlying error from
// the os package is kept, so `errors.Is(err, fs.ErrNotExist)` works too.
var ErrFile = errors.New("fixture file unreadable")

// maxErrors caps how many problems one load reports. Past that the list ends
// with a line saying how many more there were: a fixture with hundreds of
// mistakes is usually one mistake repeated.
const maxErrors = 20

// Error is one problem in a fixture, in the environment or on the command
// line. Pos names the place in the fixture. A problem with a value that came
// from outside the file has no place: Setting names the setting (its
// fixture key, dotted below generate) and Env the variable it came from, or
// "" when it came from the command line, whose flag names the caller knows.
type Error struct {
	Pos     Pos
	Setting string
	Env     string
	Msg     string
}

// Error renders the problem as `file:line:col: msg`, `VARIABLE: msg` or
// `setting KEY: msg`.
func (e *Error) Error() string {
	switch {
	case e.Pos != (Pos{}):
		return e.Pos.String() + ": " + e.Msg
	case e.Env != "":
		return e.Env + ": " + e.Msg
	case e.Setting != "":
		return "setting " + e.Setting + ": " + e.Msg
	}
	return e.Msg
}

// Unwrap makes every Error match [ErrInvalid].
func (e *Error) Unwrap() error { return ErrInvalid }

// Errors is every problem found in one load, sorted by position (problems
// without a position, from the environment or flags, first). A load that
// fails validation returns a non-empty Errors.
type Errors []*Error

// Error renders one problem per line.
func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap exposes the single problems, so both `errors.Is(err, ErrInvalid)`
// and `errors.As(err, &e)` with `e *config.Error` work.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// fileError is a fixture file that could not be read.
type fileError struct {
	path string
	err  error
}

func (e *fileError) Error() string   { return "loading " + e.path + ": " + e.err.Error() }
func (e *fileError) Unwrap() []error { return []error{ErrFile, e.err} }

// errList collects problems while a fixture is checked.
type errList struct {
	errs Errors
	// file is where the positions of the tree being checked are (see at).
	file string
}

// at records a problem at a place in the file being checked.
func (l *errList) at(pos loc, format string, args ...any) {
	l.add(pos.in(l.file), format, args...)
}

func (l *errList) add(pos Pos, format string, args ...any) {
	l.errs = append(l.errs, &Error{Pos: pos, Msg: oneLine(format, args)})
}

// addSetting records a problem with a setting's value from the environment
// variable env, or from the command line when env is "".
func (l *errList) addSetting(key, env, format string, args ...any) {
	l.errs = append(l.errs, &Error{Setting: key, Env: env, Msg: oneLine(format, args)})
}

func oneLine(format string, args []any) string {
	msg := fmt.Sprintf(format, args...)
	// Values from the input are quoted where they are put in a message; this
	// is the last guard that keeps every problem on one line.
	return strings.NewReplacer("\r", `\r`, "\n", `\n`).Replace(msg)
}

func (l *errList) empty() bool { return len(l.errs) == 0 }

// err returns the collected problems sorted, without duplicates and capped
// at maxErrors, or nil when there are none.
func (l *errList) err() error {
	if len(l.errs) == 0 {
		return nil
	}
	es := slices.Clone(l.errs)
	slices.SortStableFunc(es, func(a, b *Error) int {
		return cmp.Or(
			cmp.Compare(a.Pos.File, b.Pos.File),
			cmp.Compare(a.Pos.Line, b.Pos.Line),
			cmp.Compare(a.Pos.Col, b.Pos.Col),
			cmp.Compare(a.Env, b.Env),
			cmp.Compare(a.Setting, b.Setting),
			cmp.Compare(a.Msg, b.Msg),
		)
	})
	es = slices.CompactFunc(es, func(a, b *Error) bool { return *a == *b })
	if len(es) > maxErrors {
		more := len(es) - maxErrors
		noun := "problems"
		if more == 1 {
			noun = "problem"
		}
		es = append(es[:maxErrors:maxErrors], &Error{Pos: es[maxErrors].Pos, Msg: fmt.Sprintf("%d more %s not shown", more, noun)})
	}
	return es
}
