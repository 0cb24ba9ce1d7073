// Package stdio is the plumbing of a server mcpcheck starts and talks to
// over its stdin and stdout, shared by the runner's stdio transport and
// record's proxy: the child [Process] and its shutdown, and the bounded
// [LineReader].
//
// # No process left behind
//
// A server runs in a process group of its own (Ctrl-C reaches mcpcheck,
// which shuts the server down in order). [Process.Close] closes its stdin,
// waits a grace, sends SIGTERM, waits a grace, sends SIGKILL: to the
// server's whole tree, not only to the server. What the tree is depends on
// the system:
//
//   - On Linux, mcpcheck makes itself a child subreaper (prctl
//     PR_SET_CHILD_SUBREAPER), so a descendant whose parent exits is
//     re-parented to mcpcheck rather than to init. The tree is the server,
//     the members of its process group, and every process descending from
//     those (found through the kernel's children lists, or by parent pid
//     in all of /proc where there are none, scanned before the server is
//     asked to stop, so a grandchild that called setsid is included).
//     Those are killed and reaped. Every server starts with [TreeEnv] in
//     its environment, which its descendants inherit: when the last server
//     of this mcpcheck has been closed, each marked process re-parented to
//     mcpcheck (a daemon whose parent exited before the scan) is killed
//     and reaped too. A process that is in none of these (it left the
//     group and cleared its environment, and its parent exited early) is
//     left alone: mcpcheck never signals a process it cannot tie to a
//     server it started.
//   - Elsewhere, the tree is the server's process group: a descendant that
//     left the group (setsid, setpgid) survives the server.
//
// A mcpcheck killed with SIGKILL cleans up nothing.
package stdio

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// TreeEnv is the variable that marks the processes of the servers mcpcheck
// starts (set to "1", the same in every run, so a server that reports its
// environment answers the same in a recording and its replay).
const TreeEnv = "MCPCHECK_SERVER_TREE"

const treeMark = "1"

// live counts the servers started and not yet closed. While one is, a
// marked process re-parented to mcpcheck may be a helper it still uses;
// when the last is closed, every such process is left by a server that is
// gone, and is killed. The lock also keeps a server from being started
// (marked, a child of mcpcheck) while the orphans are swept.
var live struct {
	mu sync.Mutex
	n  int
}

// killWait bounds the wait for a process to go after SIGKILL.
const killWait = 5 * time.Second

// ExitDrain is how long a server's stdout is still read once the server has
// exited: what it wrote last is in the pipe, but a process it left behind
// may hold the pipe open, and the end of the server is the end of the
// session.
const ExitDrain = time.Second

// Process is one server started by mcpcheck, with its stdin and stdout
// pipes.
type Process struct {
	cmd *exec.Cmd
	// Stdin is mcpcheck's end of the server's stdin. Writes to it can be
	// given a deadline (SetWriteDeadline), and closing it ends a write
	// blocked on a server that stopped reading.
	Stdin *os.File
	// Stdout is mcpcheck's end of the server's stdout; closing it ends a
	// read blocked on it.
	Stdout *os.File
	stderr *os.File // our end of its stderr, copied until Close
	grace  time.Duration

	done    chan struct{} // closed once the server has been waited for
	waitErr error

	closing   atomic.Bool
	closeOnce sync.Once
	closeErr  error
	// hurry is closed by Hurry: the run was interrupted, and Close waits
	// HurryGrace, not the grace, at each stage.
	hurry     chan struct{}
	hurryOnce sync.Once
	tree      tree // the members seen so far (Linux)
}

// Start starts argv in dir with env (nil: mcpcheck's own), copying its
// stderr to stderr (nil: discarded). grace is how long the server gets to
// exit after its stdin is closed, and again after SIGTERM.
func Start(argv []string, dir string, env []string, stderr io.Writer, grace time.Duration) (*Process, error) {
	becomeSubreaper()
	cmd := exec.Command(argv[0], argv[1:]...)
	if errors.Is(cmd.Err, exec.ErrDot) {
		cmd.Err = nil
	}
	if env == nil {
		env = os.Environ()
	}
	cmd.Dir = dir
	cmd.Env = append(env[:len(env):len(env)], TreeEnv+"="+treeMark)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if stderr == nil {
		stderr = io.Discard
	}

	// Each pipe (stdin, stdout, stderr) has an end for the child and one
	// for us.
	var child, ours [3]*os.File
	for i := range child {
		r, w, err := os.Pipe()
		if err != nil {
			closeFiles(child[:i])
			closeFiles(ours[:i])
			return nil, err
		}
		if i == 0 {
			child[i], ours[i] = r, w // stdin: the child reads
		} else {
			child[i], ours[i] = w, r // stdout, stderr: the child writes
		}
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = child[0], child[1], child[2]
	live.mu.Lock()
	err := cmd.Start()
	if err == nil {
		live.n++
	}
	live.mu.Unlock()
	closeFiles(child[:]) // the child holds its own copies now (or never will)
	if err != nil {
		closeFiles(ours[:])
		return nil, err
	}
	inW, outR, errR := ours[0], ours[1], ours[2]
	p := &Process{cmd: cmd, Stdin: inW, Stdout: outR, stderr: errR, grace: grace, done: make(chan struct{}), hurry: make(chan struct{})}
	copied := make(chan struct{})
	go func() {
		io.Copy(stderr, errR)
		close(copied)
	}()
	go func() {
		p.waitErr = cmd.Wait()
		// Give the stderr copy a moment to drain what the child wrote last;
		// a grandchild holding the pipe open must not block us (Close
		// closes our end once the tree is gone).
		select {
		case <-copied:
		case <-time.After(500 * time.Millisecond):
		}
		close(p.done)
	}()
	return p, nil
}

// closeFiles closes each of files.
func closeFiles(files []*os.File) {
	for _, f := range files {
		f.Close()
	}
}

// Pid is the server's process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Done is closed once the server has exited and been waited for.
func (p *Process) Done() <-chan struct{} { return p.done }

// Exited reports whether the server has exited, waiting up to d for it.
func (p *Process) Exited(d time.Duration) bool {
	if d <= 0 {
		select {
		case <-p.done:
			return true
		default:
			return false
		}
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.done:
		return true
	case <-t.C:
		return false
	}
}

// HurryGrace is each stage's wait of a Close after Hurry: long enough for
// a server that ends on EOF or SIGTERM as it should, short enough that
// Ctrl-C ends a run within a second when nothing is stuck (a server
// whose timers keep it alive after EOF, as server-everything's do during
// a long operation, took the whole grace, 2 s, before its SIGTERM).
const HurryGrace = 250 * time.Millisecond

// Hurry shortens the shutdown of the server, under way or to come, to
// HurryGrace per stage: the user asked the run to stop. Safe from any
// goroutine, idempotent.
func (p *Process) Hurry() {
	p.hurryOnce.Do(func() { close(p.hurry) })
}

// exitedInGrace waits up to the grace for the server to exit, or up to
// HurryGrace once hurried (a hurry in the middle of the wait shortens it).
func (p *Process) exitedInGrace() bool {
	select {
	case <-p.hurry:
		return p.Exited(HurryGrace)
	default:
	}
	t := time.NewTimer(p.grace)
	defer t.Stop()
	select {
	case <-p.done:
		return true
	case <-t.C:
		return false
	case <-p.hurry:
		return p.Exited(HurryGrace)
	}
}

// ExitStatus describes how the server ended ("exit status 3", "signal:
// killed"), or "" while it runs.
func (p *Process) ExitStatus() string {
	if !p.Exited(0) {
		return ""
	}
	if p.waitErr == nil {
		return "exit status 0"
	}
	return p.waitErr.Error()
}

// Closing reports whether Close has begun: the connection to the server is
// over, whatever the process is still doing.
func (p *Process) Closing() bool { return p.closing.Load() }

// Close shuts the server down the way the MCP spec asks for stdio: close
// its stdin, wait the grace, SIGTERM its tree, wait the grace, SIGKILL the
// tree, wait. Whatever of the tree is left when the server has gone
// (children that outlived it) is killed and reaped. Close is idempotent,
// bounded (2 graces and a few seconds), and closes both pipes, so a read
// or write blocked on them returns.
func (p *Process) Close() error {
	p.closing.Store(true)
	p.closeOnce.Do(func() {
		// Learn the tree while the server is alive: once it exits, its
		// children are re-parented and no longer point to it.
		p.tree.scan(p)
		p.Stdin.Close()
		if !p.exitedInGrace() {
			p.tree.signal(p, syscall.SIGTERM)
			if !p.exitedInGrace() {
				p.tree.signal(p, syscall.SIGKILL)
				if !p.Exited(killWait) {
					p.closeErr = fmt.Errorf("server process %d did not exit after SIGKILL", p.Pid())
				}
			}
		}
		// The server is gone; anything it left goes too.
		p.tree.sweep(p)
		live.mu.Lock()
		live.n--
		if live.n == 0 {
			sweepOrphans()
		}
		live.mu.Unlock()
		p.Stdout.Close()
		// A descendant outside the tree may still hold stderr open; the
		// copy ends here.
		p.stderr.Close()
	})
	return p.closeErr
}
