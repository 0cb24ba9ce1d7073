package main

import (
	"bufio"
	"flag"
	"os"
	"os/exec"
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
// A test may call t.Parallel when it changes nothing shared: no t.Setenv,
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
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
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
		if !ok {
			t.Fatalf("%v ended before it said where it listens", args)
		}
		return u
	case <-time.After(60 * time.Second):
		t.Fatalf("%v did not say where it listens", args)
	}
	return ""
}

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
var nodeSlots = make(chan struct{}, 3)

// nodeHolders are the top-level tests holding a slot: a test's subtests
// share their parent's, so a parent never waits for a slot its own
// subtests hold.
var nodeHolders sync.Map

// nodeSlot takes a slot for t's top-level test until t ends, unless that
// test holds one already. A parallel test must call it after t.Parallel
// (peerDir does), never while paused.
func nodeSlot(t testing.TB) {
	root, _, _ := strings.Cut(t.Name(), "/")
	if _, held := nodeHolders.LoadOrStore(root, true); held {
		return
	}
	nodeSlots <- struct{}{}
	t.Cleanup(func() {
		nodeHolders.Delete(root)
		<-nodeSlots
	})
}
