package assert

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/go-openapi/jsonpointer"

	"github.com/mcpcheck/mcpcheck/config"
)

// differ walks expected and actual values side by side and collects
// mismatches with their JSON Pointer paths. Matchers (*config.Matcher) in
// the expected value match instead of comparing.
type differ struct {
	kind   KindName
	subset bool // object keys of actual beyond expected are allowed
	limit  int  // at most this many failures; 0 means maxFailures
	out    []Failure
}

func (d *differ) full() bool {
	limit := d.limit
	if limit == 0 {
		limit = maxFailures
	}
	return len(d.out) >= limit
}

func (d *differ) add(path, msg string, want any, hasWant bool, got any, hasGot bool) {
	if d.full() {
		return
	}
	d.out = append(d.out, Failure{Kind: d.kind, Path: path, Message: msg, Expected: want, HasExpected: hasWant, Actual: got, HasActual: hasGot})
}

func (d *differ) diff(path string, want, got any) {
	d.compare(path, want, got, true, "")
}

// compare is diff for a value that may not be there (present false): a
// key an object lacks, a path that finds nothing, a result without
// structuredContent. missing says so in a message.
func (d *differ) compare(path string, want, got any, present bool, missing string) {
	if d.full() {
		return
	}
	if m, ok := want.(*config.Matcher); ok {
		if why := d.mismatch(m, got, present, missing); why != "" {
			d.add(path, m.String()+": "+why, m, true, got, present)
		}
		return
	}
	if !present {
		d.add(path, missing, want, true, nil, false)
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
			d.compare(path+"/"+jsonpointer.Escape(k), w[k], gv, ok, "missing key")
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

// matches reports whether got (when present) matches want the way d
// compares: with includes semantics inside an includes, equality
// elsewhere.
func (d *differ) matches(want, got any, present bool) bool {
	sub := differ{kind: d.kind, subset: d.subset, limit: 1}
	sub.compare("", want, got, present, "missing")
	return len(sub.out) == 0
}

// Equal reports whether two generic JSON values are deeply equal, with
// numbers compared by value; matchers in a match instead of comparing.
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

// NumberCompare orders two JSON number literals by value, exactly (see
// [NumberEqual]): -1 when a < b, 0 when equal, +1 when a > b. ok is false
// when either is not a number literal.
func NumberCompare(a, b string) (c int, ok bool) {
	if x, err := strconv.ParseInt(a, 10, 64); err == nil {
		if y, err := strconv.ParseInt(b, 10, 64); err == nil {
			return cmp.Compare(x, y), true
		}
	}
	x, okx := parseNumber(a)
	y, oky := parseNumber(b)
	if !okx || !oky {
		return 0, false
	}
	if x.sign() != y.sign() {
		return cmp.Compare(x.sign(), y.sign()), true
	}
	if x.sign() == 0 {
		return 0, true
	}
	// Same sign: compare magnitudes, first by order (the position of the
	// leading digit), then digit by digit. Trailing zeros are gone, so a
	// digit string that is a prefix of the other is the smaller.
	c = new(big.Int).Add(x.exp, big.NewInt(int64(len(x.digits)))).Cmp(new(big.Int).Add(y.exp, big.NewInt(int64(len(y.digits)))))
	if c == 0 {
		c = strings.Compare(x.digits, y.digits)
	}
	if x.neg {
		c = -c
	}
	return c, true
}

// number is a JSON number literal as digits × 10^exp: digits without
// leading or trailing zeros ("" for zero).
type number struct {
	neg    bool
	digits string
	exp    *big.Int
}

func (n number) sign() int {
	switch {
	case n.digits == "":
		return 0
	case n.neg:
		return -1
	}
	return 1
}

// integer reports whether the number has no fraction (1.0 and 1e3 have none).
func (n number) integer() bool { return n.digits == "" || n.exp.Sign() >= 0 }

// parseNumber reads a JSON number literal. It needs no arbitrary-precision
// arithmetic but on the exponent, so a hostile literal like 1e999999999
// costs only its own length.
func parseNumber(s string) (number, bool) {
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
		return number{}, false
	}
	exp, ok := new(big.Int).SetString(expText, 10)
	if !ok {
		return number{}, false
	}
	exp.Sub(exp, big.NewInt(int64(len(frac))))
	digits = strings.TrimLeft(digits, "0")
	trimmed := strings.TrimRight(digits, "0")
	exp.Add(exp, big.NewInt(int64(len(digits)-len(trimmed))))
	return number{neg: neg, digits: trimmed, exp: exp}, true
}

// normalize rewrites a JSON number literal as sign, significant digits and a
// decimal exponent ("-12.50e3" → "-125e2"), so two literals are equal by
// value exactly when their normal forms are equal.
func normalize(s string) (string, bool) {
	n, ok := parseNumber(s)
	switch {
	case !ok:
		return "", false
	case n.digits == "":
		return "0", true
	case n.neg:
		return "-" + n.digits + "e" + n.exp.String(), true
	}
	return n.digits + "e" + n.exp.String(), true
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
