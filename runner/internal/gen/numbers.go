package gen

import (
	"encoding/json"
	"fmt"
	"math/big"
	"slices"

	"github.com/mcpcheck/mcpcheck/internal/jsonx"
)

// bounds of a number after reading every schema of a conjunction.
type bounds struct {
	lo, hi      *big.Rat
	loEx, hiEx  bool
	step        *big.Rat // lcm of multipleOf (and 1 for integers); nil = any
	problem     string
	unsatisfied bool
}

func (b *bounds) raise(v *big.Rat, ex bool) {
	if b.lo == nil || v.Cmp(b.lo) > 0 {
		b.lo, b.loEx = v, ex
	} else if v.Cmp(b.lo) == 0 {
		b.loEx = b.loEx || ex
	}
}

func (b *bounds) lower(v *big.Rat, ex bool) {
	if b.hi == nil || v.Cmp(b.hi) < 0 {
		b.hi, b.hiEx = v, ex
	} else if v.Cmp(b.hi) == 0 {
		b.hiEx = b.hiEx || ex
	}
}

// readBounds intersects the numeric keywords of a conjunction, exactly, as
// rationals: minimum and maximum, exclusiveMinimum and exclusiveMaximum in
// both the draft-04 boolean and the later numeric form, and every
// multipleOf (their least common multiple; 1 joins them for integers).
func readBounds(objs []fobj, integer bool) bounds {
	var b bounds
	for _, o := range objs {
		exMin, _ := o.m["exclusiveMinimum"].(bool)
		exMax, _ := o.m["exclusiveMaximum"].(bool)
		for _, k := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"} {
			raw, present := o.m[k]
			if !present {
				continue
			}
			if _, isBool := raw.(bool); isBool && (k == "exclusiveMinimum" || k == "exclusiveMaximum") {
				continue
			}
			v, ok := numberOf(raw)
			if !ok {
				b.problem = k + " is not a usable number"
				continue
			}
			switch k {
			case "minimum":
				b.raise(v, exMin)
			case "maximum":
				b.lower(v, exMax)
			case "exclusiveMinimum":
				b.raise(v, true)
			case "exclusiveMaximum":
				b.lower(v, true)
			case "multipleOf":
				if v.Sign() <= 0 {
					b.problem = "multipleOf is not positive"
					continue
				}
				b.step = lcmRat(b.step, v)
			}
		}
	}
	if integer {
		b.step = lcmRat(b.step, big.NewRat(1, 1))
	}
	if b.lo != nil && b.hi != nil {
		c := b.lo.Cmp(b.hi)
		if c > 0 || (c == 0 && (b.loEx || b.hiEx)) {
			b.unsatisfied = true
		}
	}
	return b
}

// lcmRat is the least common multiple of two positive rationals in lowest
// terms: lcm(a/b, c/d) = lcm(a, c) / gcd(b, d).
func lcmRat(x, y *big.Rat) *big.Rat {
	if x == nil {
		return new(big.Rat).Set(y)
	}
	a, b := x.Num(), x.Denom()
	c, d := y.Num(), y.Denom()
	g := new(big.Int).GCD(nil, nil, a, c)
	l := new(big.Int).Mul(a, c)
	l.Quo(l, g)
	den := new(big.Int).GCD(nil, nil, b, d)
	return new(big.Rat).SetFrac(l, den)
}

// numbers proposes numeric candidates: the name hint's values, a number in
// 1..100 drawn by seed, then values derived from the bounds, each snapped
// to the bounds and to multipleOf.
func (g *gen) numbers(path, name string, objs []fobj, integer bool, vk int) ([]json.Number, string) {
	b := readBounds(objs, integer)
	if b.unsatisfied {
		return nil, fmt.Sprintf("minimum %s and maximum %s leave no number", ratNumber(b.lo), ratNumber(b.hi))
	}
	if b.step != nil && len(b.step.Num().String()) > 200 {
		return nil, "multipleOf values have no usable common multiple"
	}
	var targets []*big.Rat
	if h := lookupHint(name); h != nil {
		list := h.nums
		if integer && len(h.ints) > 0 {
			list = h.ints
		}
		for i := range list {
			if r, ok := jsonx.Rat(list[(i+vk)%len(list)]); ok {
				targets = append(targets, r)
			}
		}
	}
	targets = append(targets, big.NewRat(int64(g.rnd(path, vk, "number")%100)+1, 1))
	one := big.NewRat(1, 1)
	if b.lo != nil {
		targets = append(targets, b.lo, new(big.Rat).Add(b.lo, one))
	}
	if b.hi != nil {
		targets = append(targets, b.hi, new(big.Rat).Sub(b.hi, one))
	}
	if b.lo != nil && b.hi != nil {
		mid := new(big.Rat).Add(b.lo, b.hi)
		targets = append(targets, mid.Quo(mid, big.NewRat(2, 1)))
	}
	targets = append(targets, new(big.Rat), one)
	if !integer {
		// A fraction, for schemas that admit only non-integers (e.g. a
		// number that must not match an integer branch of a oneOf).
		targets = append(targets, big.NewRat(int64(g.rnd(path, vk, "number")%100)*2+3, 2))
		if b.lo != nil {
			targets = append(targets, new(big.Rat).Add(b.lo, big.NewRat(1, 2)))
		}
	}
	var out []json.Number
	for _, t := range targets {
		if v := snap(t, b); v != nil {
			n := ratNumber(v)
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	why := ""
	if b.problem != "" {
		why = b.problem
	} else if b.step != nil && len(out) == 0 {
		why = "no multiple of " + string(ratNumber(b.step)) + " lies within the bounds"
	}
	return out, why
}

// snap moves t into the bounds and onto the step grid; nil if impossible.
func snap(t *big.Rat, b bounds) *big.Rat {
	v := new(big.Rat).Set(t)
	inLo := func(x *big.Rat) bool {
		if b.lo == nil {
			return true
		}
		c := x.Cmp(b.lo)
		return c > 0 || (c == 0 && !b.loEx)
	}
	inHi := func(x *big.Rat) bool {
		if b.hi == nil {
			return true
		}
		c := x.Cmp(b.hi)
		return c < 0 || (c == 0 && !b.hiEx)
	}
	if b.step == nil {
		if !inLo(v) {
			switch {
			case !b.loEx:
				v.Set(b.lo)
			case b.hi != nil:
				v.Add(b.lo, b.hi).Quo(v, big.NewRat(2, 1))
			default:
				v.Add(b.lo, big.NewRat(1, 1))
			}
		}
		if !inHi(v) {
			switch {
			case !b.hiEx:
				v.Set(b.hi)
			case b.lo != nil:
				v.Add(b.lo, b.hi).Quo(v, big.NewRat(2, 1))
			default:
				v.Sub(b.hi, big.NewRat(1, 1))
			}
		}
		if inLo(v) && inHi(v) {
			return v
		}
		return nil
	}
	k := roundRat(new(big.Rat).Quo(v, b.step))
	v.Mul(new(big.Rat).SetInt(k), b.step)
	if !inLo(v) {
		k = ceilRat(new(big.Rat).Quo(b.lo, b.step))
		v.Mul(new(big.Rat).SetInt(k), b.step)
		if !inLo(v) {
			v.Add(v, b.step)
		}
	}
	if !inHi(v) {
		k = floorRat(new(big.Rat).Quo(b.hi, b.step))
		v.Mul(new(big.Rat).SetInt(k), b.step)
		if !inHi(v) {
			v.Sub(v, b.step)
		}
	}
	if inLo(v) && inHi(v) {
		return v
	}
	return nil
}

func floorRat(r *big.Rat) *big.Int {
	q, _ := new(big.Int).DivMod(r.Num(), r.Denom(), new(big.Int))
	return q // Euclidean division: the floor, since the denominator is positive
}

func ceilRat(r *big.Rat) *big.Int {
	q := floorRat(r)
	if !r.IsInt() {
		q.Add(q, big.NewInt(1))
	}
	return q
}

func roundRat(r *big.Rat) *big.Int {
	return floorRat(new(big.Rat).Add(r, big.NewRat(1, 2)))
}
