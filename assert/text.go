package assert

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/internal/safetext"
)

// Text checks the answer's text (expect.text): the text blocks of a tool
// result, a prompt's messages or a resource's contents, joined with "\n".
// Every check that is set must hold. Messages quote the expected strings,
// which come from the fixture, and never the text.
type Text struct {
	Equals                *string
	Contains, NotContains []string
	Matches               *regexp.Regexp
}

func buildText(e *config.Expect) Checker {
	if e.Text == nil {
		return nil
	}
	t := e.Text
	return &Text{Equals: t.Equals, Contains: t.Contains, NotContains: t.NotContains, Matches: t.Matches}
}

// Kind implements [Checker].
func (c *Text) Kind() KindName { return KindText }

// Check implements [Checker].
func (c *Text) Check(r *Result) []Failure {
	if !r.HasResult {
		return nil // the outcome check says why there is none
	}
	var out []Failure
	fail := func(msg string, want any) {
		out = append(out, Failure{Kind: c.Kind(), Message: msg, Expected: want, HasExpected: true, Actual: r.Text, HasActual: true})
	}
	if c.Equals != nil && *c.Equals != r.Text {
		fail(textDiff(*c.Equals, r.Text), *c.Equals)
	}
	for _, s := range c.Contains {
		if !strings.Contains(r.Text, s) {
			fail("does not contain "+quote(s), s)
		}
	}
	for _, s := range c.NotContains {
		if strings.Contains(r.Text, s) {
			fail("contains "+quote(s)+", which it must not", s)
		}
	}
	if c.Matches != nil && !c.Matches.MatchString(r.Text) {
		fail("does not match the regular expression "+quote(c.Matches.String()), c.Matches.String())
	}
	return out
}

// textDiff says where got first differs from want, in characters (the
// position, not the text, so the message shows no answer).
func textDiff(want, got string) string {
	i, n := 0, 0 // bytes and characters in common
	for i < len(want) && i < len(got) {
		rw, sw := utf8.DecodeRuneInString(want[i:])
		rg, sg := utf8.DecodeRuneInString(got[i:])
		if rw != rg || sw != sg {
			break
		}
		i += sw
		n++
	}
	switch {
	case i == len(got):
		return fmt.Sprintf("the text ends after %d characters, before the expected text does", n)
	case i == len(want):
		return fmt.Sprintf("the text goes on after the expected %d characters", n)
	}
	return fmt.Sprintf("the text differs from the expected text at character %d", n+1)
}

// quote renders a string from the fixture for a message, on one line and
// cut short when long.
var quote = safetext.Quote

// TextJSON parses the answer's text as JSON, numbers exact, and checks the
// value (expect.textJSON): equality, a recursive subset, gjson paths.
// Text that is not exactly one JSON value fails with where it broke.
type TextJSON struct{ jsonChecks }

func buildTextJSON(e *config.Expect) Checker {
	if e.TextJSON == nil {
		return nil
	}
	return &TextJSON{newJSONChecks(e.TextJSON)}
}

// Kind implements [Checker].
func (c *TextJSON) Kind() KindName { return KindTextJSON }

// Check implements [Checker].
func (c *TextJSON) Check(r *Result) []Failure {
	if !r.HasResult {
		return nil
	}
	v, why := parseJSONText(r.Text)
	if why != "" {
		return []Failure{{Kind: c.Kind(), Message: why, Actual: r.Text, HasActual: true}}
	}
	return c.check(c.Kind(), v, []byte(r.Text))
}

// parseJSONText decodes text that must be one JSON value (whitespace
// around it allowed), or says where it is not.
func parseJSONText(text string) (any, string) {
	if strings.TrimSpace(text) == "" {
		return nil, "the text is empty, not JSON"
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		var se *json.SyntaxError
		switch {
		case errors.Is(err, io.ErrUnexpectedEOF) || (errors.As(err, &se) && int(se.Offset) >= len(strings.TrimRight(text, " \t\r\n"))):
			return nil, "the text is not JSON: it ends in the middle of a value"
		case errors.As(err, &se):
			// Offset counts the bytes read, the offending one included.
			return nil, "the text is not JSON: unexpected input at " + textPos(text, int(se.Offset)-1)
		}
		return nil, "the text is not JSON"
	}
	off := int(dec.InputOffset())
	rest := text[off:]
	if trimmed := strings.TrimLeft(rest, " \t\r\n"); trimmed != "" {
		return nil, "the text is not one JSON value: more follows it at " + textPos(text, off+len(rest)-len(trimmed))
	}
	return v, ""
}

// textPos renders a byte offset in text as "byte N (line L, column C)",
// columns counting characters.
func textPos(text string, off int) string {
	off = min(max(off, 0), len(text))
	before := text[:off]
	line := strings.Count(before, "\n") + 1
	col := utf8.RuneCountInString(before[strings.LastIndexByte(before, '\n')+1:]) + 1
	return fmt.Sprintf("byte %d (line %d, column %d)", off, line, col)
}
