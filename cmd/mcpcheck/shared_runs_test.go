package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Some whole runs are what several tests read: examples/defects.yaml over
// stdio is both TestDefectsReceipts' receipts and the run its shards must
// merge back to (TestShardMergeEquivalence); over HTTP sixteen at a time
// it is both the HTTP receipts and half of TestDefectsSameWhateverJobs.
// Each is about 9 CPU-seconds, and CPU is what a two-core machine running
// two suites lacks, so each is made once, by the first that asks, and read
// by the others (they wait for it).
//
// The longest of them (30-60 s, mostly the demo's planted delays) also get
// a head start: TestMain starts them before the first test (headStart),
// so that they overlap Go's sequential tests, which run before any
// parallel one. Started by the tests that read them, they began ~45 s
// into the package's run and ended it last.

// wholeRun is one such run: its exit code, its output (stdout and stderr),
// and its JSON report.
type wholeRun struct {
	mu     sync.Mutex
	begun  bool
	done   chan struct{} // closed once the fields below are set
	code   int
	out    string
	report string
	err    string // set when the run could not be made
}

// maker makes a run: its exit code, output and JSON report.
type maker func() (code int, out, report string, err error)

// runSpec names a run and says how to make it.
type runSpec struct {
	key string
	mk  maker
}

var wholeRuns sync.Map // key → *wholeRun

// runNamed is the run named key, made or not.
func runNamed(key string) *wholeRun {
	v, _ := wholeRuns.LoadOrStore(key, &wholeRun{done: make(chan struct{})})
	return v.(*wholeRun)
}

// claim reports whether the caller is the first to ask for w, and is so
// to make it.
func (w *wholeRun) claim() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	first := !w.begun
	w.begun = true
	return first
}

// make runs mk and records what it made.
func (w *wholeRun) make(mk maker) {
	running.Add(1)
	defer running.Done()
	code, out, report, err := mk()
	w.code, w.out, w.report = code, out, report
	if err != nil {
		w.err = err.Error()
	}
	close(w.done)
}

// get returns the run, made now if nobody has begun it, else waited for.
func (s runSpec) get() *wholeRun {
	w := runNamed(s.key)
	if w.claim() {
		w.make(s.mk)
	}
	<-w.done
	return w
}

// A shared run started ahead is made while sequential tests run, and they
// set the environment (t.Setenv of TMPDIR, GITHUB_STEP_SUMMARY, TERM, …):
// so every shared run is a process of its own, in the environment the
// tests began with (sharedEnv, taken by TestMain once it has removed
// what CI sets), with temporary directories under sharedTmp.
var (
	sharedTmp = os.TempDir()
	sharedEnv []string
)

// running counts the runs being made, for TestMain to wait for.
var running sync.WaitGroup

// suiteCtx ends when the package's tests have run: a run still going
// then, one started ahead that no test read, is interrupted.
var suiteCtx, endSuite = context.WithCancel(context.Background())

// interrupted says why a run that suiteCtx or its bound stopped ended.
func interrupted(ctx context.Context) error {
	if errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
		return fmt.Errorf("still running after %s; interrupted", runBound)
	}
	return errors.New("interrupted: the tests ended")
}

// headStart lists the runs TestMain starts before the first test, longest
// first, each group with the top-level tests that read it: a group is
// started only if one of them is selected (-run, -skip), so a developer
// running one other test waits for none of them. A group's runs go at
// once, as its test would run them, in one process slot of the machine
// (and one Node.js slot for the pinned servers' runs).
var headStart = []struct {
	readers []string
	node    bool
	runs    []runSpec
}{
	{[]string{"TestDefectsSameWhateverJobs"}, false, []runSpec{httpSpec("1")}},
	{[]string{"TestShardMergeEverything"}, true, []runSpec{everythingSpec(1, 3), everythingSpec(2, 3), everythingSpec(3, 3)}},
	{[]string{"TestQuickEverythingStdio", "TestShardMergeEverything"}, true, []runSpec{everythingSpec(0, 0)}},
	{[]string{"TestDefectsReceipts", "TestShardMergeEquivalence"}, false, []runSpec{stdioSpec(defectsYAML)}},
	{[]string{"TestDefectsReceipts", "TestDefectsSameWhateverJobs"}, false, []runSpec{httpSpec("16")}},
	{[]string{"TestShardMergeEquivalence"}, false, []runSpec{shardSpec(defectsYAML, 1, 2), shardSpec(defectsYAML, 2, 2)}},
	{[]string{"TestShardMergeEquivalence"}, false, []runSpec{shardSpec(defectsYAML, 1, 3), shardSpec(defectsYAML, 2, 3), shardSpec(defectsYAML, 3, 3)}},
}

const defectsYAML = "../../examples/defects.yaml"

// startHeadStart starts the selected groups of headStart. A group takes
// its slots before it claims its runs, so a test that asks meanwhile makes
// a run itself rather than wait for a slot.
func startHeadStart() {
	sharedEnv = os.Environ()
	if f := flag.Lookup("test.list"); f != nil && f.Value.String() != "" {
		return // -list runs no test
	}
	_, noNode := exec.LookPath("node")
	for _, h := range headStart {
		if !testsSelected(h.readers) || (h.node && noNode != nil) {
			continue
		}
		go func() {
			release := processSlots.take()
			defer release()
			if h.node {
				if _, err := peerInstall(); err != nil {
					return // the tests report it
				}
				defer nodeSlots.take()()
			}
			var wg sync.WaitGroup
			for _, r := range h.runs {
				if w := runNamed(r.key); w.claim() {
					wg.Go(func() { w.make(r.mk) })
				}
			}
			wg.Wait()
		}()
		// The slots are taken in this order, on a machine with free
		// slots: the longest group starts first.
		time.Sleep(10 * time.Millisecond)
	}
}

// endHeadStart interrupts the runs still going once the tests have run and
// waits for them (each removes what it made).
func endHeadStart() {
	endSuite()
	done := make(chan struct{})
	go func() {
		running.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		fmt.Fprintln(os.Stderr, "shared runs still going a minute after they were interrupted")
	}
}

// testsSelected reports whether -test.run and -test.skip select one of the
// top-level tests names. Only the patterns' first elements (before a "/"
// outside brackets and parentheses) are read, as Go matches top-level
// tests; a pattern that does not compile selects everything.
func testsSelected(names []string) bool {
	pattern := func(name string) *regexp.Regexp {
		f := flag.Lookup(name)
		if f == nil || f.Value.String() == "" {
			return nil
		}
		re, err := regexp.Compile(topLevel(f.Value.String()))
		if err != nil {
			return nil
		}
		return re
	}
	run, skip := pattern("test.run"), pattern("test.skip")
	skipWhole := skip != nil && !strings.Contains(flag.Lookup("test.skip").Value.String(), "/")
	for _, n := range names {
		if (run == nil || run.MatchString(n)) && !(skipWhole && skip.MatchString(n)) {
			return true
		}
	}
	return false
}

// topLevel is the first element of a -run pattern.
func topLevel(p string) string {
	depth := 0
	for i, c := range p {
		switch c {
		case '[', '(':
			depth++
		case ']', ')':
			depth--
		case '/':
			if depth == 0 {
				return p[:i]
			}
		}
	}
	return p
}

// stdioSpec is fixture with args in a process of its own over stdio, with
// a temporary directory of its own (nothing else on the machine may hold
// the demo's ticket lock while it runs). Its run needs no test: a
// goroutine may ask.
func stdioSpec(fixture string, args ...string) runSpec {
	return runSpec{strings.Join(append([]string{"stdio", fixture}, args...), " "), func() (int, string, string, error) {
		tmp, err := os.MkdirTemp(sharedTmp, "mcpcheck-whole-")
		if err != nil {
			return 0, "", "", err
		}
		defer os.RemoveAll(tmp)
		report := filepath.Join(tmp, "report.json")
		code, out, err := cliRunIn(sharedEnv, "", []string{"TMPDIR=" + tmp}, append([]string{"--config", fixture, "--json", report}, args...)...)
		if err != nil {
			return 0, out, "", err
		}
		data, err := os.ReadFile(report)
		return code, out, string(data), err
	}}
}

// shardSpec is shard k of n of fixture (see stdioSpec).
func shardSpec(fixture string, k, n int) runSpec {
	return stdioSpec(fixture, "--shard", fmt.Sprintf("%d/%d", k, n))
}

// everythingSpec is quick mode against the pinned server-everything over
// stdio, a process of its own: the whole run (k = 0) or shard k of n.
func everythingSpec(k, n int) runSpec {
	key, args := "stdio quick everything", []string{}
	if k > 0 {
		shard := fmt.Sprintf("%d/%d", k, n)
		key, args = key+" --shard "+shard, []string{"--shard", shard}
	}
	return runSpec{key, func() (int, string, string, error) {
		dir, err := peerInstall()
		if err != nil {
			return 0, "", "", err
		}
		tmp, err := os.MkdirTemp(sharedTmp, "mcpcheck-whole-")
		if err != nil {
			return 0, "", "", err
		}
		defer os.RemoveAll(tmp)
		report := filepath.Join(tmp, "report.json")
		argv := append(append([]string{"--json", report}, args...),
			"--timeout", "30s", "--env", "GZIP_ALLOWED_DOMAINS=localhost", "--", "node", filepath.Join(dir, peerEverything), "stdio")
		code, out, err := cliRunIn(sharedEnv, "", []string{"TMPDIR=" + tmp}, argv...)
		if err != nil {
			return 0, out, "", err
		}
		data, err := os.ReadFile(report)
		return code, out, string(data), err
	}}
}

// httpSpec is examples/defects.yaml as a process of its own, jobs at a
// time, against a demo --defects of its own over HTTP (a child too, with
// a TMPDIR of its own).
func httpSpec(jobs string) runSpec {
	return runSpec{"http defects.yaml --jobs " + jobs, func() (int, string, string, error) {
		tmp, err := os.MkdirTemp(sharedTmp, "mcpcheck-whole-")
		if err != nil {
			return 0, "", "", err
		}
		defer os.RemoveAll(tmp)
		url, stop, err := startChild([]string{"TMPDIR=" + tmp}, demoAt, "demo", "--defects", "--http", "127.0.0.1:0")
		if err != nil {
			return 0, "", "", err
		}
		defer stop()
		report := filepath.Join(tmp, "report.json")
		code, out, err := cliRunIn(sharedEnv, "", []string{"TMPDIR=" + tmp}, "--config", defectsYAML, "--json", report, "--url", url, "--jobs", jobs)
		if err != nil {
			return 0, out, "", err
		}
		data, err := os.ReadFile(report)
		return code, out, string(data), err
	}}
}
