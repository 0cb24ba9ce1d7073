package gen

import (
	"os"
	"strings"
	"testing"
)

// TestDocListsTables keeps doc.go in step with the tables it documents.
func TestDocListsTables(t *testing.T) {
	b, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, h := range hints {
		want := ""
		switch {
		case len(h.strs) > 0:
			want = `"` + h.strs[0] + `"`
			if strings.HasPrefix(h.strs[0], "-") || (h.strs[0] >= "0" && h.strs[0] <= "9~") {
				want = h.strs[0] // numbers are listed bare
			}
		case len(h.ints) > 0:
			want = h.ints[0]
		}
		if want != "" && !strings.Contains(doc, want) {
			t.Errorf("doc.go does not list hint %v value %s", h.keys, want)
		}
		if !strings.Contains(doc, h.keys[0]) {
			t.Errorf("doc.go does not list hint key %q", h.keys[0])
		}
	}
	for f := range formatValues {
		if !strings.Contains(doc, f) {
			t.Errorf("doc.go does not list format %q", f)
		}
	}
}
