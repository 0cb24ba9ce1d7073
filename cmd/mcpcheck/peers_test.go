package main

// The interop tests' peers: this file installs and starts the pinned
// third-party MCP servers (package.json and package-lock.json at the
// repository root) for the interop tests.
//
// The servers are installed once with `npm ci` into a cache directory keyed
// by the lock file's hash, so repeated test runs and several test packages
// share one install. When node or npm is missing the tests that need them
// skip with a visible reason, unless MCPCHECK_REQUIRE_INTEROP=1 (set by CI),
// in which case they fail: a CI run must never pass by skipping interop.

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Entry points of the pinned servers, relative to the install directory.
const (
	peerEverything = "node_modules/@modelcontextprotocol/server-everything/dist/index.js"
	peerMemory     = "node_modules/@modelcontextprotocol/server-memory/dist/index.js"
	peerFilesystem = "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"
)

// requireInteropEnv names the variable that turns a missing Node.js into a failure.
const requireInteropEnv = "MCPCHECK_REQUIRE_INTEROP"

// peerRoot returns the repository root (where package.json lives).
func peerRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// peerDir installs the pinned servers if needed and returns the install
// directory (holding node_modules). It skips or fails t when Node.js is not
// available, as described at the top of this file.
func peerDir(t testing.TB) string {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv(requireInteropEnv) == "1" {
				t.Fatalf("interop: %s not found on PATH and %s=1", tool, requireInteropEnv)
			}
			t.Skipf("interop: %s not found on PATH; skipping (set %s=1 to make this a failure)", tool, requireInteropEnv)
		}
	}
	dir, err := peerInstall()
	if err != nil {
		t.Fatalf("interop: %v", err)
	}
	nodeSlot(t)
	return dir
}

func peerInstall() (string, error) {
	root := peerRoot()
	pkg, err := os.ReadFile(filepath.Join(root, "package.json"))
	if err != nil {
		return "", err
	}
	lock, err := os.ReadFile(filepath.Join(root, "package-lock.json"))
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(append(append(pkg, 0), lock...))
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	dir := filepath.Join(base, "mcpcheck", "peers", hex.EncodeToString(sum[:8]))
	done := filepath.Join(dir, ".installed")
	if _, err := os.Stat(done); err == nil {
		return dir, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	// Test packages run in parallel processes: one installs, the others wait.
	lf, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", err
	}
	defer lf.Close()
	if err := syscall.Flock(int(lf.Fd()), syscall.LOCK_EX); err != nil {
		return "", err
	}
	defer syscall.Flock(int(lf.Fd()), syscall.LOCK_UN)
	if _, err := os.Stat(done); err == nil {
		return dir, nil
	}
	for name, data := range map[string][]byte{"package.json": pkg, "package-lock.json": lock} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return "", err
		}
	}
	cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("npm ci in %s: %v\n%s", dir, err, out.String())
	}
	return dir, os.WriteFile(done, []byte(time.Now().UTC().Format(time.RFC3339)), 0o644)
}

// peerFreePort returns a loopback TCP port that was free a moment ago.
func peerFreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startEverythingHTTP starts server-everything's Streamable HTTP transport on
// a free loopback port and returns its endpoint; the server is stopped when
// the test ends.
func startEverythingHTTP(t testing.TB, dir string) string {
	t.Helper()
	return startEverythingIn(t, dir, "streamableHttp") + "/mcp"
}

// startEverythingSSE is startEverythingHTTP for the legacy HTTP+SSE
// transport; it returns the URL of the event stream.
func startEverythingSSE(t testing.TB, dir string) string {
	t.Helper()
	return startEverythingIn(t, dir, "sse") + "/sse"
}

// startEverythingIn starts server-everything in mode on a free port and
// returns its origin once it listens.
func startEverythingIn(t testing.TB, dir, mode string) string {
	t.Helper()
	port := peerFreePort(t)
	cmd := exec.Command("node", filepath.Join(dir, peerEverything), mode)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port), "GZIP_ALLOWED_DOMAINS=localhost")
	logs, err := os.Create(filepath.Join(t.TempDir(), "server-everything.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logs, logs
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting server-everything: %v", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
	})
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	// Node.js takes seconds to start on a loaded machine (two test suites
	// at once: over 30 s): the bound is for a server that never listens,
	// and a server that exited fails at once.
	deadline := time.Now().Add(3 * time.Minute)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			break
		}
		select {
		case <-exited:
			out, _ := os.ReadFile(logs.Name())
			t.Fatalf("server-everything exited before it listened on %s\n%s", addr, strings.TrimSpace(string(out)))
		default:
		}
		if time.Now().After(deadline) {
			out, _ := os.ReadFile(logs.Name())
			t.Fatalf("server-everything did not listen on %s: %v\n%s", addr, err, strings.TrimSpace(string(out)))
		}
		time.Sleep(50 * time.Millisecond)
	}
	return "http://" + addr
}
