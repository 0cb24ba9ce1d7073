package config

import "strconv"

// A generated fixture of thousands of steps repeats itself: the same
// arguments, the same expectations, over and over. Each decoded object is a
// Go map of at least 336 bytes, and the Suite lives for the whole run, so a
// value written the same way as an earlier one is decoded once and shared:
// Step.Arguments and Value.V of different steps may be the same map. They
// are read-only (the runner copies before it resolves a $ref marker).

// sharedValues remembers the small values decoded so far, by their content.
type sharedValues struct {
	byKey map[string]any
	buf   []byte
	empty map[string]any // {} wherever it is written
}

const (
	// maxSharedKey bounds the encoded content of a value that is shared;
	// larger values are rarely repeated and cost more to compare.
	maxSharedKey = 256
	// maxShared bounds how many values are remembered, so that a fixture
	// without repetition does not pay for a large table.
	maxShared = 4096
)

// value returns the generic value of n (see toAny), shared with an earlier
// value of the same content when it is small.
func (d *decoder) value(n *node) any {
	sv := &d.shared
	switch n.kind {
	case objectNode:
		if len(n.fields) == 0 {
			if sv.empty == nil {
				sv.empty = map[string]any{}
			}
			return sv.empty
		}
	case arrayNode:
	default:
		return toAny(n)
	}
	var ok bool
	sv.buf, ok = appendContent(sv.buf[:0], n)
	if ok {
		if v, hit := sv.byKey[string(sv.buf)]; hit {
			return v
		}
	}
	var v any
	if n.kind == objectNode {
		m := make(map[string]any, len(n.fields))
		for _, f := range n.fields {
			m[f.key] = d.value(f.val)
		}
		v = m
	} else {
		items := make([]any, len(n.items))
		for i, it := range n.items {
			items[i] = d.value(it)
		}
		v = items
	}
	if ok && len(sv.byKey) < maxShared {
		if sv.byKey == nil {
			sv.byKey = make(map[string]any)
		}
		// The children's calls have reused the buffer.
		sv.buf, _ = appendContent(sv.buf[:0], n)
		sv.byKey[string(sv.buf)] = v
	}
	return v
}

// appendContent appends an encoding of n's value that two values share
// exactly when they are equal as written (same members in the same order,
// numbers with the same text), and reports false once it passes
// maxSharedKey bytes.
func appendContent(b []byte, n *node) ([]byte, bool) {
	if len(b) > maxSharedKey {
		return b, false
	}
	switch n.kind {
	case nullNode:
		return append(b, 'n'), true
	case boolNode:
		if n.b {
			return append(b, 't'), true
		}
		return append(b, 'f'), true
	case numberNode, stringNode:
		tag := byte('"')
		if n.kind == numberNode {
			tag = '#'
		}
		b = strconv.AppendInt(append(b, tag), int64(len(n.str)), 10)
		return append(append(b, ':'), n.str...), len(b)+len(n.str) <= maxSharedKey
	case arrayNode:
		b = append(b, '[')
		b = strconv.AppendInt(b, int64(len(n.items)), 10)
		for _, it := range n.items {
			var ok bool
			if b, ok = appendContent(b, it); !ok {
				return b, false
			}
		}
		return b, true
	}
	b = append(b, '{')
	b = strconv.AppendInt(b, int64(len(n.fields)), 10)
	for _, f := range n.fields {
		b = strconv.AppendInt(b, int64(len(f.key)), 10)
		b = append(append(b, ':'), f.key...)
		var ok bool
		if b, ok = appendContent(b, f.val); !ok {
			return b, false
		}
	}
	return b, true
}
