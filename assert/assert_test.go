package assert

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/config"
)

// decode parses JSON the way the runner and loader do: numbers stay json.Number.
func decode(t *testing.T, s string) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	return v
}

func TestNumberEqual(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"1", "1", true},
		{"1", "1.0", true},
		{"1", "1e0", true},
		{"100", "1E2", true},
		{"0.1", "0.10", true},
		{"-0", "0", true},
		{"9007199254740993", "9007199254740992", false},
		{"9007199254740993", "9007199254740993.0", true},
		{"123456789012345678901234567890", "123456789012345678901234567891", false},
		{"1e400", "1e400", true},
		{"1e400", "1e401", false},
		{"1e999999999", "1e999999998", false},
		{"0.1", "0.2", false},
		{"2", "-2", false},
	}
	for _, tt := range tests {
		if got := NumberEqual(tt.a, tt.b); got != tt.want {
			t.Errorf("NumberEqual(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestStructured(t *testing.T) {
	tests := []struct {
		name     string
		kind     string // structuredEquals | structuredIncludes
		want     string
		got      string // "" means absent
		failures []string
	}{
		{"equal objects", "structuredEquals", `{"a":1,"b":[1,2]}`, `{"b":[1,2],"a":1.0}`, nil},
		{"extra key fails equals", "structuredEquals", `{"a":1}`, `{"a":1,"b":2}`, []string{"/b: unexpected key"}},
		{"extra key passes includes", "structuredIncludes", `{"a":1}`, `{"a":1,"b":2}`, nil},
		{"missing key", "structuredIncludes", `{"a":1,"c":{"d":true}}`, `{"a":1}`, []string{"/c: missing key"}},
		{"nested subset", "structuredIncludes", `{"c":{"d":true}}`, `{"c":{"d":true,"e":1}}`, nil},
		{"array length", "structuredIncludes", `{"t":[{"id":"x"}]}`, `{"t":[{"id":"x"},{"id":"y"}]}`, []string{"/t: expected an array of 1, got 2"}},
		{"array order", "structuredEquals", `[1,2]`, `[2,1]`, []string{"/0: value differs", "/1: value differs"}},
		{"subset inside arrays", "structuredIncludes", `{"t":[{"id":"x"}]}`, `{"t":[{"id":"x","text":"y"}]}`, nil},
		{"type differs", "structuredEquals", `{"a":"1"}`, `{"a":1}`, []string{"/a: expected string, got number"}},
		{"null vs absent", "structuredIncludes", `{"a":null}`, `{}`, []string{"/a: missing key"}},
		{"null equal", "structuredEquals", `{"a":null}`, `{"a":null}`, nil},
		{"big integers", "structuredEquals", `{"n":9007199254740993}`, `{"n":9007199254740992}`, []string{"/n: value differs"}},
		{"escaped path", "structuredEquals", `{"a/b":{"c~d":1}}`, `{"a/b":{"c~d":2}}`, []string{"/a~1b/c~0d: value differs"}},
		{"dotted keys stay keys", "structuredEquals", `{"a.b":1}`, `{"a":{"b":1}}`, []string{"/a.b: missing key", "/a: unexpected key"}},
		{"scalar root", "structuredEquals", `"x"`, `"x"`, nil},
		{"absent structuredContent", "structuredEquals", `{}`, ``, []string{": the result has no structuredContent"}},
		{"empty includes matches any object", "structuredIncludes", `{}`, `{"a":1}`, nil},
		{"includes wants an object", "structuredIncludes", `{}`, `[]`, []string{": expected object, got array"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &config.Expect{}
			v := &config.Value{V: decode(t, tt.want)}
			if tt.kind == "structuredEquals" {
				e.StructuredEquals = v
			} else {
				e.StructuredIncludes = v
			}
			r := &Result{Outcome: OutcomeOK, HasResult: true}
			if tt.got != "" {
				r.Structured, r.HasStructured = decode(t, tt.got), true
			}
			var got []string
			for _, c := range Build(e) {
				for _, f := range c.Check(r) {
					if f.Kind != tt.kind {
						t.Errorf("failure kind %q, want %q", f.Kind, tt.kind)
					}
					got = append(got, f.Path+": "+f.Message)
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.failures, "\n") {
				t.Errorf("failures:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.failures, "\n"))
			}
		})
	}
}

func TestFailureValues(t *testing.T) {
	e := &config.Expect{StructuredEquals: &config.Value{V: decode(t, `{"revision":1}`)}}
	r := &Result{Outcome: OutcomeOK, HasResult: true, Structured: decode(t, `{"revision":2}`), HasStructured: true}
	fs := (&StructuredEquals{Want: e.StructuredEquals.V}).Check(r)
	if len(fs) != 1 {
		t.Fatalf("got %d failures, want 1", len(fs))
	}
	f := fs[0]
	if f.Expected != json.Number("1") || f.Actual != json.Number("2") || !f.HasActual || !f.HasExpected {
		t.Errorf("failure values = %#v", f)
	}
}

func TestFailureCap(t *testing.T) {
	want, got := map[string]any{}, map[string]any{}
	for i := range 100 {
		k := strings.Repeat("k", i+1)
		want[k], got[k] = json.Number("1"), json.Number("2")
	}
	fs := (&StructuredEquals{Want: want}).Check(&Result{HasResult: true, Structured: got, HasStructured: true})
	if len(fs) != maxFailures {
		t.Errorf("got %d failures, want the cap %d", len(fs), maxFailures)
	}
}

func TestOutcome(t *testing.T) {
	yes, no := true, false
	code := int64(-32603)
	tests := []struct {
		name   string
		expect config.Expect
		res    Result
		want   string // "" = pass; else "kind: message"
	}{
		{"default ok passes", config.Expect{}, Result{Outcome: OutcomeOK}, ""},
		{"default ok, tool error", config.Expect{}, Result{Outcome: OutcomeToolError}, "outcome: expected outcome ok, got tool_error"},
		{"isError true passes", config.Expect{IsError: &yes}, Result{Outcome: OutcomeToolError}, ""},
		{"isError true, ok", config.Expect{IsError: &yes}, Result{Outcome: OutcomeOK}, "isError: expected isError true, got false"},
		{"isError false, tool error", config.Expect{IsError: &no}, Result{Outcome: OutcomeToolError}, "isError: expected isError false, got true"},
		{"isError false, protocol error", config.Expect{IsError: &no}, Result{Outcome: OutcomeProtocolError, ErrorCode: &code}, "isError: expected outcome ok, got protocol_error (code -32603)"},
		{"outcome timeout passes", config.Expect{Outcome: OutcomeTimeout}, Result{Outcome: OutcomeTimeout}, ""},
		{"error code matches", config.Expect{Outcome: OutcomeProtocolError, ErrorCode: &code}, Result{Outcome: OutcomeProtocolError, ErrorCode: &code}, ""},
		{"error code missing", config.Expect{Outcome: OutcomeProtocolError, ErrorCode: &code}, Result{Outcome: OutcomeTimeout},
			"outcome: expected outcome protocol_error, got timeout\nerrorCode: expected JSON-RPC error code -32603, got outcome timeout"},
		{"max duration", config.Expect{MaxDurationMs: 10}, Result{Outcome: OutcomeOK, Duration: 25 * time.Millisecond}, "maxDurationMs: took 25ms, more than 10ms"},
		{"max duration ok", config.Expect{MaxDurationMs: 10}, Result{Outcome: OutcomeOK, Duration: 9 * time.Millisecond}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, c := range Build(&tt.expect) {
				for _, f := range c.Check(&tt.res) {
					got = append(got, f.Kind+": "+f.Message)
				}
			}
			if g := strings.Join(got, "\n"); g != tt.want {
				t.Errorf("got %q, want %q", g, tt.want)
			}
		})
	}
}

func FuzzEqualReflexive(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":null}]}`, `1e999999999`, `"x"`, `[true,false]`, `0.000000000000000000001`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		dec := json.NewDecoder(strings.NewReader(s))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) != nil {
			return
		}
		if !Equal(v, v) {
			t.Fatalf("value not equal to itself: %s", s)
		}
	})
}
