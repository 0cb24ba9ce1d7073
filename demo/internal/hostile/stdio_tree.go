package hostile

import (
	"context"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
	"time"
)

// PidFileEnv names a file where the orphan modes' grandchild writes its pid,
// so a test can check that it is gone after the run.
const PidFileEnv = "HOSTILE_PID_FILE"

// sleeperEnv makes a re-executed mode the grandchild instead of the server.
const sleeperEnv = "HOSTILE_SLEEPER"

// Servers whose processes outlive them: a grandchild that leaves the
// process group (setsid), a server that exits and leaves it behind, one
// that ignores SIGTERM. A client must leave none of them running.
func init() {
	tools := []Tool{SimpleTool("echo", "Returns its text.", "text")}
	echo := func(c *Conn, m *Msg, call Call) error { return c.Reply(m.ID, EchoResult(call)) }
	register(Mode{
		Name: "stdio-setsid-grandchild",
		Doc:  "starts a grandchild that calls setsid and sleeps, holding stdout open; answers echo",
		Stdio: func(ctx context.Context, c *Conn) error {
			if os.Getenv(sleeperEnv) != "" {
				return sleeper(ctx)
			}
			if err := spawnSleeper(); err != nil {
				return err
			}
			return c.Loop(ctx, "stdio-setsid-grandchild", tools, echo)
		},
	})
	register(Mode{
		Name: "stdio-daemon-exit",
		Doc:  "on tools/call, starts a grandchild that calls setsid and sleeps, then exits",
		Stdio: func(ctx context.Context, c *Conn) error {
			if os.Getenv(sleeperEnv) != "" {
				return sleeper(ctx)
			}
			return c.Loop(ctx, "stdio-daemon-exit", tools, func(c *Conn, m *Msg, call Call) error {
				if err := spawnSleeper(); err != nil {
					return err
				}
				os.Exit(0)
				return nil
			})
		},
	})
	register(Mode{
		Name: "stdio-ignore-term",
		Doc:  "ignores SIGTERM and does not exit when its stdin closes (writes its pid); answers echo",
		Stdio: func(ctx context.Context, c *Conn) error {
			signal.Ignore(syscall.SIGTERM)
			if f := os.Getenv(PidFileEnv); f != "" {
				os.WriteFile(f, []byte(strconv.Itoa(os.Getpid())), 0o600)
			}
			c.Loop(ctx, "stdio-ignore-term", tools, echo)
			for {
				time.Sleep(time.Hour)
			}
		},
	})
}

// spawnSleeper starts this program again as the sleeper, with the server's
// stdout and stderr, and writes its pid at once: a client that ends the
// server before the sleeper has even started (a loaded machine) must still
// leave no process, and a test always finds the pid to check that.
func spawnSleeper() error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(exe, os.Args[1:]...)
	cmd.Env = append(os.Environ(), sleeperEnv+"=1")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	writePid(cmd.Process.Pid)
	go cmd.Wait()
	return nil
}

// writePid writes pid to the file PidFileEnv names, if any.
func writePid(pid int) {
	if f := os.Getenv(PidFileEnv); f != "" {
		os.WriteFile(f, []byte(strconv.Itoa(pid)), 0o600)
	}
}

// sleeper leaves the server's session and process group, writes its pid
// and sleeps, ignoring SIGTERM.
func sleeper(ctx context.Context) error {
	syscall.Setsid()
	signal.Ignore(syscall.SIGTERM)
	writePid(os.Getpid())
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Minute):
	}
	return nil
}
