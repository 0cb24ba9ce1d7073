package golden

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/jsonx/jsonxtest"
)

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
		{"every sanitizer", nil, Names(), `{"id":"<uuid>","at":"<timestamp>","on":"<date>","clock":"created at <time> AM","ms":"<epoch>","s":"<epoch>","hash":"<hex>","items":[{"k":1,"v":"a"},{"k":2,"v":"b"}],"keep":"plain"}`},
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
	if n := g.Prune(map[string]map[string]bool{"s": {"a": true}}); n != 1 || !reflect.DeepEqual(g.Keys(), []string{"s/a"}) {
		t.Errorf("pruned %d, left %v", n, g.Keys())
	}
	os.WriteFile(path, []byte(`{"schemaVersion": 7}`), 0o644)
	if _, err := Load(path); err == nil {
		t.Error("a file of another version loaded")
	}
}
