package runner

import (
	"net/url"
	"reflect"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"sync"

	"github.com/mcpcheck/mcpcheck/internal/safetext"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// The one redactor, and the walk that applies it and the one sanitizer
// (internal/safetext) to every report (see "What reaches an output"
// below).

// Redacted replaces a secret in every output (README: "What is redacted").
const Redacted = "[redacted]"

// maxField bounds every string of a report (redactor.report): a server's
// megabyte of tool name, description or pattern is cut with a marker
// before any writer sees it.
const maxField = 4096

// # What is a secret
//
// A value is searched for only when it is at least minSecret bytes long
// (shorter values cannot be told from ordinary text). Then:
//
//   - a value that looks like a credential ([looksLikeCredential]) is
//     replaced wherever it occurs, inside a longer string too;
//   - any other declared value is replaced only as a whole token: where the
//     characters on both sides of it are not letters or digits, so that
//     "false" never rewrites "falsehood";
//   - an undeclared value that does not look like a credential is not a
//     secret at all;
//   - a declared value that is a plain short word or number (letters only,
//     or digits only, and under 12 characters: "string", "text", "test",
//     "8080") is not searched for either: it cannot be told from the
//     server's own words, and hiding it rewrote them ("message [redacted]
//     required" for --env API_KEY=string). A credential that short and
//     plain protects nothing; the run warns that it was not hidden,
//     naming the variable, never the value. mcpcheck record is the
//     exception ([Secret].Always): a recording is a file that gets
//     committed, so every value it was given is hidden, as a whole token.
//
// Declared are the values of envFromEnv, headersFromEnv and record's
// --secret, every --env and --header value of mcpcheck record (it must
// write none of them), and the quick mode --env / --header values whose
// name says they are credentials ([credentialName]). Other quick mode
// --env / --header values are secrets only when they look like one: a
// --env MODE=string or PORT=8080 is configuration, and the server's
// words "string" and "8080" stay as they are.

// minSecret is the shortest value the redactor searches for.
const minSecret = 4

// Secret is one value the redactor hides. Declared says the user named it
// a credential (see "What is a secret").
type Secret struct {
	Value    string
	Declared bool
	// Always hides a value whatever its shape (mcpcheck record's).
	Always bool
}

// needle is one form of a secret the redactor searches for.
type needle struct {
	s        string
	anywhere bool // else as a whole token only
}

// redactor replaces secrets in text that has been sanitized. The zero and
// the nil redactor only sanitize.
type redactor struct {
	needles []needle // longest first, so a secret containing another is replaced whole
	// endpoint and origin: error messages from the HTTP stack quote the
	// whole endpoint URL; reports show only its origin.
	endpoint, origin string
}

func newRedactor(secrets []Secret, endpoint string) *redactor {
	r := &redactor{endpoint: endpoint, origin: endpointOrigin(endpoint)}
	seen := map[string]int{}
	add := func(v string, sec Secret) {
		v = safetext.Sanitize(v) // it is searched for in sanitized text
		if len(v) < minSecret {
			return
		}
		anywhere := looksLikeCredential(v)
		if !anywhere && !sec.Always && (!sec.Declared || PlainWord(v)) {
			return
		}
		if i, ok := seen[v]; ok {
			r.needles[i].anywhere = r.needles[i].anywhere || anywhere
			return
		}
		seen[v] = len(r.needles)
		r.needles = append(r.needles, needle{s: v, anywhere: anywhere})
	}
	for _, sec := range secrets {
		add(sec.Value, sec)
		// "Bearer abc..." — the token alone is as secret as the header.
		if _, tok, ok := strings.Cut(strings.TrimSpace(sec.Value), " "); ok {
			add(strings.TrimSpace(tok), sec)
		}
	}
	sort.SliceStable(r.needles, func(i, j int) bool { return len(r.needles[i].s) > len(r.needles[j].s) })
	return r
}

// String sanitizes s, then replaces the secrets in it.
func (r *redactor) String(s string) string {
	s = safetext.Sanitize(s)
	if r == nil {
		return s
	}
	for _, n := range r.needles {
		if strings.Contains(s, n.s) {
			s = replace(s, n)
		}
	}
	if r.endpoint != "" && r.endpoint != r.origin && strings.Contains(s, r.endpoint) {
		s = strings.ReplaceAll(s, r.endpoint, r.origin)
	}
	return s
}

// replace puts Redacted for n in s: every occurrence, or only the whole
// tokens.
func replace(s string, n needle) string {
	if n.anywhere {
		return strings.ReplaceAll(s, n.s, Redacted)
	}
	var b strings.Builder
	i := 0
	for {
		j := strings.Index(s[i:], n.s)
		if j < 0 {
			break
		}
		j += i
		end := j + len(n.s)
		b.WriteString(s[i:j])
		if wordBefore(s, j) || wordAfter(s, end) {
			// Part of a longer word: keep it, search on from its next byte.
			b.WriteByte(s[j])
			i = j + 1
			continue
		}
		b.WriteString(Redacted)
		i = end
	}
	if i == 0 {
		return s
	}
	b.WriteString(s[i:])
	return b.String()
}

func wordBefore(s string, i int) bool {
	if i == 0 {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return isWord(r)
}

func wordAfter(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return isWord(r)
}

func isWord(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// tokenPrefixes start the API tokens of well-known services.
var tokenPrefixes = []string{"sk-", "sk_", "pk_", "rk_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_",
	"glpat-", "xoxb-", "xoxp-", "xoxa-", "AKIA", "ASIA", "AIza", "ya29.", "npm_", "pypi-", "eyJ"}

// looksLikeCredential is the shape rule for values nobody declared secret:
// no white space, and a known token prefix (12 characters or more), or 12
// characters or more mixing lower case, upper case and digits, or 20 or
// more that mix letters and digits with at least one digit in five (hex
// tokens, UUIDs). A URL is one only when it carries a user or password.
// Words, numbers, ports, host:port, paths and plain URLs are not.
func looksLikeCredential(v string) bool {
	if len(v) < 12 || strings.ContainsFunc(v, unicode.IsSpace) {
		return false
	}
	if strings.Contains(v, "://") {
		u, err := url.Parse(v)
		return err == nil && u.User != nil
	}
	for _, p := range tokenPrefixes {
		if strings.HasPrefix(v, p) {
			return true
		}
	}
	var lower, upper, digits int
	for _, c := range v {
		switch {
		case unicode.IsLower(c):
			lower++
		case unicode.IsUpper(c):
			upper++
		case unicode.IsDigit(c):
			digits++
		}
	}
	if lower > 0 && upper > 0 && digits > 0 {
		return true
	}
	n := utf8.RuneCountInString(v)
	return n >= 20 && lower+upper > 0 && digits*5 >= n
}

// PlainWord reports whether a value is a plain short word or number: only
// letters, or only digits, and under 12 characters. A declared secret of
// that shape is not searched for (see "What is a secret").
func PlainWord(v string) bool {
	if utf8.RuneCountInString(v) >= 12 || v == "" {
		return false
	}
	letters, digits := true, true
	for _, c := range v {
		letters = letters && unicode.IsLetter(c)
		digits = digits && c >= '0' && c <= '9'
	}
	return letters || digits
}

// credentialName reports whether a variable or header name says its value
// is a credential (Authorization, Cookie, API_KEY, GITHUB_TOKEN, ...).
func credentialName(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"auth", "cookie", "token", "secret", "key", "pass", "credential", "session", "signature"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// Value sanitizes and redacts every string inside a generic JSON value,
// object keys included (a copy is made only where something changes).
func (r *redactor) Value(v any) any {
	switch x := v.(type) {
	case string:
		return r.String(x)
	case []any:
		var out []any
		for i, e := range x {
			ne := r.Value(e)
			if out == nil && !same(ne, e) {
				out = make([]any, len(x))
				copy(out, x[:i])
			}
			if out != nil {
				out[i] = ne
			}
		}
		if out == nil {
			return x
		}
		return out
	case map[string]any:
		// Keys are rare to change: note the changes, copy only then.
		var changes map[string]any
		for k, e := range x {
			nk, ne := r.String(k), r.Value(e)
			if nk != k || !same(ne, e) {
				if changes == nil {
					changes = map[string]any{}
				}
				changes[k] = ne
			}
		}
		if changes == nil {
			return x
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			if ne, ok := changes[k]; ok {
				out[r.String(k)] = ne
			} else {
				out[k] = e
			}
		}
		return out
	}
	return v
}

// same reports whether Value returned its input unchanged (strings by
// value, containers by identity).
func same(a, b any) bool {
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		return ok && len(x) == len(y) && (len(x) == 0 || &x[0] == &y[0])
	case map[string]any:
		y, ok := b.(map[string]any)
		return ok && reflect.ValueOf(x).UnsafePointer() == reflect.ValueOf(y).UnsafePointer()
	}
	return true
}

// Redactor returns the function every output of a run passes its strings
// through: [Sanitize], then each of secrets replaced by [Redacted] (see
// "What is a secret" in redact.go).
func Redactor(secrets []Secret) func(string) string {
	return newRedactor(secrets, "").String
}

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
// The walk is below; the redactor is above, the sanitizer in
// internal/safetext.

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
