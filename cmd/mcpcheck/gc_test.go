package main

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
)

// TestGCPolicy: without GOGC and GOMEMLIMIT the percentage rule is off and
// a soft limit of at least minMemoryLimit is set; a user's GOGC wins.
func TestGCPolicy(t *testing.T) {
	t.Setenv("GOGC", "")
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))

	debug.SetGCPercent(100)
	setGCPolicy("") // GOGC is set (empty): left alone
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("with GOGC set, the GC percentage became %d", got)
	}

	unsetenv(t, "GOGC")
	unsetenv(t, "GOMEMLIMIT")
	setGCPolicy("")
	if got := debug.SetGCPercent(100); got != -1 {
		t.Errorf("GC percentage = %d, want -1 (off)", got)
	}
	if got := debug.SetMemoryLimit(-1); got != minMemoryLimit {
		t.Errorf("memory limit = %d, want %d", got, minMemoryLimit)
	}

	// A large fixture gets room to load.
	big := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(big, make([]byte, 4<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	setGCPolicy(big)
	if got := debug.SetMemoryLimit(-1); got != loadFactor*4<<20 {
		t.Errorf("memory limit for a 4 MiB fixture = %d, want %d", got, loadFactor*4<<20)
	}
}

// unsetenv removes a variable for the rest of the test, restoring it after.
func unsetenv(t *testing.T, name string) {
	t.Helper()
	t.Setenv(name, "") // records the old value for the cleanup
	os.Unsetenv(name)
}
