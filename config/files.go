package config

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// fixtureExts are the extensions a fixture directory's files are taken by.
var fixtureExts = []string{".yaml", ".yml", ".json"}

// FixtureFiles expands the paths given to --config into the fixture files
// to load, in order: a file stands for itself, a directory for every
// *.yaml, *.yml and *.json file directly in it, sorted by name (its other
// files and its subdirectories, such as __snapshots__, are not fixtures).
// A file named twice is loaded once. Each file is then loaded by [Load],
// so a file in a directory that is not a fixture is an error naming it.
func FixtureFiles(paths []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if key := filepath.Clean(p); !seen[key] {
			seen[key] = true
			out = append(out, p)
		}
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil || !st.IsDir() {
			add(p) // Load says what is wrong with it
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			return nil, &fileError{path: p, err: err}
		}
		n := 0
		for _, e := range entries { // ReadDir sorts by name
			if e.IsDir() || !slices.Contains(fixtureExts, strings.ToLower(filepath.Ext(e.Name()))) {
				continue
			}
			add(filepath.Join(p, e.Name()))
			n++
		}
		if n == 0 {
			return nil, &fileError{path: p, err: fmt.Errorf("the directory holds no *.yaml, *.yml or *.json fixture")}
		}
	}
	return out, nil
}
