package gen

import (
	"fmt"
	"math/big"
	"regexp"
	"unicode/utf8"
)

// verdict is the internal validator's answer. The validator is deliberately
// conservative: "valid" must imply that a real JSON Schema validator
// accepts the value; when it cannot be sure it says "unknown", and the
// generator turns that into a note.
type verdict uint8

const (
	valid verdict = iota
	invalid
	unknown
)

// checker validates generated values against the schema they were built
// from. It shares a work budget and a regexp cache with the generator.
type checker struct {
	doc     *document
	work    *int
	regexps map[string]*regexp.Regexp
	badRe   map[string]bool
}

func newChecker(doc *document, work *int) *checker {
	return &checker{doc: doc, work: work, regexps: map[string]*regexp.Regexp{}, badRe: map[string]bool{}}
}

// regexp compiles a pattern once; JSON Schema validators in Go (and the one
// mcpcheck uses) use the same RE2 engine, so this is the real semantics.
func (c *checker) regexp(p string) (*regexp.Regexp, bool) {
	if re, ok := c.regexps[p]; ok {
		return re, true
	}
	if c.badRe[p] || len(p) > 10000 {
		return nil, false
	}
	re, err := regexp.Compile(p)
	if err != nil {
		c.badRe[p] = true
		return nil, false
	}
	c.regexps[p] = re
	return re, true
}

// check validates instance v (at instance path ip) against schema s.
//
// Outside exact mode the checker may be stricter than JSON Schema (its
// format checks accept only plain shapes; "1.0" is not an integer), which
// is safe where a schema must hold. Where it must *not* hold — under
// `not`, in an `if` condition, across `oneOf` branches, when counting
// against maxContains — stricter is unsafe, so exact mode turns those
// judgements into "unknown".
func (c *checker) check(s any, v any, ip string, depth int, scoped, exact bool) (verdict, string) {
	if *c.work <= 0 {
		return unknown, errBudget.Error()
	}
	*c.work--
	if depth > maxCheckDepth {
		return unknown, where(ip) + ": schema nests too deep to verify"
	}
	switch x := s.(type) {
	case bool:
		if x {
			return valid, ""
		}
		return invalid, where(ip) + ": the schema is false (nothing is allowed)"
	case map[string]any:
		return c.object(x, v, ip, depth, scoped, exact)
	}
	return unknown, where(ip) + ": schema is not an object"
}

// acc folds keyword verdicts: invalid wins, then unknown.
type acc struct {
	v   verdict
	why string
}

func (a *acc) add(v verdict, why string) bool {
	if v == invalid {
		a.v, a.why = invalid, why
		return true
	}
	if v == unknown && a.v == valid {
		a.v, a.why = unknown, why
	}
	return false
}

func (c *checker) object(m map[string]any, v any, ip string, depth int, scoped, exact bool) (verdict, string) {
	if c.doc.opensScope(m) {
		scoped = true
	}
	var a acc
	if ref, present := m["$ref"]; present {
		rv, why := c.ref(ref, v, ip, depth, scoped, exact)
		if c.doc.draft < draft2019 {
			return rv, why // siblings of $ref are ignored before 2019-09
		}
		if a.add(rv, why) {
			return a.v, a.why
		}
	}
	for _, k := range []string{"$dynamicRef", "$recursiveRef"} {
		if _, present := m[k]; present {
			a.add(unknown, where(ip)+": "+k+" is not followed")
		}
	}
	if t, present := m["type"]; present {
		if a.add(c.typeKeyword(t, v, ip, exact)) {
			return a.v, a.why
		}
	}
	if e, present := m["enum"]; present {
		arr, ok := e.([]any)
		if !ok {
			a.add(unknown, where(ip)+": enum is not an array")
		} else {
			found := false
			for _, member := range arr {
				if c.spend() && equal(member, v) {
					found = true
					break
				}
			}
			if !found && a.add(invalid, where(ip)+": value is not in enum") {
				return a.v, a.why
			}
		}
	}
	if k, present := m["const"]; present && c.doc.draft >= draft6 && !equal(k, v) {
		return invalid, where(ip) + ": value is not the const"
	}

	switch x := v.(type) {
	case string:
		if a.add(c.stringKeywords(m, x, ip, exact)) {
			return a.v, a.why
		}
	case map[string]any:
		if a.add(c.objectKeywords(m, x, ip, depth, scoped, exact)) {
			return a.v, a.why
		}
	case []any:
		if a.add(c.arrayKeywords(m, x, ip, depth, scoped, exact)) {
			return a.v, a.why
		}
	default:
		if isNumber(v) {
			if a.add(c.numberKeywords(m, v, ip)) {
				return a.v, a.why
			}
		}
	}
	if a.add(c.applicators(m, v, ip, depth, scoped, exact)) {
		return a.v, a.why
	}
	return a.v, a.why
}

func (c *checker) spend() bool {
	*c.work--
	return true
}

func (c *checker) ref(ref any, v any, ip string, depth int, scoped, exact bool) (verdict, string) {
	s, ok := ref.(string)
	if !ok {
		return unknown, where(ip) + ": $ref is not a string"
	}
	if scoped {
		return unknown, where(ip) + ": $ref under a nested $id is not followed"
	}
	target, err := c.doc.resolve(s)
	if err != nil {
		return unknown, where(ip) + ": " + err.Error()
	}
	return c.check(target, v, ip, depth+1, false, exact)
}

func (c *checker) typeKeyword(t any, v any, ip string, exact bool) (verdict, string) {
	order, ok := typeOrder(t)
	if !ok {
		return unknown, where(ip) + ": type keyword is malformed"
	}
	allowed := setOf(order)
	vt := typeOfValue(v)
	if vt == 0 {
		return unknown, where(ip) + ": value of unknown Go type"
	}
	if allowed&vt != 0 {
		return valid, ""
	}
	if vt == tNumber && allowed&tInteger != 0 {
		if n, ok := numberOf(v); ok && n.IsInt() {
			// "1.0": an integer for some drafts and validators, not others.
			return unknown, where(ip) + ": an integer written with a fraction"
		}
	}
	return invalid, fmt.Sprintf("%s: %s is not an allowed type", where(ip), typeName(vt))
}

func (c *checker) numberKeywords(m map[string]any, v any, ip string) (verdict, string) {
	n, ok := numberOf(v)
	if !ok {
		return unknown, where(ip) + ": number too large to check"
	}
	var a acc
	bound := func(key string, bad func(cmp int) bool) bool {
		raw, present := m[key]
		if !present {
			return false
		}
		if _, isBool := raw.(bool); isBool {
			return false // draft-04 modifier, read below
		}
		b, ok := numberOf(raw)
		if !ok {
			a.add(unknown, where(ip)+": "+key+" is not a usable number")
			return false
		}
		if bad(n.Cmp(b)) {
			return a.add(invalid, fmt.Sprintf("%s: %s violates %s %s", where(ip), ratNumber(n), key, ratNumber(b)))
		}
		return false
	}
	exMin, _ := m["exclusiveMinimum"].(bool)
	exMax, _ := m["exclusiveMaximum"].(bool)
	if bound("minimum", func(c int) bool { return c < 0 || (exMin && c == 0) }) ||
		bound("maximum", func(c int) bool { return c > 0 || (exMax && c == 0) }) ||
		bound("exclusiveMinimum", func(c int) bool { return c <= 0 }) ||
		bound("exclusiveMaximum", func(c int) bool { return c >= 0 }) {
		return a.v, a.why
	}
	if raw, present := m["multipleOf"]; present {
		d, ok := numberOf(raw)
		if !ok || d.Sign() <= 0 {
			a.add(unknown, where(ip)+": multipleOf is not a positive number")
		} else if !new(big.Rat).Quo(n, d).IsInt() {
			return invalid, fmt.Sprintf("%s: not a multiple of %s", where(ip), ratNumber(d))
		}
	}
	return a.v, a.why
}

func (c *checker) stringKeywords(m map[string]any, s string, ip string, exact bool) (verdict, string) {
	var a acc
	n := utf8.RuneCountInString(s)
	if k, present, ok := keywordCount(m, "minLength"); present {
		if !ok {
			a.add(unknown, where(ip)+": minLength is malformed")
		} else if n < k {
			return invalid, fmt.Sprintf("%s: shorter than minLength %d", where(ip), k)
		}
	}
	if k, present, ok := keywordCount(m, "maxLength"); present {
		if !ok {
			a.add(unknown, where(ip)+": maxLength is malformed")
		} else if n > k {
			return invalid, fmt.Sprintf("%s: longer than maxLength %d", where(ip), k)
		}
	}
	if p, present := m["pattern"]; present {
		ps, isStr := p.(string)
		re, ok := c.regexp(ps)
		switch {
		case !isStr || !ok:
			a.add(unknown, where(ip)+": pattern does not compile")
		case !re.MatchString(s):
			return invalid, fmt.Sprintf("%s: does not match pattern %q", where(ip), clip(ps))
		}
	}
	if f, present := m["format"]; present {
		if name, isStr := f.(string); isStr {
			switch formatVerdict(name, s, c) {
			case invalid:
				if exact {
					// The format checks are stricter than validators, and
					// whether a validator asserts formats at all varies.
					a.add(unknown, fmt.Sprintf("%s: format %q cannot be judged exactly", where(ip), clip(name)))
					break
				}
				return invalid, fmt.Sprintf("%s: not a valid %q", where(ip), clip(name))
			case unknown:
				a.add(unknown, fmt.Sprintf("%s: format %q cannot be verified", where(ip), clip(name)))
			}
		}
	}
	return a.v, a.why
}

func (c *checker) objectKeywords(m map[string]any, obj map[string]any, ip string, depth int, scoped, exact bool) (verdict, string) {
	var a acc
	req, ok := requiredOf(m)
	if !ok {
		a.add(unknown, where(ip)+": required is not an array of strings")
	}
	for _, r := range req {
		if _, has := obj[r]; !has {
			return invalid, fmt.Sprintf("%s: required property %q is missing", where(ip), clip(r))
		}
	}
	if k, present, ok := keywordCount(m, "minProperties"); present {
		if !ok {
			a.add(unknown, where(ip)+": minProperties is malformed")
		} else if len(obj) < k {
			return invalid, fmt.Sprintf("%s: fewer than minProperties %d", where(ip), k)
		}
	}
	if k, present, ok := keywordCount(m, "maxProperties"); present {
		if !ok {
			a.add(unknown, where(ip)+": maxProperties is malformed")
		} else if len(obj) > k {
			return invalid, fmt.Sprintf("%s: more than maxProperties %d", where(ip), k)
		}
	}

	props, hasProps := m["properties"]
	propMap, propsOK := props.(map[string]any)
	if hasProps && !propsOK {
		a.add(unknown, where(ip)+": properties is not an object")
	}
	pp, hasPP := m["patternProperties"]
	ppMap, ppOK := pp.(map[string]any)
	if hasPP && !ppOK {
		a.add(unknown, where(ip)+": patternProperties is not an object")
	}
	ppKeys := sortedKeys(ppMap)
	addl, hasAddl := m["additionalProperties"]
	unev, hasUnev := m["unevaluatedProperties"]
	if c.doc.draft < draft2019 {
		hasUnev = false
	}
	pn, hasPN := m["propertyNames"]
	hasPN = hasPN && c.doc.draft >= draft6

	for _, name := range sortedKeys(obj) {
		val := obj[name]
		cp := pointerJoin(ip, name)
		if hasPN {
			if a.add(c.check(pn, name, cp, depth+1, scoped, exact)) {
				return a.v, a.why
			}
		}
		evaluated := false
		if sub, has := propMap[name]; has {
			evaluated = true
			if a.add(c.check(sub, val, cp, depth+1, scoped, exact)) {
				return a.v, a.why
			}
		}
		for _, p := range ppKeys {
			re, ok := c.regexp(p)
			if !ok {
				a.add(unknown, where(ip)+": patternProperties key does not compile")
				continue
			}
			if re.MatchString(name) {
				evaluated = true
				if a.add(c.check(ppMap[p], val, cp, depth+1, scoped, exact)) {
					return a.v, a.why
				}
			}
		}
		if !evaluated && hasAddl {
			evaluated = true
			if a.add(c.check(addl, val, cp, depth+1, scoped, exact)) {
				return a.v, a.why
			}
		}
		if !evaluated && hasUnev {
			// Another subschema may have evaluated the property; if the
			// unevaluatedProperties schema accepts it, it is valid either way.
			if vd, why := c.check(unev, val, cp, depth+1, scoped, exact); vd != valid {
				a.add(unknown, where(cp)+": unevaluatedProperties cannot be verified"+because(why))
			}
		}
	}

	depSchemas := func(key string, sub any, name string) bool {
		if _, has := obj[name]; !has {
			return false
		}
		switch d := sub.(type) {
		case []any:
			for _, e := range d {
				s, ok := e.(string)
				if !ok {
					a.add(unknown, where(ip)+": "+key+" entry is malformed")
					continue
				}
				if _, has := obj[s]; !has {
					return a.add(invalid, fmt.Sprintf("%s: %q requires %q", where(ip), clip(name), clip(s)))
				}
			}
		default:
			if key == "dependentRequired" {
				a.add(unknown, where(ip)+": dependentRequired entry is malformed")
				return false
			}
			return a.add(c.check(d, obj, ip, depth+1, scoped, exact))
		}
		return false
	}
	for _, key := range []string{"dependencies", "dependentRequired", "dependentSchemas"} {
		raw, present := m[key]
		if !present || (key != "dependencies" && c.doc.draft < draft2019) {
			continue
		}
		dm, ok := raw.(map[string]any)
		if !ok {
			a.add(unknown, where(ip)+": "+key+" is not an object")
			continue
		}
		for _, name := range sortedKeys(dm) {
			if key == "dependentSchemas" {
				if _, isArr := dm[name].([]any); isArr {
					a.add(unknown, where(ip)+": dependentSchemas entry is malformed")
					continue
				}
			}
			if depSchemas(key, dm[name], name) {
				return a.v, a.why
			}
		}
	}
	return a.v, a.why
}

func because(why string) string {
	if why == "" {
		return ""
	}
	return " (" + why + ")"
}

func (c *checker) arrayKeywords(m map[string]any, arr []any, ip string, depth int, scoped, exact bool) (verdict, string) {
	var a acc
	if k, present, ok := keywordCount(m, "minItems"); present {
		if !ok {
			a.add(unknown, where(ip)+": minItems is malformed")
		} else if len(arr) < k {
			return invalid, fmt.Sprintf("%s: fewer than minItems %d", where(ip), k)
		}
	}
	if k, present, ok := keywordCount(m, "maxItems"); present {
		if !ok {
			a.add(unknown, where(ip)+": maxItems is malformed")
		} else if len(arr) > k {
			return invalid, fmt.Sprintf("%s: more than maxItems %d", where(ip), k)
		}
	}
	if u, present := m["uniqueItems"]; present {
		ub, ok := u.(bool)
		if !ok {
			a.add(unknown, where(ip)+": uniqueItems is not a boolean")
		} else if ub {
			for i := range arr {
				for j := i + 1; j < len(arr); j++ {
					if c.spend() && equal(arr[i], arr[j]) {
						return invalid, fmt.Sprintf("%s: items %d and %d are equal", where(ip), i, j)
					}
				}
			}
		}
	}
	// Which schema applies to each position depends on the draft.
	covered := 0 // positions evaluated by a positional keyword
	var rest any
	hasRest := false
	items, hasItems := m["items"]
	if c.doc.draft >= draft2020 {
		if pre, present := m["prefixItems"]; present {
			pa, ok := pre.([]any)
			if !ok {
				a.add(unknown, where(ip)+": prefixItems is not an array")
			}
			for i := 0; i < len(pa) && i < len(arr); i++ {
				if a.add(c.check(pa[i], arr[i], pointerJoin(ip, fmt.Sprint(i)), depth+1, scoped, exact)) {
					return a.v, a.why
				}
			}
			covered = len(pa)
		}
		if hasItems {
			if _, isArr := items.([]any); isArr {
				a.add(unknown, where(ip)+": items is an array under 2020-12")
			} else {
				rest, hasRest = items, true
			}
		}
	} else if hasItems {
		if tuple, isArr := items.([]any); isArr {
			for i := 0; i < len(tuple) && i < len(arr); i++ {
				if a.add(c.check(tuple[i], arr[i], pointerJoin(ip, fmt.Sprint(i)), depth+1, scoped, exact)) {
					return a.v, a.why
				}
			}
			covered = len(tuple)
			rest, hasRest = m["additionalItems"]
		} else {
			rest, hasRest = items, true
		}
	}
	if hasRest {
		for i := covered; i < len(arr); i++ {
			if a.add(c.check(rest, arr[i], pointerJoin(ip, fmt.Sprint(i)), depth+1, scoped, exact)) {
				return a.v, a.why
			}
		}
	}
	if con, present := m["contains"]; present && c.doc.draft >= draft6 {
		_, capped := m["maxContains"]
		capped = capped && c.doc.draft >= draft2019
		matched, unsure := 0, false
		for i, e := range arr {
			switch vd, _ := c.check(con, e, pointerJoin(ip, fmt.Sprint(i)), depth+1, scoped, exact || capped); vd {
			case valid:
				matched++
			case unknown:
				unsure = true
			}
		}
		lo, hi := 1, -1
		if c.doc.draft >= draft2019 {
			if k, present, ok := keywordCount(m, "minContains"); present {
				if !ok {
					a.add(unknown, where(ip)+": minContains is malformed")
				}
				lo = k
			}
			if k, present, ok := keywordCount(m, "maxContains"); present {
				if !ok {
					a.add(unknown, where(ip)+": maxContains is malformed")
				}
				hi = k
			}
		}
		switch {
		case unsure:
			a.add(unknown, where(ip)+": contains cannot be verified")
		case matched < lo:
			return invalid, where(ip) + ": too few items match contains"
		case hi >= 0 && matched > hi:
			return invalid, where(ip) + ": too many items match contains"
		}
	}
	if unev, present := m["unevaluatedItems"]; present && c.doc.draft >= draft2019 {
		for i, e := range arr {
			if vd, why := c.check(unev, e, pointerJoin(ip, fmt.Sprint(i)), depth+1, scoped, exact); vd != valid {
				a.add(unknown, where(ip)+": unevaluatedItems cannot be verified"+because(why))
				break
			}
		}
	}
	return a.v, a.why
}

func (c *checker) applicators(m map[string]any, v any, ip string, depth int, scoped, exact bool) (verdict, string) {
	var a acc
	if raw, present := m["allOf"]; present {
		arr, ok := raw.([]any)
		if !ok || len(arr) == 0 {
			a.add(unknown, where(ip)+": allOf is malformed")
		}
		for _, s := range arr {
			if a.add(c.check(s, v, ip, depth+1, scoped, exact)) {
				return a.v, a.why
			}
		}
	}
	if raw, present := m["anyOf"]; present {
		arr, ok := raw.([]any)
		if !ok || len(arr) == 0 {
			a.add(unknown, where(ip)+": anyOf is malformed")
		} else {
			best, why := invalid, where(ip)+": matches no anyOf branch"
			for _, s := range arr {
				vd, w := c.check(s, v, ip, depth+1, scoped, exact)
				if vd == valid {
					best = valid
					break
				}
				if vd == unknown {
					best, why = unknown, w
				}
			}
			if a.add(best, why) {
				return a.v, a.why
			}
		}
	}
	if raw, present := m["oneOf"]; present {
		arr, ok := raw.([]any)
		if !ok || len(arr) == 0 {
			a.add(unknown, where(ip)+": oneOf is malformed")
		} else {
			n, unsure, why := 0, false, ""
			for _, s := range arr {
				switch vd, w := c.check(s, v, ip, depth+1, scoped, true); vd {
				case valid:
					n++
				case unknown:
					unsure, why = true, w
				}
				if n > 1 {
					break
				}
			}
			switch {
			case n > 1:
				return invalid, where(ip) + ": matches more than one oneOf branch"
			case unsure:
				a.add(unknown, why)
			case n == 0:
				return invalid, where(ip) + ": matches no oneOf branch"
			}
		}
	}
	if s, present := m["not"]; present {
		switch vd, why := c.check(s, v, ip, depth+1, scoped, true); vd {
		case valid:
			return invalid, where(ip) + ": matches the schema under not"
		case unknown:
			a.add(unknown, why)
		}
	}
	if cond, present := m["if"]; present && c.doc.draft >= draft7 {
		vd, why := c.check(cond, v, ip, depth+1, scoped, true)
		branch := "else"
		switch vd {
		case unknown:
			a.add(unknown, why)
			return a.v, a.why
		case valid:
			branch = "then"
		}
		if s, present := m[branch]; present {
			if a.add(c.check(s, v, ip, depth+1, scoped, exact)) {
				return a.v, a.why
			}
		}
	}
	return a.v, a.why
}

// equal is JSON equality: numbers compare by value, objects by key set.
func equal(x, y any) bool {
	switch a := x.(type) {
	case map[string]any:
		b, ok := y.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, av := range a {
			bv, has := b[k]
			if !has || !equal(av, bv) {
				return false
			}
		}
		return true
	case []any:
		b, ok := y.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !equal(a[i], b[i]) {
				return false
			}
		}
		return true
	case nil:
		return y == nil
	case bool:
		b, ok := y.(bool)
		return ok && a == b
	case string:
		b, ok := y.(string)
		return ok && a == b
	}
	if isNumber(x) && isNumber(y) {
		p, ok1 := numberOf(x)
		q, ok2 := numberOf(y)
		return ok1 && ok2 && p.Cmp(q) == 0
	}
	return false
}
