package assert

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/internal/jsonx"
)

// Includes reports whether got includes want: a recursive object subset
// (arrays equal in length and order), numbers by value, matchers in want
// matching. An await step uses it to pick the notification it waits for.
func Includes(want, got any) bool {
	d := differ{subset: true}
	return d.matches(want, got, true)
}

// mismatch says why got (or its absence, when present is false) does not
// satisfy m, or returns "" when it does. The reason names no actual value,
// only its type or length; missing is the reason for a value that is not
// there.
func (d *differ) mismatch(m *config.Matcher, got any, present bool, missing string) string {
	switch m.Op {
	case config.MatchAbsent:
		if present {
			return "expected nothing here, got " + article(TypeName(got))
		}
		return ""
	case config.MatchOneOf:
		for _, v := range m.OneOf {
			if d.matches(v, got, present) {
				return ""
			}
		}
		if !present {
			return missing
		}
		return fmt.Sprintf("matches none of its %d values", len(m.OneOf))
	}
	if !present {
		return missing
	}
	switch m.Op {
	case config.MatchRegexp:
		s, ok := got.(string)
		if !ok {
			return "expected a string, got " + article(TypeName(got))
		}
		if m.Pattern == nil || !m.Pattern.MatchString(s) {
			return "the string does not match"
		}
	case config.MatchType:
		return typeMismatch(m.Type, got)
	case config.MatchGT, config.MatchGTE, config.MatchLT, config.MatchLTE:
		if TypeName(got) != "number" {
			return "expected a number, got " + article(TypeName(got))
		}
		if why := boundMismatch(m, numText(got)); why != "" {
			return "the number " + why
		}
	case config.MatchLen:
		n, ok := length(got)
		if !ok {
			return "expected a string, an array or an object, got " + article(TypeName(got))
		}
		l := strconv.Itoa(n)
		switch want := m.Len.(type) {
		case *config.Matcher:
			switch want.Op {
			case config.MatchGT, config.MatchGTE, config.MatchLT, config.MatchLTE:
				if why := boundMismatch(want, l); why != "" {
					return "the length is " + l + ", which " + why
				}
			default:
				if why := d.mismatch(want, json.Number(l), true, missing); why != "" {
					return "the length is " + l + ": " + why
				}
			}
		default:
			if !jsonx.Equal(numText(want), l) {
				return "the length is " + l + ", not " + numText(want)
			}
		}
	case config.MatchContains:
		return d.containsMismatch(m.Contains, got)
	case config.MatchAny:
	default:
		// A matcher the format has and this package lacks fails closed.
		return "a matcher this mcpcheck does not know"
	}
	return ""
}

// containsMismatch is $contains: a substring of a string, or an element of
// an array that matches.
func (d *differ) containsMismatch(want, got any) string {
	sub, wantString := want.(string)
	switch g := got.(type) {
	case string:
		if !wantString {
			return "expected an array, got a string"
		}
		if !strings.Contains(g, sub) {
			return "the string does not contain it"
		}
	case []any:
		for _, e := range g {
			if d.matches(want, e, true) {
				return ""
			}
		}
		return fmt.Sprintf("none of its %d elements matches", len(g))
	default:
		if wantString {
			return "expected a string or an array, got " + article(TypeName(got))
		}
		return "expected an array, got " + article(TypeName(got))
	}
	return ""
}

// typeMismatch is $type.
func typeMismatch(want config.JSONType, got any) string {
	name := TypeName(got)
	switch {
	case want == config.TypeInteger && name == "number":
		if jsonx.IsInteger(numText(got)) {
			return ""
		}
		return "expected an integer, got a number with a fraction"
	case want == config.TypeInteger:
		return "expected an integer, got " + article(name)
	case string(want) != name:
		return "expected " + article(string(want)) + ", got " + article(name)
	}
	return ""
}

// boundMismatch is $gt, $gte, $lt and $lte of a number literal: what is
// wrong with the number, or "".
func boundMismatch(m *config.Matcher, num string) string {
	c, ok := jsonx.Compare(num, string(m.Bound))
	if !ok {
		return "cannot be compared with " + string(m.Bound)
	}
	switch {
	case m.Op == config.MatchGT && c <= 0:
		return "is not greater than " + string(m.Bound)
	case m.Op == config.MatchGTE && c < 0:
		return "is less than " + string(m.Bound)
	case m.Op == config.MatchLT && c >= 0:
		return "is not less than " + string(m.Bound)
	case m.Op == config.MatchLTE && c > 0:
		return "is greater than " + string(m.Bound)
	}
	return ""
}

// length is $len's length: a string's in characters, an array's items, an
// object's keys.
func length(v any) (int, bool) {
	switch x := v.(type) {
	case string:
		return utf8.RuneCountInString(x), true
	case []any:
		return len(x), true
	case map[string]any:
		return len(x), true
	}
	return 0, false
}

// article puts "a" or "an" before a JSON type's name ("null" stays bare).
func article(typ string) string {
	switch typ {
	case "null":
		return "null"
	case "object", "array", "integer":
		return "an " + typ
	}
	return "a " + typ
}
