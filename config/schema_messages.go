package config

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// problem is one schema violation and the place it concerns, as the
// message table's rules see it.
type problem struct {
	root, tree, n *node
	path          string
	ve            *jsonschema.ValidationError
	errs          *errList
}

// say records a message at the value.
func (p *problem) say(format string, a ...any) { p.errs.at(p.n.pos, format, a...) }

// under reports whether the broken rule is the schema's def (a suffix of
// its location, "/$defs/matcher").
func (p *problem) under(def string) bool { return strings.HasSuffix(p.ve.SchemaURL, def) }

// keyPos is where key stands in the value (an object), or the value's own
// place when it has no such key.
func (p *problem) keyPos(obj *node, key string) loc {
	if f := obj.get(key); f != nil {
		return f.keyPos
	}
	return p.n.pos
}

// schemaRule writes the messages of one kind of violation, reporting
// whether the violation was its kind.
type schemaRule func(p *problem) bool

// rule is the table entry for the violations of kind K.
func rule[K jsonschema.ErrorKind](say func(p *problem, k K)) schemaRule {
	return func(p *problem) bool {
		k, ok := p.ve.ErrorKind.(K)
		if ok {
			say(p, k)
		}
		return ok
	}
}

// schemaMessages is the message table: how each broken schema keyword is
// said in the fixture's words. A keyword without a rule is named as the
// schema names it.
var schemaMessages = []schemaRule{
	rule(unknownKeys),
	rule(func(p *problem, k *kind.Required) {
		for _, m := range k.Missing {
			p.say("%smissing required key %s", prefix(p.path), quote(m))
		}
	}),
	rule(func(p *problem, k *kind.Type) {
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = article(w)
			// Where an object must be a matcher ($len, a count), say so.
			if w == "object" && strValue(schemaAt(p.tree, p.ve.SchemaURL).value("then").value("$ref")) == "#"+matcherDef {
				want[i] = "a matcher"
			}
		}
		p.say("%s must be %s, got %s", label(p.path), strings.Join(want, " or "), describe(p.n))
	}),
	rule(func(p *problem, k *kind.Enum) {
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = fmt.Sprint(w)
			if s, ok := w.(string); ok {
				want[i] = strconv.Quote(s)
			}
		}
		p.say("%s must be one of %s; got %s", label(p.path), strings.Join(want, ", "), describe(p.n))
	}),
	rule(func(p *problem, k *kind.Const) {
		p.say("%s must be %s, got %s", label(p.path), jsonText(k.Want), describe(p.n))
	}),
	rule(func(p *problem, k *kind.Minimum) {
		if p.under("#/$defs/generate/properties/concurrency/then") {
			p.say("%s must be 0 (off) or 2 to %d, got %s", label(p.path), MaxConcurrency, shorten(p.n.str))
			return
		}
		p.say("%s must be ≥ %s, got %s", label(p.path), k.Want.RatString(), shorten(p.n.str))
	}),
	rule(func(p *problem, k *kind.Maximum) {
		p.say("%s must be ≤ %s, got %s", label(p.path), k.Want.RatString(), shorten(p.n.str))
	}),
	rule(func(p *problem, k *kind.MinItems) {
		p.atLeast(k.Want, "%s must have at least %d items, got %d", k.Want, k.Got)
	}),
	rule(func(p *problem, k *kind.MinLength) {
		p.atLeast(k.Want, "%s must be at least %d characters long", k.Want)
	}),
	rule(func(p *problem, k *kind.MaxLength) {
		p.say("%s must be at most %d characters long, got %d", label(p.path), k.Want, k.Got)
	}),
	rule(func(p *problem, k *kind.Pattern) {
		switch {
		case p.under("#/$defs/stepId"):
			p.say("%s %s is not a valid step id: use ASCII letters, digits, '_', '-' and '.'", label(p.path), quote(k.Got))
		case p.under("#/$defs/jsonPointer"):
			p.say("%s %s is not a JSON Pointer: it starts with '/', and a '~' in a name is written ~0 (a '/' in a name ~1)", label(p.path), quote(k.Got))
		default:
			p.say("%s %s must match %s", label(p.path), quote(k.Got), k.Want)
		}
	}),
	rule(func(p *problem, k *kind.Format) {
		if k.Want == "regex" {
			msg := strings.TrimPrefix(fmt.Sprint(k.Err), "error parsing regexp: ")
			p.say("%s %s is not an RE2 regular expression: %s", label(p.path), quote(p.n.str), msg)
			return
		}
		p.say("%s %s is not a valid %s", label(p.path), quote(p.n.str), k.Want)
	}),
	rule(func(p *problem, k *kind.UniqueItems) {
		i, j := k.Duplicates[0], k.Duplicates[1]
		pos := p.n.pos
		if p.n.kind == arrayNode && j < len(p.n.items) {
			pos = p.n.items[j].pos
		}
		p.errs.at(pos, "%s: %s is listed twice (also %s)", indexPath(p.path, j), shortValue(p.n, j), indexPath(p.path, i))
	}),
	rule(func(p *problem, k *kind.MinProperties) {
		if p.under(matcherDef) {
			p.say("%s must be a matcher, an object with one of the keys %s; got {}", label(p.path), strings.Join(allowedKeys(schemaAt(p.tree, p.ve.SchemaURL)), ", "))
			return
		}
		p.atLeast(k.Want, "%s must have at least %d keys, got %d", k.Want, k.Got)
	}),
	rule(func(p *problem, k *kind.MaxProperties) {
		switch {
		case p.under(matcherDef):
			p.say("%s: a matcher is an object with exactly one key, got %d (matchers do not combine)", label(p.path), k.Got)
		case k.Want == 0:
			p.say("%s takes no keys: write {}", label(p.path))
		default:
			p.say("%s must have at most %d keys, got %d", label(p.path), k.Want, k.Got)
		}
	}),
	rule(func(p *problem, _ *kind.FalseSchema) {
		_, frag, _ := strings.Cut(p.ve.SchemaURL, "#")
		loc := p.ve.InstanceLocation
		if op, ok := strings.CutPrefix(frag, "/$defs/expected/else/properties/"); ok && len(loc) > 0 {
			// A matcher's key beside others: refused, not taken as data,
			// so that {$gte: 1, $lte: 5} never silently means a literal.
			obj, objPath := locate(p.root, loc[:len(loc)-1])
			p.errs.at(p.keyPos(obj, op), "%s%s is a matcher, and a matcher must be the only key of its object (matchers do not combine); write $%s for a literal key %s", prefix(objPath), op, op, op)
			return
		}
		p.say("%s is not allowed here", label(p.path))
	}),
	rule(func(p *problem, _ *kind.Not) {
		if p.under("#/$defs/jsonPaths") {
			p.errs.at(p.keyPos(p.n, ""), "%s: a gjson path must not be empty", label(p.path))
			return
		}
		p.say("%s fails the schema's %q rule", label(p.path), "not")
	}),
}

// atLeast says that the value is too small: empty when one was the
// least (want 1), else in the rule's own words (format after the label).
func (p *problem) atLeast(want int, format string, a ...any) {
	if want == 1 {
		p.say("%s must not be empty", label(p.path))
		return
	}
	p.say(format, append([]any{label(p.path)}, a...)...)
}

// unknownKeys says which keys an object may not hold, with the likely
// key meant and the keys it may.
func unknownKeys(p *problem, k *kind.AdditionalProperties) {
	allowed := allowedKeys(schemaAt(p.tree, p.ve.SchemaURL))
	matcher := p.under(matcherDef)
	for _, key := range k.Properties {
		msg := prefix(p.path) + "unknown key " + quote(key)
		switch {
		case matcher && strings.HasPrefix(key, "$"):
			msg = prefix(p.path) + "unknown matcher " + quote(key)
		case matcher:
			msg = prefix(p.path) + quote(key) + " is not a matcher"
		}
		if s := Suggest(key, allowed); s != "" {
			msg += "; did you mean " + quote(s) + "?"
		} else if s := nestedKey(p.tree, p.path, key); s != "" {
			msg += "; did you mean " + s + "? (" + quote(key) + " is a setting of " + strings.TrimSuffix(s, "."+key) + ")"
		}
		switch {
		case matcher:
			msg += " (matchers: " + strings.Join(allowed, ", ") + "; write $$ for a literal $ at the start of a key)"
		case len(allowed) > 0:
			msg += " (allowed: " + strings.Join(allowed, ", ") + ")"
		}
		p.errs.at(p.keyPos(p.n, key), "%s", msg)
	}
}

// schemaProblem records the message of one violation at the place it
// concerns.
func schemaProblem(root, tree *node, ve *jsonschema.ValidationError, errs *errList) {
	n, path := locate(root, ve.InstanceLocation)
	p := &problem{root: root, tree: tree, n: n, path: path, ve: ve, errs: errs}
	for _, say := range schemaMessages {
		if say(p) {
			return
		}
	}
	p.say("%s fails the schema's %q rule", label(p.path), strings.Join(ve.ErrorKind.KeywordPath(), "/"))
}
