package config

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// fullValid is the full validator's verdict on a tree.
func fullValid(t testing.TB, root *node) bool {
	t.Helper()
	sch, _, err := compiledSchema()
	if err != nil {
		t.Fatal(err)
	}
	return sch.Validate(toAny(root)) == nil
}

// readTree parses a file of testdata into a node tree, or returns nil.
func readTree(path string, data []byte) *node {
	var errs errList
	data = trimBOM(data)
	if checkUTF8(data) >= 0 {
		return nil
	}
	if isJSON(path, data) {
		return parseJSON(path, data, &errs)
	}
	return parseYAML(path, data, &errs)
}

func trimBOM(data []byte) []byte {
	if len(data) >= 3 && string(data[:3]) == string(utf8BOM) {
		return data[3:]
	}
	return data
}

func TestQuickSchemaCompiles(t *testing.T) {
	if _, _, err := compiledSchema(); err != nil {
		t.Fatal(err)
	}
	if fixtureSchema.quick == nil {
		_, tree, _ := compiledSchema()
		_, err := compileQuickSchema(tree)
		t.Fatalf("the quick check does not understand the fixture schema, so every load takes the slow path: %v", err)
	}
}

// TestQuickSchemaSound runs the quick check and the full validator on every
// fixture of testdata and on many variants of the valid ones: a value
// replaced by one of each JSON type, a key removed, an unknown key added.
// The quick check must never accept what the full validator refuses, and it
// must accept the valid fixtures themselves (else it saves nothing).
func TestQuickSchemaSound(t *testing.T) {
	if _, _, err := compiledSchema(); err != nil || fixtureSchema.quick == nil {
		t.Fatal("quick schema unavailable", err)
	}
	q := fixtureSchema.quick
	paths, _ := filepath.Glob("testdata/*/*")
	checked, agreed := 0, 0
	check := func(name string, root *node) {
		t.Helper()
		quick, full := q.valid(root), fullValid(t, root)
		checked++
		if quick == full {
			agreed++
		}
		if quick && !full {
			t.Errorf("%s: the quick check accepts what the schema refuses", name)
		}
	}
	for _, p := range paths {
		if filepath.Ext(p) == ".err" {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		root := readTree(p, data)
		if root == nil {
			continue
		}
		check(p, root)
		if filepath.Base(filepath.Dir(p)) == "valid" {
			if !q.valid(root) {
				t.Errorf("%s: the quick check refuses a valid fixture", p)
			}
			for i, m := range mutations(root) {
				check(p+" variant "+strconv.Itoa(i), m)
			}
		}
	}
	t.Logf("%d documents, quick check and schema agreed on %d", checked, agreed)
	if agreed*10 < checked*9 {
		t.Errorf("the quick check disagrees with the schema on more than a tenth of the cases")
	}
}

// replacements are values of each JSON type, with numbers on both sides of
// the schema's bounds and integers written as floats.
var replacements = []*node{
	{kind: nullNode},
	{kind: boolNode, b: true},
	{kind: boolNode},
	{kind: numberNode, str: "0"},
	{kind: numberNode, str: "1"},
	{kind: numberNode, str: "-1"},
	{kind: numberNode, str: "2"},
	{kind: numberNode, str: "17"},
	{kind: numberNode, str: "99.5"},
	{kind: numberNode, str: "100.5"},
	{kind: numberNode, str: "-0.5"},
	{kind: numberNode, str: "1e1"},
	{kind: numberNode, str: "1.0"},
	{kind: numberNode, str: "1.5"},
	{kind: numberNode, str: "1e3"},
	{kind: numberNode, str: "86400001"},
	{kind: numberNode, str: "99999999999999999999"},
	{kind: stringNode, str: ""},
	{kind: stringNode, str: "x"},
	{kind: stringNode, str: "ok"},
	{kind: stringNode, str: "2025-11-25"},
	{kind: stringNode, str: "a b"},
	{kind: stringNode, str: "/a~1b"},
	{kind: stringNode, str: "/a~2b"},
	{kind: arrayNode},
	{kind: arrayNode, items: []*node{{kind: stringNode, str: "t"}, {kind: stringNode, str: "t"}}},
	{kind: arrayNode, items: []*node{{kind: numberNode, str: "1"}, {kind: numberNode, str: "1.0"}}},
	{kind: arrayNode, items: []*node{{kind: stringNode, str: "ok"}}},
	{kind: arrayNode, items: []*node{{kind: stringNode, str: "ok"}, {kind: stringNode, str: "crashed"}}},
	{kind: objectNode},
	{kind: objectNode, fields: []field{{key: "", val: &node{kind: stringNode, str: "v"}}}},
}

// mutations returns copies of root, each changed in one place.
func mutations(root *node) []*node {
	var out []*node
	var walk func(n *node, rebuild func(*node) *node)
	walk = func(n *node, rebuild func(*node) *node) {
		for _, r := range replacements {
			out = append(out, rebuild(r))
		}
		switch n.kind {
		case objectNode:
			for i := range n.fields {
				i := i
				// Without the key.
				out = append(out, rebuild(withFields(n, append(append([]field{}, n.fields[:i]...), n.fields[i+1:]...))))
				walk(n.fields[i].val, func(v *node) *node {
					fs := append([]field{}, n.fields...)
					fs[i].val = v
					return rebuild(withFields(n, fs))
				})
			}
			extra := field{key: "unknownKey", val: &node{kind: stringNode, str: "x"}}
			out = append(out, rebuild(withFields(n, append(append([]field{}, n.fields...), extra))))
		case arrayNode:
			for i := range n.items {
				i := i
				walk(n.items[i], func(v *node) *node {
					items := append([]*node{}, n.items...)
					items[i] = v
					c := *n
					c.items = items
					return rebuild(&c)
				})
			}
		}
	}
	walk(root, func(n *node) *node { return n })
	return out
}

func withFields(n *node, fields []field) *node {
	c := *n
	c.fields = fields
	return &c
}

// FuzzQuickSchema: whatever the document, the quick check accepts it only
// when the full validator does.
func FuzzQuickSchema(f *testing.F) {
	paths, _ := filepath.Glob("testdata/*/*")
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil && filepath.Ext(p) != ".err" {
			f.Add(data, filepath.Ext(p) == ".json")
		}
	}
	if _, _, err := compiledSchema(); err != nil || fixtureSchema.quick == nil {
		f.Fatal("quick schema unavailable", err)
	}
	f.Fuzz(func(t *testing.T, data []byte, isJSON bool) {
		name := "f.yaml"
		if isJSON {
			name = "f.json"
		}
		root := readTree(name, data)
		if root == nil {
			return
		}
		if fixtureSchema.quick.valid(root) && !fullValid(t, root) {
			t.Fatalf("the quick check accepts what the schema refuses")
		}
	})
}
