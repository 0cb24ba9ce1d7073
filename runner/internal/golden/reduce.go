package golden

import (
	"encoding/json"
	"regexp"
	"strconv"

	"github.com/go-openapi/jsonpointer"
)

// Ignored replaces an ignored array element, so the others keep their
// places.
const Ignored = "<ignored>"

// epoch is a Unix time in seconds or milliseconds, as a whole value.
var epoch = regexp.MustCompile(`^(\d{10}|\d{13})$`)

// sanitizers replace the values of a shape with a placeholder, in the
// order applied (timestamps before the dates and times inside them).
var sanitizers = []struct {
	name, placeholder string
	re                *regexp.Regexp
}{
	{"uuid", "<uuid>", regexp.MustCompile(`(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`)},
	{"timestamp", "<timestamp>", regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?\b`)},
	{"date", "<date>", regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}\b`)},
	// A clock time: hh:mm:ss[.fff], or a 12-hour one with its AM/PM
	// (12:03:04 AM, 9:15 p.m.), the marker included.
	{"time", "<time>", regexp.MustCompile(`(?i)\b\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?\s?[ap]\.?m\b\.?|\b\d{1,2}:\d{2}:\d{2}(\.\d+)?\b`)},
	{"epoch", "<epoch>", epoch},
	{"hex", "<hex>", regexp.MustCompile(`(?i)\b[0-9a-f]{16,}\b`)},
}

// Reduce is v as a golden answer keeps it: a copy without the parts the
// ignore pointers name (a "*" token matches any key or index) and with
// the named sanitizers applied to every string (and epoch to whole
// numbers). v is generic JSON; it is not changed.
func Reduce(v any, ignore, sanitize []string) any {
	v = clone(v)
	for _, p := range ignore {
		ptr, err := jsonpointer.New(p)
		if err != nil {
			continue // the fixture schema's pattern admits only pointers
		}
		tokens := ptr.DecodedTokens()
		if len(tokens) == 0 {
			return Ignored
		}
		v = drop(v, tokens)
	}
	on := map[string]bool{}
	for _, s := range sanitize {
		on[s] = true
	}
	if len(on) == 0 {
		return v
	}
	return sanitizeValue(v, on)
}

func clone(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = clone(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = clone(e)
		}
		return out
	}
	return v
}

// drop removes what tokens address below v (v is a private copy).
func drop(v any, tokens []string) any {
	tok, last := tokens[0], len(tokens) == 1
	switch x := v.(type) {
	case map[string]any:
		for k := range x {
			if tok != "*" && k != tok {
				continue
			}
			if last {
				delete(x, k)
			} else {
				x[k] = drop(x[k], tokens[1:])
			}
		}
	case []any:
		for i := range x {
			if tok != "*" && strconv.Itoa(i) != tok {
				continue
			}
			if last {
				x[i] = Ignored
			} else {
				x[i] = drop(x[i], tokens[1:])
			}
		}
	}
	return v
}

func sanitizeValue(v any, on map[string]bool) any {
	switch x := v.(type) {
	case string:
		for _, s := range sanitizers {
			if on[s.name] {
				x = s.re.ReplaceAllString(x, s.placeholder)
			}
		}
		return x
	case json.Number:
		if on["epoch"] && epoch.MatchString(string(x)) {
			return "<epoch>"
		}
	case map[string]any:
		for k, e := range x {
			x[k] = sanitizeValue(e, on)
		}
	case []any:
		for i, e := range x {
			x[i] = sanitizeValue(e, on)
		}
	}
	return v
}
