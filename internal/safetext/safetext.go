// Package safetext makes a string from a server, a fixture or a file safe
// to print: control characters shown as escapes (Sanitize) and long values
// cut with a visible marker (Cut, Clean). Every output of mcpcheck goes
// through it; redaction is the runner's (runner/redact.go).
package safetext

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Sanitize makes s safe to print anywhere, by one rule: a control
// character is shown as an escape, never acted on or dropped.
//
//   - C0 controls other than tab and newline, and DEL, become the escape
//     Go's %q writes: \a \b \f \r \v, else \xHH (ESC is \x1b);
//   - each byte of invalid UTF-8 becomes \xHH;
//   - C1 controls (U+0080..U+009F, which some terminals take as ESC
//     sequences), the bidirectional overrides and isolates (U+202A..U+202E,
//     U+2066..U+2069) and the line and paragraph separators (U+2028,
//     U+2029) become \uHHHH.
//
// Everything else, backslashes included, is kept, so Sanitize is
// idempotent: its output only holds printable characters, tab and newline.
func Sanitize(s string) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' && c != '\n' || c == 0x7f {
				break
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || unsafeRune(r) {
			break
		}
		i += n
	}
	if i == len(s) {
		return s // the common case: nothing to show
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' && c != '\n' || c == 0x7f {
				writeControl(&b, c)
			} else {
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, c)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// writeControl writes the escape of the ASCII control c.
func writeControl(b *strings.Builder, c byte) {
	switch c {
	case '\a':
		b.WriteString(`\a`)
	case '\b':
		b.WriteString(`\b`)
	case '\f':
		b.WriteString(`\f`)
	case '\r':
		b.WriteString(`\r`)
	case '\v':
		b.WriteString(`\v`)
	default:
		fmt.Fprintf(b, `\x%02x`, c)
	}
}

// unsafeRune reports a non-ASCII rune that Sanitize shows as an escape.
func unsafeRune(r rune) bool {
	return r >= 0x80 && r <= 0x9f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x2028 || r == 0x2029
}

// Quote renders s for a one-line message, as config and assert quote the
// names and strings of a fixture: Go-quoted (so escaped), and cut to 57
// characters and "..." when it is longer than 60.
func Quote(s string) string {
	if utf8.RuneCountInString(s) > 60 {
		r := []rune(s)
		return strconv.Quote(string(r[:57])) + "..."
	}
	return strconv.Quote(s)
}

// Clean is s sanitized and cut to at most max characters for a human
// report: a longer string ends with a visible marker saying how much was
// left out. It does not redact: the report it reads from already is.
func Clean(s string, max int) string {
	return Cut(Sanitize(s), max)
}

// Cut shortens s to at most max runes, its end replaced by a marker
// saying how much was left out ("… (N more characters)"). The result is
// never longer than max, so cutting twice changes nothing.
func Cut(s string, max int) string {
	if max <= 0 || len(s) <= max {
		return s
	}
	total := utf8.RuneCountInString(s)
	if total <= max {
		return s
	}
	// The marker's length depends on the count it states: settle it.
	keep := max
	var marker string
	for range 3 {
		marker = fmt.Sprintf("… (%d more characters)", total-keep)
		keep = max - utf8.RuneCountInString(marker)
		if keep < 1 {
			keep = 1
		}
	}
	marker = fmt.Sprintf("… (%d more characters)", total-keep)
	end := 0
	for n := 0; n < keep; n++ {
		_, size := utf8.DecodeRuneInString(s[end:])
		end += size
	}
	return s[:end] + marker
}
