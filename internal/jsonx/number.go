package jsonx

import (
	"cmp"
	"math/big"
	"strconv"
	"strings"
)

// Equal compares two JSON number literals by value, exactly: no
// float64 rounding, so 9007199254740993 and 9007199254740992 differ while
// 1, 1.0 and 1e0 are equal.
func Equal(a, b string) bool {
	if a == b {
		return true
	}
	c, ok := Compare(a, b)
	return ok && c == 0
}

// Compare orders two JSON number literals by value, exactly (see
// [Equal]): -1 when a < b, 0 when equal, +1 when a > b. ok is false
// when either is not a number literal.
func Compare(a, b string) (c int, ok bool) {
	if x, err := strconv.ParseInt(a, 10, 64); err == nil {
		if y, err := strconv.ParseInt(b, 10, 64); err == nil {
			return cmp.Compare(x, y), true
		}
	}
	x, okx := parse(a)
	y, oky := parse(b)
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

// parse reads a JSON number literal. It needs no arbitrary-precision
// arithmetic but on the exponent, so a hostile literal like 1e999999999
// costs only its own length.
func parse(s string) (number, bool) {
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

// IsInteger reports whether s is a JSON number literal with no fraction by
// value (1.0 and 1e3 have none).
func IsInteger(s string) bool {
	n, ok := parse(s)
	return ok && n.integer()
}

// Int64 is the value of a JSON number literal that is an integer in
// int64's range (1e3 and 5.0 included), exactly.
func Int64(s string) (int64, bool) {
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		return v, true
	}
	n, ok := parse(s)
	if !ok || !n.integer() {
		return 0, false
	}
	if n.digits == "" {
		return 0, true
	}
	// Anything past 19 digits is out of range; the exponent is compared
	// before it is used, so 1e999999999 costs nothing.
	if !n.exp.IsInt64() || n.exp.Int64() > 19 || len(n.digits)+int(n.exp.Int64()) > 19 {
		return 0, false
	}
	text := n.digits + strings.Repeat("0", int(n.exp.Int64()))
	if n.neg {
		text = "-" + text
	}
	v, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return 0, false
	}
	return v, true
}

// Limits on the literals [Rat] does arithmetic on.
const (
	maxRatDigits   = 1000 // characters in a literal
	maxRatExponent = 400  // |exponent|
)

// Rat converts a JSON number literal to an exact rational, for arithmetic.
// Literals with absurd exponents or lengths are refused rather than
// expanded.
func Rat(s string) (*big.Rat, bool) {
	if s == "" || len(s) > maxRatDigits {
		return nil, false
	}
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(strings.TrimPrefix(s[i+1:], "+"))
		if err != nil || e > maxRatExponent || e < -maxRatExponent {
			return nil, false
		}
	}
	return new(big.Rat).SetString(s)
}
