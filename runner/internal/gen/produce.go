package gen

import "slices"

// produce tries candidate values for a conjunction with no open choices,
// in order of preference, and returns the first that validates: const;
// the server's offered values; default, then examples, null ones last
// (first variant only; later ones try them after everything else); enum
// members (null and "" last); then values built for each allowed type, in
// typeChoices order.
func (g *gen) produce(path, name string, ents []ent, objs []fobj, depth, vk int) (any, bool) {
	t := &attempt{g: g, path: path, ents: ents, mark: len(g.notes)}
	for _, o := range objs {
		if k, present := o.m["const"]; present {
			if t.try(k) {
				return k, true
			}
			return t.fail("const conflicts with the other keywords")
		}
	}
	// A tool that may write gets a path of its own, never one the server
	// already holds (fresh.go).
	if v, ok := g.freshPath(t, path, name, vk); ok {
		return v, true
	}
	// The server's own values come first: an id it listed, a directory it
	// serves (see Offered). Variants rotate through them.
	if cands := g.offered.candidates(g.tool, name); len(cands) > 0 && !g.fresh.writes(name) {
		t.quiet = true
		for i := range min(len(cands), maxOfferTries) {
			c := cands[(i+vk)%len(cands)]
			if t.try(c.value) {
				g.offered.use(g.tool, path, c)
				return c.value, true
			}
		}
		t.quiet = false
	}
	defaults := preferred(objs)
	if vk == 0 {
		if d, ok := t.firstOf(defaults); ok {
			return d, true
		}
	}
	if v, ok, decided := t.enum(objs, vk); decided {
		return v, ok
	}
	if v, ok := g.byType(t, path, name, objs, depth, vk); ok {
		return v, true
	}
	if vk != 0 {
		if d, ok := t.firstOf(defaults); ok {
			return d, true
		}
	}
	return t.fail("no value satisfies every keyword")
}

// attempt is produce's record of the candidates it tried: notes written
// while building a rejected candidate are withdrawn, and those of the
// first rejection are kept for the final report.
type attempt struct {
	g         *gen
	path      string
	ents      []ent
	mark      int  // len(g.notes) when produce began
	quiet     bool // rejected defaults, examples and offers explain nothing
	failed    bool
	failVal   any
	failWhy   string
	failNotes []string
}

// try validates one candidate.
func (t *attempt) try(v any) bool {
	g := t.g
	err := g.check(t.ents, v)
	if err == nil {
		return true
	}
	if !t.failed && !t.quiet {
		t.failed, t.failVal, t.failWhy = true, v, g.why(t.path, err)
		t.failNotes = slices.Clone(g.notes[t.mark:])
	}
	g.notes = g.notes[:t.mark]
	return false
}

// fail keeps the most specific explanation: notes from inside the value
// if there are any, else why the first candidate was rejected, else msg.
func (t *attempt) fail(msg string) (any, bool) {
	g := t.g
	g.notes = append(g.notes[:t.mark], t.failNotes...)
	switch {
	case len(t.failNotes) > 0:
	case t.failWhy != "":
		g.notes = append(g.notes, t.failWhy+"; placeholder used")
	default:
		g.note(t.path, "%s; placeholder used", msg)
	}
	return t.failVal, false
}

// reason is why a builder could not make a candidate, kept when no
// rejection explains more.
func (t *attempt) reason(why string) {
	if why != "" && t.failWhy == "" {
		t.failWhy = where(t.path) + ": " + why
	}
}

// firstOf returns the first of the defaults and examples that validates.
func (t *attempt) firstOf(defaults []any) (any, bool) {
	t.quiet = true
	defer func() { t.quiet = false }()
	for _, d := range defaults {
		if t.try(d) {
			return d, true
		}
	}
	return nil, false
}

// enum tries the members of the first enum of the conjunction; decided
// reports that there was one, so its answer is final.
func (t *attempt) enum(objs []fobj, vk int) (v any, ok, decided bool) {
	for _, o := range objs {
		members, isList := o.m["enum"].([]any)
		if !isList {
			continue
		}
		if len(members) == 0 {
			v, ok = t.fail("enum is empty")
			return v, ok, true
		}
		if len(members) > maxEnum {
			members = members[:maxEnum]
		}
		ordered := sensibleFirst(members)
		for i := range ordered {
			if m := ordered[(i+vk)%len(ordered)]; t.try(m) {
				return m, true, true
			}
			if t.g.work <= 0 {
				break
			}
		}
		v, ok = t.fail("no enum member satisfies the other keywords")
		return v, ok, true
	}
	return nil, false, false
}

// byType builds candidates for each allowed type, in typeChoices order,
// and returns the first that validates.
func (g *gen) byType(t *attempt, path, name string, objs []fobj, depth, vk int) (any, bool) {
	for _, ty := range g.typeChoices(name, objs, depth) {
		if g.work <= 0 {
			break
		}
		switch ty {
		case tObject:
			v, optionals := g.object(path, name, objs, depth, vk, true)
			if t.try(v) {
				return v, true
			}
			if optionals {
				if v, _ := g.object(path, name, objs, depth, vk, false); t.try(v) {
					return v, true
				}
			}
		case tArray:
			v, why := g.array(path, name, objs, depth, vk)
			t.reason(why)
			if why == "" && t.try(v) {
				return v, true
			}
			if !t.failed {
				t.failed, t.failVal = true, v
			}
		case tString:
			cands, why := g.strings(path, name, objs, vk)
			cands = g.fresh.anchor(name, cands)
			for _, s := range cands {
				if t.try(s) {
					return s, true
				}
			}
			t.reason(why)
		case tNumber, tInteger:
			cands, why := g.numbers(path, name, objs, ty == tInteger, vk)
			for _, n := range cands {
				if t.try(n) {
					return n, true
				}
			}
			t.reason(why)
		case tBoolean:
			// false, or the hint's value, first; variants alternate.
			b := vk%2 == 1
			if h := lookupHint(name); h != nil && h.bool != nil {
				b = *h.bool != (vk%2 == 1)
			}
			for _, c := range []bool{b, !b} {
				if t.try(c) {
					return c, true
				}
			}
		case tNull:
			if t.try(nil) {
				return nil, true
			}
		}
	}
	return nil, false
}
