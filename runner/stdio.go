package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stderrLimit bounds how much of a server's stderr is kept (the tail).
const stderrLimit = 64 << 10

// process is one stdio server: the child, its pipes and its stderr tail. It
// is the runner's own transport rather than the SDK's CommandTransport so
// that the child runs in its own process group (Ctrl-C reaches the runner,
// which shuts the server down in order, and grandchildren such as the node
// process behind npx are reaped with it), stderr is kept in a bounded
// buffer, and the exit status is known when a call fails.
type process struct {
	cmd    *exec.Cmd
	stdin  *os.File // our end of the child's stdin
	stdout *os.File // our end of the child's stdout
	stderr *tailBuffer
	grace  time.Duration

	done    chan struct{} // closed once the child has been waited for
	waitErr error

	closeOnce sync.Once
	closeErr  error
}

// startProcess starts argv in dir with env.
func startProcess(argv []string, dir string, env []string, grace time.Duration) (*process, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	if errors.Is(cmd.Err, exec.ErrDot) {
		cmd.Err = nil
	}
	cmd.Dir = dir
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}

	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	err = cmd.Start()
	// The child holds its own copies now (or never will).
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, err
	}
	p := &process{cmd: cmd, stdin: inW, stdout: outR, stderr: &tailBuffer{limit: stderrLimit}, grace: grace, done: make(chan struct{})}
	copied := make(chan struct{})
	go func() {
		io.Copy(p.stderr, errR)
		errR.Close()
		close(copied)
	}()
	go func() {
		p.waitErr = cmd.Wait()
		// Give the stderr copy a moment to drain what the child wrote last;
		// a grandchild holding the pipe open must not block us.
		select {
		case <-copied:
		case <-time.After(500 * time.Millisecond):
		}
		close(p.done)
	}()
	return p, nil
}

// Exited reports whether the child has exited, waiting up to d for it.
func (p *process) Exited(d time.Duration) bool {
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

// Pid is the child's process id, also its process group's.
func (p *process) Pid() int { return p.cmd.Process.Pid }

// ExitStatus describes how the child ended ("exit status 3", "signal:
// killed"), or "" while it runs.
func (p *process) ExitStatus() string {
	if !p.Exited(0) {
		return ""
	}
	if p.waitErr == nil {
		return "exit status 0"
	}
	return p.waitErr.Error()
}

// Close shuts the child down the way the MCP spec asks for stdio: close its
// stdin, wait, SIGTERM the process group, wait, SIGKILL the group, wait. It
// is idempotent and always leaves no process of the group behind.
func (p *process) Close() error {
	p.closeOnce.Do(func() {
		p.stdin.Close()
		if !p.Exited(p.grace) {
			p.signal(syscall.SIGTERM)
			if !p.Exited(p.grace) {
				p.signal(syscall.SIGKILL)
				if !p.Exited(5 * time.Second) {
					p.closeErr = fmt.Errorf("server process %d did not exit after SIGKILL", p.cmd.Process.Pid)
				}
			}
		}
		// The leader is gone; anything it left in its group goes too.
		p.signal(syscall.SIGKILL)
		p.stdout.Close()
	})
	return p.closeErr
}

func (p *process) signal(sig syscall.Signal) {
	// A negative pid signals the whole process group.
	_ = syscall.Kill(-p.cmd.Process.Pid, sig)
}

// Transport connects the SDK to the child's stdin/stdout.
func (p *process) Transport() mcp.Transport {
	return &mcp.IOTransport{Reader: p.stdout, Writer: processWriter{p}, MaxLineLength: -1}
}

// processWriter is the child's stdin; closing it shuts the child down.
type processWriter struct{ p *process }

func (w processWriter) Write(b []byte) (int, error) { return w.p.stdin.Write(b) }
func (w processWriter) Close() error                { return w.p.Close() }

// StderrTail returns up to n last lines of the child's stderr.
func (p *process) StderrTail(n int) []string { return p.stderr.Tail(n) }

// tailBuffer keeps the last limit bytes written to it.
type tailBuffer struct {
	mu    sync.Mutex
	limit int
	buf   []byte
	cut   bool // bytes were dropped from the front
}

func (t *tailBuffer) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if over := len(t.buf) - t.limit; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.cut = true
	}
	return len(b), nil
}

// Tail returns the last n complete-or-trailing lines.
func (t *tailBuffer) Tail(n int) []string {
	t.mu.Lock()
	data := bytes.TrimRight(t.buf, "\r\n")
	cut := t.cut
	t.mu.Unlock()
	if len(data) == 0 {
		return nil
	}
	lines := strings.Split(string(data), "\n")
	if cut && len(lines) > 1 {
		lines = lines[1:] // the first line is partial
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines
}

// waitCtx waits for d or ctx.
func waitCtx(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
