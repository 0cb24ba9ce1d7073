package observe

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/jsonx"
)

func obs(t *testing.T, kv ...string) Observation {
	t.Helper()
	o := Observation{}
	for i := 0; i+1 < len(kv); i += 2 {
		o[kv[i]] = Normalize(jsonx.Value([]byte(kv[i+1])))
		if o[kv[i]] == nil {
			t.Fatalf("bad JSON %s", kv[i+1])
		}
	}
	return o
}

func changes(cs []Change) string {
	var parts []string
	for _, c := range cs {
		parts = append(parts, fmt.Sprintf("%s %s %s", c.Source, c.Path, c.Kind))
	}
	return strings.Join(parts, "; ")
}

func TestDiffKinds(t *testing.T) {
	tests := []struct {
		name, before, after, want string
	}{
		{"same", `{"a":[1,2],"b":"x"}`, `{"b":"x","a":[1,2]}`, ""},
		{"appended element", `{"tasks":[{"id":1}]}`, `{"tasks":[{"id":1},{"id":2}]}`, "s /tasks/1 added"},
		{"inserted at front loses nothing", `{"l":["a","b"]}`, `{"l":["z","a","b"]}`, "s /l/0 added"},
		{"element gone", `{"l":["a","b","c"]}`, `{"l":["a","c"]}`, "s /l/1 removed"},
		{"element overwritten", `{"l":["a","b"]}`, `{"l":["a","x"]}`, "s /l/1 changed"},
		{"key gone and added", `{"a":1}`, `{"b":1}`, "s /a removed; s /b added"},
		{"count went up", `{"n":2}`, `{"n":3}`, "s /n grew"},
		{"count went down", `{"n":3}`, `{"n":2}`, "s /n changed"},
		{"listing gained a line", `{"t":"[FILE] a\n[DIR] b"}`, `{"t":"[FILE] a\n[DIR] b\n[FILE] c"}`, "s /t grew"},
		{"listing lost a line", `{"t":"[FILE] a\n[DIR] b"}`, `{"t":"[FILE] a\n[FILE] c"}`, "s /t changed"},
		{"a clock moved", `{"t":"at 2026-01-02T10:00:00Z"}`, `{"t":"at 2026-01-02T10:00:07Z"}`, ""},
		{"JSON text is addressed inside", `{"text":"{\"items\":[1]}"}`, `{"text":"{\"items\":[1,2]}"}`, "s /text/items/1 added"},
		{"type changed", `{"a":"1"}`, `{"a":1}`, "s /a changed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := changes(Diff(obs(t, "s", tt.before), obs(t, "s", tt.after), Paths{}))
			if got != tt.want {
				t.Errorf("Diff = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestVolatile: what moved between two quiet observations is left out of
// later diffs (a growing log as a whole), and nothing else is.
func TestVolatile(t *testing.T) {
	a := obs(t, "log", `{"entries":["x"],"n":1}`, "clock", `{"id":"r-1"}`, "state", `{"items":["a"]}`)
	b := obs(t, "log", `{"entries":["x","y"],"n":1}`, "clock", `{"id":"r-2"}`, "state", `{"items":["a"]}`)
	c := obs(t, "log", `{"entries":["x","y","z"],"n":2}`, "clock", `{"id":"r-3"}`, "state", `{"items":["a","b"]}`)
	vol := Volatile(a, b)
	if got, want := changes(Diff(b, c, vol)), "log /n grew; state /items/1 added"; got != want {
		t.Errorf("Diff = %q, want %q", got, want)
	}
	// A source that failed once (absent) is volatile as a whole.
	vol = Volatile(a, obs(t, "log", `{"entries":["x"],"n":1}`, "state", `{"items":["a"]}`))
	if !vol.Has("clock", "/id") || vol.Has("state", "/items") {
		t.Errorf("volatile = %v", vol)
	}
	if got := Comparable(b, c, vol); strings.Join(got, ",") != "log,state" {
		t.Errorf("Comparable = %v", got)
	}
}

func TestLoses(t *testing.T) {
	for kind, want := range map[Kind]bool{Added: false, Grew: false, Removed: true, Changed: true} {
		if (Change{Kind: kind}).Loses() != want {
			t.Errorf("%s loses = %v", kind, !want)
		}
	}
}

// TestDiffBounded: a diff lists at most MaxChanges, whatever the state.
func TestDiffBounded(t *testing.T) {
	before, after := map[string]any{}, map[string]any{}
	for i := range 500 {
		k := fmt.Sprint("k", i)
		before[k], after[k] = "a", "b"
	}
	if n := len(Diff(Observation{"s": before}, Observation{"s": after}, Paths{})); n != MaxChanges {
		t.Errorf("%d changes, want %d", n, MaxChanges)
	}
}
