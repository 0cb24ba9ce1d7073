package gen

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/big"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/go-openapi/jsonpointer"
	"github.com/mcpcheck/mcpcheck/assert"
	"github.com/mcpcheck/mcpcheck/runner/internal/schema"
)

// Values generates realistic arguments that satisfy a tool's inputSchema.
//
// A Values holds only its seed, so one value may be shared by goroutines.
// Output depends on nothing but the seed, the tool name, the schema
// document and (for [Values.Distinct]) the variant number: never on map
// iteration order or on earlier calls.
type Values struct {
	seed int64
}

// NewValues returns a generator whose pseudo-random choices (numbers and
// filler words that no hint or schema keyword decides) derive from seed and
// the tool name.
func NewValues(seed int64) *Values {
	return &Values{seed: seed}
}

// noSchema is the note for a tool without a usable inputSchema.
const noSchema = "no inputSchema (none declared, or refused); empty arguments used"

// Valid returns one realistic argument object for a tool whose inputSchema
// is input (as [schema.Compile] compiled it), and notes on whatever part of
// the schema it could not honour.
//
// Empty notes mean, and only mean, that the arguments validate against
// input, both as compiled and with formats asserted. With notes, the
// arguments are a best effort in which placeholders stand in for what
// could not be generated, and every required property is still present.
// A nil input gives empty arguments and a note. Valid never panics,
// whatever the schema.
func (v *Values) Valid(toolName string, input *schema.Schema) (args map[string]any, notes []string) {
	return v.generate(toolName, input, 0)
}

// Distinct returns up to n pairwise different argument objects, each of
// which Valid's guarantee covers (objects that would need a note are left
// out). The first is Valid's. Later ones rotate enum members, hint and
// format values, booleans and anyOf/oneOf branches and draw new numbers,
// and ignore `default` and `examples`. Fewer than n come back when the
// schema admits fewer, e.g. a lone enum of two members; none when n <= 0
// or input is nil. n is capped at 100.
func (v *Values) Distinct(toolName string, input *schema.Schema, n int) []map[string]any {
	if n <= 0 || input == nil {
		return nil
	}
	n = min(n, 100)
	var out []map[string]any
	misses := 0
	for k := 0; len(out) < n && misses < 2*n+4; k++ {
		args, notes := v.generate(toolName, input, k)
		if len(notes) > 0 || slices.ContainsFunc(out, func(o map[string]any) bool { return assert.Equal(o, args) }) {
			misses++
			continue
		}
		out = append(out, args)
	}
	return out
}

func (v *Values) generate(tool string, input *schema.Schema, variant int) (map[string]any, []string) {
	if input == nil {
		return map[string]any{}, []string{noSchema}
	}
	var seed int64
	if v != nil {
		seed = v.seed
	}
	g := newGen(input, seed, tool)
	strict, err := input.WithFormats()
	if err != nil {
		return map[string]any{}, []string{err.Error() + "; empty arguments used"}
	}
	g.strict = strict
	root := []ent{{s: input.Doc()}}
	val, _ := g.node("", "", root, 0, variant)
	args, isObj := val.(map[string]any)
	if !isObj {
		args = map[string]any{}
		g.note("", "inputSchema does not describe an object; empty arguments used")
	}
	// The last word: notes explain why the arguments are invalid, so
	// there are some exactly when they are.
	err = g.check(root, args)
	if err == nil {
		return args, nil
	}
	if len(g.notes) == 0 {
		g.notes = append(g.notes, g.why("", err))
	}
	if g.work <= 0 {
		g.notes = append(g.notes, errBudget.Error()+"; some values are placeholders")
	}
	return args, dedupe(g.notes)
}

func dedupe(notes []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, n := range notes {
		if n != "" && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// ent is one schema that a value must satisfy, and its place in the
// schema document: an RFC 6901 JSON Pointer, by which the validator checks
// candidates against it.
type ent struct {
	s   any
	loc string
}

type fobj struct {
	m   map[string]any
	loc string
}

// flat is a conjunction of schema objects after $ref and allOf are
// expanded, with the anyOf/oneOf/if decisions still open.
type flat struct {
	objs    []fobj
	choices [][][]ent
	never   string
}

type gen struct {
	in      *schema.Schema
	strict  *schema.Schema // in with formats asserted
	draft   int
	regexps map[string]*regexp.Regexp
	work    int
	size    int // generated runes and elements so far, against sizeBudget
	seed    int64
	tool    string
	notes   []string
}

func newGen(in *schema.Schema, seed int64, tool string) *gen {
	return &gen{in: in, draft: in.Draft(), regexps: map[string]*regexp.Regexp{}, seed: seed, tool: tool, work: workBudget}
}

func (g *gen) note(path, format string, args ...any) {
	g.notes = append(g.notes, where(path)+": "+fmt.Sprintf(format, args...))
}

// rnd derives a pseudo-random number from the seed, tool, variant, path
// and a salt, so each value is independent of its siblings.
func (g *gen) rnd(path string, vk int, salt string) uint64 {
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(g.seed))
	h.Write(b[:])
	h.Write([]byte(g.tool))
	h.Write([]byte{0})
	binary.LittleEndian.PutUint64(b[:], uint64(vk))
	h.Write(b[:])
	h.Write([]byte(path))
	h.Write([]byte{0})
	h.Write([]byte(salt))
	x := h.Sum64()
	// splitmix64 finaliser: spreads FNV's weak low bits.
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// check validates v against every schema of ents, as compiled and with
// formats asserted: the second is stricter, except that under `not`, `if`
// or `oneOf` a format that holds can make a value fail.
func (g *gen) check(ents []ent, v any) error {
	for _, e := range ents {
		for _, s := range []*schema.Schema{g.in, g.strict} {
			if g.work <= 0 {
				return errBudget
			}
			g.work--
			if err := s.ValidateAt(e.loc, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// why explains a rejection of the value at path.
func (g *gen) why(path string, err error) string {
	vi := schema.Explain(err)
	return where(path+vi.Path) + ": " + vi.Message
}

// at is the document's value at a JSON Pointer.
func (g *gen) at(pointer string) (any, bool) {
	p, err := jsonpointer.New(pointer)
	if err != nil {
		return nil, false
	}
	v, _, err := p.Get(g.in.Doc())
	return v, err == nil
}

// regexp compiles a patternProperties key once. Patterns are RE2, as the
// validator reads them.
func (g *gen) regexp(p string) *regexp.Regexp {
	re, seen := g.regexps[p]
	if !seen {
		re, _ = regexp.Compile(p)
		g.regexps[p] = re
	}
	return re
}

// expand adds schema e to fl, following references and allOf.
func (g *gen) expand(e ent, fl *flat, hops int, path string) {
	if g.work <= 0 {
		return
	}
	g.work--
	if hops > maxRefHops {
		g.note(path, "more than %d nested $ref/allOf levels (a cycle?); not followed", maxRefHops)
		return
	}
	m, isObj := e.s.(map[string]any)
	if !isObj {
		if b, isBool := e.s.(bool); isBool && !b {
			fl.never = "the schema is false, so no value is allowed"
		}
		return
	}
	_, ref := m["$ref"]
	_, dyn := m["$dynamicRef"]
	_, rec := m["$recursiveRef"]
	if ref || dyn || rec {
		// The validator resolves them; $dynamicRef and $recursiveRef are
		// followed to their static target, and it judges the value.
		for _, t := range g.in.Refs(e.loc) {
			if target, ok := g.at(t); ok {
				g.expand(ent{s: target, loc: t}, fl, hops+1, path)
			}
		}
		if ref && g.draft < draft2019 {
			return // siblings of $ref are ignored before 2019-09
		}
	}
	fl.objs = append(fl.objs, fobj{m: m, loc: e.loc})
	arr, _ := m["allOf"].([]any)
	for i, s := range arr {
		g.expand(ent{s: s, loc: index(e.loc+"/allOf", i)}, fl, hops+1, path)
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		arr, _ := m[k].([]any)
		if len(arr) == 0 {
			continue
		}
		branches := make([][]ent, len(arr))
		for i, s := range arr {
			branches[i] = []ent{{s: s, loc: index(e.loc+"/"+k, i)}}
		}
		fl.choices = append(fl.choices, branches)
	}
	if cond, present := m["if"]; present && g.draft >= draft7 {
		then := []ent{{s: cond, loc: e.loc + "/if"}}
		if t, ok := m["then"]; ok {
			then = append(then, ent{s: t, loc: e.loc + "/then"})
		}
		var els []ent
		if e2, ok := m["else"]; ok {
			els = append(els, ent{s: e2, loc: e.loc + "/else"})
		}
		fl.choices = append(fl.choices, [][]ent{then, els})
	}
}

// node generates a value for the conjunction of schemas ents. ok reports the
// value validates; otherwise a placeholder is returned and notes say why.
func (g *gen) node(path, name string, ents []ent, depth, vk int) (any, bool) {
	if g.work <= 0 {
		return nil, false // reported once, by generate
	}
	if depth > maxGenDepth {
		g.note(path, "nested deeper than %d levels; placeholder used", maxGenDepth)
		return nil, false
	}
	if g.size > sizeBudget {
		g.note(path, "the arguments would exceed %d characters and elements; placeholder used", sizeBudget)
		return nil, false
	}
	var fl flat
	for _, e := range ents {
		g.expand(e, &fl, 0, path)
	}
	if fl.never != "" {
		g.note(path, "%s; placeholder used", fl.never)
		return nil, false
	}
	attempts := 32
	v, ok := g.solve(path, name, ents, fl, depth, vk, &attempts)
	switch x := v.(type) {
	case string:
		g.size += len(x)
	case []any:
		g.size += len(x) + 1
	case map[string]any:
		g.size += len(x) + 1
	default:
		g.size++
	}
	return v, ok
}

// solve decides the open anyOf/oneOf/if choices one at a time, first branch
// first (rotated by the variant), until a value validates; for a oneOf
// that means it matches no other branch. An if/then/else is a choice of
// two sides: if with then, or else.
func (g *gen) solve(path, name string, ents []ent, fl flat, depth, vk int, attempts *int) (any, bool) {
	if len(fl.choices) == 0 {
		return g.produce(path, name, ents, fl.objs, depth, vk)
	}
	first, rest := fl.choices[0], fl.choices[1:]
	mark := len(g.notes)
	var failVal any
	var failNotes []string
	tried := false
	for i := range first {
		if *attempts <= 0 || g.work <= 0 {
			break
		}
		*attempts--
		branch := first[(i+vk)%len(first)]
		next := flat{objs: slices.Clone(fl.objs), choices: slices.Clone(rest)}
		for _, e := range branch {
			g.expand(e, &next, 0, path)
		}
		if next.never != "" {
			g.notes = g.notes[:mark]
			continue
		}
		val, ok := g.solve(path, name, ents, next, depth, vk, attempts)
		if ok {
			return val, true
		}
		if !tried {
			tried, failVal, failNotes = true, val, slices.Clone(g.notes[mark:])
		}
		g.notes = g.notes[:mark]
	}
	g.notes = append(g.notes, failNotes...)
	if !tried {
		g.note(path, "no anyOf/oneOf/if branch can hold a value; placeholder used")
	}
	return failVal, false
}

// produce tries candidate values for a conjunction with no open choices,
// in order of preference, and returns the first that validates: const;
// default, then examples, null ones last (first variant only; later ones
// try them after everything else); enum members (null and "" last); then
// values built for each allowed type, in typeChoices order.
func (g *gen) produce(path, name string, ents []ent, objs []fobj, depth, vk int) (any, bool) {
	types := g.typeChoices(name, objs, depth)
	mark := len(g.notes)
	var (
		failed    bool
		failVal   any
		failWhy   string
		failNotes []string
	)
	// try validates one candidate. Notes written while building a rejected
	// candidate are withdrawn; those of the first rejection are kept for
	// the final report.
	quiet := false // rejected defaults and examples explain nothing
	try := func(v any) bool {
		err := g.check(ents, v)
		if err == nil {
			return true
		}
		if !failed && !quiet {
			failed, failVal, failWhy = true, v, g.why(path, err)
			failNotes = slices.Clone(g.notes[mark:])
		}
		g.notes = g.notes[:mark]
		return false
	}
	// fail keeps the most specific explanation: notes from inside the value
	// if there are any, else why the first candidate was rejected, else msg.
	fail := func(msg string) (any, bool) {
		g.notes = append(g.notes[:mark], failNotes...)
		switch {
		case len(failNotes) > 0:
		case failWhy != "":
			g.notes = append(g.notes, failWhy+"; placeholder used")
		default:
			g.note(path, "%s; placeholder used", msg)
		}
		return failVal, false
	}
	reason := func(why string) {
		if why != "" && failWhy == "" {
			failWhy = where(path) + ": " + why
		}
	}

	for _, o := range objs {
		if k, present := o.m["const"]; present {
			if try(k) {
				return k, true
			}
			return fail("const conflicts with the other keywords")
		}
	}
	defaults := preferred(objs)
	firstDefault := func() (any, bool) {
		quiet = true
		defer func() { quiet = false }()
		for _, d := range defaults {
			if try(d) {
				return d, true
			}
		}
		return nil, false
	}
	if vk == 0 {
		if d, ok := firstDefault(); ok {
			return d, true
		}
	}
	for _, o := range objs {
		members, ok := o.m["enum"].([]any)
		if !ok {
			continue
		}
		if len(members) == 0 {
			return fail("enum is empty")
		}
		if len(members) > maxEnum {
			members = members[:maxEnum]
		}
		ordered := sensibleFirst(members)
		for i := range ordered {
			if m := ordered[(i+vk)%len(ordered)]; try(m) {
				return m, true
			}
			if g.work <= 0 {
				break
			}
		}
		return fail("no enum member satisfies the other keywords")
	}

	for _, t := range types {
		if g.work <= 0 {
			break
		}
		switch t {
		case tObject:
			v, optionals := g.object(path, name, objs, depth, vk, true)
			if try(v) {
				return v, true
			}
			if optionals {
				if v, _ := g.object(path, name, objs, depth, vk, false); try(v) {
					return v, true
				}
			}
		case tArray:
			v, why := g.array(path, name, objs, depth, vk)
			reason(why)
			if why == "" && try(v) {
				return v, true
			}
			if !failed {
				failed, failVal = true, v
			}
		case tString:
			cands, why := g.strings(path, name, objs, vk)
			for _, s := range cands {
				if try(s) {
					return s, true
				}
			}
			reason(why)
		case tNumber, tInteger:
			cands, why := g.numbers(path, name, objs, t == tInteger, vk)
			for _, n := range cands {
				if try(n) {
					return n, true
				}
			}
			reason(why)
		case tBoolean:
			// false, or the hint's value, first; variants alternate.
			b := vk%2 == 1
			if h := lookupHint(name); h != nil && h.bool != nil {
				b = *h.bool != (vk%2 == 1)
			}
			for _, c := range []bool{b, !b} {
				if try(c) {
					return c, true
				}
			}
		case tNull:
			if try(nil) {
				return nil, true
			}
		}
	}
	if vk != 0 {
		if d, ok := firstDefault(); ok {
			return d, true
		}
	}
	return fail("no value satisfies every keyword")
}

// preferred returns `default` values, then `examples` (the first eight of
// each list), from every schema of the conjunction; null values go last.
func preferred(objs []fobj) []any {
	var out, nulls []any
	add := func(v any) {
		if v == nil {
			nulls = append(nulls, v)
		} else {
			out = append(out, v)
		}
	}
	for _, o := range objs {
		if d, present := o.m["default"]; present {
			add(d)
		}
	}
	for _, o := range objs {
		if ex, ok := o.m["examples"].([]any); ok {
			for i, e := range ex {
				if i >= 8 {
					break
				}
				add(e)
			}
		}
	}
	return append(out, nulls...)
}

// sensibleFirst orders enum members so that null and "" come last.
func sensibleFirst(members []any) []any {
	out := make([]any, 0, len(members))
	var later []any
	for _, m := range members {
		if s, isStr := m.(string); m == nil || (isStr && strings.TrimSpace(s) == "") {
			later = append(later, m)
			continue
		}
		out = append(out, m)
	}
	return append(out, later...)
}

var (
	objectKeywords = []string{"properties", "required", "additionalProperties", "patternProperties", "minProperties", "maxProperties", "propertyNames", "dependentRequired", "dependentSchemas", "dependencies", "unevaluatedProperties"}
	arrayKeywords  = []string{"items", "prefixItems", "additionalItems", "minItems", "maxItems", "contains", "uniqueItems", "unevaluatedItems"}
	stringKeywords = []string{"minLength", "maxLength", "pattern", "format"}
	numberKeywords = []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}
)

func hasAny(objs []fobj, keys []string) bool {
	for _, o := range objs {
		for _, k := range keys {
			if _, present := o.m[k]; present {
				return true
			}
		}
	}
	return false
}

// typeChoices lists the types to try, in order: the declared order of the
// first `type`, restricted to what every `type` allows, null last. With no
// `type`, the keywords present decide; with none of those either, the
// property-name hint does, then string. The root prefers object.
func (g *gen) typeChoices(name string, objs []fobj, depth int) []typeSet {
	allowed := tAll
	var declared []typeSet
	seenType := false
	for _, o := range objs {
		order, ok := typeOrder(o.m["type"])
		if !ok {
			continue
		}
		if !seenType {
			declared = order
		}
		seenType = true
		allowed &= setOf(order)
	}
	var out []typeSet
	add := func(t typeSet) {
		if t == tNumber && allowed&tNumber == 0 && allowed&tInteger != 0 {
			t = tInteger
		}
		if allowed&t != 0 && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	if seenType {
		if depth == 0 {
			add(tObject)
		}
		for _, t := range declared {
			if t != tNull {
				add(t)
			}
		}
		add(tNull)
		return out
	}
	if depth == 0 {
		add(tObject)
	}
	if hasAny(objs, objectKeywords) {
		add(tObject)
	}
	if hasAny(objs, arrayKeywords) {
		add(tArray)
	}
	if hasAny(objs, stringKeywords) {
		add(tString)
	}
	if hasAny(objs, numberKeywords) {
		add(tNumber)
	}
	if h := lookupHint(name); h != nil {
		switch {
		case len(h.strs) > 0:
			add(tString)
		case h.bool != nil:
			add(tBoolean)
		case len(h.ints) > 0:
			add(tInteger)
		}
	}
	add(tString)
	add(tInteger)
	add(tBoolean)
	add(tNull)
	return out
}

// fillers are the words an unhinted string is drawn from (by seed).
var fillers = []string{"example", "sample", "demo", "alpha", "bravo", "harbor", "meadow", "orbit"}

// strings proposes string candidates: the format's values (if the format
// is known) or else the name or description hint's, strings written from
// each pattern at several repetition counts, a filler word drawn by seed,
// and each of those stretched or cut to fit minLength and maxLength
// (counted in code points; a minLength above 65,536 is not generated).
func (g *gen) strings(path, name string, objs []fobj, vk int) ([]string, string) {
	minL, maxL := 0, -1
	var patterns, formats []string
	for _, o := range objs {
		if n, ok := count(o.m, "minLength"); ok {
			minL = max(minL, n)
		}
		if n, ok := count(o.m, "maxLength"); ok {
			if maxL < 0 || n < maxL {
				maxL = n
			}
		}
		if p, ok := o.m["pattern"].(string); ok && !slices.Contains(patterns, p) {
			patterns = append(patterns, p)
		}
		if f, ok := o.m["format"].(string); ok && !slices.Contains(formats, f) {
			formats = append(formats, f)
		}
	}
	if maxL >= 0 && minL > maxL {
		return nil, fmt.Sprintf("minLength %d is above maxLength %d, so no string fits", minL, maxL)
	}
	if minL > 1<<16 {
		return nil, fmt.Sprintf("minLength %d is too large to generate", minL)
	}
	var base []string
	add := func(list []string) {
		for i := range list {
			base = append(base, list[(i+vk)%len(list)])
		}
	}
	knownFormat := false
	for _, f := range formats {
		if vals, ok := formatValues[f]; ok {
			add(vals)
			knownFormat = true
			break
		}
	}
	h := lookupHint(name)
	if h == nil || len(h.strs) == 0 {
		h = descriptionHint(objs)
	}
	if h != nil && len(h.strs) > 0 && !knownFormat {
		if vk >= len(h.strs) {
			// Past the end of the list: numbered values keep variants apart.
			base = append(base, fmt.Sprintf("%s %d", h.strs[vk%len(h.strs)], vk/len(h.strs)+1))
		}
		add(h.strs)
	}
	filler := fillers[g.rnd(path, vk, "filler")%uint64(len(fillers))]
	word := filler
	if len(base) > 0 {
		word = letters(base[0], filler)
	}
	for _, p := range patterns {
		reps := []int{7, 1, 0, 3, 12, 30}
		if minL > 0 {
			reps = append(reps, minL)
		}
		for _, r := range reps {
			if s, ok := fromPattern(p, r, vk, word); ok {
				base = append(base, s)
			}
		}
	}
	if !knownFormat || len(base) == 0 {
		base = append(base, filler)
	}
	var out []string
	for _, s := range base {
		n := utf8.RuneCountInString(s)
		if n >= minL && (maxL < 0 || n <= maxL) {
			out = append(out, s)
		}
	}
	for i, s := range base {
		if minL > 256 && i >= 3 {
			break // long strings are costly; three stretched candidates suffice
		}
		if fit, ok := fitLength(s, minL, maxL); ok {
			out = append(out, fit)
		}
	}
	if len(patterns) > 0 || knownFormat {
		return out, "no generated string satisfies the pattern, format and length keywords together"
	}
	return out, ""
}

// letters keeps the lower-case ASCII letters of s, for pattern writing.
func letters(s, fallback string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' {
			b.WriteRune(r)
		}
	}
	if b.Len() < 3 {
		return fallback
	}
	return b.String()
}

// fitLength pads s (by repeating it) or cuts it to fit [minL, maxL].
func fitLength(s string, minL, maxL int) (string, bool) {
	r := []rune(s)
	if len(r) == 0 {
		r = []rune("x")
	}
	if len(r) < minL {
		out := make([]rune, 0, minL)
		for len(out) < minL {
			if len(out) > 0 {
				out = append(out, ' ')
			}
			out = append(out, r...)
		}
		r = out[:minL]
	}
	if maxL >= 0 && len(r) > maxL {
		r = r[:maxL]
	}
	return string(r), len(r) >= minL
}

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
			if r, ok := parseRat(list[(i+vk)%len(list)]); ok {
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

// object builds an object: every required property (sorted), and — when
// withOptional and the object is at most two levels deep — each optional
// property whose value validates on its own (not deprecated or readOnly,
// at most 64 of them), then enough extra properties for minProperties.
//
// optionals reports whether anything beyond the required properties was
// added, i.e. whether a retry without them could differ.
func (g *gen) object(path, name string, objs []fobj, depth, vk int, withOptional bool) (obj map[string]any, optionals bool) {
	objs = slices.Clone(objs)
	required := map[string]bool{}
	for round := 0; round < 8; round++ {
		before := len(required) + len(objs)
		for _, o := range objs {
			for _, r := range requiredOf(o.m) {
				required[r] = true
			}
		}
		for _, o := range slices.Clone(objs) {
			for _, key := range []string{"dependentRequired", "dependencies", "dependentSchemas"} {
				dm, ok := o.m[key].(map[string]any)
				if !ok {
					continue
				}
				for _, p := range sortedKeys(dm) {
					if !required[p] {
						continue
					}
					switch d := dm[p].(type) {
					case []any:
						for _, e := range d {
							if s, ok := e.(string); ok {
								required[s] = true
							}
						}
					default:
						loc := pointerJoin(o.loc+"/"+key, p)
						if key != "dependentRequired" && !slices.ContainsFunc(objs, func(o fobj) bool { return o.loc == loc }) {
							var fl flat
							g.expand(ent{s: d, loc: loc}, &fl, 0, path)
							objs = append(objs, fl.objs...)
						}
					}
				}
			}
		}
		if len(required)+len(objs) == before {
			break
		}
	}
	out := map[string]any{}
	for _, p := range sortedKeys(required) {
		val, _ := g.node(pointerJoin(path, p), p, g.propertyEnts(objs, p), depth+1, vk)
		out[p] = val
	}
	declared := map[string]bool{}
	for _, o := range objs {
		props, _ := o.m["properties"].(map[string]any)
		for k := range props {
			declared[k] = true
		}
	}
	optional := []string{}
	for _, p := range sortedKeys(declared) {
		if !required[p] && !hasDependents(objs, p) {
			optional = append(optional, p)
		}
	}
	if len(optional) > maxProps {
		optional = optional[:maxProps]
	}
	minP, maxP := 0, -1
	for _, o := range objs {
		if n, ok := count(o.m, "minProperties"); ok {
			minP = max(minP, n)
		}
		if n, ok := count(o.m, "maxProperties"); ok && (maxP < 0 || n < maxP) {
			maxP = n
		}
	}
	addOptional := func(p string) {
		if _, have := out[p]; have || (maxP >= 0 && len(out) >= maxP) {
			return
		}
		mark := len(g.notes)
		val, ok := g.node(pointerJoin(path, p), p, g.propertyEnts(objs, p), depth+1, vk)
		if ok {
			out[p] = val
		} else {
			g.notes = g.notes[:mark]
		}
	}
	if withOptional && depth < 2 {
		for _, p := range optional {
			if !skipOptional(objs, p) {
				addOptional(p)
			}
		}
	}
	for _, p := range optional {
		if len(out) >= minP || g.work <= 0 {
			break
		}
		addOptional(p)
	}
	for i := 1; len(out) < minP && i <= minP+8 && i <= 72 && g.work > 0; i++ {
		for _, n := range g.extraNames(path, objs, depth, vk+i, i) {
			if _, have := out[n]; !have && g.nameAllowed(objs, n) {
				addOptional(n)
				break
			}
		}
	}
	return out, len(out) > len(required)
}

// extraNames proposes names for properties added only to reach
// minProperties: one written for propertyNames, one per patternProperties
// key, then "extraN".
func (g *gen) extraNames(path string, objs []fobj, depth, vk, i int) []string {
	var out []string
	for _, o := range objs {
		if pn, present := o.m["propertyNames"]; present {
			mark := len(g.notes)
			if v, ok := g.node(path, "key", []ent{{s: pn, loc: o.loc + "/propertyNames"}}, depth+1, vk); ok {
				if s, isStr := v.(string); isStr {
					out = append(out, s)
				}
			}
			g.notes = g.notes[:mark]
		}
		if pp, ok := o.m["patternProperties"].(map[string]any); ok {
			for _, p := range sortedKeys(pp) {
				if s, ok := fromPattern(p, 3, i, "key"); ok {
					out = append(out, s)
				}
			}
		}
	}
	return append(out, fmt.Sprintf("extra%d", i))
}

// nameAllowed checks a property name against every propertyNames.
func (g *gen) nameAllowed(objs []fobj, name string) bool {
	for _, o := range objs {
		if pn, present := o.m["propertyNames"]; present && g.check([]ent{{s: pn, loc: o.loc + "/propertyNames"}}, name) != nil {
			return false
		}
	}
	return true
}

// hasDependents reports whether including p would drag in more
// requirements; such optional properties are left out.
func hasDependents(objs []fobj, p string) bool {
	for _, o := range objs {
		for _, key := range []string{"dependentRequired", "dependencies", "dependentSchemas"} {
			if dm, ok := o.m[key].(map[string]any); ok {
				if _, has := dm[p]; has {
					return true
				}
			}
		}
	}
	return false
}

// skipOptional leaves out optional properties marked deprecated or
// readOnly: a realistic caller would not send them.
func skipOptional(objs []fobj, p string) bool {
	for _, o := range objs {
		props, _ := o.m["properties"].(map[string]any)
		if s, ok := props[p].(map[string]any); ok {
			if d, _ := s["deprecated"].(bool); d {
				return true
			}
			if r, _ := s["readOnly"].(bool); r {
				return true
			}
		}
	}
	return false
}

// propertyEnts collects the schemas that apply to property p: its
// `properties` entry, matching `patternProperties`, else
// `additionalProperties`, from every schema of the conjunction.
func (g *gen) propertyEnts(objs []fobj, p string) []ent {
	var out []ent
	for _, o := range objs {
		matched := false
		if props, ok := o.m["properties"].(map[string]any); ok {
			if s, has := props[p]; has {
				out = append(out, ent{s: s, loc: pointerJoin(o.loc+"/properties", p)})
				matched = true
			}
		}
		pp, _ := o.m["patternProperties"].(map[string]any)
		for _, pat := range sortedKeys(pp) {
			if re := g.regexp(pat); re != nil && re.MatchString(p) {
				out = append(out, ent{s: pp[pat], loc: pointerJoin(o.loc+"/patternProperties", pat)})
				matched = true
			}
		}
		if addl, present := o.m["additionalProperties"]; present && !matched {
			out = append(out, ent{s: addl, loc: o.loc + "/additionalProperties"})
		}
	}
	return out
}

// array builds an array of max(minItems, 1) items (minItems only below
// eight levels of nesting), capped by maxItems, with `contains` honoured
// by the first minContains items.
func (g *gen) array(path, name string, objs []fobj, depth, vk int) ([]any, string) {
	minI, maxI := 0, -1
	var contains []ent
	minC := 0
	for _, o := range objs {
		if n, ok := count(o.m, "minItems"); ok {
			minI = max(minI, n)
		}
		if n, ok := count(o.m, "maxItems"); ok && (maxI < 0 || n < maxI) {
			maxI = n
		}
		if c, present := o.m["contains"]; present {
			contains = append(contains, ent{s: c, loc: o.loc + "/contains"})
			need := 1
			if n, ok := count(o.m, "minContains"); ok && g.draft >= draft2019 {
				need = n
			}
			minC = max(minC, need)
		}
	}
	n := minI
	if n == 0 && depth < 8 {
		n = 1
	}
	n = max(n, minC)
	if maxI >= 0 && n > maxI {
		if minI > maxI || minC > maxI {
			return []any{}, fmt.Sprintf("minItems/minContains above maxItems %d, so no array fits", maxI)
		}
		n = maxI
	}
	if n > maxItemsGen {
		return []any{}, fmt.Sprintf("minItems %d is too large to generate", n)
	}
	unique := false
	for _, o := range objs {
		if u, _ := o.m["uniqueItems"].(bool); u {
			unique = true
		}
	}
	item := singularName(name)
	out := make([]any, 0, n)
	for i := 0; i < n; i++ {
		ents := g.itemEnts(objs, i)
		if i < minC {
			ents = append(ents, contains...)
		}
		ip := index(path, i)
		val, _ := g.node(ip, item, ents, depth+1, vk+i)
		// Items must differ: try later variants while this one repeats.
		for k := 1; unique && k <= 8 && repeats(out, val) && g.work > 0; k++ {
			mark := len(g.notes)
			if next, ok := g.node(ip, item, ents, depth+1, vk+i+k*n); ok && !repeats(out, next) {
				val = next
			}
			g.notes = g.notes[:mark]
		}
		out = append(out, val)
		if g.work <= 0 || g.size > sizeBudget {
			break
		}
	}
	return out, ""
}

func repeats(list []any, v any) bool {
	return slices.ContainsFunc(list, func(e any) bool { return assert.Equal(e, v) })
}

// singularName is the hint name for an array's items: "entityNames" → "entityName".
func singularName(name string) string {
	words := splitWords(name)
	if len(words) == 0 {
		return name
	}
	words[len(words)-1] = singular(words[len(words)-1])
	return strings.Join(words, "_")
}

// itemEnts collects the schemas that apply to position i of an array, by
// draft: from 2020-12, prefixItems then items; before, items as a list
// (then additionalItems) or as one schema for every item.
func (g *gen) itemEnts(objs []fobj, i int) []ent {
	var out []ent
	for _, o := range objs {
		items, hasItems := o.m["items"]
		tuple, isTuple := items.([]any)
		if g.draft >= draft2020 {
			isTuple = false
			tuple, _ = o.m["prefixItems"].([]any)
			if i < len(tuple) {
				out = append(out, ent{s: tuple[i], loc: index(o.loc+"/prefixItems", i)})
			} else if hasItems {
				out = append(out, ent{s: items, loc: o.loc + "/items"})
			}
			continue
		}
		switch {
		case isTuple && i < len(tuple):
			out = append(out, ent{s: tuple[i], loc: index(o.loc+"/items", i)})
		case isTuple:
			if addl, present := o.m["additionalItems"]; present {
				out = append(out, ent{s: addl, loc: o.loc + "/additionalItems"})
			}
		case hasItems:
			out = append(out, ent{s: items, loc: o.loc + "/items"})
		}
	}
	return out
}
