package runner

import (
	"context"
	"errors"
	"sync"
	"syscall"
	"time"

	"github.com/mcpcheck/mcpcheck/runner/report"
)

// An interrupted run (its context ends before it does: Ctrl-C, SIGTERM, a
// caller's cancel) stops starting work at once: a call in flight is
// cancelled and its step is skipped "interrupted", steps not started are
// skipped "not run: the run was interrupted", and sessions are closed the
// ordinary way (stdin closed, SIGTERM, SIGKILL) but hurried: each stage
// waits stdio.HurryGrace, not the grace, so that Ctrl-C ends a run within
// a second when nothing is stuck.
//
// A server can hold that shutdown up: one that ignores SIGTERM, or stops
// reading its input so that a write to it blocks a call (and the SDK's
// Close, which waits for its handlers) for ever. So when the context ends,
// the run's servers get interruptGrace to go in order; then every process
// group the run started and has not yet reaped is killed, which ends every
// read and write on their pipes, and the run ends with its report.
const interruptGrace = 3 * time.Second

// procSet is a set of stdio server processes and their process groups:
// the ones started and not yet seen to have exited (an entry is dropped
// when a later one is added after it exited, so the set stays as small as
// the servers alive at once). It knows nothing of how a process is closed.
type procSet struct {
	mu    sync.Mutex
	procs map[*process]int // the process group (its leader's pid)
}

func (s *procSet) add(p *process, pgid int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.procs == nil {
		s.procs = map[*process]int{}
	}
	for q := range s.procs {
		if q.Exited(0) {
			delete(s.procs, q)
		}
	}
	s.procs[p] = pgid
}

// kill sends SIGKILL to the process group of every process in the set,
// and returns how many of them were still running. It waits for nothing.
// A group whose leader was reaped is killed too, then forgotten (what the
// leader left in its group goes, as process.Close does; a group id is not
// reused while the group has members).
func (s *procSet) kill() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for p, pgid := range s.procs {
		exited := p.Exited(0)
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		if exited {
			delete(s.procs, p)
		} else {
			n++
		}
	}
	return n
}

// hurry shortens the shutdown of every server in the set (an interrupted
// run): see stdio.Process.Hurry.
func (s *procSet) hurry() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for p := range s.procs {
		p.Hurry()
	}
}

// allServers holds every server process this program started, whatever run
// started it (see KillServers).
var allServers procSet

// track adds p, just started by the dialer of a run in a process group of
// its own (pgid), to the run's set and to allServers.
func (d *dialer) track(p *process, pgid int) {
	d.live.add(p, pgid)
	allServers.add(p, pgid)
}

// KillServers sends SIGKILL to the process group of every stdio server
// this program started that may still run, and returns how many there
// were. It is for a program about to exit at once (a second Ctrl-C): it
// waits for nothing. Safe from any goroutine.
func KillServers() int { return allServers.kill() }

// watchInterrupt kills the run's servers when ctx ends and the run has not
// finished interruptGrace later (see interruptGrace). The returned func
// marks the run finished; call it before the run returns.
func (r *runState) watchInterrupt(ctx context.Context) (finished func()) {
	var mu sync.Mutex
	var timer *time.Timer
	done := false
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if !done {
			// The servers are closed in order, each stage shortened
			// (stdio.HurryGrace), then killed if still there.
			r.d.live.hurry()
			timer = time.AfterFunc(interruptGrace, func() { r.d.live.kill() })
		}
	})
	return func() {
		stop()
		mu.Lock()
		defer mu.Unlock()
		done = true
		if timer != nil {
			timer.Stop()
		}
	}
}

// cutShort reports whether the context of a call (callCtx, derived from the
// run's ctx) ended because the run was interrupted, not by the call's own
// deadline: a deadline that fired first makes the call a timeout, whatever
// came after.
func cutShort(ctx, callCtx context.Context) bool {
	return ctx.Err() != nil && !errors.Is(callCtx.Err(), context.DeadlineExceeded)
}

// interruptedStep reports whether st was skipped because the run was
// interrupted (before it began, or while its call was in flight).
func interruptedStep(st *report.StepResult) bool {
	return st.Status == report.StatusSkipped && (st.Reason == reasonInterrupted || st.Reason == reasonInterruptedCall)
}
