package runner

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// errUnreachable means a lost session could not be replaced: the run
// terminates early and every step not yet run is skipped.
var errUnreachable = errors.New("server unreachable")

// link is a session that is replaced when it is lost. Scenarios that share
// the suite's session share one link; with isolation: scenario each scenario
// has its own.
//
// A session counts as lost when its connection has closed (the SDK's Wait
// returned: the stdio server exited or the HTTP connection failed) or when a
// call reported the HTTP session gone (404). A timeout does not lose a
// session: the call was cancelled and the same session goes on.
//
// Replacement happens only at a boundary the user can reason about: before
// a scenario starts, and before each step of a scenario that sets
// `reconnect: true`. Over stdio that relaunches the server; over HTTP it
// initializes a new session. Each replacement counts as a restart. When a
// replacement fails, the link is down for good: the run terminates early.
type link struct {
	mu   sync.Mutex
	sess *session
	down error
	// tmp is the scratch directory its sessions are made with.
	tmp string
	// calls is held shared by every call on the link and exclusively by a
	// call run again alone (see runScenario).
	calls sync.RWMutex
	// lostScenario and lostStep name the step whose call lost the current
	// (or last) session.
	lostScenario, lostStep string
}

// lostAt records that the call of step in scenario lost s, unless an
// earlier step already did.
func (l *link) lostAt(s *session, scenario, step string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.sess == s && l.lostStep == "" {
		l.lostScenario, l.lostStep = scenario, step
	}
}

func (l *link) lostBy() (string, string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lostScenario, l.lostStep
}

// session returns the link's live session, replacing a lost one.
func (r *runState) session(ctx context.Context, l *link, replace bool) (*session, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.down != nil {
		return nil, l.down
	}
	if l.sess != nil && replace && !l.sess.lost() && l.sess.suspect.Load() {
		if l.sess.alive(ctx) {
			l.sess.suspect.Store(false)
			l.lostScenario, l.lostStep = "", ""
		} else {
			l.sess.gone.Store(true)
		}
	}
	if l.sess != nil && (!replace || !l.sess.lost()) {
		return l.sess, nil
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	replacing := l.sess != nil
	if replacing {
		r.retire(l.sess)
	}
	s, err := r.open(ctx, l.tmp)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		l.sess = nil
		l.down = fmt.Errorf("%w: %v", errUnreachable, err)
		return nil, l.down
	}
	if replacing {
		r.mu.Lock()
		r.rep.Restarts++
		r.mu.Unlock()
	}
	l.sess = s
	l.lostScenario, l.lostStep = "", ""
	return s, nil
}

// close ends the link's session, if any.
func (l *link) close(r *runState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.sess != nil {
		r.retire(l.sess)
		l.sess = nil
	}
}

// current returns the link's session without replacing it.
func (l *link) current() *session {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sess
}
