package demo

import (
	"bytes"
	"context"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestRunCommandLine(t *testing.T) {
	tests := []struct {
		name      string
		args      []string
		code      int
		stdoutHas string // "" means stdout must be empty
		stderrHas []string
	}{
		{name: "--help", args: []string{"--help"}, code: 0, stdoutHas: "Usage: mcpcheck demo"},
		{name: "-h", args: []string{"-h"}, code: 0, stdoutHas: "--allow-remote"},
		{name: "--help shows --faults", args: []string{"--help"}, code: 0, stdoutHas: "--faults"},
		{name: "--faults with an argument", args: []string{"--faults", "serve"}, code: 2,
			stderrHas: []string{`unexpected argument "serve"`}},
		{name: "unknown flag", args: []string{"--nope"}, code: 2,
			stderrHas: []string{"flag provided but not defined: -nope", "Usage: mcpcheck demo"}},
		{name: "flag without value", args: []string{"--http"}, code: 2,
			stderrHas: []string{"flag needs an argument", "Usage: mcpcheck demo"}},
		{name: "positional argument", args: []string{"serve"}, code: 2,
			stderrHas: []string{`unexpected argument "serve"`, "Usage: mcpcheck demo"}},
		{name: "--allow-remote without --http", args: []string{"--allow-remote"}, code: 2,
			stderrHas: []string{"--allow-remote needs --http"}},
		{name: "non-loopback address", args: []string{"--http", "0.0.0.0:0"}, code: 2,
			stderrHas: []string{"non-loopback", "--allow-remote"}},
		{name: "all interfaces", args: []string{"--http", ":5191"}, code: 2,
			stderrHas: []string{"non-loopback"}},
		{name: "address without port", args: []string{"--http", "127.0.0.1"}, code: 2,
			stderrHas: []string{"want host:port"}},
		{name: "bad port", args: []string{"--http", "127.0.0.1:http"}, code: 2,
			stderrHas: []string{"port must be a number"}},
		{name: "empty address", args: []string{"--http="}, code: 2,
			stderrHas: []string{"want host:port"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Run(testContext(t), tt.args, strings.NewReader(""), &stdout, &stderr)
			if code != tt.code {
				t.Errorf("exit code %d, want %d (stderr: %q)", code, tt.code, stderr.String())
			}
			if tt.stdoutHas == "" && stdout.Len() > 0 {
				t.Errorf("stdout %q, want nothing", stdout.String())
			}
			if tt.stdoutHas != "" {
				if !strings.Contains(stdout.String(), tt.stdoutHas) {
					t.Errorf("stdout %q does not contain %q", stdout.String(), tt.stdoutHas)
				}
				if stderr.Len() > 0 {
					t.Errorf("stderr %q, want nothing", stderr.String())
				}
			}
			for _, s := range tt.stderrHas {
				if !strings.Contains(stderr.String(), s) {
					t.Errorf("stderr %q does not contain %q", stderr.String(), s)
				}
			}
		})
	}
}

// TestRunStdioEOF checks that Run in stdio mode exits 0 when stdin ends.
func TestRunStdioEOF(t *testing.T) {
	var stdout, stderr bytes.Buffer
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}` + "\n")
	if code := Run(testContext(t), nil, in, &stdout, &stderr); code != 0 {
		t.Errorf("exit code %d, want 0 (stderr: %q)", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), `"protocolVersion":"2025-11-25"`) {
		t.Errorf("stdout %q holds no initialize result", stdout.String())
	}
	if stderr.Len() > 0 {
		t.Errorf("stderr %q, want nothing", stderr.String())
	}
}

var listeningLine = regexp.MustCompile(`^mcpcheck demo: serving Streamable HTTP at (http://127\.0\.0\.1:[1-9][0-9]*/mcp)\n$`)

// TestRunHTTP starts Run with --http on a free loopback port, uses the
// server through a real client over both protocol versions, and stops it by
// cancelling ctx, as SIGINT would. The clients stay connected (with their
// standalone SSE streams open) when the server is told to stop.
func TestRunHTTP(t *testing.T) {
	ctx, cancel := context.WithCancel(testContext(t))
	defer cancel()
	var stdout bytes.Buffer
	var stderr syncBuffer
	url, done := runHTTP(t, ctx, &stdout, &stderr, "--http", "127.0.0.1:0")

	for _, version := range protocolVersions {
		cs := connectHTTP(t, url, version)
		householdFlow(t, testContext(t), cs)
	}

	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit code %d after cancel, want 0; stderr: %q", code, stderr.String())
		}
	case <-time.After(testTimeout):
		t.Fatal("Run did not return after ctx was cancelled")
	}
	if stdout.Len() > 0 {
		t.Errorf("stdout %q, want nothing", stdout.String())
	}
	if got := stderr.String(); !listeningLine.MatchString(got) {
		t.Errorf("stderr %q, want only the listening line", got)
	}
}

// TestRunHTTPListenError checks that an address that cannot be listened on
// is exit code 1 with a message, not a panic.
func TestRunHTTPListenError(t *testing.T) {
	ctx, cancel := context.WithCancel(testContext(t))
	defer cancel()
	var first syncBuffer
	url, done := runHTTP(t, ctx, &bytes.Buffer{}, &first, "--http", "127.0.0.1:0")
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")

	var stderr bytes.Buffer
	if code := Run(testContext(t), []string{"--http", addr}, strings.NewReader(""), &bytes.Buffer{}, &stderr); code != 1 {
		t.Errorf("second server on %s: exit code %d, want 1", addr, code)
	}
	if !strings.Contains(stderr.String(), "address already in use") {
		t.Errorf("stderr %q does not say the address is in use", stderr.String())
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("first server: exit code %d, want 0", code)
	}
}

// TestRunStdioCancel checks that cancelling ctx (SIGINT, SIGTERM) in stdio
// mode is a clean, quiet exit.
func TestRunStdioCancel(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	ctx, cancel := context.WithCancel(testContext(t))
	var stdout bytes.Buffer
	var stderr syncBuffer
	done := make(chan int, 1)
	go func() { done <- Run(ctx, nil, pr, &stdout, &stderr) }()
	if _, err := io.WriteString(pw, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`+"\n"); err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit code %d, want 0", code)
		}
	case <-time.After(testTimeout):
		t.Fatal("Run did not return after ctx was cancelled")
	}
	if got := stderr.String(); got != "" {
		t.Errorf("stderr %q, want nothing", got)
	}
}
