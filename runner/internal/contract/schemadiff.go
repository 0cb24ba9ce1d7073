package contract

import (
	"maps"
	"reflect"
	"slices"

	"github.com/mcpcheck/mcpcheck/internal/jsonx"
)

// direction says whose side of a schema a change is judged from: an input
// schema is what clients send, so narrowing it breaks them; an output
// schema is what they read, so widening it does.
type direction int

const (
	input direction = iota
	output
)

// narrowed and widened grade a change that makes the set of valid values
// smaller or larger.
func (dir direction) narrowed() Severity {
	if dir == input {
		return Breaking
	}
	return Compatible
}

func (dir direction) widened() Severity {
	if dir == input {
		return Compatible
	}
	return Breaking
}

// Bound keywords: a larger lower bound or a smaller upper bound narrows.
var (
	lowerBounds = []string{"minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains"}
	upperBounds = []string{"maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains"}
	// shapeBounds narrow when added or changed, and widen when removed.
	shapeBounds = []string{"pattern", "format", "multipleOf", "contentEncoding", "contentMediaType"}
)

// handled are the keywords schema judges on their own; any other keyword
// that changes is a schema_changed finding.
var handled = func() map[string]bool {
	m := map[string]bool{"type": true, "properties": true, "required": true, "enum": true, "const": true,
		"items": true, "prefixItems": true, "anyOf": true, "oneOf": true, "allOf": true, "$defs": true, "definitions": true,
		"additionalProperties": true, "uniqueItems": true, "description": true, "title": true, "not": true,
		"patternProperties": true, "examples": true, "$comment": true}
	for _, list := range [][]string{lowerBounds, upperBounds, shapeBounds} {
		for _, k := range list {
			m[k] = true
		}
	}
	return m
}()

// schema compares two schemas at path, recursively.
func (d *differ) schema(old, new any, path string, dir direction) {
	if reflect.DeepEqual(old, new) {
		return
	}
	o, n := asSchema(old), asSchema(new)
	d.types(o, n, path, dir)
	d.properties(o, n, path, dir)
	d.enum(o, n, path, dir)
	d.bounds(o, n, path, dir)
	d.additional(o, n, path, dir)
	d.text(Risky, KindDescription, path+"/description", str(o["description"]), str(n["description"]))
	d.text(Risky, KindTitle, path+"/title", str(o["title"]), str(n["title"]))
	if io, ok := o["items"].(map[string]any); ok {
		if in, ok := n["items"].(map[string]any); ok {
			d.schema(io, in, path+"/items", dir)
		}
	} else if !reflect.DeepEqual(o["items"], n["items"]) {
		d.schemaChanged("items", o, n, path)
	}
	d.list(o, n, "prefixItems", path, dir)
	d.list(o, n, "allOf", path, dir)
	d.variants(o, n, "anyOf", path, dir)
	d.variants(o, n, "oneOf", path, dir)
	for _, defs := range []string{"$defs", "definitions"} {
		od, _ := o[defs].(map[string]any)
		nd, _ := n[defs].(map[string]any)
		for _, k := range slices.Sorted(maps.Keys(od)) {
			if nv, ok := nd[k]; ok {
				d.schema(od[k], nv, ptr(path+"/"+defs, k), dir)
			} else {
				d.add(dir.narrowed(), KindSchemaChanged, ptr(path+"/"+defs, k), od[k], none)
			}
		}
	}
	for _, k := range []string{"not", "patternProperties"} {
		if !reflect.DeepEqual(o[k], n[k]) {
			d.schemaChanged(k, o, n, path)
		}
	}
	keys := map[string]bool{}
	for k := range o {
		keys[k] = true
	}
	for k := range n {
		keys[k] = true
	}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		if !handled[k] && !reflect.DeepEqual(o[k], n[k]) {
			d.schemaChanged(k, o, n, path)
		}
	}
}

// schemaChanged reports a keyword whose change the rules do not grade:
// risky, for someone to read.
func (d *differ) schemaChanged(k string, o, n map[string]any, path string) {
	d.add(Risky, KindSchemaChanged, ptr(path, k), orNone(o, k), orNone(n, k))
}

func orNone(m map[string]any, k string) any {
	if v, ok := m[k]; ok {
		return v
	}
	return none
}

// asSchema is a schema as an object: true (anything) is {}, false
// (nothing) is {"not": {}}.
func asSchema(v any) map[string]any {
	switch x := v.(type) {
	case map[string]any:
		return x
	case bool:
		if !x {
			return map[string]any{"not": map[string]any{}}
		}
	}
	return map[string]any{}
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// typeSet is the set of JSON types a schema's type allows; nil when it
// says nothing (any type).
func typeSet(s map[string]any) map[string]bool {
	switch t := s["type"].(type) {
	case string:
		return map[string]bool{t: true}
	case []any:
		return stringSet(t)
	}
	return nil
}

// within reports whether every type of a is allowed by b (integer is
// within number; anything is within nil).
func within(a, b map[string]bool) bool {
	if b == nil {
		return true
	}
	if a == nil {
		return false
	}
	for t := range a {
		if !b[t] && !(t == "integer" && b["number"]) {
			return false
		}
	}
	return true
}

func (d *differ) types(o, n map[string]any, path string, dir direction) {
	ot, nt := typeSet(o), typeSet(n)
	if reflect.DeepEqual(ot, nt) {
		return
	}
	sev := Breaking // changed: neither contains the other
	switch {
	case within(ot, nt):
		sev = dir.widened()
	case within(nt, ot):
		sev = dir.narrowed()
	}
	d.add(sev, KindTypeChanged, path+"/type", orNone(o, "type"), orNone(n, "type"))
}

func (d *differ) properties(o, n map[string]any, path string, dir direction) {
	op, _ := o["properties"].(map[string]any)
	np, _ := n["properties"].(map[string]any)
	oreq, nreq := stringSet(o["required"]), stringSet(n["required"])
	for _, k := range slices.Sorted(maps.Keys(op)) {
		at := ptr(path+"/properties", k)
		nv, ok := np[k]
		if !ok {
			d.add(Breaking, KindPropertyRemoved, at, op[k], none)
			continue
		}
		// The change is to the required list: the name is its new entry
		// (old: none) or the one it lost (new: none), never the same
		// value on both sides.
		switch {
		case !oreq[k] && nreq[k]:
			d.add(dir.narrowed(), KindBecameRequired, path+"/required", none, k)
		case oreq[k] && !nreq[k]:
			d.add(dir.widened(), KindBecameOptional, path+"/required", k, none)
		}
		d.schema(op[k], nv, at, dir)
	}
	for _, k := range slices.Sorted(maps.Keys(np)) {
		if _, ok := op[k]; ok {
			continue
		}
		sev := Compatible
		if dir == input && nreq[k] {
			sev = Breaking
		}
		d.add(sev, KindPropertyAdded, ptr(path+"/properties", k), none, np[k])
	}
	// A required name with no property schema (allowed by JSON Schema).
	for _, k := range slices.Sorted(maps.Keys(nreq)) {
		if _, ok := np[k]; !ok && !oreq[k] {
			if _, ok := op[k]; !ok {
				d.add(dir.narrowed(), KindBecameRequired, path+"/required", none, k)
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(oreq)) {
		if _, ok := op[k]; !ok && !nreq[k] {
			if _, ok := np[k]; !ok {
				d.add(dir.widened(), KindBecameOptional, path+"/required", k, none)
			}
		}
	}
}

func stringSet(v any) map[string]bool {
	out := map[string]bool{}
	list, _ := v.([]any)
	for _, e := range list {
		if s, ok := e.(string); ok {
			out[s] = true
		}
	}
	return out
}

// enumValues is the set of values an enum (or const) allows, keyed by
// their JSON; nil when neither is there.
func enumValues(s map[string]any) (map[string]any, bool) {
	out := map[string]any{}
	if list, ok := s["enum"].([]any); ok {
		for _, e := range list {
			out[compact(e)] = e
		}
		return out, true
	}
	if c, ok := s["const"]; ok {
		out[compact(c)] = c
		return out, true
	}
	return nil, false
}

func (d *differ) enum(o, n map[string]any, path string, dir direction) {
	ov, oHas := enumValues(o)
	nv, nHas := enumValues(n)
	key := "/enum"
	if _, ok := n["enum"]; !ok {
		if _, ok := n["const"]; ok {
			key = "/const"
		}
	}
	switch {
	case !oHas && !nHas:
		return
	case !oHas:
		d.add(dir.narrowed(), KindBoundTightened, path+key, none, orNone(n, key[1:]))
		return
	case !nHas:
		d.add(dir.widened(), KindBoundLoosened, path+"/enum", orNone(o, "enum"), none)
		return
	}
	for _, k := range slices.Sorted(maps.Keys(ov)) {
		if _, ok := nv[k]; !ok {
			d.add(dir.narrowed(), KindEnumRemoved, path+key, ov[k], none)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(nv)) {
		if _, ok := ov[k]; !ok {
			d.add(dir.widened(), KindEnumAdded, path+key, none, nv[k])
		}
	}
}

func (d *differ) bounds(o, n map[string]any, path string, dir direction) {
	bound := func(k string, lower bool) {
		ov, oHas := o[k]
		nv, nHas := n[k]
		at := path + "/" + k
		switch {
		case !oHas && !nHas:
		case !oHas:
			d.add(dir.narrowed(), KindBoundTightened, at, none, nv)
		case !nHas:
			d.add(dir.widened(), KindBoundLoosened, at, ov, none)
		default:
			c, ok := jsonx.Compare(compact(nv), compact(ov))
			if !ok {
				if !reflect.DeepEqual(ov, nv) {
					d.add(Risky, KindSchemaChanged, at, ov, nv)
				}
				return
			}
			if !lower {
				c = -c
			}
			switch {
			case c > 0:
				d.add(dir.narrowed(), KindBoundTightened, at, ov, nv)
			case c < 0:
				d.add(dir.widened(), KindBoundLoosened, at, ov, nv)
			}
		}
	}
	for _, k := range lowerBounds {
		bound(k, true)
	}
	for _, k := range upperBounds {
		bound(k, false)
	}
	for _, k := range shapeBounds {
		ov, oHas := o[k]
		nv, nHas := n[k]
		at := path + "/" + k
		switch {
		case reflect.DeepEqual(ov, nv):
		case !nHas:
			d.add(dir.widened(), KindBoundLoosened, at, ov, none)
		case !oHas:
			d.add(dir.narrowed(), KindBoundTightened, at, none, nv)
		default:
			d.add(dir.narrowed(), KindBoundTightened, at, ov, nv)
		}
	}
	if ou, nu := o["uniqueItems"] == true, n["uniqueItems"] == true; ou != nu {
		sev, kind := dir.narrowed(), KindBoundTightened
		if ou {
			sev, kind = dir.widened(), KindBoundLoosened
		}
		d.add(sev, kind, path+"/uniqueItems", ou, nu)
	}
}

// additional judges additionalProperties: false forbids what true (or
// absent) allows; a schema is compared as one.
func (d *differ) additional(o, n map[string]any, path string, dir direction) {
	ov, oHas := o["additionalProperties"]
	nv, nHas := n["additionalProperties"]
	at := path + "/additionalProperties"
	closed := func(v any, has bool) bool { return has && v == false }
	switch {
	case reflect.DeepEqual(ov, nv):
	case !closed(ov, oHas) && closed(nv, nHas):
		d.add(dir.narrowed(), KindBoundTightened, at, orNone(o, "additionalProperties"), nv)
	case closed(ov, oHas) && !closed(nv, nHas):
		d.add(dir.widened(), KindBoundLoosened, at, ov, orNone(n, "additionalProperties"))
	default:
		_, om := ov.(map[string]any)
		_, nm := nv.(map[string]any)
		if om && nm {
			d.schema(ov, nv, at, dir)
		} else {
			d.add(Risky, KindSchemaChanged, at, orNone(o, "additionalProperties"), orNone(n, "additionalProperties"))
		}
	}
}

// list compares a list of schemas that all apply (allOf, prefixItems)
// position by position; a different length is a schema change.
func (d *differ) list(o, n map[string]any, k, path string, dir direction) {
	ol, _ := o[k].([]any)
	nl, _ := n[k].([]any)
	if len(ol) != len(nl) {
		d.schemaChanged(k, o, n, path)
		return
	}
	for i := range ol {
		d.schema(ol[i], nl[i], ptr(path+"/"+k, i), dir)
	}
}

// variants compares alternatives (anyOf, oneOf): the same count is
// compared position by position; otherwise an alternative that is not
// among the old ones widens, one that disappeared narrows.
func (d *differ) variants(o, n map[string]any, k, path string, dir direction) {
	ol, _ := o[k].([]any)
	nl, _ := n[k].([]any)
	if len(ol) == len(nl) {
		for i := range ol {
			d.schema(ol[i], nl[i], ptr(path+"/"+k, i), dir)
		}
		return
	}
	has := func(list []any, v any) bool {
		return slices.ContainsFunc(list, func(x any) bool { return reflect.DeepEqual(x, v) })
	}
	for i, v := range ol {
		if !has(nl, v) {
			d.add(dir.narrowed(), KindVariantRemoved, ptr(path+"/"+k, i), v, none)
		}
	}
	for j, v := range nl {
		if !has(ol, v) {
			d.add(dir.widened(), KindVariantAdded, ptr(path+"/"+k, j), none, v)
		}
	}
}
