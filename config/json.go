package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
)

// jsonReader builds a node tree from JSON with encoding/json's token stream.
// Decoder.InputOffset gives the end of each token; the start of the next
// one is found by skipping the whitespace and separators in between.
type jsonReader struct {
	data  []byte
	dec   *json.Decoder
	cur   *posCursor
	errs  *errList
	alloc treeAlloc
}

// errStop ends a read after the first problem has been recorded: a JSON
// document that is broken in one place cannot be trusted further on.
var errStop = errors.New("stop")

func parseJSON(file string, data []byte, errs *errList) *node {
	errs.file = file
	r := &jsonReader{data: data, dec: json.NewDecoder(bytes.NewReader(data)), cur: newPosCursor(file, data), errs: errs}
	r.dec.UseNumber()
	if len(bytes.TrimLeft(data, " \t\r\n")) == 0 {
		errs.add(Pos{File: file, Line: 1, Col: 1}, "empty file: a fixture is an object with name, allowTools and scenarios")
		return nil
	}
	root, err := r.value(1)
	if err != nil || !errs.empty() {
		return nil
	}
	// Only whitespace may follow the document.
	end := r.skip(int(r.dec.InputOffset()), " \t\r\n")
	if end < len(data) {
		errs.add(r.cur.pos(end), "unexpected %s after the end of the JSON document", what(data[end:]))
		return nil
	}
	return root
}

// skip returns the first offset at or after off whose byte is not in set.
func (r *jsonReader) skip(off int, set string) int {
	for off < len(r.data) && strings.IndexByte(set, r.data[off]) >= 0 {
		off++
	}
	return off
}

func (r *jsonReader) token() (json.Token, Pos, error) {
	start := r.skip(int(r.dec.InputOffset()), " \t\r\n,:")
	tok, err := r.dec.Token()
	if err != nil {
		r.syntaxError(start, err)
		return nil, Pos{}, errStop
	}
	return tok, r.cur.pos(start), nil
}

// syntaxError records a JSON syntax error at the offending character.
// The token stream's offsets are not reliable after an error, so the
// document is scanned once more as a whole, which gives the exact offset.
func (r *jsonReader) syntaxError(start int, err error) {
	var se *json.SyntaxError
	if errors.As(json.Unmarshal(r.data, new(json.RawMessage)), &se) {
		off := int(se.Offset) - 1
		msg := se.Error()
		if strings.HasPrefix(msg, "unexpected end of JSON input") {
			off = len(bytes.TrimRight(r.data, " \t\r\n"))
			msg = "unexpected end of input: the JSON document is incomplete"
		}
		if trailingComma(r.data, off) {
			msg += " (JSON allows no comma before a closing bracket)"
		}
		r.errs.add(r.cur.pos(off), "JSON syntax error: %s", msg)
		return
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		r.errs.add(r.cur.pos(len(bytes.TrimRight(r.data, " \t\r\n"))), "JSON syntax error: unexpected end of input: the JSON document is incomplete")
		return
	}
	r.errs.add(r.cur.pos(start), "JSON syntax error: %v", err)
}

func (r *jsonReader) value(depth int) (*node, error) {
	tok, p, err := r.token()
	if err != nil {
		return nil, err
	}
	pos := locOf(p)
	switch t := tok.(type) {
	case json.Delim:
		if depth > MaxDepth {
			r.errs.add(p, "nesting is deeper than %d levels", MaxDepth)
			return nil, errStop
		}
		if t == '{' {
			return r.object(pos, depth)
		}
		return r.array(pos, depth)
	case string:
		n := r.alloc.node(stringNode, pos)
		n.str = t
		return n, nil
	case json.Number:
		if msg := checkNumber(string(t)); msg != "" {
			r.errs.add(p, "%s", msg)
			return nil, errStop
		}
		n := r.alloc.node(numberNode, pos)
		n.str = string(t)
		return n, nil
	case bool:
		n := r.alloc.node(boolNode, pos)
		n.b = t
		return n, nil
	case nil:
		return r.alloc.node(nullNode, pos), nil
	}
	// A closing delimiter where a value belongs cannot get past the
	// decoder's own syntax check; treat it as one anyway.
	r.errs.add(p, "JSON syntax error: unexpected %v", tok)
	return nil, errStop
}

func (r *jsonReader) object(pos loc, depth int) (*node, error) {
	a := &r.alloc
	mark := len(a.fieldStack)
	var seen map[string]int
	for r.dec.More() {
		tok, kp, err := r.token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			r.errs.add(kp, "JSON syntax error: object key must be a string")
			return nil, errStop
		}
		val, err := r.value(depth + 1)
		if err != nil {
			return nil, err
		}
		// A duplicate is reported but does not stop the read, so that
		// every duplicate in the file shows up at once.
		if first, dup := a.addField(mark, &seen, field{key: key, keyPos: locOf(kp), val: val}); dup {
			r.errs.add(kp, "duplicate key %s (first at %d:%d)", quote(key), first.line, first.col)
		}
	}
	if _, _, err := r.token(); err != nil { // '}'
		return nil, err
	}
	n := a.node(objectNode, pos)
	n.fields = take(&a.fieldStack, &a.fields, mark)
	return n, nil
}

func (r *jsonReader) array(pos loc, depth int) (*node, error) {
	a := &r.alloc
	mark := len(a.itemStack)
	for r.dec.More() {
		val, err := r.value(depth + 1)
		if err != nil {
			return nil, err
		}
		a.itemStack = append(a.itemStack, val)
	}
	if _, _, err := r.token(); err != nil { // ']'
		return nil, err
	}
	n := a.node(arrayNode, pos)
	n.items = take(&a.itemStack, &a.items, mark)
	return n, nil
}

// trailingComma reports whether the character at off closes an array or
// object right after a comma, the most common JSON mistake.
func trailingComma(data []byte, off int) bool {
	if off < 0 || off >= len(data) || (data[off] != ']' && data[off] != '}') {
		return false
	}
	prev := bytes.TrimRight(data[:off], " \t\r\n")
	return len(prev) > 0 && prev[len(prev)-1] == ','
}

// what names the start of unexpected trailing input.
func what(rest []byte) string {
	switch rest[0] {
	case '{', '[':
		return "second value"
	case ',':
		return "','"
	}
	return "text"
}
