package assert

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/internal/jsonx"
	"github.com/mcpcheck/mcpcheck/internal/jsonx/jsonxtest"
)

// TestMatchers checks every matcher, matching and not, in the places
// expected values are written; the mismatch messages are in
// testdata/matchers.golden.
func TestMatchers(t *testing.T) {
	s := func(js string) Result { return structured(t, js) }
	rows := []check{
		// $match
		{"$match matches", `{structuredEquals: {id: {$match: "^task-[0-9]+$"}}}`, s(`{"id":"task-12"}`)},
		{"$match searches unanchored", `{structuredEquals: {id: {$match: "[0-9]"}}}`, s(`{"id":"task-12"}`)},
		{"$match no match", `{structuredEquals: {id: {$match: "^task-[0-9]+$"}}}`, s(`{"id":"job-12"}`)},
		{"$match not a string", `{structuredEquals: {id: {$match: "^1"}}}`, s(`{"id":12}`)},
		{"$match missing key", `{structuredIncludes: {id: {$match: "x"}}}`, s(`{}`)},
		// $type
		{"$type each type", `{structuredEquals: [{$type: string}, {$type: number}, {$type: integer}, {$type: boolean}, {$type: object}, {$type: array}, {$type: "null"}]}`,
			s(`["s", 1.5, 7, false, {}, [], null]`)},
		{"$type integer takes 1.0 and 1e3", `{structuredEquals: [{$type: integer}, {$type: integer}, {$type: integer}]}`, s(`[1.0, 1e3, 123456789012345678901234567890]`)},
		{"$type integer refuses a fraction", `{structuredEquals: [{$type: integer}, {$type: integer}]}`, s(`[1.5, 1e-1]`)},
		{"$type mismatches", `{structuredEquals: [{$type: string}, {$type: "null"}, {$type: integer}, {$type: object}]}`, s(`[1, "x", "1", []]`)},
		// $gt $gte $lt $lte
		{"bounds hold", `{structuredEquals: [{$gt: 1}, {$gte: 1}, {$lt: 1}, {$lte: 1}, {$gte: -2.5}]}`, s(`[1.5, 1.0, 0.999, 1, -2.5]`)},
		{"bounds fail", `{structuredEquals: [{$gt: 1}, {$gte: 1}, {$lt: 1}, {$lte: 1}]}`, s(`[1, 0.5, 1e0, 1.01]`)},
		{"bounds on large integers are exact", `{structuredEquals: [{$gt: 9007199254740992}, {$lt: 9007199254740993}, {$gt: 1e400}]}`,
			s(`[9007199254740993, 9007199254740993, 1e401]`)},
		{"bounds on large integers fail exactly", `{structuredEquals: [{$gt: 9007199254740993}, {$lte: 9007199254740992}]}`,
			s(`[9007199254740993, 9007199254740993]`)},
		{"bounds need a number", `{structuredEquals: {n: {$gte: 0}}}`, s(`{"n":"5"}`)},
		// $len
		{"$len of a string counts characters", `{structuredEquals: {s: {$len: 5}}}`, s(`{"s":"héllo"}`)},
		{"$len of arrays and objects", `{structuredEquals: [{$len: 2}, {$len: 0}, {$len: 1}]}`, s(`[[1,2], [], {"a":1}]`)},
		{"$len differs", `{structuredEquals: {tasks: {$len: 3}}}`, s(`{"tasks":[1,2]}`)},
		{"$len with a matcher", `{structuredEquals: [{$len: {$gte: 1}}, {$len: {$lt: 3}}, {$len: {$oneOf: [1, 3]}}]}`, s(`[[], [1,2,3], "ab"]`)},
		{"$len needs a length", `{structuredEquals: {n: {$len: 1}}}`, s(`{"n":1}`)},
		// $contains
		{"$contains a substring", `{structuredEquals: {text: {$contains: "books"}}}`, s(`{"text":"Collect the library books"}`)},
		{"$contains no substring", `{structuredEquals: {text: {$contains: "books"}}}`, s(`{"text":"Collect the mail"}`)},
		{"$contains an element", `{structuredEquals: {ids: {$contains: "b"}}}`, s(`{"ids":["a","b"]}`)},
		{"$contains an element that matches", `{structuredEquals: {ids: {$contains: {$match: "^task-"}}}}`, s(`{"ids":["x","task-2"]}`)},
		{"$contains: includes semantics inside includes", `{structuredIncludes: {tasks: {$contains: {id: task-2}}}}`, s(`{"tasks":[{"id":"task-1","done":true},{"id":"task-2","done":false}]}`)},
		{"$contains: equality in equals", `{structuredEquals: {tasks: {$contains: {id: task-2}}}}`, s(`{"tasks":[{"id":"task-1","done":true},{"id":"task-2","done":false}]}`)},
		{"$contains on the wrong type", `{structuredEquals: [{$contains: "a"}, {$contains: {$type: number}}, {$contains: 1}]}`, s(`[1, "abc", {}]`)},
		// $oneOf
		{"$oneOf a value", `{structuredEquals: [{$oneOf: [open, done]}, {$oneOf: [1, {$type: string}]}]}`, s(`["done", "x"]`)},
		{"$oneOf none", `{structuredEquals: {state: {$oneOf: [open, done]}}}`, s(`{"state":"lost"}`)},
		{"$oneOf with $absent: missing or null", `{structuredIncludes: {a: {$oneOf: [{$absent: true}, null]}, b: {$oneOf: [{$absent: true}, null]}}}`, s(`{"b":null}`)},
		{"$oneOf without $absent, missing", `{structuredIncludes: {a: {$oneOf: [1, 2]}}}`, s(`{}`)},
		// $any and $absent
		{"$any present", `{structuredEquals: {id: {$any: true}, n: {$any: true}}}`, s(`{"id":"x","n":null}`)},
		{"$any missing", `{structuredIncludes: {id: {$any: true}}}`, s(`{}`)},
		{"$absent holds", `{structuredEquals: {a: 1, gone: {$absent: true}}}`, s(`{"a":1}`)},
		{"$absent fails", `{structuredIncludes: {gone: {$absent: true}}}`, s(`{"gone":{"id":1}}`)},
		{"$absent as a path", `{structuredPaths: {"tasks.#(id==\"task-9\")": {$absent: true}, "tasks.#(id==\"task-1\")": {$absent: true}}}`, s(`{"tasks":[{"id":"task-1"}]}`)},
		{"$absent: no structuredContent", `{structuredEquals: {$absent: true}}`, Result{Outcome: config.OutcomeOK, HasResult: true}},
		// Paths with matchers
		{"paths with matchers", `{structuredPaths: {"tasks.#": {$gte: 1}, "tasks.0.id": {$match: "^task-"}, "missing": {$type: string}}}`, s(`{"tasks":[{"id":"job-1"}]}`)},
		// Escapes and data
		{"$$ escapes a literal $ key", `{structuredEquals: {$$ref: x, o: {$$type: string}}}`, s(`{"$ref":"x","o":{"$type":"string"}}`)},
		{"$$ escaped key differs", `{structuredEquals: {o: {$$type: string}}}`, s(`{"o":{"$type":"number"}}`)},
		{"$ref stays data", `{structuredEquals: {r: {$ref: "step#/a"}}}`, s(`{"r":{"$ref":"step#/a"}}`)},
		{"other $ keys beside others are data", `{structuredEquals: {$schema: x, type: object}}`, s(`{"$schema":"x","type":"object"}`)},
		// Nesting and pointers
		{"matchers deep in arrays", `{structuredEquals: {a: [{b: {$type: integer}}, {c: [{$gt: 0}]}]}}`, s(`{"a":[{"b":"1"},{"c":[0]}]}`)},
		{"escaped pointers", `{structuredEquals: {"a/b": {"c~d": {$type: boolean}}}}`, s(`{"a/b":{"c~d":1}}`)},
	}
	runGolden(t, "matchers", rows)

	// Every matcher has rows of its own.
	var all strings.Builder
	for _, r := range rows {
		all.WriteString(r.expect)
	}
	for _, op := range config.MatcherOps {
		if !strings.Contains(all.String(), string(op)+":") {
			t.Errorf("matcher %s has no row in TestMatchers", op)
		}
	}
}

// TestMatcherMessagesShowNoValues: a mismatch names the matcher and the
// path, never the actual value (which goes to Failure.Actual only).
func TestMatcherMessagesShowNoValues(t *testing.T) {
	const secret = "s3cr3t-value-4711"
	e := expectOf(t, `{structuredEquals: {a: {$match: "^x"}, b: {$len: 1}, c: {$oneOf: [1]}, d: {$contains: "q"}, e: {$absent: true}, f: {$type: number}, g: {$gt: 1}}}`)
	got := map[string]any{}
	for _, k := range []string{"a", "b", "c", "d", "e", "f", "g"} {
		got[k] = secret
	}
	r := &Result{Outcome: config.OutcomeOK, HasResult: true, Structured: got, HasStructured: true}
	n := 0
	for _, c := range Build(e) {
		for _, f := range c.Check(r) {
			n++
			if strings.Contains(f.Message, secret) || strings.Contains(f.Path, secret) {
				t.Errorf("message shows the value: %s %s", f.Path, f.Message)
			}
			if f.Actual != secret || !f.HasActual {
				t.Errorf("%s: Actual = %#v, want the value", f.Path, f.Actual)
			}
			if _, ok := f.Expected.(*config.Matcher); !ok {
				t.Errorf("%s: Expected = %#v, want the matcher", f.Path, f.Expected)
			}
		}
	}
	if n != 7 {
		t.Errorf("got %d failures, want 7", n)
	}
}

// TestMatcherJSON: a matcher renders as written, so reports that show an
// expected value show its matchers.
func TestMatcherJSON(t *testing.T) {
	e := expectOf(t, `{structuredEquals: {a: {$match: "^x\\d"}, b: {$len: {$gte: 1}}, c: {$oneOf: [1, {$type: string}]}, d: {$contains: {$$ref: 1}}, e: {$any: true}, f: {$gt: 1e400}}}`)
	b, err := json.Marshal(e.StructuredEquals.V)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"a":{"$match":"^x\\d"},"b":{"$len":{"$gte":1}},"c":{"$oneOf":[1,{"$type":"string"}]},"d":{"$contains":{"$ref":1}},"e":{"$any":true},"f":{"$gt":1e400}}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}

// TestIncludes is the await step's match of a notification's params.
func TestIncludes(t *testing.T) {
	e := expectOf(t, `{structuredIncludes: {uri: {$match: "^household://"}, n: {$gte: 1}}}`)
	want := e.StructuredIncludes.V
	for _, tt := range []struct {
		got  string
		want bool
	}{
		{`{"uri":"household://tasks","n":2,"extra":true}`, true},
		{`{"uri":"file:///x","n":2}`, false},
		{`{"uri":"household://tasks"}`, false},
		{`null`, false},
	} {
		if got := Includes(want, jsonxtest.Value(t, tt.got)); got != tt.want {
			t.Errorf("Includes(%s) = %v, want %v", tt.got, got, tt.want)
		}
	}
}

// FuzzMatch: whatever the answer, checking matchers neither panics nor
// puts the answer in a message.
func FuzzMatch(f *testing.F) {
	for _, s := range []string{`{"a":"task-1","b":[1,2],"c":{"x":null}}`, `1e999999999`, `"héllo"`, `[true,false,{}]`, `{"a":-0.000001}`} {
		f.Add(s)
	}
	e := expectOf(f, `{structuredIncludes: {a: {$oneOf: [{$match: "^task"}, {$len: {$gte: 2}}, {$absent: true}]}, b: {$contains: {$gt: 1}}, c: {$type: object}, d: {$lte: -1e5}}, structuredEquals: {$any: true}}`)
	f.Fuzz(func(t *testing.T, s string) {
		var v any
		if jsonx.Decode([]byte(s), &v) != nil {
			return
		}
		r := &Result{Outcome: config.OutcomeOK, HasResult: true, Structured: v, HasStructured: true}
		for _, c := range Build(e) {
			for _, fl := range c.Check(r) {
				if str, ok := v.(string); ok && len(str) > 3 && strings.Contains(fl.Message, str) {
					t.Fatalf("message shows the value: %s", fl.Message)
				}
			}
		}
	})
}
