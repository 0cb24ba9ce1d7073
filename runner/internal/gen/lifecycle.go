package gen

import (
	"cmp"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/jsonx"
	"github.com/mcpcheck/mcpcheck/runner/internal/schema"
)

// Tool is the part of a discovered tool that grouping reads: its name and
// its compiled inputSchema (nil when it has none, or it was refused).
type Tool struct {
	Name        string
	InputSchema *schema.Schema
}

// Group is one resource with a create tool and a read and/or delete tool,
// found by name (see [Groups]).
type Group struct {
	// Resource is the singular resource name in lower snake case: "task",
	// "todo_item".
	Resource string
	// Create names the create tool; Read and Delete name the read and
	// delete tools, either of which may be empty (not both).
	Create, Read, Delete string
	// ReadIDParam and DeleteIDParam name the top-level property of the read
	// and delete tools that takes the resource's id; empty when the tool is.
	ReadIDParam, DeleteIDParam string
}

// Link is a parent/child pair: the child's create tool takes the parent's
// id in Param, so a child can be created under a real parent.
type Link struct {
	Parent, Child string // resources
	Param         string // the child create tool's property for the parent id
}

type role int

const (
	roleNone role = iota
	roleCreate
	roleRead
	roleDelete
)

var verbs = map[string]role{
	"create": roleCreate, "add": roleCreate, "insert": roleCreate, "new": roleCreate,
	"get": roleRead, "read": roleRead, "fetch": roleRead, "retrieve": roleRead, "describe": roleRead, "show": roleRead,
	"delete": roleDelete, "remove": roleDelete, "destroy": roleDelete,
}

// parseToolName splits a tool name into a lifecycle role and a resource.
// The verb may come first (create_task, createTask), last (task_create,
// taskCreate) or second after a namespace word (todo_create_task). A
// trailing "by ..." qualifier is dropped (get_task_by_id → task) and the
// last word is folded to singular (tasks → task).
func parseToolName(name string) (role, string) {
	words := SplitWords(name)
	if len(words) < 2 {
		return roleNone, ""
	}
	var r role
	var rest []string
	switch {
	case verbs[words[0]] != roleNone:
		r, rest = verbs[words[0]], words[1:]
	case verbs[words[len(words)-1]] != roleNone:
		r, rest = verbs[words[len(words)-1]], words[:len(words)-1]
	case len(words) >= 3 && verbs[words[1]] != roleNone:
		r, rest = verbs[words[1]], words[2:]
	default:
		return roleNone, ""
	}
	for i, w := range rest {
		if w == "by" && i > 0 {
			rest = rest[:i]
			break
		}
	}
	if len(rest) == 0 {
		return roleNone, ""
	}
	rest = append([]string(nil), rest...)
	rest[len(rest)-1] = singular(rest[len(rest)-1])
	return r, strings.Join(rest, "_")
}

// Groups finds create → read/delete groups among tools by name: mcp-fuzz's
// resource-lifecycle heuristic. Create verbs are create, add, insert, new;
// read verbs get, read, fetch, retrieve, describe, show; delete verbs
// delete, remove, destroy. A group needs a create tool and a read or
// delete tool. It gives up on a resource, with a note, when one role has
// two tools (create_task and add_task) or when a read/delete tool has no
// id parameter: an exact `id`, `<resource>_id`, `<resource>Id`,
// `<resource>ID`, `uuid`, or else the only required string property.
// Groups are sorted by resource.
func Groups(tools []Tool) (groups []Group, notes []string) {
	type roles struct{ create, read, del []string }
	byRes := map[string]*roles{}
	schemas := map[string]*schema.Schema{}
	for _, t := range tools {
		if _, dup := schemas[t.Name]; dup {
			notes = append(notes, fmt.Sprintf("tool %q is listed twice; its first listing is used", t.Name))
			continue
		}
		schemas[t.Name] = t.InputSchema
		r, res := parseToolName(t.Name)
		if r == roleNone {
			continue
		}
		rs := byRes[res]
		if rs == nil {
			rs = &roles{}
			byRes[res] = rs
		}
		switch r {
		case roleCreate:
			rs.create = append(rs.create, t.Name)
		case roleRead:
			rs.read = append(rs.read, t.Name)
		case roleDelete:
			rs.del = append(rs.del, t.Name)
		}
	}
	for _, res := range sortedKeys(byRes) {
		rs := byRes[res]
		if len(rs.create) == 0 || len(rs.read)+len(rs.del) == 0 {
			continue
		}
		ambiguous := ""
		for _, list := range []struct {
			role  string
			names []string
		}{{"create", rs.create}, {"read", rs.read}, {"delete", rs.del}} {
			if len(list.names) > 1 && ambiguous == "" {
				ambiguous = fmt.Sprintf("%d %s tools (%s)", len(list.names), list.role, strings.Join(list.names, ", "))
			}
		}
		if ambiguous != "" {
			notes = append(notes, fmt.Sprintf("resource %q: %s; not grouped rather than guessing", res, ambiguous))
			continue
		}
		g := Group{Resource: res, Create: rs.create[0]}
		ok := true
		if len(rs.read) == 1 {
			g.Read = rs.read[0]
			g.ReadIDParam = idParam(res, schemas[g.Read])
			if g.ReadIDParam == "" {
				ok = false
				notes = append(notes, fmt.Sprintf("resource %q: %s has no id-shaped parameter; not grouped rather than guessing", res, g.Read))
			}
		}
		if len(rs.del) == 1 && ok {
			g.Delete = rs.del[0]
			g.DeleteIDParam = idParam(res, schemas[g.Delete])
			if g.DeleteIDParam == "" {
				ok = false
				notes = append(notes, fmt.Sprintf("resource %q: %s has no id-shaped parameter; not grouped rather than guessing", res, g.Delete))
			}
		}
		if ok {
			groups = append(groups, g)
		}
	}
	return groups, notes
}

// camel turns "todo_item" into "todoItem".
func camel(res string) string {
	parts := strings.Split(res, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

// idNames are the property names that carry a resource's id, in order.
func idNames(res string) []string {
	return []string{"id", res + "_id", camel(res) + "Id", camel(res) + "ID", "uuid"}
}

// parentIDNames are the property names a child's create tool would use for
// a parent's id.
func parentIDNames(res string) []string {
	return []string{res + "_id", camel(res) + "Id", camel(res) + "ID"}
}

// topLevel reads the properties and required names of an input schema
// after $ref and allOf; anyOf/oneOf branches are not consulted.
func topLevel(in *schema.Schema) (g *gen, objs []fobj, props, required map[string]bool) {
	props, required = map[string]bool{}, map[string]bool{}
	if in == nil {
		return nil, nil, props, required
	}
	g = newGen(in, 0, "")
	var fl flat
	g.expand(ent{s: in.Doc()}, &fl, 0, "")
	for _, o := range fl.objs {
		if pm, ok := o.m["properties"].(map[string]any); ok {
			for k := range pm {
				props[k] = true
			}
		}
		for _, r := range requiredOf(o.m) {
			required[r] = true
		}
	}
	return g, fl.objs, props, required
}

// idParam finds the id parameter of a read or delete tool, or "".
func idParam(res string, in *schema.Schema) string {
	g, objs, props, required := topLevel(in)
	if g == nil {
		return ""
	}
	for _, n := range idNames(res) {
		if props[n] || required[n] {
			return n
		}
	}
	var strs []string
	for _, r := range sortedKeys(required) {
		types, _ := g.declaredTypes(g.propertyEnts(objs, r))
		if len(types) == 1 && types[0] == tString {
			strs = append(strs, r)
		}
	}
	if len(strs) == 1 {
		return strs[0]
	}
	return ""
}

// Links finds parent/child pairs among groups: the child's create tool has
// exactly one property named `<parent>_id`, `<parent>Id` or `<parent>ID`.
// Only runnable pairs are returned (the parent group has a delete tool and
// the child group a read tool), sorted by parent then child. Like
// mcp-fuzz, it does not chain further than one hop.
func Links(groups []Group, tools []Tool) []Link {
	schemas := map[string]*schema.Schema{}
	for _, t := range tools {
		if _, dup := schemas[t.Name]; !dup {
			schemas[t.Name] = t.InputSchema
		}
	}
	var links []Link
	for _, parent := range groups {
		if parent.Delete == "" {
			continue
		}
		for _, child := range groups {
			if child.Resource == parent.Resource || child.Read == "" || child.Create == "" {
				continue
			}
			_, _, props, _ := topLevel(schemas[child.Create])
			var found []string
			for _, n := range parentIDNames(parent.Resource) {
				if props[n] {
					found = append(found, n)
				}
			}
			if len(found) == 1 {
				links = append(links, Link{Parent: parent.Resource, Child: child.Resource, Param: found[0]})
			}
		}
	}
	slices.SortFunc(links, func(a, b Link) int {
		return cmp.Or(strings.Compare(a.Parent, b.Parent), strings.Compare(a.Child, b.Child))
	})
	return links
}

// FoundInText is the `where` [ExtractID] reports for an id that was a bare
// UUID in the result's text: there is no JSON Pointer to it, so the runner
// must pass the value itself.
const FoundInText = "text"

var uuidInText = regexp.MustCompile(`(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`)

// ExtractID finds the id a create call returned, never guessing. It looks
// for the keys `id`, `<resource>_id`, `<resource>Id`, `<resource>ID`,
// `uuid` (in that order) holding a non-empty string or a number:
//
//  1. at the top level of structuredContent;
//  2. in the sole top-level value that is an object ({"task": {"id": ...}});
//  3. in the first element of the sole top-level value that is a
//     non-empty array of objects ({"tasks": [{"id": ...}]});
//  4. in the first element, if structuredContent itself is an array;
//  5. as the only distinct UUID in text.
//
// where is the JSON Pointer of the value within the call result
// ("/structuredContent/task/id"), so a step can `$ref` it as
// "step#/structuredContent/task/id"; it is [FoundInText] for case 5.
// structured may be the decoded value or raw JSON.
func ExtractID(resource string, structured any, text string) (id any, where string, ok bool) {
	switch raw := structured.(type) {
	case json.RawMessage:
		structured = jsonx.Value(raw)
	case []byte:
		structured = jsonx.Value(raw)
	}
	keys := idNames(resource)
	search := func(m map[string]any, base string) (any, string, bool) {
		for _, k := range keys {
			if v, has := m[k]; has && usableID(v) {
				return v, pointerJoin(base, k), true
			}
		}
		return nil, "", false
	}
	const base = "/structuredContent"
	switch s := structured.(type) {
	case map[string]any:
		if v, w, ok := search(s, base); ok {
			return v, w, true
		}
		var objKeys, arrKeys []string
		for _, k := range sortedKeys(s) {
			switch x := s[k].(type) {
			case map[string]any:
				objKeys = append(objKeys, k)
			case []any:
				if len(x) > 0 {
					if _, isObj := x[0].(map[string]any); isObj {
						arrKeys = append(arrKeys, k)
					}
				}
			}
		}
		if len(objKeys) == 1 {
			if v, w, ok := search(s[objKeys[0]].(map[string]any), pointerJoin(base, objKeys[0])); ok {
				return v, w, true
			}
		}
		if len(arrKeys) == 1 {
			first := s[arrKeys[0]].([]any)[0].(map[string]any)
			if v, w, ok := search(first, pointerJoin(pointerJoin(base, arrKeys[0]), "0")); ok {
				return v, w, true
			}
		}
	case []any:
		if len(s) > 0 {
			if first, isObj := s[0].(map[string]any); isObj {
				if v, w, ok := search(first, base+"/0"); ok {
					return v, w, true
				}
			}
		}
	}
	found := map[string]string{}
	for _, m := range uuidInText.FindAllString(text, 64) {
		if _, seen := found[strings.ToLower(m)]; !seen {
			found[strings.ToLower(m)] = m // the first spelling
		}
	}
	if len(found) == 1 {
		for _, m := range found {
			return m, FoundInText, true
		}
	}
	return nil, "", false
}

func usableID(v any) bool {
	if s, ok := v.(string); ok {
		return strings.TrimSpace(s) != "" && len(s) <= 1024
	}
	_, ok := numberOf(v)
	return ok
}
