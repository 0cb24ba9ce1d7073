package gen

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mcpcheck/mcpcheck/runner/internal/schema"
)

// Case names, in the order [FuzzCases] returns them.
const (
	CaseValid           = "valid"
	CaseMissingRequired = "missing-required"
	CaseWrongType       = "wrong-type"
)

// Case is one generated call of a tool.
type Case struct {
	// Name is [CaseValid], [CaseMissingRequired] or [CaseWrongType].
	Name string
	// Property is the top-level property removed or swapped; "" for the
	// valid case.
	Property string
	// Arguments are the call's arguments; each case has its own copy.
	Arguments map[string]any
	// Detail says what was changed, e.g. "string → number".
	Detail string
	// Forbidden: the tool's inputSchema does not allow the arguments, so
	// a server that answers them with a result does not enforce it. True
	// of every missing-required and wrong-type case.
	Forbidden bool
}

// wrongValues are the swapped-in values, one per JSON type.
var wrongValues = map[typeSet]func() any{
	tString:  func() any { return "not-a-valid-value" },
	tNumber:  func() any { return json.Number("12345") },
	tBoolean: func() any { return true },
	tArray:   func() any { return []any{} },
	tObject:  func() any { return map[string]any{} },
	tNull:    func() any { return nil },
}

// swapOrder is the fallback order of replacement types when the preferred
// one is itself allowed (e.g. a property typed ["string", "number"]).
var swapOrder = []typeSet{tString, tNumber, tBoolean, tArray, tObject, tNull}

// FuzzCases compiles mcp-fuzz's three kinds of calls for a tool from its
// inputSchema (input, as [schema.Compile] compiled it):
//
//   - one "valid" call: [Values.Valid]'s arguments;
//   - one "missing-required" call per required top-level property (sorted):
//     the valid call without it;
//   - one "wrong-type" call per top-level property with a declared type
//     (sorted): the valid call with that property's value replaced by one of
//     a type the schema does not allow. The replacement type is string for a
//     number or integer ("number → string"), number for a string, and
//     string for boolean, object, array and null; if that type is also
//     allowed, the first of string, number, boolean, array, object, null
//     that is not. Properties with no declared type, or whose type only
//     anyOf/oneOf decide, are skipped with a note.
//
// Required and declared properties are read through `$ref` and `allOf`,
// not inside anyOf/oneOf/if branches (a note says so when the top level
// has them).
//
// The missing-required and wrong-type arguments are invalid by
// construction. v may be nil (seed 0). Notes include Valid's; a nil input
// gives the valid case alone, with Valid's empty arguments.
func FuzzCases(toolName string, input *schema.Schema, v *Values) (cases []Case, notes []string) {
	if v == nil {
		v = NewValues(0)
	}
	args, notes := v.Valid(toolName, input)
	cases = append(cases, Case{Name: CaseValid, Arguments: args, Detail: "schema-derived valid call"})
	if input == nil {
		return cases, notes
	}
	g := newGen(input, 0, toolName)
	var fl flat
	g.expand(ent{s: input.Doc()}, &fl, 0, "")
	if len(fl.choices) > 0 {
		notes = append(notes, "(arguments): the top level has anyOf/oneOf/if; only properties outside them are fuzzed")
	}

	required := map[string]bool{}
	props := map[string]bool{}
	for _, o := range fl.objs {
		for _, r := range requiredOf(o.m) {
			required[r] = true
		}
		if pm, ok := o.m["properties"].(map[string]any); ok {
			for k := range pm {
				props[k] = true
			}
		}
	}
	for _, p := range sortedKeys(required) {
		c := Case{Name: CaseMissingRequired, Property: p, Arguments: clone(args),
			Detail: fmt.Sprintf("required property %q removed", p), Forbidden: true}
		delete(c.Arguments, p)
		cases = append(cases, c)
	}
	for _, p := range sortedKeys(props) {
		declared, why := g.declaredTypes(g.propertyEnts(fl.objs, p))
		if len(declared) == 0 {
			notes = append(notes, fmt.Sprintf("%s: %s; wrong-type case skipped", where(pointerJoin("", p)), why))
			continue
		}
		allowed := setOf(declared)
		from := declared[0]
		if from == tNull && len(declared) > 1 {
			from = declared[1]
		}
		to := tString
		if from == tString {
			to = tNumber
		}
		if allowed&to != 0 || (to == tNumber && allowed&tInteger != 0) {
			to = 0
			for _, t := range swapOrder {
				if allowed&t == 0 && !(t == tNumber && allowed&tInteger != 0) {
					to = t
					break
				}
			}
		}
		if to == 0 {
			notes = append(notes, fmt.Sprintf("%s: every JSON type is allowed; wrong-type case skipped", where(pointerJoin("", p))))
			continue
		}
		c := Case{Name: CaseWrongType, Property: p, Arguments: clone(args),
			Detail: typeName(from) + " → " + typeName(to), Forbidden: true}
		c.Arguments[p] = wrongValues[to]()
		cases = append(cases, c)
	}
	return cases, dedupe(notes)
}

// declaredTypes intersects the `type` keywords of a property's schemas
// (after $ref and allOf), in the first one's declared order. It returns
// nothing, with the reason, when no schema declares a type.
func (g *gen) declaredTypes(ents []ent) ([]typeSet, string) {
	var fl flat
	for _, e := range ents {
		g.expand(e, &fl, 0, "")
	}
	g.notes = nil
	allowed := tAll
	var first []typeSet
	seen := false
	for _, o := range fl.objs {
		order, ok := typeOrder(o.m["type"])
		if !ok {
			continue
		}
		if !seen {
			first = order
		}
		seen = true
		allowed &= setOf(order)
	}
	if !seen {
		if len(fl.choices) > 0 {
			return nil, "its type is decided by anyOf/oneOf (ambiguous)"
		}
		return nil, "it declares no type"
	}
	var out []typeSet
	for _, t := range first {
		if t == tNumber && allowed&tNumber == 0 && allowed&tInteger != 0 {
			t = tInteger
		}
		if allowed&t != 0 && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return nil, "its type keywords allow no type"
	}
	return out, ""
}

// clone deep-copies generated arguments so that cases share nothing.
func clone(m map[string]any) map[string]any {
	out, _ := deepCopy(m).(map[string]any)
	return out
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}
