package golden

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLinksOutOfTheFixtureAreRefused: a __snapshots__ that is a symbolic
// link, and a snapshot file that is a link to nothing or out of the
// fixture's directory, are refused by Load and Save, naming the link, and
// nothing is written outside; a link that stays inside is written through.
func TestLinksOutOfTheFixtureAreRefused(t *testing.T) {
	outside := t.TempDir()
	cases := []struct {
		name  string
		setup func(fixtureDir string)
		link  string // the link the error names, relative to the fixture's directory
	}{
		{"__snapshots__ is a link", func(d string) {
			os.Symlink(outside, filepath.Join(d, "__snapshots__"))
		}, "__snapshots__"},
		{"__snapshots__ is a dangling link", func(d string) {
			os.Symlink(filepath.Join(outside, "gone"), filepath.Join(d, "__snapshots__"))
		}, "__snapshots__"},
		{"the file links outside", func(d string) {
			os.Mkdir(filepath.Join(d, "__snapshots__"), 0o755)
			os.Symlink(filepath.Join(outside, "x.json"), filepath.Join(d, "__snapshots__", "f.yaml.json"))
			os.WriteFile(filepath.Join(outside, "x.json"), []byte(`{"schemaVersion":1,"snapshots":{}}`), 0o644)
		}, "__snapshots__/f.yaml.json"},
		{"the file is a dangling link", func(d string) {
			os.Mkdir(filepath.Join(d, "__snapshots__"), 0o755)
			os.Symlink(filepath.Join(outside, "new.json"), filepath.Join(d, "__snapshots__", "f.yaml.json"))
		}, "__snapshots__/f.yaml.json"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			c.setup(dir)
			path := PathFor(filepath.Join(dir, "f.yaml"))
			link := filepath.Join(dir, c.link)
			if _, err := Load(path); err == nil || !strings.HasPrefix(err.Error(), link+" is a symbolic link") {
				t.Errorf("Load: %v", err)
			}
			f := New(path)
			f.Put("s", "step", "answer")
			if _, err := f.Save(); err == nil || !strings.HasPrefix(err.Error(), link+" is a symbolic link") {
				t.Errorf("Save: %v", err)
			}
			entries, _ := os.ReadDir(outside)
			for _, e := range entries {
				if b, _ := os.ReadFile(filepath.Join(outside, e.Name())); strings.Contains(string(b), "answer") {
					t.Errorf("written outside: %s", e.Name())
				}
			}
		})
	}

	// A link to another file of the fixture's directory is written through.
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "__snapshots__"), 0o755)
	shared := filepath.Join(dir, "__snapshots__", "shared.json")
	os.WriteFile(shared, []byte(`{"schemaVersion":1,"snapshots":{}}`), 0o644)
	os.Symlink("shared.json", filepath.Join(dir, "__snapshots__", "f.yaml.json"))
	f, err := Load(PathFor(filepath.Join(dir, "f.yaml")))
	if err != nil {
		t.Fatal(err)
	}
	f.Put("s", "step", "answer")
	if _, err := f.Save(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(shared); !strings.Contains(string(b), "answer") {
		t.Errorf("shared.json: %s", b)
	}
}

// TestFailedSaveKeepsTheAnswers: when the file cannot be replaced (here a
// directory stands where the file would go), Save fails naming it, and
// an existing file is never left truncated.
func TestFailedSaveKeepsTheAnswers(t *testing.T) {
	dir := t.TempDir()
	path := PathFor(filepath.Join(dir, "f.yaml"))
	os.MkdirAll(path, 0o755)
	f := New(path)
	f.Put("s", "step", "answer")
	if _, err := f.Save(); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("Save over a directory: %v", err)
	}

	dir = t.TempDir()
	path = PathFor(filepath.Join(dir, "f.yaml"))
	os.MkdirAll(filepath.Dir(path), 0o755)
	before := `{"schemaVersion":1,"snapshots":{"s":{"step":"old"}}}`
	os.WriteFile(path, []byte(before), 0o644)
	if _, err := Load(filepath.Join(dir, "__snapshots__")); err == nil {
		t.Error("Load of a directory succeeded")
	}
	f, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	f.Put("s", "step", strings.Repeat("new", 1000))
	// The directory became read-only to the writer: the temporary file
	// cannot be created. (Root writes anyway; then the save succeeds.)
	os.Chmod(filepath.Dir(path), 0o555)
	defer os.Chmod(filepath.Dir(path), 0o755)
	if _, err := f.Save(); err != nil {
		if b, _ := os.ReadFile(path); string(b) != before {
			t.Errorf("after a failed save the file holds %q", b)
		}
		if !strings.Contains(err.Error(), path) {
			t.Errorf("error does not name the file: %v", err)
		}
	}
}
