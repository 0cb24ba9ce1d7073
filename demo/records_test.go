package demo

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestDefectToolContracts checks every defects tool's declared contract: a
// strict inputSchema with the documented required properties, an
// outputSchema exactly where it returns structured content, a description,
// and honest annotations.
func TestDefectToolContracts(t *testing.T) {
	required := map[string][]string{
		"lookup_city": {"city"}, "convert_units": {"value", "from", "to"}, "parse_date": {"date"}, "search_notes": {"query"},
		"weather_report": {"city"}, "exchange_rate": {"from", "to"}, "echo_profile": {"name"}, "get_forecast": {"city"},
		"slow_search": {"query"},
		"create_note": {"title", "body"}, "get_note": {"note_id"}, "delete_note": {"note_id"},
		"create_label": {"name"}, "get_label": {"label_id"}, "delete_label": {"label_id"},
		"create_folder": {"name"}, "get_folder": {"folder_id"}, "delete_folder": {"folder_id"},
		"create_file": {"folder_id", "name"}, "get_file": {"file_id"}, "delete_file": {"file_id"},
		"shared_cache_get": {"key"},
		"format_address":   {"street", "city"}, "get_project": {"project_id"}, "list_folder": {"path"},
		"find_template":    {"name"},
		"snooze_reminders": {"minutes"}, "kitchen_timer": {"delayMs"},
	}
	textOnly := map[string]bool{"weather_report": true, "list_reminders": true, "echo_profile": true, "export_catalog": true, "shared_folders": true, "find_template": true,
		"snooze_reminders": true, "kitchen_timer": true, "count_roots": true}
	cs := connectInMemory(t, testContext(t), NewServer(Options{Defects: true}), "2025-11-25")
	res, err := cs.ListTools(testContext(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, tool := range res.Tools {
		if !slices.Contains(defectTools, tool.Name) {
			continue
		}
		seen++
		checkStrictObject(t, tool.Name+" inputSchema", tool.InputSchema, required[tool.Name])
		if textOnly[tool.Name] != (tool.OutputSchema == nil) {
			t.Errorf("%s: outputSchema %v, want one: %v", tool.Name, tool.OutputSchema, !textOnly[tool.Name])
		}
		if m, ok := tool.OutputSchema.(map[string]any); ok && (m["additionalProperties"] != false || m["type"] != "object") {
			t.Errorf("%s: outputSchema is not a strict object", tool.Name)
		}
		if tool.Description == "" || tool.Annotations == nil || tool.Annotations.Title == "" {
			t.Errorf("%s: no description, annotations or title", tool.Name)
			continue
		}
		a := tool.Annotations
		create, del := strings.HasPrefix(tool.Name, "create_"), strings.HasPrefix(tool.Name, "delete_")
		// The look-alikes act (snooze, ring) without destroying, and
		// acting twice is acting once.
		lookAlike := slices.Contains(verdictTools, tool.Name) && tool.Name != "count_roots"
		if a.ReadOnlyHint == (create || del || lookAlike) {
			t.Errorf("%s: readOnlyHint %v", tool.Name, a.ReadOnlyHint)
		}
		if !a.ReadOnlyHint && (a.DestructiveHint == nil || *a.DestructiveHint != del) {
			t.Errorf("%s: destructiveHint %v, want %v", tool.Name, a.DestructiveHint, del)
		}
		if a.IdempotentHint != (del || lookAlike) {
			t.Errorf("%s: idempotentHint %v, want %v", tool.Name, a.IdempotentHint, del || lookAlike)
		}
		if a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s: openWorldHint %v, want false", tool.Name, a.OpenWorldHint)
		}
	}
	if seen != len(defectTools) {
		t.Errorf("checked %d defects tools, want %d", seen, len(defectTools))
	}
}

// TestDefectOutputsMatchDeclaredSchemas validates the structured results of
// a realistic session against the declared outputSchemas, compiled the way
// the runner does. exchange_rate's alone must fail, at /rate.
func TestDefectOutputsMatchDeclaredSchemas(t *testing.T) {
	// ticket_counter's lock file lives in TMPDIR: one of the test's own, so
	// that no other process (a second test run) holds it.
	t.Setenv("TMPDIR", t.TempDir())
	ctx := testContext(t)
	cs := connectInMemory(t, ctx, NewServer(Options{Defects: true}), "2025-11-25")
	schemas := outputSchemas(t, ctx, cs)

	structured := func(tool string, a map[string]any) map[string]any {
		t.Helper()
		res := call(t, ctx, cs, tool, a)
		if res.IsError {
			t.Fatalf("%s %v: %s", tool, a, resultText(res))
		}
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(canonical(t, res.StructuredContent)))
		if err != nil {
			t.Fatal(err)
		}
		err = schemas[tool].Validate(inst)
		if tool == "exchange_rate" {
			if err == nil || !strings.Contains(err.Error(), "/rate") {
				t.Errorf("exchange_rate: validation %v, want a failure at /rate", err)
			}
		} else if err != nil {
			t.Errorf("%s %v: %s does not match its outputSchema: %v", tool, a, canonical(t, res.StructuredContent), err)
		}
		m, _ := res.StructuredContent.(map[string]any)
		return m
	}

	note := structured("create_note", args("title", "Coffee beans", "body", "Buy the Ethiopian ones"))
	structured("create_note", args("title", "Groceries", "body", "coffee, milk"))
	structured("get_note", args("note_id", note["note_id"]))
	if got := canonical(t, structured("search_notes", args("query", "COFFEE", "limit", 1))); !strings.Contains(got, `"total":2`) || strings.Count(got, "note_id") != 1 {
		t.Errorf("search_notes: %s, want 1 of 2 hits", got)
	}
	structured("delete_note", args("note_id", note["note_id"]))
	if got := canonical(t, structured("search_notes", args("query", "coffee"))); !strings.Contains(got, `"total":1`) || strings.Contains(got, "Coffee beans") {
		t.Errorf("search_notes after delete: %s, want only Groceries", got)
	}
	label := structured("create_label", args("name", "urgent"))
	structured("get_label", args("label_id", label["label_id"]))
	structured("delete_label", args("label_id", label["label_id"]))
	folder := structured("create_folder", args("name", "Receipts"))
	file := structured("create_file", args("folder_id", folder["folder_id"], "name", "march.pdf"))
	structured("get_folder", args("folder_id", folder["folder_id"]))
	structured("get_file", args("file_id", file["file_id"]))
	structured("delete_file", args("file_id", file["file_id"]))
	structured("delete_folder", args("folder_id", folder["folder_id"]))
	if got := canonical(t, structured("counter_snapshot", args())); got != `{"files":0,"folders":0,"labels":0,"notes":1}` {
		t.Errorf("counter_snapshot: %s", got)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"lookup_city", args("city", "Sydney")},
		{"convert_units", args("value", 12, "from", "in", "to", "ft")},
		{"parse_date", args("date", "2028-12-31")},
		{"exchange_rate", args("from", "JPY", "to", "GBP")},
		{"get_forecast", args("city", "Tokyo", "days", 1)},
		{"slow_search", args("query", "tide tables")},
		{"shared_cache_get", args("key", "locale")},
		{"ticket_counter", args()},
	} {
		structured(c.tool, c.args)
	}
}

// TestDefectRecordsBounded fills a session with maxRecords records and
// checks that the next create is a tool error, that deleting a label frees
// a slot, and that deleting a note (which keeps it) does not.
func TestDefectRecordsBounded(t *testing.T) {
	ctx := testContext(t)
	s, _, f := buildServer(Options{Defects: true}, anyTransport)
	cs := connectInMemory(t, ctx, s, "2025-11-25")
	var labelID, noteID any
	for i := range maxRecords {
		if i == 0 {
			m := call(t, ctx, cs, "create_label", args("name", "first")).StructuredContent.(map[string]any)
			labelID = m["label_id"]
			continue
		}
		res := call(t, ctx, cs, "create_note", args("title", fmt.Sprint("note ", i), "body", ""))
		if res.IsError {
			t.Fatalf("create_note %d: %s", i, resultText(res))
		}
		noteID = res.StructuredContent.(map[string]any)["note_id"]
	}
	full := "record limit reached: a session may hold at most 1000 notes, labels, folders and files"
	for _, tool := range []string{"create_note", "create_label", "create_folder"} {
		a := args("name", "x")
		if tool == "create_note" {
			a = args("title", "x", "body", "")
		}
		if got := mustToolError(t, ctx, cs, tool, a); !strings.Contains(got, full) {
			t.Errorf("%s when full: %q", tool, got)
		}
	}
	mustOK(t, ctx, cs, "delete_note", args("note_id", noteID))
	mustToolError(t, ctx, cs, "create_label", args("name", "x"))
	mustOK(t, ctx, cs, "delete_label", args("label_id", labelID))
	mustOK(t, ctx, cs, "create_folder", args("name", "x"))
	mustToolError(t, ctx, cs, "create_folder", args("name", "y"))

	// Another session is not affected.
	other := connectInMemory(t, ctx, s, "2025-11-25")
	mustOK(t, ctx, other, "create_label", args("name", "x"))
	if n := f.defects.records.len(); n != 2 {
		t.Errorf("%d sessions hold records, want 2", n)
	}
}

// TestDefectStateIsPerSession checks that two sessions never see each
// other's records or cache keys, and that a session's records are dropped
// when it ends.
func TestDefectStateIsPerSession(t *testing.T) {
	for _, transport := range []string{onInMemory, onHTTP} {
		t.Run(transport, func(t *testing.T) {
			ctx := testContext(t)
			var s *mcp.Server
			var f *faults
			var connect func() *mcp.ClientSession
			if transport == onInMemory {
				s, _, f = buildServer(Options{Defects: true}, anyTransport)
				connect = func() *mcp.ClientSession { return connectInMemory(t, ctx, s, "2025-11-25") }
			} else {
				s, _, f = buildServer(Options{Defects: true}, httpTransport)
				srv := httptest.NewServer(handlerFor(s, f, Options{}))
				t.Cleanup(srv.Close)
				connect = func() *mcp.ClientSession { return connectHTTP(t, srv.URL+"/mcp", "2025-11-25") }
			}
			a, b := connect(), connect()
			note := mustOK(t, ctx, a, "create_note", args("title", "a's", "body", "secret"))
			id := strings.Split(note, `"`)[3]
			mustToolError(t, ctx, b, "get_note", args("note_id", id))
			if got := mustOK(t, ctx, b, "counter_snapshot", args()); got != `{"files":0,"folders":0,"labels":0,"notes":0}` {
				t.Errorf("b's snapshot: %s", got)
			}
			// Overlapping calls on different sessions do not cross.
			results, errs := together(2, func(i int) (*mcp.CallToolResult, error) {
				return []*mcp.ClientSession{a, b}[i].CallTool(ctx, &mcp.CallToolParams{Name: "shared_cache_get", Arguments: args("key", []string{"theme", "locale"}[i])})
			})
			for i, want := range []string{`{"key":"theme","value":"dark"}`, `{"key":"locale","value":"en-US"}`} {
				if errs[i] != nil || canonical(t, results[i].StructuredContent) != want {
					t.Errorf("session %d: %v %v, want %s", i, errs[i], results[i], want)
				}
			}
			if n := f.defects.records.len(); n != 2 {
				t.Fatalf("%d sessions hold records, want 2", n)
			}
			a.Close()
			b.Close()
			eventually(t, "the records to be dropped", func() bool { return f.defects.records.len() == 0 })
		})
	}
}

// hangTarget is a session with an in-process defects server, whose hangs
// can be watched, and a way to make the client's side of the transport go
// away without cancelling anything.
type hangTarget struct {
	cs   *mcp.ClientSession
	f    *faults
	drop func()
}

var hangTargets = []struct {
	name    string
	connect func(t *testing.T) hangTarget
}{
	{onInMemory, func(t *testing.T) hangTarget {
		s, _, f := buildServer(Options{Defects: true}, anyTransport)
		st, ct := mcp.NewInMemoryTransports()
		ss, err := s.Connect(testContext(t), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ss.Close() })
		rt := &recordingTransport{Transport: ct}
		cs, err := newClient().Connect(testContext(t), rt, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return hangTarget{cs: cs, f: f, drop: func() { rt.conn.Close() }}
	}},
	{onStdio, func(t *testing.T) hangTarget {
		s, _, f := buildServer(Options{Defects: true}, stdioTransport)
		cs, serve := connectStdioInProcess(t, s, f, newClient(), "2025-11-25")
		return hangTarget{cs: cs, f: f, drop: func() { serve.in.Close() }}
	}},
	{onHTTP, func(t *testing.T) hangTarget {
		s, _, f := buildServer(Options{Defects: true}, httpTransport)
		srv := httptest.NewServer(handlerFor(s, f, Options{}))
		t.Cleanup(srv.Close)
		cs := connectHTTP(t, srv.URL+"/mcp", "2025-11-25")
		return hangTarget{cs: cs, f: f, drop: func() { deleteSession(t, srv.URL+"/mcp", cs) }}
	}},
}

var hangingSearch = args("query", "coffee", "limit", "ten")

// TestSearchHangStops checks that a hanging search_notes stops on the
// server when the client cancels it, and when the client's side of the
// transport goes away without cancelling (within a second or so, not after
// stdio's end-of-input grace), on every transport.
func TestSearchHangStops(t *testing.T) {
	for _, target := range hangTargets {
		t.Run(target.name+"/cancel", func(t *testing.T) {
			ht := target.connect(t)
			ctx, cancel := context.WithCancel(testContext(t))
			done := make(chan error, 1)
			go func() {
				_, err := ht.cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_notes", Arguments: hangingSearch})
				done <- err
			}()
			eventually(t, "the search to hang", func() bool { return ht.f.running.Load() == 1 })
			cancel()
			if err := <-done; err != context.Canceled {
				t.Errorf("call: %v, want context.Canceled", err)
			}
			eventuallyWithin(t, 10*time.Second, "the handler to stop", func() bool { return ht.f.running.Load() == 0 && ht.f.acts.len() == 0 })
			if got := mustOK(t, testContext(t), ht.cs, "search_notes", args("query", "coffee")); got != `{"query":"coffee","results":[],"total":0}` {
				t.Errorf("search_notes after the hang: %s", got)
			}
		})
		t.Run(target.name+"/drop", func(t *testing.T) {
			ht := target.connect(t)
			var wg sync.WaitGroup
			for range 2 {
				wg.Go(func() {
					ht.cs.CallTool(testContext(t), &mcp.CallToolParams{Name: "search_notes", Arguments: hangingSearch})
				})
			}
			eventually(t, "the searches to hang", func() bool { return ht.f.running.Load() == 2 })
			ht.drop()
			eventuallyWithin(t, eofGrace/2, "the handlers to stop", func() bool { return ht.f.running.Load() == 0 && ht.f.acts.len() == 0 })
			wg.Wait()
		})
	}
}

// TestStdioEOFWithHangingSearch pipes a hanging search_notes and other
// calls into the server and closes its input: the other calls are
// answered, and the server ends at once rather than after the grace it
// gives calls still to be answered.
func TestStdioEOFWithHangingSearch(t *testing.T) {
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_notes","arguments":{"query":"x","limit":"ten"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"lookup_city","arguments":{"city":"Tokyo"}}}`,
	}
	var out syncBuffer
	start := time.Now()
	if err := ServeStdio(testContext(t), Options{Defects: true}, strings.NewReader(strings.Join(lines, "\n")+"\n"), &out); err != nil {
		t.Fatalf("ServeStdio: %v", err)
	}
	if took := time.Since(start); took >= eofGrace {
		t.Errorf("ServeStdio took %v, want well under %v", took, eofGrace)
	}
	if !strings.Contains(out.String(), `"id":3,"result"`) || !strings.Contains(out.String(), "Asia/Tokyo") {
		t.Errorf("no answer to lookup_city in %q", out.String())
	}
	if strings.Contains(out.String(), `"id":2`) {
		t.Errorf("the hanging search was answered: %q", out.String())
	}
}

// TestTicketLock checks ticket_counter's lock directly: a second holder
// waits at most its budget, in the same process and through the lock file
// alone (as another process would).
func TestTicketLock(t *testing.T) {
	ctx := testContext(t)
	path := filepath.Join(t.TempDir(), "ticket.lock")
	l := newTicketLock(path)
	release, ok, err := l.acquire(ctx, ticketWait)
	if !ok || err != nil {
		t.Fatalf("acquire: %v %v", ok, err)
	}
	start := time.Now()
	if _, ok, err := newTicketLock(path).acquire(ctx, ticketWait); ok || err != nil {
		t.Errorf("second acquire in the process: %v %v, want busy", ok, err)
	}
	if took := time.Since(start); took < ticketWait {
		t.Errorf("gave up after %v, before the %v budget", took, ticketWait)
	}
	// The lock file alone, as another process sees it.
	if f, err := openLockFile(path); err == nil {
		if taken, err := tryFileLock(f); taken || err != nil {
			t.Errorf("lock file taken by another holder: %v %v", taken, err)
		}
		f.Close()
	}
	release()
	release2, ok, err := newTicketLock(path).acquire(ctx, ticketWait)
	if !ok || err != nil {
		t.Fatalf("acquire after release: %v %v", ok, err)
	}
	release2()

	cctx, cancel := context.WithCancel(ctx)
	release3, _, _ := l.acquire(ctx, ticketWait)
	cancel()
	if _, ok, err := l.acquire(cctx, time.Minute); ok || err != context.Canceled {
		t.Errorf("acquire with a cancelled context: %v %v", ok, err)
	}
	release3()
}

// TestRunDefects runs "mcpcheck demo --defects --faults --http" in process:
// both profiles are served, and a hanging search_notes does not hold the
// shutdown.
func TestRunDefects(t *testing.T) {
	ctx, cancel := context.WithCancel(testContext(t))
	defer cancel()
	var stderr syncBuffer
	url, done := runHTTP(t, ctx, io.Discard, &stderr, "--defects", "--faults", "--http", "127.0.0.1:0")
	cs := connectHTTP(t, url, "2025-11-25")
	tools, err := cs.ListTools(testContext(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, want := len(tools.Tools), len(householdTools)+13+len(defectTools)+len(behaviourDefectTools); n != want {
		t.Errorf("%d tools listed, want %d", n, want)
	}
	go cs.CallTool(testContext(t), &mcp.CallToolParams{Name: "search_notes", Arguments: hangingSearch})
	time.Sleep(100 * time.Millisecond)
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit code %d; stderr %q", code, stderr.String())
		}
	case <-time.After(shutdownGrace):
		t.Fatal("Run did not return promptly with a hanging search in flight")
	}

	var stdout syncBuffer
	if code := Run(testContext(t), []string{"--help"}, strings.NewReader(""), &stdout, io.Discard); code != 0 || !strings.Contains(stdout.String(), "--defects") {
		t.Errorf("--help: %d %q", code, stdout.String())
	}
}
