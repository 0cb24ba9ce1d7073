package runner

import (
	"reflect"
	"sync"

	"github.com/mcpcheck/mcpcheck/internal/safetext"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// # What reaches an output (the edge)
//
// Every string a server or a file controls passes, on its way into any
// output, through one sanitizer ([Sanitize]) and then one redactor (a
// redactor's String): sanitizing first, so that a secret a server splits
// with a control sequence ("to\x1b[0mken") is never joined back into the
// secret by a later step. The report model is the edge: [Run], [Merge] and
// [DiffContracts] hand every writer (text, the terminal stream, JSON,
// JUnit, HTML, Markdown, annotations, mcpcheck tools) a report whose every
// string field, map key and nested value has been through both (see
// redactor.report), and the trace, golden answers, contracts and recorded
// fixtures pass their values through the same redactor before they are
// encoded. Both steps are idempotent, so a string cleaned early (to bound
// it) is unchanged at the edge. Reports from files (merge, the baseline's
// reasons) are walked again without secrets: sanitized.
//
// This file is the walk; redact.go holds the sanitizer and the redactor.

// report passes every string of rep through String: every exported field
// of type string (named string types are the runner's vocabularies, not
// text), every map key, every string inside an interface value (assertion
// values). Walking the whole model by reflection is the point: a field
// added later is covered without anyone remembering to. Fields are written
// only where something changes, so a report cleaned before is not written
// to at all.
func (r *redactor) report(rep *report.Report) {
	if rep != nil {
		r.walk(reflect.ValueOf(rep).Elem())
	}
}

var (
	stringType = reflect.TypeOf("")
	anyType    = reflect.TypeOf((*any)(nil)).Elem()
)

func (r *redactor) walk(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			r.walk(v.Elem())
		}
	case reflect.Struct:
		for _, i := range textFields(v.Type()) {
			r.walk(v.Field(i))
		}
	case reflect.Slice, reflect.Array:
		if !holdsText(v.Type().Elem()) {
			return // raw JSON is redacted where it is made; numbers are not text
		}
		for i := 0; i < v.Len(); i++ {
			r.walk(v.Index(i))
		}
	case reflect.String:
		if v.Type() == stringType && v.CanSet() {
			if s := v.String(); s != "" {
				if c := safetext.Cut(r.String(s), maxField); c != s {
					v.SetString(c)
				}
			}
		}
	case reflect.Interface:
		if !v.IsNil() && v.CanSet() {
			old := v.Interface()
			if nv := r.Value(old); !same(nv, old) {
				v.Set(reflect.ValueOf(nv))
			}
		}
	case reflect.Map:
		r.walkMap(v)
	}
}

// textFields lists the exported fields of struct type t that may hold
// text, computed once per type: the walk runs on every report and every
// hooked step, and asking reflect about each field each time costs more
// than the strings themselves.
func textFields(t reflect.Type) []int {
	if f, ok := fieldPlans.Load(t); ok {
		return f.([]int)
	}
	var out []int
	for i := 0; i < t.NumField(); i++ {
		if f := t.Field(i); f.IsExported() && holdsText(f.Type) {
			out = append(out, i)
		}
	}
	fieldPlans.Store(t, out)
	return out
}

var fieldPlans sync.Map // reflect.Type → []int

// holdsText reports whether a value of type t may hold a string the walk
// changes: a plain string, an interface, or a container of one. Named
// string types (Status, Outcome) are vocabularies, not text.
func holdsText(t reflect.Type) bool {
	if h, ok := textTypes.Load(t); ok {
		return h.(bool)
	}
	h := holdsTextSeen(t, map[reflect.Type]bool{})
	textTypes.Store(t, h)
	return h
}

var textTypes sync.Map // reflect.Type → bool

func holdsTextSeen(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false // a cycle adds nothing the first visit did not find
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.String:
		return t == stringType
	case reflect.Interface:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return holdsTextSeen(t.Elem(), seen)
	case reflect.Map:
		return t.Key() == stringType || holdsTextSeen(t.Elem(), seen)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if f := t.Field(i); f.IsExported() && holdsTextSeen(f.Type, seen) {
				return true
			}
		}
	}
	return false
}

// walkMap cleans a map's string keys and its values, rebuilding it when a
// key changes.
func (r *redactor) walkMap(v reflect.Value) {
	if v.IsNil() || v.Len() == 0 {
		return
	}
	if v.Type().Elem() == anyType && v.Type().Key() == stringType && v.CanSet() {
		old := v.Interface()
		if nv := r.Value(old); !same(nv, old) {
			v.Set(reflect.ValueOf(nv))
		}
		return
	}
	if !v.CanSet() {
		return
	}
	keyIsString := v.Type().Key() == stringType
	out := reflect.MakeMapWithSize(v.Type(), v.Len())
	changed := false
	iter := v.MapRange()
	for iter.Next() {
		k, e := iter.Key(), iter.Value()
		if keyIsString {
			if c := r.String(k.String()); c != k.String() {
				k = reflect.ValueOf(c).Convert(v.Type().Key())
				changed = true
			}
		}
		// Map elements are not addressable: clean a copy.
		ce := reflect.New(e.Type()).Elem()
		ce.Set(e)
		r.walk(ce)
		if !reflect.DeepEqual(ce.Interface(), e.Interface()) {
			changed = true
		}
		out.SetMapIndex(k, ce)
	}
	if changed {
		v.Set(out)
	}
}

// visible is a copy of x (a report, a scenario's or a step's result) with
// every string through r, for the hooks that follow a run as it goes: the
// runner's own results stay as they are until the run ends (analysis reads
// them), and the copy shares nothing with them that the walk writes.
func visible[T any](r *redactor, x T) T {
	c := deepCopy(reflect.ValueOf(&x).Elem())
	r.walk(c)
	return c.Interface().(T)
}

// deepCopy copies v with its pointers, slices and maps, so that writing
// into the copy's exported fields never writes into v. Unexported fields
// are copied as they are (the walk does not write them).
func deepCopy(v reflect.Value) reflect.Value {
	out := reflect.New(v.Type()).Elem()
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			out.Set(deepCopy(v.Elem()).Addr())
		}
	case reflect.Struct:
		out.Set(v)
		t := v.Type()
		for i := 0; i < v.NumField(); i++ {
			if t.Field(i).IsExported() {
				out.Field(i).Set(deepCopy(v.Field(i)))
			}
		}
	case reflect.Slice:
		if v.IsNil() {
			break
		}
		out.Set(reflect.MakeSlice(v.Type(), v.Len(), v.Len()))
		if v.Type().Elem().Kind() == reflect.Uint8 {
			reflect.Copy(out, v)
			break
		}
		for i := 0; i < v.Len(); i++ {
			out.Index(i).Set(deepCopy(v.Index(i)))
		}
	case reflect.Map:
		if v.IsNil() {
			break
		}
		out.Set(reflect.MakeMapWithSize(v.Type(), v.Len()))
		iter := v.MapRange()
		for iter.Next() {
			out.SetMapIndex(iter.Key(), deepCopy(iter.Value()))
		}
	default:
		// Strings and numbers are values; an interface's value is replaced,
		// never written into, by the walk (redactor.Value copies).
		out.Set(v)
	}
	return out
}
