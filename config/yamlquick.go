package config

import (
	"strings"
	"unicode/utf8"
)

// yaml.v3 builds a tree of its own (a yaml.Node of some 150 bytes for every
// key and value, plus the scanner's tokens and events) before parseYAML can
// convert it, which makes a fixture of thousands of steps cost tens of
// megabytes to read. Most fixtures use a small part of YAML: block mappings
// and sequences, flow mappings and sequences (which may go on over several
// lines), plain and quoted scalars on one line, comments. quickYAML reads
// exactly that part straight into a node tree. Anything else (a tab, a multi-line scalar,
// anchors, tags, block scalars, explicit documents, an empty value, a
// duplicate key, a number YAML or JSON cannot hold, ...) makes it give up,
// and the document is read by yaml.v3 as always.
//
// For the documents it accepts, the tree must be the one parseYAML builds:
// the same values and the same positions. FuzzQuickYAML compares the two
// readers on arbitrary input.

// quickYAML reads a YAML document in the subset described above, or returns
// nil when it is outside it.
func quickYAML(data []byte) *node {
	if !quickYAMLChars(data) {
		return nil
	}
	r := &yamlQuick{data: data, line: 1}
	defer func() {
		if e := recover(); e != nil && e != errQuickOut {
			panic(e)
		}
	}()
	indent := r.nextContent()
	if indent != 0 {
		return nil // nothing there, or a root that is not a block mapping at column 1
	}
	root := r.blockMapping(0, 1)
	if r.nextContent() >= 0 {
		r.out()
	}
	return root
}

// errQuickOut unwinds the reader when the document is outside its subset.
var errQuickOut = new(int)

// quickYAMLChars reports whether data holds only characters the quick reader
// handles: printable characters, spaces and '\n'. Tabs, carriage returns, the
// other line breaks YAML knows (NEL, LS, PS), byte order marks and the
// characters YAML forbids are left to yaml.v3 (and checkYAMLChars).
func quickYAMLChars(data []byte) bool {
	for i := 0; i < len(data); {
		c := data[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\n' || c == 0x7F {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			return false
		case r <= 0x9F, r == 0x2028, r == 0x2029, r == 0xFEFF, r == 0xFFFE, r == 0xFFFF:
			return false
		}
		i += size
	}
	return true
}

type yamlQuick struct {
	data      []byte
	i         int // read offset
	line      int32
	lineStart int // offset of the current line's first byte
	// pending says that i is at the first character of a content line
	// (not blank, not only a comment) whose indentation is indent.
	pending bool
	indent  int
	// The column of colOff, so that columns along a long line are counted
	// once.
	colOff, colRunes int
	alloc            treeAlloc
	strs             internTable
	buf              []byte // scratch for quoted scalars
}

func (r *yamlQuick) out() { panic(errQuickOut) }

// at is the position of offset off on the current line.
func (r *yamlQuick) at(off int) loc {
	if r.colOff < r.lineStart || off < r.colOff {
		r.colOff, r.colRunes = r.lineStart, 0
	}
	r.colRunes += utf8.RuneCount(r.data[r.colOff:off])
	r.colOff = off
	return loc{r.line, int32(r.colRunes + 1)}
}

func (r *yamlQuick) peek(off int) byte {
	if off < len(r.data) {
		return r.data[off]
	}
	return 0
}

// blankAt reports whether off is a space, a line end or the end of input.
func (r *yamlQuick) blankAt(off int) bool {
	c := r.peek(off)
	return c == ' ' || c == '\n' || c == 0
}

// nextContent moves to the first character of the next content line and
// returns its indentation, or -1 at the end of the input. Blank lines and
// comment lines are skipped. Document markers and directives are left to
// yaml.v3.
func (r *yamlQuick) nextContent() int {
	if r.pending {
		return r.indent
	}
	for r.i < len(r.data) {
		j := r.i
		for j < len(r.data) && r.data[j] == ' ' {
			j++
		}
		switch r.peek(j) {
		case 0:
			r.i = j
			return -1
		case '\n':
			r.newline(j + 1)
			continue
		case '#':
			r.skipComment(j)
			continue
		}
		indent := j - r.lineStart
		if indent == 0 {
			if c := r.data[j]; c == '%' || (c == '-' || c == '.') && j+2 < len(r.data) && r.data[j+1] == c && r.data[j+2] == c {
				r.out()
			}
		}
		r.i, r.indent, r.pending = j, indent, true
		return indent
	}
	return -1
}

func (r *yamlQuick) newline(next int) {
	r.i = next
	r.line++
	r.lineStart = next
}

// skipComment skips from a '#' to the start of the next line.
func (r *yamlQuick) skipComment(j int) {
	for j < len(r.data) && r.data[j] != '\n' {
		j++
	}
	if j < len(r.data) {
		r.newline(j + 1)
	} else {
		r.i = j
	}
}

// endLine expects only spaces and a comment up to the end of the line, and
// moves to the start of the next one.
func (r *yamlQuick) endLine() {
	r.pending = false
	j := r.i
	for j < len(r.data) && r.data[j] == ' ' {
		j++
	}
	switch r.peek(j) {
	case 0:
		r.i = j
	case '\n':
		r.newline(j + 1)
	case '#':
		if r.data[j-1] != ' ' { // a comment must follow a space
			r.out()
		}
		r.skipComment(j)
	default:
		r.out()
	}
}

func (r *yamlQuick) skipSpaces() {
	for r.i < len(r.data) && r.data[r.i] == ' ' {
		r.i++
	}
}

// atDash reports whether the content line starts a block sequence entry.
func (r *yamlQuick) atDash() bool {
	return r.peek(r.i) == '-' && r.blankAt(r.i+1)
}

// blockMapping reads the mapping whose keys start at column indent+1; the
// reader is at its first key.
func (r *yamlQuick) blockMapping(indent, depth int) *node {
	if depth > MaxDepth {
		r.out()
	}
	a := &r.alloc
	mark := len(a.fieldStack)
	var seen map[string]int
	pos := r.at(r.i)
	for {
		r.pending = false
		key, kpos := r.key()
		val := r.blockValue(indent, depth+1)
		if _, dup := a.addField(mark, &seen, field{key: key, keyPos: kpos, val: val}); dup {
			r.out()
		}
		next := r.nextContent()
		if next < indent {
			break
		}
		if next > indent || r.atDash() {
			r.out()
		}
	}
	n := a.node(objectNode, pos)
	n.fields = a.takeFields(mark)
	return n
}

// blockSequence reads the sequence whose '-' are at column indent+1; the
// reader is at its first '-'.
func (r *yamlQuick) blockSequence(indent, depth int) *node {
	if depth > MaxDepth {
		r.out()
	}
	a := &r.alloc
	mark := len(a.itemStack)
	pos := r.at(r.i)
	for {
		r.pending = false
		r.i++ // '-'
		item := r.entry(indent, depth+1)
		a.itemStack = append(a.itemStack, item)
		next := r.nextContent()
		if next < indent || next == indent && !r.atDash() {
			break
		}
		if next > indent {
			r.out()
		}
	}
	n := a.node(arrayNode, pos)
	n.items = a.takeItems(mark)
	return n
}

// blockValue reads the value after a block mapping's "key:".
func (r *yamlQuick) blockValue(indent, depth int) *node {
	r.skipSpaces()
	if c := r.peek(r.i); c == '\n' || c == '#' || c == 0 {
		r.endLine()
		next := r.nextContent()
		switch {
		case next > indent && r.atDash(), next == indent && r.atDash():
			return r.blockSequence(next, depth)
		case next > indent:
			return r.blockMapping(next, depth)
		}
		r.out() // an empty value (null)
	}
	v := r.inline(depth, false)
	r.endLine()
	return v
}

// entry reads a block sequence entry after its '-'.
func (r *yamlQuick) entry(indent, depth int) *node {
	r.skipSpaces()
	switch c := r.peek(r.i); {
	case c == '\n' || c == '#' || c == 0:
		r.endLine()
		next := r.nextContent()
		if next <= indent {
			r.out() // an empty entry (null)
		}
		if r.atDash() {
			return r.blockSequence(next, depth)
		}
		return r.blockMapping(next, depth)
	case c == '-' && r.blankAt(r.i+1):
		r.out() // a sequence in a sequence, on one line
	case c == '[' || c == '{':
		v := r.inline(depth, true)
		r.endLine() // a flow collection as a key is left to yaml.v3
		return v
	}
	start := r.i
	v := r.inline(depth, true)
	if r.peek(r.i) == ':' {
		// The scalar was the first key of a mapping: "- id: x".
		r.i = start
		return r.blockMapping(r.runes(r.lineStart, start), depth)
	}
	r.endLine()
	return v
}

// runes counts the characters of data[from:to].
func (r *yamlQuick) runes(from, to int) int {
	return utf8.RuneCount(r.data[from:to])
}

// key reads a block mapping key and the ':' after it.
func (r *yamlQuick) key() (string, loc) {
	pos := r.at(r.i)
	start := r.i
	var key string
	switch r.peek(r.i) {
	case '"', '\'':
		key = r.quoted()
	default:
		if !r.plainStart() {
			r.out()
		}
		end := r.plainEnd(false)
		if end == r.i {
			r.out()
		}
		key = r.str(r.data[r.i:end])
		r.i = end
		if kind, _ := plainKind(key); kind != stringNode {
			r.out() // keys must be strings: yaml.v3 reads this as another type
		}
	}
	// A simple key is at most 1024 characters long; longer ones, and ones
	// with spaces before the ':', are left to yaml.v3.
	if r.i-start > 1000 || r.peek(r.i) != ':' || !r.blankAt(r.i+1) {
		r.out()
	}
	r.i++
	return key, pos
}

// inline reads a value that starts on the current line: a flow collection,
// a quoted scalar or a plain scalar. In a sequence entry, a scalar may turn
// out to be a mapping key; the caller looks for the ':' after it.
func (r *yamlQuick) inline(depth int, entry bool) *node {
	switch r.peek(r.i) {
	case '{':
		return r.flowMapping(depth)
	case '[':
		return r.flowSequence(depth)
	case '"', '\'':
		pos := r.at(r.i)
		n := r.alloc.node(stringNode, pos)
		n.str = r.quoted()
		if r.peek(r.i) == ':' && !(entry && r.blankAt(r.i+1)) {
			r.out()
		}
		return n
	}
	if !r.plainStart() {
		r.out()
	}
	pos := r.at(r.i)
	end := r.plainEnd(false)
	text := r.data[r.i:end]
	r.i = end
	if r.peek(r.i) == ':' {
		if !entry || end-r.lineStart > 1000 {
			r.out() // "a: b: c", or a key too long to be one
		}
		return nil // the caller reads it again as a key
	}
	return r.plainNode(text, pos)
}

// plainStart reports whether a plain scalar can start at the reader: not at
// an indicator, except '-' followed by a character that is not a space, a
// line end or a flow indicator.
func (r *yamlQuick) plainStart() bool {
	c := r.peek(r.i)
	switch c {
	case 0, ' ', '\n', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
		return false
	case '-':
		switch r.peek(r.i + 1) {
		case 0, ' ', '\n', ',', '[', ']', '{', '}', '?', ':', '#':
			return false
		}
	}
	return true
}

// plainEnd returns where the plain scalar starting at the reader ends, its
// trailing spaces excluded. It ends at the end of the line, before " #",
// before a ':' followed by a space or line end, and in a flow collection
// before a flow indicator. A ':' followed by anything else in a flow
// collection, or '?' there, is left to yaml.v3.
func (r *yamlQuick) plainEnd(flow bool) int {
	d := r.data
	j, end := r.i, r.i
	for j < len(d) {
		c := d[j]
		switch {
		case c == '\n':
			return end
		case c == ' ':
			j++
			continue
		case c == '#' && d[j-1] == ' ':
			return end
		case c == ':' && r.blankAt(j+1):
			return end
		case flow && (c == ',' || c == '[' || c == ']' || c == '{' || c == '}'):
			return end
		case flow && (c == ':' || c == '?' || c == '#'):
			r.out()
		}
		j++
		end = j
	}
	return end
}

// plainNode makes the node of a plain scalar, typed as yaml.v3 types it.
func (r *yamlQuick) plainNode(text []byte, pos loc) *node {
	s := r.str(text)
	kind, value := plainKind(s)
	n := r.alloc.node(kind, pos)
	switch kind {
	case boolNode:
		n.b = value == "true"
	case numberNode, stringNode:
		n.str = value
	}
	return n
}

// plainKind returns the JSON type of a plain scalar as yaml.v3 resolves it
// (and as yamlConverter.scalar converts it), with the value's text: the
// string, the number in JSON notation, or "true" or "false". It gives up
// (unwinding with errQuickOut) where yaml.v3 and the converter refuse the
// value or read it as something else (a merge key, .nan).
func plainKind(s string) (nodeKind, string) {
	if s == "" {
		panic(errQuickOut)
	}
	switch c := s[0]; {
	case c == '+' || c == '-' || c == '.' || c == '_' || '0' <= c && c <= '9':
		// Numbers, and strings that look like them (timestamps, 1.2.3):
		// yaml.v3's own resolution decides, as it does for parseYAML,
		// and then the converter's rule for numbers yaml.v3 reads as
		// strings (1e400); "_0" stays a string, as yaml.v3 reads it.
		tag := implicitTag(s)
		if tag == "!!str" && yamlFloat.MatchString(s) {
			tag = "!!float"
		}
		switch tag {
		case "!!str", "!!timestamp":
			return stringNode, s
		case "!!int", "!!float":
			text, msg := yamlNumber(s, tag == "!!int")
			if msg != "" || checkNumber(text) != "" {
				panic(errQuickOut)
			}
			return numberNode, text
		}
		panic(errQuickOut) // +.inf, .nan, and anything unexpected
	case strings.IndexByte("yYnNtTfFoO~<", c) >= 0:
		switch s {
		case "true", "True", "TRUE":
			return boolNode, "true"
		case "false", "False", "FALSE":
			return boolNode, "false"
		case "~", "null", "Null", "NULL":
			return nullNode, ""
		case "<<":
			panic(errQuickOut)
		}
	}
	return stringNode, s
}

// quoted reads a single- or double-quoted scalar that ends on its line.
func (r *yamlQuick) quoted() string {
	d := r.data
	q := d[r.i]
	r.i++
	start := r.i
	r.buf = r.buf[:0]
	escaped := false
	for {
		if r.i >= len(d) || d[r.i] == '\n' {
			r.out() // multi-line, or unterminated
		}
		c := d[r.i]
		switch {
		case c == q && q == '\'' && r.peek(r.i+1) == '\'':
			r.buf = append(r.buf, d[start:r.i+1]...)
			r.i += 2
			start = r.i
			escaped = true
			continue
		case c == q:
			var s string
			if escaped {
				r.buf = append(r.buf, d[start:r.i]...)
				s = r.str(r.buf)
			} else {
				s = r.str(d[start:r.i])
			}
			r.i++
			return s
		case c == '\\' && q == '"':
			r.buf = append(r.buf, d[start:r.i]...)
			r.escape()
			start = r.i
			escaped = true
			continue
		}
		r.i++
	}
}

// escape decodes a double-quoted scalar's escape sequence at the reader, as
// yaml.v3 does.
func (r *yamlQuick) escape() {
	c := r.peek(r.i + 1)
	r.i += 2
	var code, digits int
	switch c {
	case '0':
		r.buf = append(r.buf, 0)
	case 'a':
		r.buf = append(r.buf, '\a')
	case 'b':
		r.buf = append(r.buf, '\b')
	case 't':
		r.buf = append(r.buf, '\t')
	case 'n':
		r.buf = append(r.buf, '\n')
	case 'v':
		r.buf = append(r.buf, '\v')
	case 'f':
		r.buf = append(r.buf, '\f')
	case 'r':
		r.buf = append(r.buf, '\r')
	case 'e':
		r.buf = append(r.buf, 0x1B)
	case ' ', '"', '\'', '\\':
		r.buf = append(r.buf, c)
	case 'N':
		r.buf = utf8.AppendRune(r.buf, 0x85)
	case '_':
		r.buf = utf8.AppendRune(r.buf, 0xA0)
	case 'L':
		r.buf = utf8.AppendRune(r.buf, 0x2028)
	case 'P':
		r.buf = utf8.AppendRune(r.buf, 0x2029)
	case 'x':
		digits = 2
	case 'u':
		digits = 4
	case 'U':
		digits = 8
	default:
		r.out() // unknown escapes (\/ among them), and a '\' at the line end
	}
	for k := 0; k < digits; k++ {
		h := r.peek(r.i + k)
		switch {
		case '0' <= h && h <= '9':
			code = code<<4 | int(h-'0')
		case 'a' <= h && h <= 'f':
			code = code<<4 | int(h-'a'+10)
		case 'A' <= h && h <= 'F':
			code = code<<4 | int(h-'A'+10)
		default:
			r.out()
		}
	}
	if digits > 0 {
		if code >= 0xD800 && code <= 0xDFFF || code > 0x10FFFF {
			r.out()
		}
		r.i += digits
		// yaml.v3 writes the code point's UTF-8 bytes as they are.
		r.buf = utf8.AppendRune(r.buf, rune(code))
	}
}

// flowMapping reads {key: value, ...} on one line.
func (r *yamlQuick) flowMapping(depth int) *node {
	if depth > MaxDepth {
		r.out()
	}
	a := &r.alloc
	mark := len(a.fieldStack)
	var seen map[string]int
	pos := r.at(r.i)
	r.i++ // '{'
	r.flowSpace()
	if r.peek(r.i) != '}' {
		for {
			kpos := r.at(r.i)
			start := r.i
			var key string
			quoted := false
			switch r.peek(r.i) {
			case '"', '\'':
				key, quoted = r.quoted(), true
			default:
				if !r.plainStart() {
					r.out()
				}
				end := r.plainEnd(true)
				key = r.str(r.data[r.i:end])
				r.i = end
				if kind, _ := plainKind(key); kind != stringNode {
					r.out()
				}
			}
			// "key: value"; after a quoted key also "key":value, as JSON
			// writes it. A key without a value, or with an empty one, is
			// left to yaml.v3.
			if r.i-start > 1000 || r.peek(r.i) != ':' || !quoted && r.peek(r.i+1) != ' ' {
				r.out()
			}
			r.i++
			r.skipSpaces()
			val := r.flowValue(depth + 1)
			if _, dup := a.addField(mark, &seen, field{key: key, keyPos: kpos, val: val}); dup {
				r.out()
			}
			if r.flowNext('}') {
				break
			}
		}
	}
	r.i++ // '}'
	n := a.node(objectNode, pos)
	n.fields = a.takeFields(mark)
	return n
}

// flowSequence reads [value, ...] on one line.
func (r *yamlQuick) flowSequence(depth int) *node {
	if depth > MaxDepth {
		r.out()
	}
	a := &r.alloc
	mark := len(a.itemStack)
	pos := r.at(r.i)
	r.i++ // '['
	r.flowSpace()
	if r.peek(r.i) != ']' {
		for {
			a.itemStack = append(a.itemStack, r.flowValue(depth+1))
			if r.flowNext(']') {
				break
			}
		}
	}
	r.i++ // ']'
	n := a.node(arrayNode, pos)
	n.items = a.takeItems(mark)
	return n
}

// flowNext moves past the spaces and ',' after a flow collection's member
// and reports whether the collection ends (at closer). A trailing ',' and
// anything else are left to yaml.v3.
func (r *yamlQuick) flowNext(closer byte) bool {
	r.flowSpace()
	switch r.peek(r.i) {
	case closer:
		return true
	case ',':
		r.i++
		r.flowSpace()
		if c := r.peek(r.i); c == closer || c == ',' {
			r.out()
		}
		return false
	}
	r.out()
	return false
}

// flowSpace skips spaces, comments and line ends between the members of a
// flow collection. A value never goes on over a line end here: a plain
// scalar cut by one is followed by something other than ',' or the closing
// bracket, which flowNext leaves to yaml.v3.
func (r *yamlQuick) flowSpace() {
	for {
		r.skipSpaces()
		switch r.peek(r.i) {
		case '#':
			if r.i > r.lineStart && r.data[r.i-1] != ' ' {
				r.out()
			}
			r.skipComment(r.i)
		case '\n':
			r.newline(r.i + 1)
		default:
			return
		}
		d := r.data[r.i:]
		if len(d) >= 3 && (string(d[:3]) == "---" || string(d[:3]) == "...") {
			r.out() // a document marker
		}
	}
}

// flowValue reads a value inside a flow collection.
func (r *yamlQuick) flowValue(depth int) *node {
	switch r.peek(r.i) {
	case '{':
		return r.flowMapping(depth)
	case '[':
		return r.flowSequence(depth)
	case '"', '\'':
		pos := r.at(r.i)
		n := r.alloc.node(stringNode, pos)
		n.str = r.quoted()
		return n
	}
	if !r.plainStart() {
		r.out()
	}
	pos := r.at(r.i)
	end := r.plainEnd(true)
	text := r.data[r.i:end]
	r.i = end
	return r.plainNode(text, pos)
}

// str returns b as a string, shared with earlier equal short strings: keys
// and many values repeat from step to step.
func (r *yamlQuick) str(b []byte) string {
	return r.strs.get(b)
}

// internTable is a small direct-mapped cache of strings: a repeated string
// costs no allocation after its first use, and a string that does not
// repeat costs a slot.
type internTable [1024]string

func (t *internTable) get(b []byte) string {
	if len(b) > 64 {
		return string(b)
	}
	h := uint32(2166136261)
	for _, c := range b {
		h = (h ^ uint32(c)) * 16777619
	}
	slot := &t[h%uint32(len(t))]
	if *slot == string(b) {
		return *slot
	}
	s := string(b)
	*slot = s
	return s
}
