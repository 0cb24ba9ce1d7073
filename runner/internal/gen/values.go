package gen

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"regexp"
	"slices"
	"strings"

	"github.com/go-openapi/jsonpointer"
	"github.com/mcpcheck/mcpcheck/assert"
	"github.com/mcpcheck/mcpcheck/internal/mix"
	"github.com/mcpcheck/mcpcheck/runner/internal/schema"
)

// Values generates realistic arguments that satisfy a tool's inputSchema.
//
// A Values holds its seed and what Offer and Fresh gave it, read only, so
// one value may be shared by goroutines (an Offered records what was used:
// see [Offered]).
// Output depends on nothing but the seed, the tool name, the schema
// document and (for [Values.Distinct]) the variant number: never on map
// iteration order or on earlier calls.
type Values struct {
	seed    int64
	offered *Offered
	fresh   *freshPaths
}

// NewValues returns a generator whose pseudo-random choices (numbers and
// filler words that no hint or schema keyword decides) derive from seed and
// the tool name.
func NewValues(seed int64) *Values {
	return &Values{seed: seed}
}

// Offer makes v try the server's own values first for the properties they
// fit (see [Offered]), and returns v. Without an offer, or for properties
// no offered value fits or validates for, nothing changes.
func (v *Values) Offer(o *Offered) *Values {
	v.offered = o
	return v
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
	if v != nil {
		g.offered = v.offered
		g.fresh = v.fresh.forTool(tool)
	}
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
	offered *Offered
	fresh   *freshPaths // nil, or the path rules of this tool (fresh.go)
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
	return mix.Spread(h.Sum64())
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
