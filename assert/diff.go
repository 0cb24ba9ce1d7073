package assert

import (
	"encoding/json"
	"fmt"
	"github.com/go-openapi/jsonpointer"
	"math/big"
	"slices"
	"strconv"
	"strings"
)

// differ walks expected and actual values side by side and collects
// mismatches with their JSON Pointer paths.
type differ struct {
	kind   string
	subset bool // object keys of actual beyond expected are allowed
	out    []Failure
}

func (d *differ) add(path, msg string, want any, hasWant bool, got any, hasGot bool) {
	if len(d.out) >= maxFailures {
		return
	}
	d.out = append(d.out, Failure{Kind: d.kind, Path: path, Message: msg, Expected: want, HasExpected: hasWant, Actual: got, HasActual: hasGot})
}

func (d *differ) diff(path string, want, got any) {
	if len(d.out) >= maxFailures {
		return
	}
	wt, gt := TypeName(want), TypeName(got)
	if wt != gt {
		d.add(path, fmt.Sprintf("expected %s, got %s", wt, gt), want, true, got, true)
		return
	}
	switch w := want.(type) {
	case map[string]any:
		g := got.(map[string]any)
		for _, k := range sortedKeys(w) {
			gv, ok := g[k]
			p := path + "/" + jsonpointer.Escape(k)
			if !ok {
				d.add(p, "missing key", w[k], true, nil, false)
				continue
			}
			d.diff(p, w[k], gv)
		}
		if !d.subset {
			for _, k := range sortedKeys(g) {
				if _, ok := w[k]; !ok {
					d.add(path+"/"+jsonpointer.Escape(k), "unexpected key", nil, false, g[k], true)
				}
			}
		}
	case []any:
		g := got.([]any)
		if len(w) != len(g) {
			d.add(path, fmt.Sprintf("expected an array of %d, got %d", len(w), len(g)), want, true, got, true)
			return
		}
		for i := range w {
			d.diff(path+"/"+strconv.Itoa(i), w[i], g[i])
		}
	default:
		if !ScalarEqual(want, got) {
			d.add(path, "value differs", want, true, got, true)
		}
	}
}

// Equal reports whether two generic JSON values are deeply equal, with
// numbers compared by value.
func Equal(a, b any) bool {
	d := differ{}
	d.diff("", a, b)
	return len(d.out) == 0
}

// TypeName names the JSON type of a generic value.
func TypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number, float64, float32, int, int64, int32, uint64:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	default:
		return fmt.Sprintf("%T", v)
	}
}

// ScalarEqual compares two JSON scalars of the same type.
func ScalarEqual(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	default:
		return NumberEqual(numText(a), numText(b))
	}
}

func numText(v any) string {
	switch x := v.(type) {
	case json.Number:
		return string(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case float32:
		return strconv.FormatFloat(float64(x), 'g', -1, 32)
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case int32:
		return strconv.FormatInt(int64(x), 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	}
	return ""
}

// NumberEqual compares two JSON number literals by value, exactly: no
// float64 rounding, so 9007199254740993 and 9007199254740992 differ while
// 1, 1.0 and 1e0 are equal.
func NumberEqual(a, b string) bool {
	if a == b {
		return true
	}
	if x, err := strconv.ParseInt(a, 10, 64); err == nil {
		if y, err := strconv.ParseInt(b, 10, 64); err == nil {
			return x == y
		}
	}
	x, okx := normalize(a)
	y, oky := normalize(b)
	return okx && oky && x == y
}

// normalize rewrites a JSON number literal as sign, significant digits and a
// decimal exponent ("-12.50e3" → "-125e2"), so two literals are equal by
// value exactly when their normal forms are equal. It needs no arbitrary-
// precision arithmetic, so a hostile literal like 1e999999999 costs only its
// own length.
func normalize(s string) (string, bool) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	mant, expText := s, "0"
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant, expText = s[:i], strings.TrimPrefix(s[i+1:], "+")
	}
	intPart, frac := mant, ""
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		intPart, frac = mant[:i], mant[i+1:]
	}
	digits := intPart + frac
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return "", false
	}
	exp, ok := new(big.Int).SetString(expText, 10)
	if !ok {
		return "", false
	}
	exp.Sub(exp, big.NewInt(int64(len(frac))))
	digits = strings.TrimLeft(digits, "0")
	trimmed := strings.TrimRight(digits, "0")
	exp.Add(exp, big.NewInt(int64(len(digits)-len(trimmed))))
	if trimmed == "" {
		return "0", true
	}
	sign := ""
	if neg {
		sign = "-"
	}
	return sign + trimmed + "e" + exp.String(), true
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
