package main

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Some whole runs are what several tests read: examples/defects.yaml over
// stdio is both TestDefectsReceipts' receipts and the run its shards must
// merge back to (TestShardMergeEquivalence); over HTTP sixteen at a time
// it is both the HTTP receipts and half of TestDefectsSameWhateverJobs.
// Each is about 12 CPU-seconds, and CPU is what a two-core machine running
// two suites lacks, so each is made once, by the first test that asks, and
// read by the others (they wait for it).

// wholeRun is one such run: its exit code, its output (stdout and stderr),
// and its JSON report.
type wholeRun struct {
	once   sync.Once
	code   int
	out    string
	report string
	err    string // set when the run could not be made
}

var wholeRuns sync.Map // key → *wholeRun

// sharedRun returns the run named key, made by make the first time (in the
// first caller's test, which may fail it; the others are then told so).
func sharedRun(key string, make func() (code int, out, report string, err error)) *wholeRun {
	v, _ := wholeRuns.LoadOrStore(key, &wholeRun{})
	w := v.(*wholeRun)
	w.once.Do(func() {
		w.err = "the run ended its test before it was made"
		code, out, report, err := make()
		w.code, w.out, w.report, w.err = code, out, report, ""
		if err != nil {
			w.err = err.Error()
		}
	})
	return w
}

// wholeStdio is a whole run of fixture as a process of its own over stdio,
// with a temporary directory of its own (nothing else on the machine may
// hold the demo's ticket lock while it runs). It needs no test: a
// goroutine may ask.
func wholeStdio(fixture string) *wholeRun {
	return sharedRun("stdio "+fixture, func() (int, string, string, error) {
		tmp, err := os.MkdirTemp("", "mcpcheck-whole-")
		if err != nil {
			return 0, "", "", err
		}
		defer os.RemoveAll(tmp)
		report := filepath.Join(tmp, "report.json")
		code, out, err := cliRun("", []string{"TMPDIR=" + tmp}, "--config", fixture, "--json", report)
		if err != nil {
			return 0, out, "", err
		}
		data, err := os.ReadFile(report)
		return code, out, string(data), err
	})
}

// defectsHTTP16 is examples/defects.yaml against a demo --defects of its
// own over HTTP, sixteen at a time (--jobs 16).
func defectsHTTP16(t *testing.T) *wholeRun {
	return sharedRun("http defects.yaml --jobs 16", func() (int, string, string, error) {
		url := demoHTTP(t, []string{"TMPDIR=" + t.TempDir()}, "--defects")
		r := runCmd(t, "--config", "../../examples/defects.yaml", "--json", "-", "--url", url, "--jobs", "16")
		return r.code, r.stderr, r.stdout, nil
	})
}
