// Package goldentest is the tests' one golden-file helper: a test's output
// is compared with a file under testdata/, and `go test -update` rewrites
// the files instead. It is test support, imported only by _test.go files.
package goldentest

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// Compare compares got with the golden file at path, or (under -update)
// writes got there, creating its directory.
func Compare(t testing.TB, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs; go test -update rewrites it (-want +got):\n%s", path, diff)
	}
}
