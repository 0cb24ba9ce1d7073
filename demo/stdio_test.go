package demo

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// childEnv makes the test binary run as the demo server over stdio, so that
// the stdio tests talk to a real process through real pipes. childArgsEnv
// holds the child's arguments to "mcpcheck demo", separated by spaces.
const (
	childEnv     = "MCPCHECK_DEMO_TEST_CHILD"
	childArgsEnv = "MCPCHECK_DEMO_TEST_ARGS"
)

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := Run(ctx, strings.Fields(os.Getenv(childArgsEnv)), os.Stdin, os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// childCommand returns a command that runs this test binary as the demo
// server with the given arguments, with an explicit environment and stderr
// captured in the returned buffer (read it only after the command has been
// waited for).
func childCommand(t *testing.T, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = []string{childEnv + "=1", childArgsEnv + "=" + strings.Join(args, " ")}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = 5 * time.Second
	return cmd, &stderr
}

func TestStdio(t *testing.T) {
	for _, version := range protocolVersions {
		t.Run(version, func(t *testing.T) {
			ctx := testContext(t)
			cmd, stderr := childCommand(t)
			cs, err := newClient().Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			if got := cs.InitializeResult().ProtocolVersion; got != version {
				t.Errorf("negotiated %q, want %q", got, version)
			}
			householdFlow(t, ctx, cs)

			// Closing stdin is a clean end: Close reports the exit status.
			if err := cs.Close(); err != nil {
				t.Errorf("close: %v (stderr: %q)", err, stderr.String())
			}
			if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 0 {
				t.Errorf("server exit: %v, want 0", cmd.ProcessState)
			}
			if stderr.Len() > 0 {
				t.Errorf("unexpected stderr: %q", stderr.String())
			}
		})
	}
}

// TestStdioOutputIsOnlyJSONRPC drives the server with raw bytes and checks
// that every line it writes to stdout is a JSON-RPC 2.0 message.
func TestStdioOutputIsOnlyJSONRPC(t *testing.T) {
	cmd, stderr := childCommand(t)
	cmd.Stdin = strings.NewReader(strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"propose_task","arguments":{"text":"x"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"commit_task","arguments":{"proposalId":"nope","expectedRevision":0,"idempotencyKey":"k"}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}`,
	}, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("server: %v (stderr: %q)", err, stderr.String())
	}
	ids := map[float64]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var msg struct {
			JSONRPC string   `json:"jsonrpc"`
			ID      *float64 `json:"id"`
		}
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil || msg.JSONRPC != "2.0" {
			t.Errorf("stdout line is not JSON-RPC 2.0: %q", sc.Text())
			continue
		}
		if msg.ID != nil {
			ids[*msg.ID] = true
		}
	}
	for id := 1.0; id <= 5; id++ {
		if !ids[id] {
			t.Errorf("no response to request %v in %q", id, out)
		}
	}
}

// TestServeStdioReturns checks ServeStdio's two normal ends in-process: EOF
// on in, and ctx cancellation.
func TestServeStdioReturns(t *testing.T) {
	t.Run("EOF", func(t *testing.T) {
		var out bytes.Buffer
		in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}` + "\n")
		if err := ServeStdio(testContext(t), Options{}, in, &out); err != nil {
			t.Errorf("ServeStdio = %v, want nil", err)
		}
		if !strings.Contains(out.String(), `"mcpcheck-demo"`) {
			t.Errorf("no initialize result in %q", out.String())
		}
	})
	t.Run("cancel", func(t *testing.T) {
		pr, pw := io.Pipe()
		defer pw.Close()
		ctx, cancel := context.WithCancel(testContext(t))
		done := make(chan error, 1)
		go func() { done <- ServeStdio(ctx, Options{}, pr, io.Discard) }()
		cancel()
		select {
		case err := <-done:
			if err != context.Canceled {
				t.Errorf("ServeStdio = %v, want context.Canceled", err)
			}
		case <-time.After(testTimeout):
			t.Fatal("ServeStdio did not return after cancel")
		}
	})
	t.Run("garbage", func(t *testing.T) {
		// The protocol guard answers what is not JSON-RPC and goes on.
		var out bytes.Buffer
		err := ServeStdio(testContext(t), Options{}, strings.NewReader("not json\n[]\n{\"jsonrpc\":\"1.0\",\"id\":7,\"method\":\"ping\"}\n"), &out)
		if err != nil {
			t.Errorf("ServeStdio = %v on input that is not JSON-RPC, want nil at EOF", err)
		}
		want := `{"error":{"code":-32700,"message":"parse error"},"id":null,"jsonrpc":"2.0"}` + "\n" +
			`{"error":{"code":-32600,"message":"invalid request: JSON-RPC batches are not supported (removed in 2025-06-18)"},"id":null,"jsonrpc":"2.0"}` + "\n" +
			`{"error":{"code":-32600,"message":"invalid request: \"jsonrpc\" must be \"2.0\""},"id":7,"jsonrpc":"2.0"}` + "\n"
		if out.String() != want {
			t.Errorf("answers:\n%s\nwant:\n%s", out.String(), want)
		}
	})
	t.Run("planted stdio defects", func(t *testing.T) {
		// A first request that is not initialize is answered (the session
		// was initialized behind the client's back, whose answer is not
		// seen), and an unknown method is -32603.
		var out bytes.Buffer
		in := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"no/such-method"}` + "\n"
		if err := ServeStdio(testContext(t), Options{ProtocolDefects: true}, strings.NewReader(in), &out); err != nil {
			t.Fatalf("ServeStdio = %v", err)
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if len(lines) != 2 || strings.Contains(out.String(), "demo-auto-initialize") {
			t.Fatalf("answers:\n%s", out.String())
		}
		if strings.Contains(lines[0], `"id":2`) { // the two calls are answered concurrently
			lines[0], lines[1] = lines[1], lines[0]
		}
		if !strings.Contains(lines[0], `"id":1`) || !strings.Contains(lines[0], `"get_household"`) {
			t.Errorf("tools/list before initialize: %s", lines[0])
		}
		if !strings.Contains(lines[1], `"id":2`) || !strings.Contains(lines[1], `"code":-32603`) {
			t.Errorf("unknown method: %s", lines[1])
		}
	})
	t.Run("garbage without the guard", func(t *testing.T) {
		err := ServeStdio(testContext(t), Options{ProtocolDefects: true}, strings.NewReader("not json\n"), io.Discard)
		if err == nil {
			t.Error("ServeStdio = nil on input that is not JSON-RPC with ProtocolDefects, want the SDK's error")
		}
	})
}
