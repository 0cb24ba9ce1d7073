package demo

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"strconv"
	"time"
)

const usage = `Usage: mcpcheck demo [--faults] [--defects] [--protocol-defects] [--ask] [--next-release] [--banner] [--notes DIR] [--tasks] [--apps] [--http ADDR [--stateless] [--allow-remote]]
       mcpcheck demo --hostile MODE [--http ADDR]

Serves the built-in demo MCP server: a household task list with the tools
get_household, propose_task, commit_task and tidy_household (progress and log
messages), the resources household://about, household://tasks (subscribable)
and household://tasks/{id}, the prompt plan_chores, and completions. Every
MCP session starts with an empty household. All data is synthetic and held in
memory.

By default the server speaks newline-delimited JSON-RPC on stdin and stdout
and exits when stdin is closed. Diagnostics go to stderr.

Flags:
  --faults         also serve the fault tools (ping, delay, hang, disconnect,
                   malformed_message, ...), which make the server misbehave
                   on request (the README lists them)
  --defects        also serve realistic-looking tools (lookup_city,
                   weather_report, create_note, ...), each with one planted
                   defect for mcpcheck's generated checks to find
  --protocol-defects
                   serve without the protocol guard and with a planted
                   defect for each of mcpcheck's protocol probes (-32603 on
                   null arguments and unknown tools, the session ends on
                   malformed JSON, a batch is answered, an answer after
                   cancellation, an unknown version refused, a request
                   before initialize answered, over HTTP an invalid
                   protocol header accepted and a deleted session 400;
                   under 2026-07-28 one per probe of that revision)
  --ask            also serve ask_assignee, a tool that asks the client for
                   input (elicitation): under 2026-07-28 a multi-round-trip
                   request, under 2025-11-25 an elicitation/create
  --next-release   serve the household's next release, whose contract differs
                   in one change of each drift severity (for mcpcheck
                   snapshot and mcpcheck diff)
  --tasks          add plan_week (may run as a task) and export_household
                   (only as a task), the tasks capability and the task
                   methods; with --protocol-defects, task defects too
  --apps           add show_household and its MCP App resource
                   (ui://household/board.html); with --defects or
                   --protocol-defects, a malformed app too
  --banner         over stdio, also write two lines on stdout that are not
                   JSON-RPC (a start-up banner, then a log line), which the
                   stdio transport forbids
  --notes DIR      also serve notes_folder, list_notes, read_note (head or
                   tail, never both) and write_note over the files of DIR;
                   paths must be absolute and inside DIR, and a directory
                   is refused with EISDIR
  --flaky FILE     also serve the flaky tool, which fails every other call
                   (odd-numbered calls), counting its calls in FILE
  --http ADDR      serve Streamable HTTP at http://ADDR/mcp instead of stdio;
                   ADDR is host:port, and port 0 picks a free port
  --stateless      serve HTTP without sessions (every POST on its own, as
                   2026-07-28 has it; the household lasts one request);
                   go-sdk serves 2026-07-28 over HTTP only this way
  --allow-remote   allow an ADDR host other than 127.0.0.1, [::1] or localhost
  --hostile MODE   serve instead a minimal server written to break the
                   client that tests it (mcpcheck's own tests use these);
                   --hostile list names the modes
  -h, --help       show this help

Examples:
  mcpcheck demo --http 127.0.0.1:5191
  mcpcheck demo --faults
  mcpcheck demo --defects --http 127.0.0.1:5191
`

// shutdownGrace bounds how long Run waits for in-flight HTTP requests after
// ctx ends.
const shutdownGrace = 5 * time.Second

// Run is the "mcpcheck demo" subcommand: it parses args (the arguments after
// "demo"), serves the demo over stdio (stdin/stdout) or, with --http, over
// Streamable HTTP, and returns the exit code: 0 after a clean end (stdin
// closed, or ctx cancelled, which is how the caller passes on SIGINT and
// SIGTERM), 1 if serving failed, 2 for an invalid command line. Usage goes to
// stdout for --help and to stderr for a bad command line. In stdio mode
// nothing but JSON-RPC is written to stdout.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcpcheck demo", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // usage and errors are printed below, to the right stream
	httpAddr := fs.String("http", "", "")
	allowRemote := fs.Bool("allow-remote", false, "")
	faults := fs.Bool("faults", false, "")
	defects := fs.Bool("defects", false, "")
	protocolDefects := fs.Bool("protocol-defects", false, "")
	next := fs.Bool("next-release", false, "")
	tasks := fs.Bool("tasks", false, "")
	apps := fs.Bool("apps", false, "")
	ask := fs.Bool("ask", false, "")
	stateless := fs.Bool("stateless", false, "")
	hostileMode := fs.String("hostile", "", "")
	banner := fs.Bool("banner", false, "")
	flakyFile := fs.String("flaky", "", "")
	notesDir := fs.String("notes", "", "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usage)
			return 0
		}
		return badUsage(stderr, err.Error())
	}
	if fs.NArg() > 0 {
		return badUsage(stderr, fmt.Sprintf("unexpected argument %q", fs.Arg(0)))
	}
	httpSet := false
	fs.Visit(func(f *flag.Flag) { httpSet = httpSet || f.Name == "http" })
	if *allowRemote && !httpSet {
		return badUsage(stderr, "--allow-remote needs --http")
	}
	if *stateless && !httpSet {
		return badUsage(stderr, "--stateless needs --http")
	}
	if *banner && httpSet {
		return badUsage(stderr, "--banner is for stdio, not --http")
	}

	if *hostileMode != "" {
		return runHostile(ctx, *hostileMode, httpSet, *httpAddr, stdin, stdout, stderr)
	}

	opts := Options{
		Logger:  slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Faults:  *faults,
		Defects: *defects,

		ProtocolDefects: *protocolDefects,
		NextRelease:     *next,
		Tasks:           *tasks,
		Apps:            *apps,
		Ask:             *ask,
		Stateless:       *stateless,
		FlakyFile:       *flakyFile,
		Notes:           *notesDir,
	}
	if *notesDir != "" {
		if fi, err := os.Stat(*notesDir); err != nil || !fi.IsDir() {
			return badUsage(stderr, "--notes needs an existing directory")
		}
	}
	if !httpSet {
		// A stdio demo is a process of its own for one session, often a
		// short one (mcpcheck starts one per isolated scenario: ~190 for
		// examples/defects.yaml). Building the server allocates ~10 MB that
		// is garbage at once, and the collector's default pace spent a
		// third of such a process's CPU on it; its live heap stays small.
		debug.SetGCPercent(400)
		if *banner {
			b := newBannerWriter(stdout)
			if err := b.start(); err != nil {
				fmt.Fprintf(stderr, "mcpcheck demo: %v\n", err)
				return 1
			}
			stdout = b
		}
		if err := serveStdio(ctx, opts, stdin, stdout, stderr); err != nil && ctx.Err() == nil {
			fmt.Fprintf(stderr, "mcpcheck demo: %v\n", err)
			return 1
		}
		return 0
	}
	if err := checkAddr(*httpAddr, *allowRemote); err != nil {
		fmt.Fprintf(stderr, "mcpcheck demo: %v\n", err)
		return 2
	}
	if err := serveHTTP(ctx, opts, *httpAddr, stderr); err != nil {
		fmt.Fprintf(stderr, "mcpcheck demo: %v\n", err)
		return 1
	}
	return 0
}

func badUsage(stderr io.Writer, msg string) int {
	fmt.Fprintf(stderr, "mcpcheck demo: %s\n\n%s", msg, usage)
	return 2
}

// checkAddr validates the --http address. Unless remote access is allowed,
// the host must be one of the loopback names, so that the demo is not exposed
// to the network by accident (an empty host would listen on every interface).
func checkAddr(addr string, allowRemote bool) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--http %q: want host:port, such as 127.0.0.1:5191", addr)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("--http %q: port must be a number from 0 to 65535", addr)
	}
	if allowRemote {
		return nil
	}
	switch host {
	case "127.0.0.1", "::1", "localhost":
		return nil
	}
	return fmt.Errorf("--http %q: refusing to serve on a non-loopback address; use 127.0.0.1, [::1] or localhost, or add --allow-remote", addr)
}

// serveHTTP serves the demo at http://addr/mcp until ctx ends, then shuts
// down gracefully.
func serveHTTP(ctx context.Context, opts Options, addr string, stderr io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	// A client's standalone SSE stream (GET /mcp) stays open for the whole
	// session, which would hold Shutdown until its deadline. Such requests
	// get a context that is cancelled as soon as shutdown begins; POSTs are
	// left to finish.
	streams, stopStreams := context.WithCancel(context.Background())
	defer stopStreams()
	h := newHTTPHandler(opts)
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet {
				ctx, cancel := context.WithCancel(r.Context())
				defer cancel()
				stop := context.AfterFunc(streams, cancel)
				defer stop()
				r = r.WithContext(ctx)
			}
			h.ServeHTTP(w, r)
		}),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          log.New(stderr, "mcpcheck demo: http: ", 0),
	}
	srv.RegisterOnShutdown(stopStreams)
	srv.RegisterOnShutdown(h.shutdown)

	fmt.Fprintf(stderr, "mcpcheck demo: serving Streamable HTTP at http://%s/mcp\n", ln.Addr())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
		return fmt.Errorf("shutting down: %w", err)
	}
	<-served // http.ErrServerClosed
	return nil
}
