package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// parseYAML builds a node tree from a YAML document. Only what JSON can say
// is accepted: YAML's extras (aliases, anchors, merge keys, non-string keys,
// custom tags, several documents per file) are refused with a position,
// because a fixture must mean the same thing when written as JSON.
func parseYAML(file string, data []byte, errs *errList) *node {
	if off, r := checkYAMLChars(data); off >= 0 {
		errs.add(newPosCursor(file, data).pos(off), "character %U is not allowed in YAML", r)
		return nil
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			errs.add(Pos{File: file, Line: 1, Col: 1}, "empty file: a fixture is an object with name, allowTools and scenarios")
		} else {
			yamlSyntaxError(file, data, err, errs)
		}
		return nil
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case errors.Is(err, io.EOF):
	case err != nil:
		yamlSyntaxError(file, data, err, errs)
		return nil
	default:
		errs.add(Pos{File: file, Line: next.Line, Col: next.Column}, "a second YAML document starts here; a fixture file holds exactly one")
		return nil
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		errs.add(Pos{File: file, Line: 1, Col: 1}, "empty file: a fixture is an object with name, allowTools and scenarios")
		return nil
	}
	errs.file = file
	c := &yamlConverter{file: file, errs: errs}
	root := c.convert(doc.Content[0], 1)
	if !errs.empty() {
		return nil
	}
	return root
}

var yamlErrLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// yamlSyntaxError records a parser error. The YAML parser reports a line but
// no column, and for many errors that line is where the enclosing block
// starts rather than where the text goes wrong (see problemLine). The
// position given is the first non-blank character of the line.
func yamlSyntaxError(file string, data []byte, err error, errs *errList) {
	msg := err.Error()
	if strings.Contains(msg, "exceeded max depth") {
		// The parser gives up far beyond MaxDepth, and without a place.
		errs.add(flowDepthPos(file, data), "nesting is deeper than %d levels", MaxDepth)
		return
	}
	if m := yamlErrLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		pos := lineStart(file, data, problemLine(data, max(line, 1)))
		errs.add(pos, "YAML syntax error: %s%s", m[2], yamlHint(m[2], lineText(data, pos.Line)))
		return
	}
	if m := yamlErrAnchor.FindStringSubmatch(msg); m != nil {
		// An alias of an anchor that does not exist: refused like any alias,
		// at the first place it is written.
		pos := Pos{File: file, Line: 1, Col: 1}
		if i := bytes.Index(data, []byte("*"+m[1])); i >= 0 {
			pos = newPosCursor(file, data).pos(i)
		}
		errs.add(pos, "YAML aliases (*%s) are not supported; write the value out", display(m[1]))
		return
	}
	errs.add(Pos{File: file, Line: 1, Col: 1}, "YAML syntax error: %s", strings.TrimPrefix(msg, "yaml: "))
}

// yamlHint turns the parser's words for the commonest mistakes into what
// to do: most YAML syntax errors in a fixture are a line indented one
// column too far or too short, or a tab.
func yamlHint(msg, line string) string {
	switch {
	case strings.HasPrefix(strings.TrimLeft(line, " "), "\t"):
		return " (YAML is indented with spaces; this line starts with a tab)"
	case strings.Contains(msg, "did not find expected"),
		strings.Contains(msg, "mapping values are not allowed"),
		strings.Contains(msg, "are not allowed in this context"):
		return " (check the indentation of this line and the line above: the keys of one mapping, and the \"- \" of one list, start in the same column)"
	}
	return ""
}

// lineText is line n (1-based) of data, without its line break.
func lineText(data []byte, n int) string {
	for i := 1; i < n; i++ {
		j := bytes.IndexByte(data, '\n')
		if j < 0 {
			return ""
		}
		data = data[j+1:]
	}
	if j := bytes.IndexByte(data, '\n'); j >= 0 {
		data = data[:j]
	}
	return strings.TrimSuffix(string(data), "\r")
}

var yamlErrAnchor = regexp.MustCompile(`^yaml: unknown anchor '(.*)' referenced$`)

// problemLine narrows down where a YAML syntax error is. The parser names
// the line of the error's context (say, the start of the block mapping that
// a badly indented key breaks), which may be far above the bad line. The
// first line at which the document's prefix stops parsing is where the text
// goes wrong; it is found by bisection between the reported line and the
// end, so the cost is a few extra parses, paid only for broken files.
func problemLine(data []byte, reported int) int {
	ends := []int{} // ends[i] is the offset just past line i+1
	for i, b := range data {
		if b == '\n' {
			ends = append(ends, i+1)
		}
	}
	if len(ends) == 0 || ends[len(ends)-1] != len(data) {
		ends = append(ends, len(data))
	}
	if reported > len(ends) || len(data) > maxBisect {
		return reported
	}
	fails := func(line int) bool { return !yamlParses(data[:ends[line-1]]) }
	// Find the smallest line in [reported, last] whose prefix fails, given
	// that the whole document fails.
	lo, hi := reported, len(ends)
	if !fails(hi) {
		return reported
	}
	for lo < hi {
		mid := lo + (hi-lo)/2
		if fails(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// flowDepthPos finds where flow collections ('[' and '{') first nest deeper
// than MaxDepth, skipping quoted text and comments. It is a scan, not a
// parse: it only has to find the place for a document the parser already
// refused for its depth. Block nesting that deep is not located (1:1).
func flowDepthPos(file string, data []byte) Pos {
	depth := 0
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '[', '{':
			depth++
			if depth > MaxDepth {
				return newPosCursor(file, data).pos(i)
			}
		case ']', '}':
			depth = max(depth-1, 0)
		case '"', '\'':
			for i++; i < len(data) && data[i] != c; i++ {
				if c == '"' && data[i] == '\\' {
					i++
				}
			}
		case '#':
			if i == 0 || data[i-1] == ' ' || data[i-1] == '\t' || data[i-1] == '\n' {
				for i < len(data) && data[i] != '\n' {
					i++
				}
			}
		}
	}
	return Pos{File: file, Line: 1, Col: 1}
}

// maxBisect bounds the files whose YAML syntax errors are narrowed down:
// fixtures are small, and a huge broken file is not worth many re-parses.
const maxBisect = 1 << 20

// yamlParses reports whether every document in data parses.
func yamlParses(data []byte) bool {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return true
		}
		if err != nil {
			return false
		}
	}
}

// checkYAMLChars returns the offset of the first character YAML does not
// allow in a stream (C0 controls other than tab, LF and CR; DEL; C1 controls
// other than NEL; U+FFFE and U+FFFF), or -1. The parser refuses them too, but
// without saying where.
func checkYAMLChars(data []byte) (int, rune) {
	for i := 0; i < len(data); {
		if c := data[i]; c >= 0x20 && c < 0x7F { // most of a fixture
			i++
			continue
		}
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == '\t' || r == '\n' || r == '\r':
		case r < 0x20 || r == 0x7F:
			return i, r
		case r >= 0x80 && r <= 0x9F && r != 0x85:
			return i, r
		case r == 0xFFFE || r == 0xFFFF:
			return i, r
		}
		i += size
	}
	return -1, 0
}

type yamlConverter struct {
	file  string
	errs  *errList
	alloc treeAlloc
}

func (c *yamlConverter) pos(y *yaml.Node) Pos {
	return Pos{File: c.file, Line: y.Line, Col: y.Column}
}

func kindName(k yaml.Kind) string {
	switch k {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "sequence"
	case yaml.AliasNode:
		return "alias"
	case yaml.DocumentNode:
		return "document"
	}
	return "scalar"
}

func (c *yamlConverter) convert(y *yaml.Node, depth int) *node {
	pos := c.pos(y)
	if y.Kind == yaml.AliasNode {
		c.errs.add(pos, "YAML aliases (*%s) are not supported; write the value out", display(y.Value))
		return nil
	}
	if y.Anchor != "" {
		c.errs.add(pos, "YAML anchors (&%s) are not supported; write the value out", display(y.Anchor))
	}
	explicit := y.Style&yaml.TaggedStyle != 0
	switch y.Kind {
	case yaml.MappingNode, yaml.SequenceNode:
		if depth > MaxDepth {
			c.errs.add(pos, "nesting is deeper than %d levels", MaxDepth)
			return nil
		}
		want := "!!map"
		if y.Kind == yaml.SequenceNode {
			want = "!!seq"
		}
		if explicit && y.Tag != want {
			c.errs.add(pos, "YAML tag %s is not supported on a %s", display(y.Tag), kindName(y.Kind))
		}
		if y.Kind == yaml.SequenceNode {
			mark := len(c.alloc.itemStack)
			for _, it := range y.Content {
				item := c.convert(it, depth+1)
				c.alloc.itemStack = append(c.alloc.itemStack, item)
			}
			n := c.alloc.node(arrayNode, locOf(pos))
			n.items = take(&c.alloc.itemStack, &c.alloc.items, mark)
			return n
		}
		return c.mapping(y, pos, depth)
	case yaml.ScalarNode:
		return c.scalar(y, pos, explicit)
	}
	c.errs.add(pos, "unexpected YAML %s", kindName(y.Kind))
	return nil
}

func (c *yamlConverter) mapping(y *yaml.Node, pos Pos, depth int) *node {
	a := &c.alloc
	mark := len(a.fieldStack)
	var seen map[string]int
	for i := 0; i+1 < len(y.Content); i += 2 {
		k, v := y.Content[i], y.Content[i+1]
		key, ok := c.key(k)
		val := c.convert(v, depth+1)
		if !ok {
			continue
		}
		kpos := c.pos(k)
		if first, dup := a.addField(mark, &seen, field{key: key, keyPos: locOf(kpos), val: val}); dup {
			c.errs.add(kpos, "duplicate key %s (first at %d:%d)", quote(key), first.line, first.col)
		}
	}
	n := a.node(objectNode, locOf(pos))
	n.fields = take(&a.fieldStack, &a.fields, mark)
	return n
}

// key returns a mapping key, which must be a string.
func (c *yamlConverter) key(k *yaml.Node) (string, bool) {
	pos := c.pos(k)
	switch k.Kind {
	case yaml.ScalarNode:
	case yaml.AliasNode:
		c.errs.add(pos, "YAML aliases (*%s) are not supported; write the value out", display(k.Value))
		return "", false
	default:
		c.errs.add(pos, "keys must be strings; found a YAML %s used as a key", kindName(k.Kind))
		return "", false
	}
	if k.Anchor != "" {
		c.errs.add(pos, "YAML anchors (&%s) are not supported; write the value out", display(k.Anchor))
	}
	if k.Style&yaml.TaggedStyle != 0 {
		if k.Tag != "!!str" {
			c.errs.add(pos, "YAML tag %s is not supported on a key; keys must be strings", display(k.Tag))
			return "", false
		}
		return k.Value, true
	}
	switch k.Tag {
	case "!!str", "!!timestamp":
		return k.Value, true
	case "!!merge":
		c.errs.add(pos, "YAML merge keys (<<) are not supported; write the keys out")
		return "", false
	}
	c.errs.add(pos, "key %s is not a string (YAML reads it as %s); quote it", quote(k.Value), display(strings.TrimPrefix(k.Tag, "!!")))
	return "", false
}

// implicitTag is the tag YAML gives an untagged plain scalar.
func implicitTag(value string) string {
	return (&yaml.Node{Kind: yaml.ScalarNode, Value: value}).ShortTag()
}

func (c *yamlConverter) scalar(y *yaml.Node, pos Pos, explicit bool) *node {
	tag := y.Tag
	if explicit {
		switch tag {
		case "!!str":
		case "!!int", "!!float", "!!bool", "!!null":
			got := implicitTag(y.Value)
			if got != tag && (tag != "!!float" || got != "!!int") {
				c.errs.add(pos, "%s is not a valid YAML %s", quote(y.Value), display(tag))
				return nil
			}
		default:
			c.errs.add(pos, "YAML tag %s is not supported; fixtures hold JSON values only", display(tag))
			return nil
		}
	}
	if tag == "!!str" && y.Style == 0 && y.Value != "" && strings.IndexByte("+-.0123456789", y.Value[0]) >= 0 && yamlFloat.MatchString(y.Value) {
		// yaml.v3 reads a plain number beyond float64's range (1e400) as a
		// string; YAML's core schema, JSON and exact numbers say number.
		tag = "!!float"
	}
	switch tag {
	case "!!null":
		return c.alloc.node(nullNode, locOf(pos))
	case "!!bool":
		n := c.alloc.node(boolNode, locOf(pos))
		n.b = strings.EqualFold(y.Value, "true")
		return n
	case "!!int", "!!float":
		text, msg := yamlNumber(y.Value, tag == "!!int")
		if msg == "" {
			msg = checkNumber(text)
		}
		if msg != "" {
			c.errs.add(pos, "%s", msg)
			return nil
		}
		n := c.alloc.node(numberNode, locOf(pos))
		n.str = text
		return n
	}
	// !!str, and the implicit !!timestamp and !!merge, which stay the text
	// as written: "2025-11-25" is a protocol version, not a date.
	n := c.alloc.node(stringNode, locOf(pos))
	n.str = y.Value
	return n
}

// yamlFloat is the float syntax yaml.v3 resolves (underscores removed).
var yamlFloat = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)

// yamlNumber rewrites a YAML number in JSON's notation, keeping its exact
// value: 1_000 → 1000, 0x1F → 31, +.5 → 0.5, 1. → 1.0. Numbers already in
// JSON form keep their text unchanged.
func yamlNumber(text string, isInt bool) (string, string) {
	plain := strings.ReplaceAll(text, "_", "")
	plain = strings.TrimPrefix(plain, "+")
	if jsonNumber.MatchString(plain) {
		return plain, ""
	}
	if isInt {
		b, ok := new(big.Int).SetString(plain, 0)
		if !ok {
			return "", fmt.Sprintf("cannot read %s as an integer", quote(text))
		}
		return b.String(), ""
	}
	lower := strings.ToLower(strings.TrimLeft(plain, "-"))
	if lower == ".nan" || lower == ".inf" {
		return "", fmt.Sprintf("%s is not a JSON number: NaN and infinity cannot be represented", text)
	}
	neg := strings.HasPrefix(plain, "-")
	plain = strings.TrimPrefix(plain, "-")
	mant, exp := plain, ""
	if i := strings.IndexAny(plain, "eE"); i >= 0 {
		mant, exp = plain[:i], plain[i:]
	}
	ip, frac, dot := strings.Cut(mant, ".")
	ip = strings.TrimLeft(ip, "0")
	if ip == "" {
		ip = "0"
	}
	out := ip
	if dot {
		if frac == "" {
			frac = "0"
		}
		out += "." + frac
	}
	out += exp
	if neg {
		out = "-" + out
	}
	if !jsonNumber.MatchString(out) {
		return "", fmt.Sprintf("cannot read %s as a number", quote(text))
	}
	return out, ""
}
