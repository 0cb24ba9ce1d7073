package config

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The JSON and YAML readers both produce this small tree: the values of the
// JSON data model plus the position of every value and every object key.
// Everything after parsing (schema validation, decoding, semantic checks)
// works on it, so both formats behave, and report errors, the same way.

type nodeKind uint8

const (
	nullNode nodeKind = iota
	boolNode
	numberNode
	stringNode
	arrayNode
	objectNode
)

type node struct {
	kind   nodeKind
	pos    Pos
	str    string // the string, or the number's JSON text
	b      bool
	items  []*node
	fields []*field // in source order, keys unique
	// generic caches toAny's result for arrays and objects: the same
	// values serve schema validation and the Suite.
	generic any
}

type field struct {
	key    string
	keyPos Pos
	val    *node
}

// get returns the member named key, or nil.
func (n *node) get(key string) *field {
	if n == nil || n.kind != objectNode {
		return nil
	}
	for _, f := range n.fields {
		if f.key == key {
			return f
		}
	}
	return nil
}

// value returns the member's value node, or nil.
func (n *node) value(key string) *node {
	if f := n.get(key); f != nil {
		return f.val
	}
	return nil
}

// Limits that keep a hostile or broken file from costing more than it is
// worth. They are far beyond any fixture a person writes.
const (
	// MaxFileSize is the largest fixture Load and Parse accept.
	MaxFileSize = 16 << 20
	// MaxDepth is how deeply arrays and objects may nest.
	MaxDepth = 1000
	// maxNumberLen and maxExponent bound number literals: exact big-number
	// arithmetic (used when a number is checked or compared) stays cheap.
	maxNumberLen = 4096
	maxExponent  = 9999
)

// jsonNumber matches the JSON number grammar (RFC 8259 §6).
var jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$`)

// checkNumber reports why text, already in JSON number form, is refused, or
// "" when it is fine.
func checkNumber(text string) string {
	if len(text) > maxNumberLen {
		return fmt.Sprintf("number has %d characters; at most %d are supported", len(text), maxNumberLen)
	}
	if i := strings.IndexAny(text, "eE"); i >= 0 {
		exp := strings.TrimLeft(text[i+1:], "+-")
		exp = strings.TrimLeft(exp, "0")
		if len(exp) > len(strconv.Itoa(maxExponent)) {
			return fmt.Sprintf("number %s is out of range (exponent beyond ±%d)", shorten(text), maxExponent)
		}
		if e, _ := strconv.Atoi(exp); e > maxExponent {
			return fmt.Sprintf("number %s is out of range (exponent beyond ±%d)", shorten(text), maxExponent)
		}
	}
	return ""
}

// toAny converts a tree to the generic values the rest of mcpcheck uses:
// map[string]any, []any, string, bool, nil and json.Number.
func toAny(n *node) any {
	switch n.kind {
	case boolNode:
		return n.b
	case numberNode:
		return json.Number(n.str)
	case stringNode:
		return n.str
	case arrayNode:
		if n.generic == nil {
			out := make([]any, len(n.items))
			for i, it := range n.items {
				out[i] = toAny(it)
			}
			n.generic = out
		}
		return n.generic
	case objectNode:
		if n.generic == nil {
			out := make(map[string]any, len(n.fields))
			for _, f := range n.fields {
				out[f.key] = toAny(f.val)
			}
			n.generic = out
		}
		return n.generic
	}
	return nil
}

// posCursor turns byte offsets into 1-based line and column numbers.
// Columns count Unicode characters (runes), not bytes, as the YAML parser
// does; a tab is one column. Offsets asked for in increasing order (as a
// parser produces them) cost time proportional to the distance covered, so a
// 16 MiB single-line file is still linear.
type posCursor struct {
	file      string
	data      []byte
	off       int // offset of the last answer
	line, col int
}

func newPosCursor(file string, data []byte) *posCursor {
	return &posCursor{file: file, data: data, line: 1, col: 1}
}

func (c *posCursor) pos(off int) Pos {
	off = min(max(off, 0), len(c.data))
	if off < c.off {
		c.off, c.line, c.col = 0, 1, 1
	}
	for i := c.off; i < off; i++ {
		switch b := c.data[i]; {
		case b == '\n':
			c.line++
			c.col = 1
		case b&0xC0 != 0x80: // not a UTF-8 continuation byte
			c.col++
		}
	}
	c.off = off
	return Pos{File: c.file, Line: c.line, Col: c.col}
}

// lineStart returns the position of the first non-blank character on line
// (1-based), for parsers that only report a line. A tab in the indentation
// is where it stops: YAML forbids tabs there, so it is likely the problem.
func lineStart(file string, data []byte, line int) Pos {
	cur := 1
	i := 0
	for i < len(data) && cur < line {
		if data[i] == '\n' {
			cur++
		}
		i++
	}
	if cur < line { // past the end: point after the last character
		return newPosCursor(file, data).pos(len(data))
	}
	col := 1
	for i < len(data) && data[i] == ' ' {
		i++
		col++
	}
	return Pos{File: file, Line: line, Col: col}
}

// checkUTF8 returns the offset of the first byte that is not valid UTF-8,
// or -1.
func checkUTF8(data []byte) int {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return -1
}

// describe names a value's type and, for scalars, the value, for messages
// like "must be an integer, got string "5"".
func describe(n *node) string {
	switch n.kind {
	case nullNode:
		return "null"
	case boolNode:
		return strconv.FormatBool(n.b)
	case numberNode:
		return "number " + shorten(n.str)
	case stringNode:
		return "string " + quote(n.str)
	case arrayNode:
		return "an array"
	default:
		return "an object"
	}
}

// quote renders s for a message, cut short when long.
func quote(s string) string {
	if utf8.RuneCountInString(s) > 60 {
		r := []rune(s)
		return strconv.Quote(string(r[:57])) + "..."
	}
	return strconv.Quote(s)
}

// display renders a name from the input as is when it is plain printable
// text, and quoted otherwise, so that no message line can be split or
// garbled by what a file contains.
func display(s string) string {
	for _, r := range s {
		if !unicode.IsGraphic(r) || unicode.IsSpace(r) {
			return quote(s)
		}
	}
	if s == "" {
		return `""`
	}
	return s
}

func shorten(s string) string {
	if len(s) > 40 {
		return s[:37] + "..."
	}
	return s
}

// Paths name a place in the document for messages, JavaScript style:
// scenarios[0].steps[1].arguments["a.b"].

var identifier = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

func keyPath(base, key string) string {
	if identifier.MatchString(key) {
		if base == "" {
			return key
		}
		return base + "." + key
	}
	return base + "[" + strconv.Quote(key) + "]"
}

func indexPath(base string, i int) string {
	return base + "[" + strconv.Itoa(i) + "]"
}

// label is the subject of a message about the value at path.
func label(path string) string {
	if path == "" {
		return "fixture"
	}
	return path
}

// prefix starts a message about the contents of the object at path.
func prefix(path string) string {
	if path == "" {
		return ""
	}
	return path + ": "
}
