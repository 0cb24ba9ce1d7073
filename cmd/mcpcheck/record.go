package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/cmd/mcpcheck/internal/record"
	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/internal/fileio"
	"github.com/mcpcheck/mcpcheck/internal/stdio"
	"github.com/mcpcheck/mcpcheck/runner"
)

const recordUsage = `Usage:
  mcpcheck record --out FIXTURE.yaml [--env K=V] [--secret NAME] -- COMMAND ARGS...
  mcpcheck record --out FIXTURE.yaml --url URL --listen 127.0.0.1:PORT [--header K=V] [--secret NAME]

Records a real client's session into a fixture. Point the client (an
editor, the MCP inspector, an agent) at mcpcheck record instead of the
server: it starts COMMAND (or proxies Streamable HTTP from --listen to
--url), forwards every message both ways unchanged, and when the session
ends (the client closes stdin; for HTTP, Ctrl-C) writes FIXTURE.yaml: one
scenario with a step per tools/call, resources/read, prompts/get and
completion/complete the client made, in order, allowTools set to the tools
called, every step expecting the answer it got (written to
__snapshots__/ beside the fixture), and ids that a later call reused from
an earlier answer written as $ref. Replay it with mcpcheck --config FILE.

  --env K=V      a variable for the server (repeatable): passed on, never
                 written
  --header K=V   a header for the --url server (repeatable): passed on,
                 never written
  --secret NAME  write this --env variable as envFromEnv {NAME: NAME}, or
                 this --header as headersFromEnv {NAME: MCP_NAME}, so the
                 replay reads it from the environment; its value is
                 redacted from both files
  --max-message-bytes N
                 the largest message passed on either way (a stdio line,
                 an HTTP body, an SSE line or event; default 4194304, as
                 a run's): a larger one ends the session over stdio, and
                 over HTTP is refused (a request) or cut (a response)
`

// recordFlags are record's command line.
type recordFlags struct {
	out, url, listen string
	env, headers     map[string]string
	secrets          []string
	command          []string
	// maxMessage bounds one message either side sends (a stdio line, an
	// HTTP body, an SSE line or event), as a run's maxMessageBytes does.
	maxMessage int
}

func parseRecordFlags(args []string) (*recordFlags, error) {
	f := &recordFlags{maxMessage: config.DefaultMaxMessageBytes}
	fs := flag.NewFlagSet("mcpcheck record", flag.ContinueOnError)
	fs.IntVar(&f.maxMessage, "max-message-bytes", config.DefaultMaxMessageBytes, "")
	fs.SetOutput(io.Discard)
	fs.StringVar(&f.out, "out", "", "")
	fs.StringVar(&f.url, "url", "", "")
	fs.StringVar(&f.listen, "listen", "", "")
	fs.Func("env", "", keyValue(&f.env, "KEY"))
	fs.Func("header", "", keyValue(&f.headers, "NAME"))
	fs.Func("secret", "", func(v string) error {
		f.secrets = append(f.secrets, v)
		return nil
	})
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	f.command = fs.Args()
	switch {
	case f.out == "":
		return nil, errors.New("--out FIXTURE.yaml is required")
	case f.maxMessage < config.MinMessageBytes || f.maxMessage > config.MaxMessageBytes:
		return nil, fmt.Errorf("--max-message-bytes must be from %d to %d, got %d", config.MinMessageBytes, config.MaxMessageBytes, f.maxMessage)
	case len(f.command) > 0 && !slices.Contains(args, "--"):
		return nil, fmt.Errorf("unexpected argument %q; the server to record goes after --", f.command[0])
	case len(f.command) > 0 && f.url != "":
		return nil, errors.New("give -- COMMAND or --url, not both")
	case len(f.command) == 0 && f.url == "":
		return nil, errors.New("give the server: -- COMMAND ARGS... or --url URL --listen 127.0.0.1:PORT")
	case f.url != "" && f.listen == "":
		return nil, errors.New("--url needs --listen 127.0.0.1:PORT, where the client connects")
	case f.url == "" && (f.listen != "" || len(f.headers) > 0):
		return nil, errors.New("--listen and --header are for --url")
	case f.url != "" && len(f.env) > 0:
		return nil, errors.New("--env is for a server started with -- COMMAND")
	}
	for _, name := range f.secrets {
		if _, ok := f.env[name]; !ok {
			if _, ok := f.headers[name]; !ok {
				return nil, fmt.Errorf("--secret %s names no --env or --header", name)
			}
		}
	}
	if f.url != "" {
		if err := config.CheckEndpoint(f.url); err != nil {
			return nil, fmt.Errorf("--url: %v", err)
		}
		host, _, err := net.SplitHostPort(f.listen)
		if err != nil || (host != "127.0.0.1" && host != "localhost" && host != "::1") {
			return nil, fmt.Errorf("--listen %q: want 127.0.0.1:PORT (the recorder listens on loopback only)", f.listen)
		}
	}
	return f, nil
}

// record is "mcpcheck record".
func recordSession(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	f, err := parseRecordFlags(args)
	if err != nil {
		return usageError("mcpcheck record", recordUsage, err, stdout, stderr)
	}
	// Fail on a bad path before the client starts talking. The fixture is
	// a temporary file until the recording is written whole: a recording
	// that fails or is interrupted leaves a previous file as it was.
	out, err := createFile("--out", f.out)
	if err != nil {
		return fail(stderr, exitBadArgs, "mcpcheck record: %v\n", err)
	}
	defer out.Abort()
	if err := runner.CheckRecordAnswers(f.out); err != nil {
		return fail(stderr, exitBadArgs, "mcpcheck record: %v\n", err)
	}
	sess := record.New()
	target := record.Target{EnvFromEnv: map[string]string{}, HeadersFromEnv: map[string]string{}}
	for _, name := range f.secrets {
		if _, ok := f.env[name]; ok {
			target.EnvFromEnv[name] = name
		} else {
			target.HeadersFromEnv[name] = headerVariable(name)
		}
	}
	secretValues := recordSecrets(f)
	if f.url != "" {
		// Over HTTP the session ends with Ctrl-C (or SIGTERM): that is
		// the recording's documented end, not an interruption.
		signalEnds(ctx)
		target.Endpoint = f.url
		err = proxyHTTP(ctx, f, sess, stderr)
	} else {
		target.Command = f.command
		if target.Cwd, err = serverDir(f.out); err != nil {
			return fail(stderr, exitBadArgs, "mcpcheck record: %v\n", err)
		}
		err = proxyStdio(ctx, f, sess, stdin, stdout, stderr)
		if err == nil && ctx.Err() != nil {
			// Over stdio the session ends when the client closes stdin;
			// a signal before that cuts it short, and a session cut short
			// is not written as a fixture.
			err = errors.New("interrupted before the client ended the session; nothing written")
		}
	}
	if err != nil {
		return fail(stderr, exitFail, "mcpcheck record: %v\n", err)
	}
	return writeRecording(f, out, sess, target, secretValues, stderr)
}

// headerVariable is the variable a recorded header is read from on
// replay: Authorization → MCP_AUTHORIZATION.
func headerVariable(header string) string {
	return "MCP_" + strings.ToUpper(strings.NewReplacer("-", "_", " ", "_").Replace(header))
}

// writeRecording writes the golden answers, then puts the fixture in
// place (out); on an error it leaves out uncommitted, so the previous
// fixture stays.
func writeRecording(f *recordFlags, out *fileio.Pending, sess *record.Session, target record.Target, secretValues []runner.Secret, stderr io.Writer) int {
	red := runner.Redactor(secretValues)
	target.Name = "Recorded session with " + filepath.Base(f.out)
	rec, err := sess.Fixture(target, config.SupportedProtocolVersions, red)
	if err != nil {
		return fail(stderr, exitFail, "mcpcheck record: writing the fixture: %v\n", err)
	}
	if len(rec.Answers) == 0 {
		return fail(stderr, exitFail, "mcpcheck record: the client made no tools/call, resources/read, prompts/get or completion/complete; nothing written\n")
	}
	answers := make([]runner.RecordedAnswer, len(rec.Answers))
	for i, a := range rec.Answers {
		answers[i] = runner.RecordedAnswer{Step: a.Step, Result: a.Result, ErrorCode: a.ErrorCode}
	}
	path, err := runner.RecordAnswers(f.out, rec.Scenario, answers, secretValues)
	if err != nil {
		return fail(stderr, exitFail, "mcpcheck record: writing the answers: %v; %s is unchanged\n", err, f.out)
	}
	if _, err = out.Write(rec.YAML); err == nil {
		err = out.Commit() // a failed commit was lost to a shadowed err and reported as written
	}
	if err != nil {
		return fail(stderr, exitFail, "mcpcheck record: %v\n", err)
	}
	fmt.Fprintf(stderr, "mcpcheck record: wrote %s (%d steps) and %s\n", f.out, len(rec.Answers), path)
	var unwritten []string
	for k := range f.env {
		if _, ok := target.EnvFromEnv[k]; !ok {
			unwritten = append(unwritten, "--env "+k)
		}
	}
	for k := range f.headers {
		if _, ok := target.HeadersFromEnv[k]; !ok {
			unwritten = append(unwritten, "--header "+k)
		}
	}
	sort.Strings(unwritten)
	if len(unwritten) > 0 {
		fmt.Fprintf(stderr, "mcpcheck record: not written to the fixture: %s (add them as env or headersFromEnv, or record with --secret)\n", strings.Join(unwritten, ", "))
	}
	for h, v := range target.HeadersFromEnv {
		fmt.Fprintf(stderr, "mcpcheck record: the replay reads header %s from the variable %s\n", h, v)
	}
	return exitPass
}

// proxyStdio starts the server and copies lines between it and the client
// until the client closes its side (or the server exits), watching both.
func proxyStdio(ctx context.Context, f *recordFlags, sess *record.Session, in io.Reader, out, stderr io.Writer) error {
	argv := f.command
	if argv[0] == "mcpcheck" {
		self := []string(nil)
		if runOptions != nil {
			self = runOptions.SelfCommand
		}
		if self == nil {
			exe, err := os.Executable()
			if err != nil {
				return err
			}
			self = []string{exe}
		}
		argv = append(slices.Clone(self), argv[1:]...)
	}
	// The server's stderr reaches the user as the runner shows it:
	// sanitized, secrets redacted, line by line.
	serverStderr := newLineRedactor(stderr, runner.Redactor(recordSecrets(f)))
	defer serverStderr.Close()
	// The server's lifecycle is the runner's: a process group of its own
	// and a bounded shutdown that leaves none of its tree behind.
	proc, err := stdio.Start(argv, "", runner.ChildEnv(nil, f.env), serverStderr, recordGrace)
	if err != nil {
		return fmt.Errorf("starting %s: %w", f.command[0], err)
	}
	defer proc.Close()
	max := f.maxMessage
	serverDone := make(chan error, 1)
	go func() {
		serverDone <- copyLines(proc.Stdout, out, max, sess.Server)
	}()
	clientDone := make(chan error, 1)
	go func() {
		clientDone <- copyLines(in, proc.Stdin, max, sess.Client)
	}()
	var cerr error
	select {
	case cerr = <-clientDone:
		if cerr != nil {
			cerr = fmt.Errorf("the client: %w", cerr)
			break
		}
		// A client that writes its requests and closes its side (a
		// script, a pipe) still wants the answers, and many servers exit
		// at the end of their stdin without finishing what they read: the
		// server keeps its stdin until it has answered every request, ends
		// its side, or recordAnswerWait passes (a server slow to start on
		// a loaded machine had not read the first request when a grace of
		// 2 s ran out, and the recording was empty).
		if ended, err := awaitAnswers(ctx, sess, serverDone, proc); ended {
			if err != nil {
				return fmt.Errorf("the server: %w", err)
			}
			return nil
		}
	case <-ctx.Done():
	case err := <-serverDone:
		// The server closed its stdout (or broke the limit): the session
		// is over.
		if err != nil {
			return fmt.Errorf("the server: %w", err)
		}
		return nil
	case <-proc.Done():
		// The server exited; what it wrote last is read for a moment (a
		// process it left may hold its stdout open).
		select {
		case err := <-serverDone:
			if err != nil {
				return fmt.Errorf("the server: %w", err)
			}
			return nil
		case <-time.After(stdio.ExitDrain):
		}
	}
	// The client is gone: the server gets its grace to exit, then signals
	// (Close is bounded and ends the copy from the server).
	proc.Close()
	select {
	case err := <-serverDone:
		if err != nil && cerr == nil {
			cerr = fmt.Errorf("the server: %w", err)
		}
	case <-time.After(recordGrace):
		// The copy is stuck writing to a client that no longer reads.
	}
	return cerr
}

// recordAnswerWait bounds how long a server may take to answer the
// requests of a client that has closed its side: a step's default timeout.
const recordAnswerWait = 30 * time.Second

// awaitAnswers waits until the server has answered every request the
// client sent, the server's side ends (ended, with the copy's error), ctx
// ends, or recordAnswerWait passes.
func awaitAnswers(ctx context.Context, sess *record.Session, serverDone <-chan error, proc *stdio.Process) (ended bool, err error) {
	bound := time.NewTimer(recordAnswerWait)
	defer bound.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for sess.Pending() > 0 {
		select {
		case err := <-serverDone:
			return true, err
		case <-proc.Done():
			return false, nil
		case <-ctx.Done():
			return false, nil
		case <-bound.C:
			return false, nil
		case <-tick.C:
		}
	}
	return false, nil
}

// recordGrace is how long the recorded server gets to exit after its
// stdin is closed, and again after SIGTERM.
const recordGrace = 2 * time.Second

// copyLines copies newline-delimited messages from r to w unchanged,
// showing each to watch first (a request is known before its answer can
// arrive). A line longer than max ends the copy with an error: it is
// never held whole, and the proxy cannot forward part of a message.
func copyLines(r io.Reader, w io.Writer, max int, watch func([]byte)) error {
	lr := stdio.NewLineReader(r, max)
	for {
		line, err := lr.ReadLine()
		if errors.Is(err, stdio.ErrLineTooLong) {
			return fmt.Errorf("a line over %d bytes (maxMessageBytes); the session was ended", max)
		}
		if err != nil {
			return nil // the input ended (or its pipe was closed)
		}
		watch(line)
		if _, err := w.Write(append(line, '\n')); err != nil {
			return nil
		}
	}
}
