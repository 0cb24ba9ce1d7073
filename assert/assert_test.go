package assert

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/internal/jsonx"
	"github.com/mcpcheck/mcpcheck/internal/jsonx/jsonxtest"
)

func TestStructured(t *testing.T) {
	tests := []struct {
		name     string
		kind     KindName // structuredEquals | structuredIncludes
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
			v := &config.Value{V: jsonxtest.Value(t, tt.want)}
			if tt.kind == "structuredEquals" {
				e.StructuredEquals = v
			} else {
				e.StructuredIncludes = v
			}
			r := &Result{Outcome: config.OutcomeOK, HasResult: true}
			if tt.got != "" {
				r.Structured, r.HasStructured = jsonxtest.Value(t, tt.got), true
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
	e := &config.Expect{StructuredEquals: &config.Value{V: jsonxtest.Value(t, `{"revision":1}`)}}
	r := &Result{Outcome: config.OutcomeOK, HasResult: true, Structured: jsonxtest.Value(t, `{"revision":2}`), HasStructured: true}
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
	invalidParams := int64(-32602)
	tests := []struct {
		name   string
		expect config.Expect
		res    Result
		want   string // "" = pass; else "kind: message"
	}{
		{"default ok passes", config.Expect{}, Result{Outcome: config.OutcomeOK}, ""},
		{"default ok, tool error", config.Expect{}, Result{Outcome: config.OutcomeToolError}, "outcome: expected outcome ok, got tool_error"},
		{"isError true passes", config.Expect{IsError: &yes}, Result{Outcome: config.OutcomeToolError}, ""},
		{"isError true, ok", config.Expect{IsError: &yes}, Result{Outcome: config.OutcomeOK}, "isError: expected isError true, got false"},
		{"isError false, tool error", config.Expect{IsError: &no}, Result{Outcome: config.OutcomeToolError}, "isError: expected isError false, got true"},
		{"isError false, protocol error", config.Expect{IsError: &no}, Result{Outcome: config.OutcomeProtocolError, ErrorCode: &code}, "isError: expected outcome ok, got protocol_error (code -32603)"},
		{"outcome timeout passes", config.Expect{Outcome: config.OutcomeTimeout}, Result{Outcome: config.OutcomeTimeout}, ""},
		{"error code matches", config.Expect{Outcome: config.OutcomeProtocolError, ErrorCode: &code}, Result{Outcome: config.OutcomeProtocolError, ErrorCode: &code}, ""},
		{"error code missing", config.Expect{Outcome: config.OutcomeProtocolError, ErrorCode: &code}, Result{Outcome: config.OutcomeTimeout},
			"outcome: expected outcome protocol_error, got timeout"},
		{"outcome list", config.Expect{OutcomeAny: []config.Outcome{config.OutcomeToolError, config.OutcomeProtocolError}, ErrorCode: &invalidParams}, Result{Outcome: config.OutcomeToolError}, ""},
		{"outcome list, right code", config.Expect{OutcomeAny: []config.Outcome{config.OutcomeToolError, config.OutcomeProtocolError}, ErrorCode: &invalidParams}, Result{Outcome: config.OutcomeProtocolError, ErrorCode: &invalidParams}, ""},
		{"outcome list, wrong code", config.Expect{OutcomeAny: []config.Outcome{config.OutcomeToolError, config.OutcomeProtocolError}, ErrorCode: &invalidParams}, Result{Outcome: config.OutcomeProtocolError, ErrorCode: &code},
			"errorCode: expected JSON-RPC error code -32602, got -32603"},
		{"outcome list, crash", config.Expect{OutcomeAny: []config.Outcome{config.OutcomeToolError, config.OutcomeProtocolError}, ErrorCode: &invalidParams}, Result{Outcome: config.OutcomeTransportClosed},
			"outcome: expected outcome tool_error or protocol_error, got transport_closed"},
		{"max duration", config.Expect{MaxDurationMs: 10}, Result{Outcome: config.OutcomeOK, Duration: 25 * time.Millisecond}, "maxDurationMs: took 25ms, more than 10ms"},
		{"max duration ok", config.Expect{MaxDurationMs: 10}, Result{Outcome: config.OutcomeOK, Duration: 9 * time.Millisecond}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, c := range Build(&tt.expect) {
				for _, f := range c.Check(&tt.res) {
					got = append(got, string(f.Kind)+": "+f.Message)
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
		var v any
		if jsonx.Decode([]byte(s), &v) != nil {
			return
		}
		if !Equal(v, v) {
			t.Fatalf("value not equal to itself: %s", s)
		}
	})
}

func TestFidelity(t *testing.T) {
	args := map[string]any{"city": "Chicago"}
	tests := []struct {
		name string
		res  Result
		want string // "" passes; "note: ..." is a note
	}{
		{"genuine answer", Result{Outcome: config.OutcomeOK, HasContent: true, Text: "Chicago: 21°C, light rain", Arguments: args}, ""},
		{"structured only", Result{Outcome: config.OutcomeOK, HasStructured: true, Structured: map[string]any{"city": "Chicago"}, Arguments: args}, ""},
		{"disguised refusal", Result{Outcome: config.OutcomeOK, HasContent: true, Text: "I'm sorry, but I can't access live weather data for Chicago right now.", Arguments: args},
			`fail: a refusal disguised as success ("i'm sorry, but i can't")`},
		{"empty", Result{Outcome: config.OutcomeOK, Arguments: args}, "fail: empty content on success"},
		{"output invalid", Result{Outcome: config.OutcomeOutputInvalid, HasStructured: true}, "fail: structuredContent breaks the tool's own outputSchema"},
		{"echo mismatch", Result{Outcome: config.OutcomeOK, HasContent: true, Text: "Sunny, 25 degrees.", Arguments: args}, "note: the answer mentions none of the input strings (echo mismatch; worth a look, not scored)"},
		{"honest tool error", Result{Outcome: config.OutcomeToolError, HasContent: true, Text: "I'm sorry, but I can't find that city."}, "note: the call with realistic arguments got tool_error; possibly a synthetic-input false positive, not a confirmed bug; the server said: \"I'm sorry, but I can't find that city.\""},
		{"crash", Result{Outcome: config.OutcomeTransportClosed}, "note: the call with realistic arguments ended in transport_closed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, c := range Build(&config.Expect{Fidelity: true}) {
				for _, f := range c.Check(&tt.res) {
					prefix := "fail: "
					if f.Note {
						prefix = "note: "
					}
					got = append(got, prefix+f.Message)
				}
			}
			if g := strings.Join(got, "\n"); !strings.EqualFold(g, tt.want) {
				t.Errorf("got %q, want %q", g, tt.want)
			}
		})
	}
}

func TestAbsent(t *testing.T) {
	id := "3f1c9b2e-0d4a-4c61-9a7e-2b8f5e6d1c00"
	tests := []struct {
		name string
		res  Result
		want string
	}{
		{"not found error", Result{Outcome: config.OutcomeToolError, Text: "note " + id + " not found"}, ""},
		{"protocol error", Result{Outcome: config.OutcomeProtocolError}, ""},
		{"ok without it", Result{Outcome: config.OutcomeOK, HasStructured: true, Structured: map[string]any{"entities": []any{}}}, ""},
		{"stale structured", Result{Outcome: config.OutcomeOK, HasStructured: true, Structured: map[string]any{"note": map[string]any{"note_id": id}}}, "the value is still returned (stale read)"},
		{"stale text", Result{Outcome: config.OutcomeOK, HasContent: true, Text: `{"note_id":"` + id + `"}`}, "the value still appears in the text (stale read)"},
		{"hang", Result{Outcome: config.OutcomeTimeout}, "expected a result or an error saying it is gone, got timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.res.Absent = id
			var got []string
			for _, c := range Build(&config.Expect{Absent: &config.Value{V: id}}) {
				for _, f := range c.Check(&tt.res) {
					got = append(got, f.Message)
				}
			}
			if g := strings.Join(got, "\n"); g != tt.want {
				t.Errorf("got %q, want %q", g, tt.want)
			}
		})
	}
}
