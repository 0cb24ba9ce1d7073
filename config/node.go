package config

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpcheck/mcpcheck/internal/safetext"
)

// The JSON and YAML readers both produce this small tree: the values of the
// JSON data model plus the position of every value and every object key.
// Everything after parsing (schema validation, decoding, semantic checks)
// works on it, so both formats behave, and report errors, the same way.
//
// A fixture of ten thousand steps has a hundred thousand nodes, and the tree
// lives until loading ends, so it is kept small: positions without the file
// name (every node of a tree is in the same file), object members by value,
// and nodes and member lists carved out of large blocks (see treeAlloc)
// rather than allocated one by one.

type nodeKind uint8

const (
	nullNode nodeKind = iota
	boolNode
	numberNode
	stringNode
	arrayNode
	objectNode
)

// loc is a place in the file a tree was read from: line and column, 1-based,
// the column counting runes.
type loc struct{ line, col int32 }

// in places l in file.
func (l loc) in(file string) Pos {
	return Pos{File: file, Line: int(l.line), Col: int(l.col)}
}

// after reports whether l comes after m.
func (l loc) after(m loc) bool {
	return l.line > m.line || l.line == m.line && l.col > m.col
}

func locOf(p Pos) loc { return loc{int32(p.Line), int32(p.Col)} }

type node struct {
	kind   nodeKind
	b      bool
	pos    loc
	str    string // the string, or the number's JSON text
	items  []*node
	fields []field // in source order, keys unique
}

type field struct {
	key    string
	keyPos loc
	val    *node
}

// treeAlloc hands out nodes and member lists from blocks, so that a large
// document costs a few hundred allocations instead of one per value. The
// blocks are garbage, all together, once the tree is.
type treeAlloc struct {
	nodes  []node
	fields []field
	items  []*node
	// Members and items of the collections being read, innermost last;
	// each collection copies its own out when it is complete.
	fieldStack []field
	itemStack  []*node
}

const allocBlock = 512

func (a *treeAlloc) node(kind nodeKind, pos loc) *node {
	if len(a.nodes) == 0 {
		a.nodes = make([]node, allocBlock)
	}
	n := &a.nodes[0]
	a.nodes = a.nodes[1:]
	n.kind, n.pos = kind, pos
	return n
}

// take moves the entries above mark on a stack (a.fieldStack,
// a.itemStack) into a list of their own, carved out of block (a.fields,
// a.items).
func take[T any](stack, block *[]T, mark int) []T {
	src := (*stack)[mark:]
	if len(src) > len(*block) {
		*block = make([]T, max(allocBlock, len(src)))
	}
	out := (*block)[:len(src):len(src)]
	copy(out, src)
	*block = (*block)[len(src):]
	clear(src) // the stack must not keep values alive
	*stack = (*stack)[:mark]
	return out
}

// addField appends a member of the object whose members start at mark on
// the field stack, unless its key is already there: then it returns where
// that first one is. seen belongs to the caller's object; it stays nil for
// small objects, which are searched instead.
func (a *treeAlloc) addField(mark int, seen *map[string]int, f field) (first loc, dup bool) {
	if *seen == nil && len(a.fieldStack)-mark < 16 {
		for i := mark; i < len(a.fieldStack); i++ {
			if a.fieldStack[i].key == f.key {
				return a.fieldStack[i].keyPos, true
			}
		}
	} else {
		if *seen == nil {
			*seen = make(map[string]int, 2*(len(a.fieldStack)-mark))
			for i := mark; i < len(a.fieldStack); i++ {
				(*seen)[a.fieldStack[i].key] = i
			}
		}
		if i, ok := (*seen)[f.key]; ok {
			return a.fieldStack[i].keyPos, true
		}
		(*seen)[f.key] = len(a.fieldStack)
	}
	a.fieldStack = append(a.fieldStack, f)
	return loc{}, false
}

// get returns the member named key, or nil.
func (n *node) get(key string) *field {
	if n == nil || n.kind != objectNode {
		return nil
	}
	for i := range n.fields {
		if n.fields[i].key == key {
			return &n.fields[i]
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
		out := make([]any, len(n.items))
		for i, it := range n.items {
			out[i] = toAny(it)
		}
		return out
	case objectNode:
		out := make(map[string]any, len(n.fields))
		for _, f := range n.fields {
			out[f.key] = toAny(f.val)
		}
		return out
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
	if utf8.Valid(data) {
		return -1
	}
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
var quote = safetext.Quote

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
