package golden

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"testing"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/internal/jsonx/jsonxtest"
)

// sanitizerNames lists the sanitizers, in the order applied.
func sanitizerNames() []string {
	out := make([]string, len(sanitizers))
	for i, s := range sanitizers {
		out[i] = s.name
	}
	return out
}

// TestSanitizerNames keeps the sanitizers in step with config's names
// (which runner's vocabulary test keeps in step with the fixture schema).
func TestSanitizerNames(t *testing.T) {
	if got := sanitizerNames(); !slices.Equal(got, config.SanitizerNames) {
		t.Errorf("golden %q, config %q", got, config.SanitizerNames)
	}
}

// keys lists the stored scenarios and their steps, sorted.
func keys(f *File) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for sc, steps := range f.entries {
		for id := range steps {
			out = append(out, sc+"/"+id)
		}
	}
	sort.Strings(out)
	return out
}

func TestReduce(t *testing.T) {
	in := `{"id":"0b9c1a8e-3f4d-4c2b-9a7e-1d2c3b4a5f6e","at":"2026-12-02T01:50:17.123Z","on":"2026-12-02",
		"clock":"created at 1:50:17 AM","ms":1764640217123,"s":"1764640217","hash":"deadbeefdeadbeef00",
		"items":[{"k":1,"v":"a"},{"k":2,"v":"b"}],"keep":"plain"}`
	cases := []struct {
		name             string
		ignore, sanitize []string
		want             string
	}{
		{"nothing", nil, nil, in},
		{"one key", []string{"/id"}, nil, `{"at":"2026-12-02T01:50:17.123Z","on":"2026-12-02","clock":"created at 1:50:17 AM","ms":1764640217123,"s":"1764640217","hash":"deadbeefdeadbeef00","items":[{"k":1,"v":"a"},{"k":2,"v":"b"}],"keep":"plain"}`},
		{"star segment", []string{"/items/*/v", "/items/0"}, nil, `{"id":"0b9c1a8e-3f4d-4c2b-9a7e-1d2c3b4a5f6e","at":"2026-12-02T01:50:17.123Z","on":"2026-12-02","clock":"created at 1:50:17 AM","ms":1764640217123,"s":"1764640217","hash":"deadbeefdeadbeef00","items":["<ignored>",{"k":2}],"keep":"plain"}`},
		{"every sanitizer", nil, sanitizerNames(), `{"id":"<uuid>","at":"<timestamp>","on":"<date>","clock":"created at <time>","ms":"<epoch>","s":"<epoch>","hash":"<hex>","items":[{"k":1,"v":"a"},{"k":2,"v":"b"}],"keep":"plain"}`},
		{"whole", []string{""}, nil, `"<ignored>"`},
	}
	for _, c := range cases {
		v := jsonxtest.Value(t, in)
		got := Reduce(v, c.ignore, c.sanitize)
		if !reflect.DeepEqual(got, jsonxtest.Value(t, c.want)) {
			b, _ := json.Marshal(got)
			t.Errorf("%s: %s", c.name, b)
		}
		if !reflect.DeepEqual(v, jsonxtest.Value(t, in)) {
			t.Errorf("%s: Reduce changed its input", c.name)
		}
	}
}

func TestFileRoundTripAndPrune(t *testing.T) {
	path := filepath.Join(t.TempDir(), "__snapshots__", "f.yaml.json")
	f, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if wrote, _ := f.Save(); wrote {
		t.Error("an empty new file was written")
	}
	f.Put("s", "a", jsonxtest.Value(t, `{"n": 12345678901234567890}`))
	f.Put("s", "b", "x")
	if wrote, err := f.Save(); !wrote || err != nil {
		t.Fatalf("not written: %v", err)
	}
	g, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := g.Get("s", "a"); !reflect.DeepEqual(v, jsonxtest.Value(t, `{"n": 12345678901234567890}`)) {
		t.Errorf("a large number changed: %v", v)
	}
	if wrote, _ := g.Save(); wrote {
		t.Error("an unchanged file was rewritten")
	}
	if n := g.Prune(map[string]map[string]bool{"s": {"a": true}}); n != 1 || !reflect.DeepEqual(keys(g), []string{"s/a"}) {
		t.Errorf("pruned %d, left %v", n, keys(g))
	}
	os.WriteFile(path, []byte(`{"schemaVersion": 7}`), 0o644)
	if _, err := Load(path); err == nil {
		t.Error("a file of another version loaded")
	}
}
