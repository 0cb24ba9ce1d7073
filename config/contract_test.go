package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/schemas"
)

// TestContractSettings: a fixture's contract is beside the fixture, a
// --contract flag is relative to where mcpcheck runs, and failOn takes the
// severities or none, from the file, MCPCHECK_FAIL_ON or a flag.
func TestContractSettings(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.yaml")
	write := func(extra string) {
		os.WriteFile(file, []byte("name: x\ncommand: [srv]\nallowTools: []\n"+extra+"scenarios:\n  - name: s\n    steps:\n      - {id: a, ping: {}}\n"), 0o644)
	}
	write("contract: c/contract.json\nfailOn: risky\n")
	s, err := Load(file, LoadOptions{Environ: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Contract != filepath.Join(dir, "c", "contract.json") || s.FailOn != FailOnRisky {
		t.Errorf("contract %q, failOn %q", s.Contract, s.FailOn)
	}
	s, err = Load(file, LoadOptions{Environ: []string{"MCPCHECK_FAIL_ON=none"}, Flags: map[string]any{"contract": "other.json"}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Contract != "other.json" || s.FailOn != FailOnNone {
		t.Errorf("contract %q, failOn %q", s.Contract, s.FailOn)
	}
	write("failOn: sometimes\n")
	if _, err := Load(file, LoadOptions{Environ: []string{}}); err == nil || !strings.Contains(err.Error(), "f.yaml:4:9") {
		t.Errorf("bad failOn: %v", err)
	}
	write("")
	_, err = Load(file, LoadOptions{Environ: []string{}, Flags: map[string]any{"failOn": "always"}})
	if err == nil || !strings.Contains(err.Error(), "must be one of breaking, risky, compatible, none") {
		t.Errorf("bad --fail-on: %v", err)
	}
}

// TestFailOnVocabulary holds the fixture schema's failOn enum to FailOns.
func TestFailOnVocabulary(t *testing.T) {
	var doc struct {
		Properties struct {
			FailOn struct {
				Enum []FailOn `json:"enum"`
			} `json:"failOn"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(schemas.Fixture, &doc); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(doc.Properties.FailOn.Enum, FailOns) {
		t.Errorf("schema %q, Go %q", doc.Properties.FailOn.Enum, FailOns)
	}
}
