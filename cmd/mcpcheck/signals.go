package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mcpcheck/mcpcheck/runner"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// Signals. The first SIGINT or SIGTERM interrupts the command: it starts
// nothing more, a call in flight is cancelled, the servers it started are
// shut down (killed interruptGrace after the signal at the latest, see
// runner), the reports of what ran are written whole, steps not run
// skipped "interrupted", and the command exits 128+signal: 130 for SIGINT,
// 143 for SIGTERM, whatever it would have exited with otherwise (the
// verdict is not a pass: the run did not finish). A second signal exits at
// once with 128+its number: the server process groups are killed first,
// and no report is written (a report file being written is left as it was,
// see the file writers).
//
// Nothing after the first signal waits without a deadline, but if the
// command has still not returned stopBound after it (a bug), it exits as
// on a second signal.
//
// merge, diff, schema, version and help start no server and wait on
// nothing but the files they read: the first signal ends them at once
// (130/143), before or instead of writing (their files are written whole
// or not at all, see the file writers).
//
// A command whose documented end is a signal (mcpcheck demo, a server;
// record --url, whose session ends with Ctrl-C) says so with signalEnds:
// the signal then ends it as it documents, with its own exit code.
const stopBound = 15 * time.Second

// stopsAtOnce are the commands the first signal ends at once.
var stopsAtOnce = map[string]bool{"merge": true, "diff": true, "schema": true, "version": true, "help": true}

type signalEndsKey struct{}

// signalEnds marks the command running under ctx as one that a signal ends
// normally (see stopBound). Outside runWithSignals it does nothing.
func signalEnds(ctx context.Context) {
	if b, ok := ctx.Value(signalEndsKey{}).(*atomic.Bool); ok {
		b.Store(true)
	}
}

// exitSignal is the exit status of a command ended by sig: 128+its number.
func exitSignal(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 128 + int(syscall.SIGINT)
}

// runWithSignals is run under the signal rules above: main, and the test
// binary acting as the CLI.
func runWithSignals(args []string, stdout, stderr io.Writer) int {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	var ends atomic.Bool
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), signalEndsKey{}, &ends))
	defer cancel()
	done := make(chan int, 1)
	go func() { done <- run(ctx, args, stdout, stderr) }()

	atOnce := len(args) > 0 && stopsAtOnce[args[0]]
	var first os.Signal
	var bound <-chan time.Time
	for {
		select {
		case code := <-done:
			if first != nil && !ends.Load() {
				return exitSignal(first)
			}
			return code
		case sig := <-sigs:
			if first == nil && atOnce {
				fmt.Fprintf(stderr, "mcpcheck: %s: stopped\n", signalName(sig))
				return exitSignal(sig)
			}
			if first == nil {
				first = sig
				cancel()
				if !ends.Load() {
					fmt.Fprintf(stderr, "%smcpcheck: %s: stopping; writing the reports of what ran (again to stop at once)\n", newLine(stderr), signalName(sig))
				}
				bound = time.After(stopBound)
				continue
			}
			if !ends.Load() {
				n := runner.KillServers()
				fmt.Fprintf(stderr, "mcpcheck: %s again: stopped at once (%d server process group(s) killed); no report written\n", signalName(sig), n)
			}
			return exitSignal(sig)
		case <-bound:
			n := runner.KillServers()
			fmt.Fprintf(stderr, "mcpcheck: still not stopped %s after %s (%d server process group(s) killed); exiting without waiting for the reports\n", stopBound, signalName(first), n)
			return exitSignal(first)
		}
	}
}

// signalName is "SIGINT" or "SIGTERM".
func signalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return sig.String()
}

// newLine clears the current line when w is a terminal: the message then
// takes the place of the live status line (which the stream draws again
// below it) or of the "^C" the terminal echoed, instead of following them.
func newLine(w io.Writer) string {
	if f, ok := w.(*os.File); ok && report.IsTerminal(f) {
		return "\r\x1b[K"
	}
	return ""
}
