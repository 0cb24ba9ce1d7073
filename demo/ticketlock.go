package demo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// ticketLock is the lock that ticket_counter holds while it reads the
// ticket display. It is shared by every demo server in the process (an
// in-process mutex per path) and, where the platform has file locks, by
// every process of the same user on the machine (a lock file in the
// temporary directory). The second part is what lets independent
// connections contend over stdio, where each connection is a process of its
// own.
type ticketLock struct {
	path string
	mu   *sync.Mutex // shared by every ticketLock of this path in the process
}

var (
	ticketMutexesMu sync.Mutex
	ticketMutexes   = map[string]*sync.Mutex{}
)

func newTicketLock(path string) *ticketLock {
	ticketMutexesMu.Lock()
	defer ticketMutexesMu.Unlock()
	mu := ticketMutexes[path]
	if mu == nil {
		mu = &sync.Mutex{}
		ticketMutexes[path] = mu
	}
	return &ticketLock{path: path, mu: mu}
}

// defaultTicketLockPath is the lock file of ticket_counter: one per user, in
// os.TempDir (so TMPDIR moves it, which tests use to keep apart).
func defaultTicketLockPath() string {
	return filepath.Join(os.TempDir(), fmt.Sprintf("mcpcheck-demo-%d-ticket_counter.lock", os.Getuid()))
}

// lockPoll is how often a waiting acquire tries the lock again.
const lockPoll = time.Millisecond

// acquire takes the lock, trying for at most wait. It returns a release
// function and true, or false when the lock stayed taken; the error is
// ctx's if the call was cancelled meanwhile. If the lock file cannot be
// used, the in-process lock alone is taken.
func (l *ticketLock) acquire(ctx context.Context, wait time.Duration) (release func(), ok bool, err error) {
	deadline := time.Now().Add(wait)
	try := func(f func() bool) (bool, error) {
		for !f() {
			if time.Now().After(deadline) {
				return false, nil
			}
			t := time.NewTimer(lockPoll)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return false, ctx.Err()
			}
		}
		return true, nil
	}
	if ok, err := try(l.mu.TryLock); !ok {
		return nil, false, err
	}
	f, err := openLockFile(l.path)
	if err != nil {
		// No usable lock file: the process-wide lock has to do.
		return l.mu.Unlock, true, nil
	}
	usable := true
	ok, err = try(func() bool {
		taken, err := tryFileLock(f)
		if err != nil {
			usable = false
			return true
		}
		return taken
	})
	if !ok {
		f.Close()
		l.mu.Unlock()
		return nil, false, err
	}
	return func() {
		if usable {
			unlockFile(f)
		}
		f.Close()
		l.mu.Unlock()
	}, true, nil
}
