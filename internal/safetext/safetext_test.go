package safetext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSanitize(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text, tabs\tand\nnewlines", "plain text, tabs\tand\nnewlines"},
		{"\x1b]0;pwned\x07title", `\x1b]0;pwned\atitle`},
		{"\x1b[2J\rPASS", `\x1b[2J\rPASS`},
		{"a\x00b\x01c\x7fd\be\ff\vg", `a\x00b\x01c\x7fd\be\ff\vg`},
		{"csi \u009b31m", `csi \u009b31m`},
		{"bidi \u202eevil\u2066", `bidi \u202eevil\u2066`},
		{"bad \xff\xfe utf8", `bad \xff\xfe utf8`},
		{"ünïcödé and emoji 🙂 stay", "ünïcödé and emoji 🙂 stay"},
		{`a backslash \x1b stays`, `a backslash \x1b stays`},
	} {
		got := Sanitize(tc.in)
		if got != tc.want {
			t.Errorf("Sanitize(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if again := Sanitize(got); again != got {
			t.Errorf("Sanitize is not idempotent on %q: %q", got, again)
		}
		if !utf8.ValidString(got) {
			t.Errorf("Sanitize(%q) is not UTF-8", tc.in)
		}
	}
}

func TestCut(t *testing.T) {
	long := strings.Repeat("é", 5000)
	got := Cut(long, 100)
	if n := utf8.RuneCountInString(got); n > 100 || !strings.HasSuffix(got, "more characters)") {
		t.Errorf("cut to 100: %d runes, %q", n, got)
	}
	if Cut(got, 100) != got {
		t.Errorf("cutting twice changed the string")
	}
	if Cut("short", 100) != "short" {
		t.Errorf("a short string was cut")
	}
}
