package config

import (
	"errors"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/goldentest"
)

// brokenFixtures lists the fixtures of the broken corpus (the golden .err
// files beside them excluded).
func brokenFixtures(t testing.TB) []string {
	t.Helper()
	all, err := filepath.Glob("testdata/broken/*")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range all {
		if filepath.Ext(p) != ".err" {
			out = append(out, p)
		}
	}
	return out
}

// TestBroken loads every fixture of testdata/broken and compares the error
// with its golden NAME.err; `go test ./config -update` rewrites them.
func TestBroken(t *testing.T) {
	files := brokenFixtures(t)
	if len(files) < 30 {
		t.Fatalf("broken corpus has %d fixtures, want at least 30", len(files))
	}
	goldens := map[string]string{}
	for _, path := range files {
		path := filepath.ToSlash(path)
		golden := strings.TrimSuffix(path, filepath.Ext(path)) + ".err"
		if other, dup := goldens[golden]; dup {
			t.Fatalf("%s and %s share the golden file %s; rename one", other, path, golden)
		}
		goldens[golden] = path
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			s, err := Load(path, LoadOptions{Environ: []string{}})
			if err == nil {
				t.Fatalf("Load succeeded (%d scenarios), want an error", len(s.Scenarios))
			}
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error does not match ErrInvalid: %v", err)
			}
			got := err.Error() + "\n"
			for _, line := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
				checkPositioned(t, path, line)
			}
			goldentest.Compare(t, golden, got)
		})
	}
}

var positioned = regexp.MustCompile(`^(.+):(\d+):(\d+): `)

// checkPositioned asserts that an error line starts with file:line:col,
// line and column at least 1.
func checkPositioned(t testing.TB, file, line string) {
	t.Helper()
	m := positioned.FindStringSubmatch(line)
	if m == nil {
		t.Errorf("error line has no file:line:col: %q", line)
		return
	}
	if m[1] != file {
		t.Errorf("error names file %q, want %q: %q", m[1], file, line)
	}
	l, _ := strconv.Atoi(m[2])
	c, _ := strconv.Atoi(m[3])
	if l < 1 || c < 1 {
		t.Errorf("error line has position %d:%d: %q", l, c, line)
	}
}
