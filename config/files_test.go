//go:build unix

package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/fileio"
)

// TestNotAFileIsRefused: a fixture or a baseline that is a FIFO, a device
// or a directory is refused at once, naming it (a FIFO used to block the
// load forever). Each load runs under a deadline, so a regression fails
// instead of hanging.
func TestNotAFileIsRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fixture.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal("mkfifo:", err)
	}
	suite, err := Parse("f.yaml", []byte(validFixture), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fifo, "/dev/zero", dir} {
		for name, load := range map[string]func() error{
			"Load": func() error { _, err := Load(path, noEnv); return err },
			"LoadExpectedFailures": func() error {
				_, err := LoadExpectedFailures(path, suite)
				return err
			},
		} {
			done := make(chan error, 1)
			go func() { done <- load() }()
			select {
			case err := <-done:
				if !errors.Is(err, ErrFile) || !errors.Is(err, fileio.ErrNotRegular) || !strings.Contains(err.Error(), path+" is ") {
					t.Errorf("%s(%s) = %v", name, path, err)
				}
			case <-time.After(20 * time.Second):
				t.Fatalf("%s(%s) still blocked after 20s", name, path)
			}
		}
	}
}

const validFixture = "name: x\ncommand: [srv]\nallowTools: []\nscenarios:\n  - name: a\n    steps: [{ping: {}}]\n"

// manyScenarios writes a fixture of n scenarios of one ping step each;
// with refs, each scenario's step also names a step of the previous
// scenario (an error).
func manyScenarios(t *testing.T, n int, refs bool) string {
	var b strings.Builder
	b.WriteString("name: big\ncommand: [srv]\nallowTools: [t]\nscenarios:\n")
	for i := range n {
		if refs && i > 0 {
			fmt.Fprintf(&b, "  - name: s%d\n    steps: [{id: p%d, tool: t, arguments: {x: {$ref: \"p%d#/x\"}}}]\n", i, i, i-1)
			continue
		}
		fmt.Fprintf(&b, "  - name: s%d\n    steps: [{id: p%d, ping: {}}]\n", i, i)
	}
	path := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLoadingStaysLinear: 300,000 scenarios load, with a baseline of
// 100,000 entries, in well under a minute (the duplicate-name check and
// the baseline's lookups compared each with every other: 80,000
// scenarios took 20 s, 300,000 over 3 minutes); a cross-scenario $ref in
// each of 100,000 scenarios is reported without scanning every scenario
// for each. The bounds are generous: a quadratic check misses them by
// minutes, a loaded machine does not: they bound the process's CPU time
// (the test is sequential, so that time is its own), not the wall clock,
// which on a busy machine counts other processes' turns too.
func TestLoadingStaysLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: loads a 12 MB fixture")
	}
	const n = 300_000
	path := manyScenarios(t, n, false)
	start := cpuTime()
	s, err := Load(path, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Scenarios) != n {
		t.Fatalf("%d scenarios", len(s.Scenarios))
	}
	load := cpuTime() - start
	if load > 60*time.Second {
		t.Errorf("loading %d scenarios took %v", n, load)
	}

	var b strings.Builder
	for i := 0; i < n; i += 3 {
		fmt.Fprintf(&b, "- {scenario: s%d, step: p%d}\n", i, i)
	}
	baseline := filepath.Join(t.TempDir(), "known.yaml")
	os.WriteFile(baseline, []byte(b.String()), 0o644)
	start = cpuTime()
	entries, err := LoadExpectedFailures(baseline, s)
	if err != nil || len(entries) != 100_000 {
		t.Fatalf("baseline: %d entries, %v", len(entries), err)
	}
	if d := cpuTime() - start; d > 60*time.Second {
		t.Errorf("a baseline of 100,000 entries took %v", d)
	}

	path = manyScenarios(t, 100_000, true)
	start = cpuTime()
	_, err = Load(path, noEnv)
	if err == nil || !strings.Contains(err.Error(), `of another scenario (scenarios[0] "s0")`) {
		t.Fatalf("cross-scenario refs: %v", err)
	}
	if d := cpuTime() - start; d > 60*time.Second {
		t.Errorf("100,000 cross-scenario refs took %v", d)
	}
	t.Logf("300,000 scenarios loaded in %v of CPU time", load)
}
