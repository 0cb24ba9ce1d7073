package probe

import (
	"context"
	"time"
)

// # A fresh process's wait starts once it is up
//
// A probe that needs a server process of its own (Probe.Fresh) writes its
// message as soon as the process is started. A runtime that loads for
// seconds before it reads its stdin (Node.js, npx, a loaded machine) would
// spend the probe's whole wait (MaxWait) starting, and a server that
// answers at once would be judged silent. So the first Send on a
// connection marked Starting waits, within the bound given, until the
// server has read what was written (the pipe says so: stdio.Process.Unread)
// and only then starts the probe's wait. Where the pipe cannot say, the
// wait starts at once, as before.

// upPoll is how often a starting server's stdin is looked at.
const upPoll = 10 * time.Millisecond

// Starting marks c as a process just started: its first Send's wait starts
// once the server has read the message, or after bound.
func (c *Stdio) Starting(bound time.Duration) { c.starting = bound }

// awaitRead waits, at most bound, until the server has read everything
// written to its stdin, has exited, or ctx ends.
func (c *Stdio) awaitRead(ctx context.Context, bound time.Duration) {
	deadline := time.NewTimer(bound)
	defer deadline.Stop()
	tick := time.NewTicker(upPoll)
	defer tick.Stop()
	for {
		if n, ok := c.proc.Unread(); !ok || n == 0 || c.proc.Exited(0) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-deadline.C:
			return
		case <-tick.C:
		}
	}
}

// # A server still working is waited for
//
// MaxWait ends the wait for a server that answers neither the probe nor
// its observer. Where the machine can say (stdio.Process.Work), a server
// whose processes are still working when it passes — one of them running
// or waiting for a CPU, or CPU used since the last look — is waited for a
// second more, again and again up to busyExtra in all: on a machine
// running two test suites, a Node.js server that had read the probe was
// still starting its answer after 15 s, and a shard's report named it
// silent where the whole run's did not. A server that ignores the probe
// (or waits for something that will not come) sleeps and is judged at
// MaxWait as before; one that spins forever costs busyExtra more.
const (
	busyStep  = time.Second
	busyExtra = 3 * MaxWait
)
