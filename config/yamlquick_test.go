package config

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sameTree reports how two trees differ, or "".
func sameTree(a, b *node, path string) string {
	switch {
	case a == nil || b == nil:
		if a != b {
			return fmt.Sprintf("%s: one tree has no node", path)
		}
		return ""
	case a.kind != b.kind || a.b != b.b || a.str != b.str:
		return fmt.Sprintf("%s: %s vs %s", path, describe(a), describe(b))
	case a.pos != b.pos:
		return fmt.Sprintf("%s: at %d:%d vs %d:%d", path, a.pos.line, a.pos.col, b.pos.line, b.pos.col)
	case len(a.items) != len(b.items) || len(a.fields) != len(b.fields):
		return fmt.Sprintf("%s: %d/%d members vs %d/%d", path, len(a.items), len(a.fields), len(b.items), len(b.fields))
	}
	for i := range a.items {
		if d := sameTree(a.items[i], b.items[i], indexPath(path, i)); d != "" {
			return d
		}
	}
	for i := range a.fields {
		fa, fb := a.fields[i], b.fields[i]
		if fa.key != fb.key || fa.keyPos != fb.keyPos {
			return fmt.Sprintf("%s: key %q at %v vs %q at %v", path, fa.key, fa.keyPos, fb.key, fb.keyPos)
		}
		if d := sameTree(fa.val, fb.val, keyPath(path, fa.key)); d != "" {
			return d
		}
	}
	return ""
}

// compareReaders checks that when quickYAML reads a document, parseYAML
// reads it too, into the same tree. It reports whether quickYAML read it.
func compareReaders(t *testing.T, data []byte) bool {
	t.Helper()
	quick := quickYAML(data)
	if quick == nil {
		return false
	}
	var errs errList
	full := parseYAML("f.yaml", data, &errs)
	if full == nil {
		t.Fatalf("quickYAML reads what yaml.v3 refuses (%v):\n%s", errs.err(), data)
	}
	if d := sameTree(quick, full, ""); d != "" {
		t.Fatalf("quickYAML and yaml.v3 differ: %s\n%s", d, data)
	}
	return true
}

// quickCases are documents at the edges of what quickYAML reads; each
// either is read the same way by both readers or is left to yaml.v3.
var quickCases = []string{
	"a: b\n",
	"a: b",
	"a:   b   \n",
	"a: b # c\n",
	"a: b #c\nd: e\n",
	"a: b#c\n",
	"a: 'b'\n",
	"a: 'b''c'\n",
	"a: 'b'#c\n",
	"a: 'b' #c\n",
	"a: \"b\\n\\t\\u00e9\\x41\\U0001F600\\\\\\\"\\/\"\n",
	"a: \"\\ud800\"\n",
	"a: \"b\" c\n",
	"a: b: c\n",
	"a: http://x.y/z?q=1#f\n",
	"a: [1, 2.5, -3, 0x1F, 1_000, .5, +.5, 1e400, true, ~, null, yes, 2025-11-25]\n",
	"a: [.nan]\n",
	"a: {b: 1, \"c\":2, 'd': [x, y]}\n",
	"a: {b:1}\n",
	"a: {b: }\n",
	"a: {b}\n",
	"a: [b, ]\n",
	"a: [b, , c]\n",
	"a: [b: c]\n",
	"a: [a:b]\n",
	"a: [a#b]\n",
	"a: [a #b]\n",
	"a: {b: 1\n  }\n",
	"a: [New York, Los Angeles ]\n",
	"a: [-1, -x, -]\n",
	"a: [--x]\n",
	"a:\n  b: 1\n  c:\n    - x\n    - y: 1\n      z: 2\n    -\n      w: 3\n  d: e\n",
	"a:\n- x\n- y\nb: c\n",
	"a:\n  - x\n - y\n",
	"a:\n  - x\n  b: c\n",
	"a:\n  b: c\n   d: e\n",
	"a: b\n  c\n",
	"a: b\n\n  c\n",
	"a: b\n    # c\nd: e\n",
	"a:\n# c\n  b: 1\n",
	"a:\n  # c\n  b: 1\n",
	"a:\n",
	"a:\nb: c\n",
	"- a\n",
	"--- \na: b\n",
	"a: b\n---\nc: d\n",
	"a: b\n...\n",
	"%YAML 1.2\n---\na: b\n",
	"a: &x b\n",
	"a: *x\n",
	"a: !!str b\n",
	"a: |\n  b\n",
	"a: >\n  b\n",
	"? a\n: b\n",
	"a: b\na: c\n",
	"a: {b: 1, b: 2}\n",
	"1: a\n",
	"true: a\n",
	"\"1\": a\n",
	"<<: a\n",
	"a: <<\n",
	"a : b\n",
	"a:\tb\n",
	"a: b\r\n",
	"a: é\nb: ü: x\n",
	"é: [ü, \"ö\"]\nb: {c: d}\n",
	"a:\n  - - x\n",
	"a:\n  -   b: 1\n      c: 2\n",
	"a:\n  - b: 1\n    c: 2\n  - d\n",
	"a:\n  - b:\n    - c\n",
	"a:\n  - b:\n      - c\n    d: e\n",
	"a: -b\n",
	"a: - b\n",
	"a: @b\n",
	"a: `b\n",
	"a: '\n  b'\n",
	"a: \"b\n  c\"\n",
	"a: [x\n  , y]\n",
	"a: [x,\ny]\n",
	"a: [x,\n y]\n",
	"b:\n  a: [x,\n  y]\n",
	"a: [x, # c\n  y]\n",
	"a: [x,\n# c\n  y]\n",
	"a: [x,\n\n  y]\n",
	"a: {b: 1,\nc: 2}\n",
	"a: [\n  x\n  ]\n",
	"a: [\n  x,\n  ]\n",
	"a: [\n  x\n  y]\n",
	"a: [x,\n---\n]\n",
	"a: [x,#c\n y]\n",
	"- [x,\ny]\n",
	"a:\n  - [x,\n  y]: z\n",
	"a:\n  - [x,\n  y]\n  - z\n",
	"a: \"b\\n\\t\\u00e9\\x41\\U0001F600\\\\\\\" \\N\\_\\L\\P\\e\\0\\ \"\n",
	"a: 1.\n",
	"a: 007.5\n",
	"a: 0o17\n",
	"a: 017\n",
	"a: 0b101\n",
	"a: -0b101\n",
	"a: 1e99999\n",
	"a: " + strings.Repeat("9", 5000) + "\n",
	strings.Repeat("k", 1100) + ": v\n",
	"a: {" + strings.Repeat("k", 1100) + ": v}\n",
	"a:\n  b: 1\n\n\n  c: 2\n",
	"  a: b\n",
	"# only a comment\n",
	"",
	"a: 'it''s'\n",
	"a: ''\n",
	"a: \"\"\n",
	"a: []\nb: {}\n",
	"a: [[], {}, [[1]], {b: {c: []}}]\n",
	"name: x\nscenarios:\n  - name: s\n    steps:\n      - {id: s1, tool: t, arguments: {location: New York}, expect: {structuredIncludes: {}}}\n      - id: s2\n        tool: t\n",
}

func TestQuickYAMLCases(t *testing.T) {
	read := 0
	for _, c := range quickCases {
		if compareReaders(t, []byte(c)) {
			read++
		}
	}
	t.Logf("quickYAML read %d of %d cases; yaml.v3 read the rest", read, len(quickCases))
}

// TestQuickYAMLFixtures: the YAML fixtures of testdata read the same both
// ways, and the valid ones are all in the quick subset.
func TestQuickYAMLFixtures(t *testing.T) {
	paths, _ := filepath.Glob("testdata/*/*.y*ml")
	paths = append(paths, "../examples/*.yaml")
	examples, _ := filepath.Glob("../examples/*.y*ml")
	paths = append(paths[:len(paths)-1], examples...)
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !compareReaders(t, data) && strings.Contains(p, "valid") {
			t.Logf("%s: not in the quick subset", p)
		}
	}
	if !compareReaders(t, benchFixture(100)) {
		t.Errorf("the benchmark fixture is not in the quick subset")
	}
}

// FuzzQuickYAML: whatever the input, quickYAML either declines it or reads
// it exactly as parseYAML does.
func FuzzQuickYAML(f *testing.F) {
	for _, c := range quickCases {
		f.Add([]byte(c))
	}
	paths, _ := filepath.Glob("testdata/*/*.y*ml")
	examples, _ := filepath.Glob("../examples/*.y*ml")
	for _, p := range append(paths, examples...) {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		compareReaders(t, data)
	})
}

// TestQuickYAMLGenerated compares the two readers on random documents built
// from the constructs fixtures use, and on copies of them with one
// character changed, which land on both sides of the quick subset's edges.
func TestQuickYAMLGenerated(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 3000
	if testing.Short() {
		n = 300
	}
	read := 0
	for i := 0; i < n; i++ {
		g := &yamlGen{rng: rng}
		g.mapping(0, 0)
		doc := g.b.String()
		if compareReaders(t, []byte(doc)) {
			read++
		}
		for k := 0; k < 5 && len(doc) > 0; k++ {
			compareReaders(t, []byte(mutate(rng, doc)))
		}
	}
	t.Logf("quickYAML read %d of %d generated documents", read, n)
	if read < n/2 {
		t.Errorf("the generator produces too few documents in the quick subset")
	}
}

func mutate(rng *rand.Rand, doc string) string {
	at := rng.IntN(len(doc))
	chars := []string{" ", "\n", ":", "#", "-", ",", "[", "]", "{", "}", "'", "\"", "\\", "é", "0", "_", "  ", ": ", "- ", " #"}
	switch rng.IntN(3) {
	case 0:
		return doc[:at] + doc[at+1:]
	case 1:
		return doc[:at] + chars[rng.IntN(len(chars))] + doc[at:]
	}
	return doc[:at] + chars[rng.IntN(len(chars))] + doc[min(at+1, len(doc)):]
}

type yamlGen struct {
	rng  *rand.Rand
	b    strings.Builder
	keys int
}

func (g *yamlGen) pick(s ...string) string { return s[g.rng.IntN(len(s))] }

func (g *yamlGen) key() string {
	g.keys++
	if g.rng.IntN(40) == 0 {
		// Keys that yaml.v3 reads as other types, or that repeat.
		return g.pick("1", "true", "null", "<<", "a", "a", `"a"`, "a#b", "a:b", "1e400", "_0")
	}
	k := g.pick("a", "name", "id", "tool", "x.y", "$ref", "New York", "é", "a-b", "_a", "2025-11-25", "a#b")
	if g.rng.IntN(4) == 0 {
		q := g.pick(`"`, `'`)
		return q + k + strconv.Itoa(g.keys) + q
	}
	return k + strconv.Itoa(g.keys)
}

func (g *yamlGen) scalar(flow bool) string {
	if g.rng.IntN(3) > 0 {
		return g.pick("v", "New York", "0", "1.5", "true", `"q"`, "s1", "get-structured-content")
	}
	s := g.pick("v", "New York", "hello world", "0", "-1", "1.5", "1e3", "0x1F", "1_000", ".5", "+.5", "1.", "017",
		"1e400", "_0", "true", "False", "yes", "~", "null", "2025-11-25", "é ü", "a#b", "a: b", "http://x/y",
		"-x", "--x", "9007199254740993", `"q"`, `"a\tb\u00e9"`, `'it''s'`, `''`, `""`, `"\/"`, ".nan", "a,b", "x ",
		"[]", "{}")
	if flow && strings.ContainsAny(s, ",[]{}") && s != "[]" && s != "{}" {
		return "v"
	}
	return s
}

func (g *yamlGen) spaces(n int) string { return strings.Repeat(" ", n) }

func (g *yamlGen) flow(depth int) string {
	br := func() string {
		switch g.rng.IntN(8) {
		case 0:
			return "\n" + g.spaces(g.rng.IntN(6))
		case 1:
			return " # c\n" + g.spaces(g.rng.IntN(6))
		}
		return g.pick(" ", "", "  ")
	}
	n := g.rng.IntN(4)
	var parts []string
	if g.rng.IntN(2) == 0 {
		for i := 0; i < n; i++ {
			k := g.key()
			sep := g.pick(": ", ":  ")
			if k[0] == '"' || k[0] == '\'' {
				sep = g.pick(": ", ":") // JSON style
			}
			parts = append(parts, k+sep+g.flowValue(depth))
		}
		return "{" + br() + strings.Join(parts, ","+br()) + br() + "}"
	}
	for i := 0; i < n; i++ {
		parts = append(parts, g.flowValue(depth))
	}
	return "[" + br() + strings.Join(parts, ","+br()) + br() + "]"
}

func (g *yamlGen) flowValue(depth int) string {
	if depth < 3 && g.rng.IntN(4) == 0 {
		return g.flow(depth + 1)
	}
	return g.scalar(true)
}

func (g *yamlGen) comment(indent int) {
	switch g.rng.IntN(10) {
	case 0:
		g.b.WriteString(g.spaces(g.rng.IntN(indent+3)) + "# note\n")
	case 1:
		g.b.WriteString("\n")
	}
}

// value writes what follows "key:" or "- " at indent.
func (g *yamlGen) value(indent, depth int, entry bool) {
	switch r := g.rng.IntN(10); {
	case depth < 4 && r < 3:
		g.b.WriteString(g.pick("", " # c") + "\n")
		g.comment(indent)
		in := indent + 1 + g.rng.IntN(3)
		if g.rng.IntN(2) == 0 {
			g.mapping(in, depth+1)
		} else {
			if !entry && g.rng.IntN(2) == 0 {
				in = indent // an indentless sequence
			}
			g.sequence(in, depth+1)
		}
	case depth < 4 && r < 5:
		g.b.WriteString(" " + g.flow(depth) + g.pick("", " # c") + "\n")
	default:
		g.b.WriteString(g.pick(" ", "  ") + g.scalar(false) + g.pick("", " # c", " ") + "\n")
	}
}

func (g *yamlGen) mapping(indent, depth int) {
	n := 1 + g.rng.IntN(4)
	for i := 0; i < n; i++ {
		g.comment(indent)
		g.b.WriteString(g.spaces(indent) + g.key() + ":")
		g.value(indent, depth, false)
	}
}

func (g *yamlGen) sequence(indent, depth int) {
	n := 1 + g.rng.IntN(3)
	for i := 0; i < n; i++ {
		g.comment(indent)
		g.b.WriteString(g.spaces(indent) + "-")
		if depth < 4 && g.rng.IntN(3) == 0 {
			// A mapping starting on the entry's line.
			gap := 1 + g.rng.IntN(2)
			g.b.WriteString(g.spaces(gap))
			in := indent + 1 + gap
			m := 1 + g.rng.IntN(3)
			for j := 0; j < m; j++ {
				if j > 0 {
					g.b.WriteString(g.spaces(in))
				}
				g.b.WriteString(g.key() + ":")
				g.value(in, depth+1, false)
			}
			continue
		}
		g.value(indent, depth, true)
	}
}

// TestQuickPathsSame loads every fixture of testdata and examples, and the
// benchmark fixture, with the quick paths and without them: the suites, or
// the error messages, must be the same.
func TestQuickPathsSame(t *testing.T) {
	paths, _ := filepath.Glob("testdata/*/*")
	examples, _ := filepath.Glob("../examples/*")
	docs := map[string][]byte{"bench.yaml": benchFixture(300)}
	for _, p := range append(paths, examples...) {
		if filepath.Ext(p) == ".err" {
			continue
		}
		if data, err := os.ReadFile(p); err == nil {
			docs[p] = data
		}
	}
	for name, data := range docs {
		s, err := Parse(name, data, noEnv)
		ref, refErr := parse(name, data, noEnv, false)
		switch {
		case (err == nil) != (refErr == nil) || err != nil && err.Error() != refErr.Error():
			t.Errorf("%s: quick paths: %v\nreference: %v", name, err, refErr)
		case err == nil:
			if diff := cmp.Diff(ref, s); diff != "" {
				t.Errorf("%s: (-reference +quick):\n%s", name, diff)
			}
		}
	}
}
