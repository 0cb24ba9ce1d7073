package gen

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpcheck/mcpcheck/assert"
)

// object builds an object: every required property (sorted), and — when
// withOptional and the object is at most two levels deep — the optional
// properties optionalsToFill picks whose value validates on its own, then
// enough extra properties for minProperties.
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
		for _, p := range g.optionalsToFill(objs, optional, vk) {
			addOptional(p)
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
	words := SplitWords(name)
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
