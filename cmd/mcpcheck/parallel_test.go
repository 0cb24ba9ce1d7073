package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The tests of this package drive real processes: demo servers, the
// pinned npm servers, mcpcheck itself as a child. Most of their time is
// spent waiting (a server starting, a step's timeout, a planted delay), not
// computing, so the parallel ones run more at a time than there are cores.
//
// A test may call parallel(t) when it changes nothing shared: no t.Setenv,
// no runOptions or stdin swap, no process-wide scan (demoChildren), and
// the demo's ticket_counter lock kept apart (a TMPDIR of its own for the
// processes it starts, see demoHTTP). Tests that cannot stay sequential;
// Go runs every sequential test before the parallel ones start.

// parallelWaiting is how many parallel tests run at once unless -parallel
// says otherwise: enough that the long waits (a whole defects.yaml run is
// ~40 s of planted delays for ~12 CPU-seconds) overlap.
const parallelWaiting = 12

// moreParallel raises -test.parallel (default GOMAXPROCS) to
// parallelWaiting, unless the command line set it.
func moreParallel() {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set && runtime.GOMAXPROCS(0) < parallelWaiting {
		flag.Set("test.parallel", strconv.Itoa(parallelWaiting))
	}
}

// demoAt finds the demo's "serving Streamable HTTP at URL" line.
var demoAt = regexp.MustCompile(`serving Streamable HTTP at (http://\S+/mcp)`)

// demoHTTP starts `mcpcheck demo ARGS --http 127.0.0.1:0` as a child with
// env added (TMPDIR keeps its ticket_counter lock apart from other tests')
// and returns its endpoint; the server is stopped when the test ends.
func demoHTTP(t *testing.T, env []string, args ...string) string {
	t.Helper()
	return childHTTP(t, env, demoAt, append(append([]string{"demo"}, args...), "--http", "127.0.0.1:0")...)
}

// childHTTP starts this binary with args as a child with env added and
// returns the first submatch of at in a line of its stderr, the address
// it says it listens at; the child is stopped when the test ends.
func childHTTP(t *testing.T, env []string, at *regexp.Regexp, args ...string) string {
	t.Helper()
	u, stop, err := startChild(env, at, args...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return u
}

// startedChildren are the pids of the children startChild started and has
// not stopped (demoChildren leaves them out).
var startedChildren sync.Map

// startChild is childHTTP for code that has no test (a shared run): the
// caller stops the child.
func startChild(env []string, at *regexp.Regexp, args ...string) (addr string, stop func(), err error) {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	pid := strconv.Itoa(cmd.Process.Pid)
	startedChildren.Store(pid, true)
	stop = func() {
		cmd.Process.Kill()
		cmd.Wait()
		startedChildren.Delete(pid)
	}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := at.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
		close(found)
	}()
	select {
	case u, ok := <-found:
		if ok {
			return u, stop, nil
		}
		err = fmt.Errorf("%v ended before it said where it listens", args)
	case <-time.After(60 * time.Second):
		err = fmt.Errorf("%v did not say where it listens", args)
	}
	stop()
	return "", nil, err
}

// Two suites at once (two checkouts, a developer's run beside CI's) would
// run twice as many process tests together as either was tuned for, and
// on two cores that turned honest steps into timeouts: a planted 8 s hang
// was no longer the only call over 8 s. So the bounds below are the
// machine's, not the binary's: every test binary of this package takes its
// slots from the same files (machineSlots, an flock each), and two suites
// at once share them, each running slower instead of both running wrong.
var slotRoot = filepath.Join(os.TempDir(), fmt.Sprintf("mcpcheck-test-slots-%d", os.Getuid()))

// processSlots bounds the parallel tests running at once on the machine
// (parallel takes one): as many as one binary runs (parallelWaiting).
var processSlots = machineSlots{dir: filepath.Join(slotRoot, "process"), n: parallelWaiting}

// nodeSlots bounds how many tests drive the pinned npm servers at once
// (peerDir takes a slot): starting Node.js and loading server-everything
// is most of a second of CPU, where the demo starts in milliseconds, and
// eight of them starting together on a loaded two-core machine took longer
// than the 30 s a server gets to initialize. The other parallel tests fill
// the rest. Three: these tests spend most of their time waiting on the
// servers' own timers (server-everything's 10 s long-running operation,
// its 4 s research task), about 2 CPU-seconds each, and two at a time made
// them the package's longest chain; with four, a server's start missed
// the 30 s twice at load 80-90.
var nodeSlots = machineSlots{dir: filepath.Join(slotRoot, "node"), n: 3}

// processHolders and nodeHolders are the tests holding a slot, by name.
var processHolders, nodeHolders sync.Map

// parallel is t.Parallel, then a process slot of the machine for t until
// it ends. Every parallel test of this package calls it instead of
// t.Parallel, except a parent whose subtests are parallel (parallelParent).
func parallel(t *testing.T) {
	t.Parallel()
	if p := heldAbove(t.Name(), &processHolders); p != "" {
		// The subtests of a parent holding a slot would wait for the
		// binary's parallel tokens, which tests waiting for a slot hold:
		// two suites at once deadlocked so.
		t.Fatalf("%s holds a process slot and has parallel subtests: it must call parallelParent", p)
	}
	holdSlot(t, processSlots, &processHolders)
}

// parallelParent is t.Parallel for a test whose subtests are parallel:
// they take the slots, it holds none.
func parallelParent(t *testing.T) { t.Parallel() }

// nodeSlot takes a node slot for t until it ends, unless t or a test
// above it holds one (subtests share their parent's). A parallel test must
// call it after parallel (peerDir does), never while paused: a test
// holding a node slot always took its process slot first, and holds no
// slot while subtests of its wait, so no two tests wait on each other.
func nodeSlot(t testing.TB) {
	if heldAbove(t.Name(), &nodeHolders) == "" {
		holdSlot(t, nodeSlots, &nodeHolders)
	}
}

// heldAbove is the test at or above name (its parents, by the "/" of
// subtest names) that holds a slot of holders, or "".
func heldAbove(name string, holders *sync.Map) string {
	for p := name; ; {
		if _, ok := holders.Load(p); ok {
			return p
		}
		i := strings.LastIndex(p, "/")
		if i < 0 {
			return ""
		}
		p = p[:i]
	}
}

func holdSlot(t testing.TB, s machineSlots, holders *sync.Map) {
	name := t.Name()
	holders.Store(name, true)
	release := s.take()
	t.Cleanup(func() {
		holders.Delete(name)
		release()
	})
}
