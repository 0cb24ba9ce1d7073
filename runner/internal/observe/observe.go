// Package observe compares observations of a server's state, as seen
// through its own read surface: the answers of its read-only tools called
// with fixed inputs, and the contents of its listed resources. The runner
// makes the calls; this package only compares what came back.
//
// An [Observation] maps a source (a tool's name, a resource's URI) to its
// answer, normalised by [Normalize]. [Diff] lists what changed between two
// observations, by JSON Pointer, with the paths [Volatile] learned from two
// quiet observations ignored. The kinds of change are what the annotation
// rules need:
//
//   - added: a key or an array element that was not there;
//   - removed: a key or an element (compared as a multiset when the array's
//     length changed) that is gone;
//   - changed: a value overwritten (a string not merely extended, a number
//     that fell, another type);
//   - grew: a number that went up (a count, a revision) or a text whose
//     every former line is still there (a listing with a line more). Both
//     are what adding something looks like from outside.
//
// A string that changed only inside a timestamp, date, time, UUID, long
// hex or epoch shape (the golden answers' sanitizers) is a clock or an id
// moving, not a change of state: it is no change at all.
package observe

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/go-openapi/jsonpointer"
	"github.com/mcpcheck/mcpcheck/assert"
	"github.com/mcpcheck/mcpcheck/internal/jsonx"
	"github.com/mcpcheck/mcpcheck/runner/internal/golden"
)

// Observation is a server's state by source: each source's normalised
// answer. Only sources that answered successfully are in it: an error is
// no state.
type Observation map[string]any

// Kind is what became of a value between two observations.
type Kind string

// The kinds of change.
const (
	Added   Kind = "added"
	Removed Kind = "removed"
	Changed Kind = "changed"
	Grew    Kind = "grew"
)

// Change is one difference between two observations. Old and New are the
// values (generic JSON), absent for an addition or a removal respectively.
type Change struct {
	Source string
	Path   string // a JSON Pointer into the source's answer
	Kind   Kind
	Old    any
	New    any
}

// Loses reports whether the change loses or overwrites something that was
// observed before (what a non-destructive tool must never do).
func (c Change) Loses() bool { return c.Kind == Removed || c.Kind == Changed }

// MaxChanges bounds the changes one Diff lists: enough to show what
// happened, never a copy of a whole state.
const MaxChanges = 50

// Normalize is an answer as an observation keeps it: text that holds a
// JSON object or array is decoded in place (many servers answer their
// state as JSON text), so that a change is addressed inside it rather than
// as one string. v is not changed.
func Normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = Normalize(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = Normalize(e)
		}
		return out
	case string:
		t := strings.TrimSpace(x)
		if len(t) > 1 && (t[0] == '{' || t[0] == '[') {
			var parsed any
			d := json.NewDecoder(bytes.NewReader([]byte(t)))
			d.UseNumber()
			// Only when the value is the whole text.
			if d.Decode(&parsed) == nil && d.InputOffset() == int64(len(t)) {
				return Normalize(parsed)
			}
		}
	}
	return v
}

// Paths is a set of places that move by themselves: a source's whole
// answer (path "") or a pointer into it, with everything below.
type Paths map[string]map[string]bool

// Has reports whether (source, path) is at or below a volatile place.
func (p Paths) Has(source, path string) bool {
	set := p[source]
	if set == nil {
		return false
	}
	for {
		if set[path] {
			return true
		}
		i := strings.LastIndexByte(path, '/')
		if i < 0 {
			return false
		}
		path = path[:i]
	}
}

func (p Paths) add(source, path string) {
	if p[source] == nil {
		p[source] = map[string]bool{}
	}
	p[source][path] = true
}

// Volatile is what differs between two observations made with nothing in
// between: those places move by themselves. A source in one but not the
// other is volatile as a whole; an array that gained or lost elements is
// volatile as a whole (a log that grows by itself); any other change, at
// its path.
func Volatile(a, b Observation) Paths {
	p := Paths{}
	for _, src := range sources(a, b) {
		av, inA := a[src]
		bv, inB := b[src]
		if inA != inB {
			p.add(src, "")
			continue
		}
		d := differ{source: src, limit: -1}
		d.value("", av, bv)
		for _, c := range d.out {
			p.add(src, c.Path)
		}
		for _, arr := range d.arrays {
			p.add(src, arr)
		}
	}
	return p
}

// Diff lists what changed from before to after, at most [MaxChanges],
// by source and then in document order, leaving out volatile places and
// sources that only one of the two observations has (a source that failed
// once tells nothing).
func Diff(before, after Observation, volatile Paths) []Change {
	var out []Change
	for _, src := range sources(before, after) {
		bv, inB := before[src]
		av, inA := after[src]
		if !inB || !inA || volatile.Has(src, "") {
			continue
		}
		d := differ{source: src, limit: MaxChanges - len(out)}
		d.value("", bv, av)
		for _, c := range d.out {
			if !volatile.Has(src, c.Path) {
				out = append(out, c)
			}
		}
		if len(out) >= MaxChanges {
			break
		}
	}
	return out
}

// Comparable lists the sources both observations have and that are not
// volatile as a whole: what a diff of the two can see.
func Comparable(before, after Observation, volatile Paths) []string {
	var out []string
	for _, src := range sources(before, after) {
		_, inB := before[src]
		_, inA := after[src]
		if inB && inA && !volatile.Has(src, "") {
			out = append(out, src)
		}
	}
	return out
}

func sources(a, b Observation) []string {
	var out []string
	for k := range a {
		out = append(out, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// differ walks two values of one source. limit < 0 is no limit.
type differ struct {
	source string
	limit  int
	out    []Change
	arrays []string // arrays whose length changed
}

func (d *differ) full() bool { return d.limit >= 0 && len(d.out) >= d.limit }

func (d *differ) add(path string, kind Kind, old, new any) {
	if !d.full() {
		d.out = append(d.out, Change{Source: d.source, Path: path, Kind: kind, Old: old, New: new})
	}
}

func (d *differ) value(path string, a, b any) {
	if d.full() {
		return
	}
	if assert.TypeName(a) != assert.TypeName(b) {
		d.add(path, Changed, a, b)
		return
	}
	switch x := a.(type) {
	case map[string]any:
		y := b.(map[string]any)
		for _, k := range slices.Sorted(maps.Keys(x)) {
			p := path + "/" + jsonpointer.Escape(k)
			if yv, ok := y[k]; ok {
				d.value(p, x[k], yv)
			} else {
				d.add(p, Removed, x[k], nil)
			}
		}
		for _, k := range slices.Sorted(maps.Keys(y)) {
			if _, ok := x[k]; !ok {
				d.add(path+"/"+jsonpointer.Escape(k), Added, nil, y[k])
			}
		}
	case []any:
		d.array(path, x, b.([]any))
	case string:
		d.text(path, x, b.(string))
	case json.Number:
		c, ok := jsonx.Compare(string(x), string(b.(json.Number)))
		switch {
		case !ok:
			if string(x) != string(b.(json.Number)) {
				d.add(path, Changed, a, b)
			}
		case c < 0:
			d.add(path, Grew, a, b)
		case c > 0:
			d.add(path, Changed, a, b)
		}
	default:
		if !assert.ScalarEqual(a, b) {
			d.add(path, Changed, a, b)
		}
	}
}

// array compares element by element when the length is the same, and
// otherwise as multisets: what is no longer anywhere in the array was
// removed, what was nowhere before was added (an insertion at the front
// shifts every index but loses nothing).
func (d *differ) array(path string, a, b []any) {
	if len(a) == len(b) {
		for i := range a {
			d.value(path+"/"+strconv.Itoa(i), a[i], b[i])
		}
		return
	}
	d.arrays = append(d.arrays, path)
	used := make([]bool, len(b))
	for i, av := range a {
		j := slices.IndexFunc(b, func(bv any) bool { return assert.Equal(av, bv) })
		for j >= 0 && used[j] {
			k := slices.IndexFunc(b[j+1:], func(bv any) bool { return assert.Equal(av, bv) })
			if k < 0 {
				j = -1
				break
			}
			j += 1 + k
		}
		if j < 0 {
			d.add(path+"/"+strconv.Itoa(i), Removed, av, nil)
			continue
		}
		used[j] = true
	}
	for j, bv := range b {
		if !used[j] {
			d.add(path+"/"+strconv.Itoa(j), Added, nil, bv)
		}
	}
}

// text compares two strings: equal, equal but for a clock or an id
// (nothing), extended (every former line is still there), or overwritten.
func (d *differ) text(path, a, b string) {
	if a == b || sanitized(a) == sanitized(b) {
		return
	}
	if linesKept(a, b) {
		d.add(path, Grew, a, b)
		return
	}
	d.add(path, Changed, a, b)
}

var allSanitizers = []string{"uuid", "timestamp", "date", "time", "epoch", "hex"}

func sanitized(s string) string {
	out, _ := golden.Reduce(s, nil, allSanitizers).(string)
	return out
}

// linesKept reports whether every line of a is still among b's lines
// (counted as a multiset), b having more.
func linesKept(a, b string) bool {
	have := map[string]int{}
	bl := strings.Split(b, "\n")
	for _, l := range bl {
		have[l]++
	}
	al := strings.Split(a, "\n")
	if len(al) >= len(bl) {
		return false
	}
	for _, l := range al {
		if have[l] == 0 {
			return false
		}
		have[l]--
	}
	return true
}
