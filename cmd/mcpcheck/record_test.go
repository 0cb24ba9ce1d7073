package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpcheck/mcpcheck/demo"
)

// client is the go-sdk client that plays the "real client" of a recording.
func client() *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "recorded-client", Version: "1.0.0"}, nil)
}

// recordStdio runs mcpcheck record over stdio with args, drives it with
// the go-sdk client, and returns record's stderr once the client has
// closed the session and the recording is written.
func recordStdio(t *testing.T, args []string, drive func(context.Context, *mcp.ClientSession)) string {
	t.Helper()
	code, stderr := recordStdioExit(t, args, drive)
	if code != 0 {
		t.Fatalf("record: exit %d\n%s", code, stderr)
	}
	return stderr
}

// recordStdioExit is recordStdio, returning the exit code.
func recordStdioExit(t *testing.T, args []string, drive func(context.Context, *mcp.ClientSession)) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	toRecord, clientOut := io.Pipe()
	clientIn, fromRecord := io.Pipe()
	old := stdin
	stdin = toRecord
	defer func() { stdin = old }()
	var errb bytes.Buffer
	done := make(chan int, 1)
	go func() {
		code := run(ctx, append([]string{"record"}, args...), fromRecord, &errb)
		fromRecord.Close()
		done <- code
	}()
	cs, err := client().Connect(ctx, &mcp.IOTransport{Reader: clientIn, Writer: clientOut}, nil)
	if err != nil {
		t.Fatalf("connect through the recorder: %v\n%s", err, errb.String())
	}
	drive(ctx, cs)
	cs.Close()
	code := <-done
	return code, errb.String()
}

// recordHTTP runs mcpcheck record --url endpoint --listen, drives it with
// the go-sdk client over Streamable HTTP, and ends it as Ctrl-C would.
func recordHTTP(t *testing.T, out, endpoint string, extra []string, drive func(context.Context, *mcp.ClientSession)) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	listen := fmt.Sprintf("127.0.0.1:%d", peerFreePort(t))
	rctx, stop := context.WithCancel(ctx)
	var errb bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(rctx, append([]string{"record", "--out", out, "--url", endpoint, "--listen", listen}, extra...), io.Discard, &errb)
	}()
	for deadline := time.Now().Add(2 * time.Minute); ; {
		if c, err := net.Dial("tcp", listen); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the recorder does not listen\n%s", errb.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	cs, err := client().Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + listen + "/mcp"}, nil)
	if err != nil {
		t.Fatalf("connect through the recorder: %v\n%s", err, errb.String())
	}
	drive(ctx, cs)
	cs.Close()
	stop()
	if code := <-done; code != 0 {
		t.Fatalf("record: exit %d\n%s", code, errb.String())
	}
	return errb.String()
}

// driveDemo is a client's session with the demo: a proposal committed with
// the id the proposal answered, reads, a missing task, a prompt and a
// completion.
func driveDemo(t *testing.T) func(context.Context, *mcp.ClientSession) {
	return func(ctx context.Context, cs *mcp.ClientSession) {
		must := func(err error) {
			if err != nil {
				t.Helper()
				t.Fatal(err)
			}
		}
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_household"})
		must(err)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "propose_task", Arguments: map[string]any{"text": "Collect the library books"}})
		must(err)
		id := res.StructuredContent.(map[string]any)["proposalId"]
		_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "commit_task", Arguments: map[string]any{"proposalId": id, "expectedRevision": 0, "idempotencyKey": "recorded-1"}})
		must(err)
		_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "household://tasks/task-1"})
		must(err)
		if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "household://tasks/task-9"}); err == nil {
			t.Error("reading a missing task succeeded")
		}
		_, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "plan_chores", Arguments: map[string]string{"member": "Robin"}})
		must(err)
		_, err = cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "plan_chores"}, Argument: mcp.CompleteParamsArgument{Name: "day", Value: "t"}})
		must(err)
	}
}

// checkDemoRecording checks the demo session's fixture and replays it.
func checkDemoRecording(t *testing.T, out string) {
	t.Helper()
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	fixture := string(data)
	for _, want := range []string{
		"allowTools: [commit_task, get_household, propose_task]",
		"proposalId:\n            $ref: propose_task-1#/structuredContent/proposalId",
		"idempotencyKey: recorded-1",
		"expectedRevision: 0\n",
		"resource: household://tasks/task-9\n        expect: {errorCode: -32002, outcome: protocol_error, snapshot: true}",
		"protocolVersion: \"20", // what the client and server negotiated
		"prompt: plan_chores",
		"complete:",
	} {
		if !strings.Contains(fixture, want) {
			t.Errorf("the fixture lacks %q:\n%s", want, fixture)
		}
	}
	if n := strings.Count(fixture, "snapshot: true"); n != 7 {
		t.Errorf("%d steps expect a snapshot, want 7:\n%s", n, fixture)
	}
	t.Setenv("CI", "1") // every answer must be there already
	r := runCmd(t, "--config", out)
	if r.code != 0 || strings.Contains(r.stdout, "note:") {
		t.Errorf("the replay: exit %d\n%s%s\n%s", r.code, r.stdout, r.stderr, fixture)
	}
}

func TestRecordDemoStdio(t *testing.T) {
	out := filepath.Join(t.TempDir(), "recorded.yaml")
	recordStdio(t, []string{"--out", out, "--", "mcpcheck", "demo"}, driveDemo(t))
	checkDemoRecording(t, out)
	if data, _ := os.ReadFile(out); !strings.Contains(string(data), "command: [mcpcheck, demo]") {
		t.Errorf("command:\n%s", data)
	}
}

func TestRecordDemoHTTP(t *testing.T) {
	srv := httptest.NewServer(demo.Handler(demo.Options{}))
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "recorded.yaml")
	recordHTTP(t, out, srv.URL+"/mcp", nil, driveDemo(t))
	checkDemoRecording(t, out)
	if data, _ := os.ReadFile(out); !strings.Contains(string(data), "endpoint: "+srv.URL+"/mcp") {
		t.Errorf("endpoint:\n%s", data)
	}
}

// driveEverything calls server-everything's tools (get-env answers with
// the server's environment), reads a static resource and gets a prompt.
func driveEverything(t *testing.T) func(context.Context, *mcp.ClientSession) {
	return func(ctx context.Context, cs *mcp.ClientSession) {
		for _, p := range []*mcp.CallToolParams{
			{Name: "echo", Arguments: map[string]any{"message": "hello from a recording"}},
			{Name: "get-sum", Arguments: map[string]any{"a": 2, "b": 40}},
			{Name: "get-structured-content", Arguments: map[string]any{"location": "Chicago"}},
			{Name: "get-env"},
		} {
			if _, err := cs.CallTool(ctx, p); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "demo://resource/static/document/architecture.md"}); err != nil {
			t.Fatal(err)
		}
		if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "args-prompt", Arguments: map[string]string{"city": "Chicago"}}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRecordEverythingStdio records server-everything with a credential
// passed as --env and marked --secret: the fixture reads it with
// envFromEnv, neither file holds it, and the replay is green.
func TestRecordEverythingStdio(t *testing.T) {
	dir := peerDir(t)
	const secret = "sk-recorded-9931-secret"
	out := filepath.Join(t.TempDir(), "everything.yaml")
	stderr := recordStdio(t, []string{"--out", out, "--env", "RECORD_TOKEN=" + secret, "--secret", "RECORD_TOKEN",
		"--", "node", filepath.Join(dir, peerEverything), "stdio"}, driveEverything(t))
	fixture, _ := os.ReadFile(out)
	answers, _ := os.ReadFile(filepath.Join(filepath.Dir(out), "__snapshots__", "everything.yaml.json"))
	for name, data := range map[string][]byte{"fixture": fixture, "snapshots": answers, "stderr": []byte(stderr)} {
		if bytes.Contains(data, []byte(secret)) {
			t.Errorf("the %s holds the secret:\n%s", name, data)
		}
	}
	if !bytes.Contains(fixture, []byte("envFromEnv: {RECORD_TOKEN: RECORD_TOKEN}")) || !bytes.Contains(answers, []byte("RECORD_TOKEN")) {
		t.Errorf("fixture:\n%s\nanswers:\n%s", fixture, answers)
	}
	t.Setenv("RECORD_TOKEN", secret)
	t.Setenv("CI", "1")
	if r := runCmd(t, "--config", out); r.code != 0 || strings.Count(r.stdout, "  ok ") != 6 {
		t.Errorf("the replay: exit %d\n%s%s\n%s", r.code, r.stdout, r.stderr, fixture)
	}
}

func TestRecordEverythingHTTP(t *testing.T) {
	endpoint := startEverythingHTTP(t, peerDir(t))
	out := filepath.Join(t.TempDir(), "everything.yaml")
	recordHTTP(t, out, endpoint, nil, func(ctx context.Context, cs *mcp.ClientSession) {
		for _, p := range []*mcp.CallToolParams{
			{Name: "echo", Arguments: map[string]any{"message": "over HTTP"}},
			{Name: "get-structured-content", Arguments: map[string]any{"location": "New York"}},
		} {
			if _, err := cs.CallTool(ctx, p); err != nil {
				t.Fatal(err)
			}
		}
	})
	t.Setenv("CI", "1")
	if r := runCmd(t, "--config", out); r.code != 0 || strings.Count(r.stdout, "  ok ") != 2 {
		data, _ := os.ReadFile(out)
		t.Errorf("the replay: exit %d\n%s%s\n%s", r.code, r.stdout, r.stderr, data)
	}
}

// TestRecordNothing: a session without a call to replay writes nothing.
func TestRecordNothing(t *testing.T) {
	out := filepath.Join(t.TempDir(), "empty.yaml")
	code, stderr := recordStdioExit(t, []string{"--out", out, "--", "mcpcheck", "demo"}, func(context.Context, *mcp.ClientSession) {})
	if code != 1 || !strings.Contains(stderr, "nothing written") {
		t.Errorf("exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("an empty recording was written")
	}
}

func TestRecordBadCommandLine(t *testing.T) {
	for _, args := range [][]string{
		{"record"},
		{"record", "--out", "x.yaml"},
		{"record", "--out", "x.yaml", "--url", "http://127.0.0.1:1/mcp"},
		{"record", "--out", "x.yaml", "--url", "http://127.0.0.1:1/mcp", "--listen", "0.0.0.0:7"},
		{"record", "--out", "x.yaml", "--secret", "NOPE", "--", "mcpcheck", "demo"},
		{"record", "--out", filepath.Join(t.TempDir(), "no", "dir", "x.yaml"), "--", "mcpcheck", "demo"},
	} {
		if r := runCmd(t, args...); r.code != 2 || !strings.HasPrefix(r.stderr, "mcpcheck record: ") {
			t.Errorf("%v: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
}
