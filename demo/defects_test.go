package demo

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Transports the defects profile is observed on. "stdio" is always a child
// process ("mcpcheck demo --defects"), through real pipes.
const (
	onInMemory = "in-memory"
	onStdio    = "stdio"
	onHTTP     = "http"
)

var defectTransports = []string{onInMemory, onStdio, onHTTP}

// isolateTickets points the ticket_counter lock of an in-process server at
// a file of the test's own, so that other tests (and other processes)
// never contend with it.
func isolateTickets(t *testing.T, f *faults) {
	t.Helper()
	f.defects.tickets = newTicketLock(filepath.Join(t.TempDir(), "ticket.lock"))
}

// defectsChild returns "mcpcheck demo --defects" (plus args) as a child
// process whose temporary directory, and so ticket_counter's lock file, is
// tmp; "" gives it one of its own.
func defectsChild(t *testing.T, tmp string, args ...string) (*exec.Cmd, *syncBuffer) {
	t.Helper()
	if tmp == "" {
		tmp = t.TempDir()
	}
	cmd, _ := childCommand(t, append([]string{"--defects"}, args...)...)
	cmd.Env = append(cmd.Env, "TMPDIR="+tmp)
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	return cmd, stderr
}

// defectTarget is a client session with a defects-profile server on one
// transport.
type defectTarget struct {
	cs *mcp.ClientSession
	f  *faults // nil for a child process

	cmd    *exec.Cmd   // stdio only
	stderr *syncBuffer // stdio only
	url    string      // HTTP only
}

// connectDefects connects a new client to a fresh defects-profile server
// (with the fault profile too when faults is set) on the transport.
func connectDefects(t *testing.T, transport, version string, faultsToo bool) defectTarget {
	t.Helper()
	opts := Options{Defects: true, Faults: faultsToo}
	switch transport {
	case onInMemory:
		s, _, f := buildServer(opts, anyTransport)
		isolateTickets(t, f)
		return defectTarget{cs: connectInMemory(t, testContext(t), s, version), f: f}
	case onHTTP:
		s, _, f := buildServer(opts, httpTransport)
		isolateTickets(t, f)
		srv := httptest.NewServer(handlerFor(s, f, Options{}))
		t.Cleanup(srv.Close) // after the session's own cleanup
		return defectTarget{cs: connectHTTP(t, srv.URL+"/mcp", version), f: f, url: srv.URL + "/mcp"}
	case onStdio:
		var args []string
		if faultsToo {
			args = append(args, "--faults")
		}
		cmd, stderr := defectsChild(t, "", args...)
		cs, err := newClient().Connect(testContext(t), &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatalf("connect: %v", err)
		}
		t.Cleanup(func() { cs.Close() })
		return defectTarget{cs: cs, cmd: cmd, stderr: stderr}
	}
	t.Fatalf("unknown transport %q", transport)
	return defectTarget{}
}

// A defectCase is one call of a defects tool: what the go-sdk client
// observes, per transport where they differ, and what a call of
// counter_snapshot on the same session observes afterwards.
type defectCase struct {
	name     string
	tool     string
	args     map[string]any
	timeout  time.Duration
	call     observation
	observer observation
	// on overrides call and observer on some transports.
	on map[string]struct{ call, observer observation }
	// check makes further assertions on a result.
	check func(t *testing.T, res *mcp.CallToolResult)
	// exit is the child process's exit status after the case (stdio only).
	exit int
	// stderr is what the child process writes to stderr (stdio only).
	stderr string
}

// emptySnapshot is counter_snapshot on a session that holds nothing: the
// observer of every case.
var emptySnapshot = observation{result: `{"files":0,"folders":0,"labels":0,"notes":0}`}

const (
	weatherRefusal = "I'm sorry, but I can't access live weather data for Chicago right now. " +
		"Please check a local weather service for the latest conditions."
	profileSummary = "Profile loaded: 3 saved addresses, 12 past orders, preferred language English, member since 2019."
	parseDateCrash = "mcpcheck demo: parse_date was called without a date and crashed; exiting with status 2\n"
)

func defectCases() []defectCase {
	eof := observation{err: true, errIs: io.EOF, errText: `calling "tools/call": EOF`}
	crashed := map[string]struct{ call, observer observation }{
		onInMemory: {eof, connClosed},
		onStdio:    {eof, connClosed},
		onHTTP:     {observation{err: true, errText: `calling "tools/call": request terminated without response`}, emptySnapshot},
	}
	internal := func(got string) observation {
		return observation{err: true, code: jsonrpc.CodeInternalError,
			errText: `calling "tools/call": internal error: interface conversion: interface {} is ` + got + `, not float64`}
	}
	toolErr := func(text string) observation { return observation{isError: true, text: text} }
	chicago := `{"city":"Chicago","country":"United States","country_code":"US","latitude":41.8781,"longitude":-87.6298,"population":2746388,"timezone":"America/Chicago"}`

	return []defectCase{
		// lookup_city: the fuzzing control; every bad input is a tool error.
		{name: "lookup_city valid", tool: "lookup_city", args: args("city", "Chicago"), call: observation{result: chicago}},
		{name: "lookup_city country", tool: "lookup_city", args: args("city", "london", "country", "CA"),
			call: observation{result: `{"city":"London","country":"Canada","country_code":"CA","latitude":42.9849,"longitude":-81.2453,"population":422324,"timezone":"America/Toronto"}`}},
		{name: "lookup_city other country", tool: "lookup_city", args: args("city", "Chicago", "country", "Canada"), call: observation{result: chicago}},
		{name: "lookup_city missing city", tool: "lookup_city", args: args("country", "Canada"), call: toolErr(`validating "arguments"`)},
		{name: "lookup_city wrong-type city", tool: "lookup_city", args: args("city", 12345), call: toolErr(`validating "arguments"`)},
		{name: "lookup_city wrong-type country", tool: "lookup_city", args: args("city", "Chicago", "country", 12345), call: toolErr(`validating "arguments"`)},
		{name: "lookup_city unknown", tool: "lookup_city", args: args("city", "Atlantis"), call: toolErr(`no city named "Atlantis" in the atlas`)},

		// convert_units: a wrong-type value is a JSON-RPC internal error.
		{name: "convert_units valid", tool: "convert_units", args: args("value", 5, "from", "km", "to", "mi"),
			call: observation{result: `{"from":"km","result":3.106855961,"to":"mi","value":5}`}},
		{name: "convert_units wrong-type value", tool: "convert_units", args: args("value", "not-a-valid-value", "from", "km", "to", "mi"), call: internal("string")},
		{name: "convert_units null value", tool: "convert_units", args: args("value", nil, "from", "km", "to", "mi"), call: internal("nil")},
		{name: "convert_units object value", tool: "convert_units", args: args("value", args(), "from", "km", "to", "mi"), call: internal("map[string]interface {}")},
		{name: "convert_units missing value", tool: "convert_units", args: args("from", "km", "to", "mi"), call: toolErr(`validating "arguments": value is required`)},
		{name: "convert_units wrong-type from", tool: "convert_units", args: args("value", 5, "from", 12345, "to", "mi"), call: toolErr("from must be one of km, m, cm, mm, mi, yd, ft, in")},
		{name: "convert_units missing to", tool: "convert_units", args: args("value", 5, "from", "km"), call: toolErr(`validating "arguments": to is required`)},
		{name: "convert_units extra", tool: "convert_units", args: args("value", 5, "from", "km", "to", "mi", "x", 1), call: toolErr(`unexpected additional properties ["x"]`)},

		// parse_date: a missing date crashes the server.
		{name: "parse_date valid", tool: "parse_date", args: args("date", "2026-01-15"),
			call: observation{result: `{"date":"2026-01-15","day_of_year":15,"iso_week":3,"weekday":"Thursday"}`}},
		{name: "parse_date wrong-type date", tool: "parse_date", args: args("date", 12345), call: toolErr("date must be a string in the form YYYY-MM-DD, not a number")},
		{name: "parse_date impossible date", tool: "parse_date", args: args("date", "2026-02-30"), call: toolErr(`date "2026-02-30" is not a calendar date`)},
		{name: "parse_date missing date", tool: "parse_date", on: crashed, exit: parseDateExitCode, stderr: parseDateCrash},

		// search_notes: a wrong-type limit hangs until cancelled.
		{name: "search_notes valid", tool: "search_notes", args: args("query", "coffee"), call: observation{result: `{"query":"coffee","results":[],"total":0}`}},
		{name: "search_notes with limit", tool: "search_notes", args: args("query", "coffee", "limit", 5), call: observation{result: `{"query":"coffee","results":[],"total":0}`}},
		{name: "search_notes missing query", tool: "search_notes", args: args("limit", 5), call: toolErr(`validating "arguments": query is required`)},
		{name: "search_notes wrong-type query", tool: "search_notes", args: args("query", 12345), call: toolErr("query must be a string, not a number")},
		{name: "search_notes limit out of range", tool: "search_notes", args: args("query", "coffee", "limit", 51), call: toolErr("limit must be an integer from 1 to 50")},
		{name: "search_notes wrong-type limit", tool: "search_notes", args: args("query", "coffee", "limit", "not-a-valid-value"), timeout: shortCall, call: deadline},

		// Output fidelity.
		{name: "weather_report", tool: "weather_report", args: args("city", "Chicago"), call: observation{text: weatherRefusal},
			check: func(t *testing.T, res *mcp.CallToolResult) { wantText(t, res, weatherRefusal) }},
		{name: "list_reminders", tool: "list_reminders", call: observation{},
			check: func(t *testing.T, res *mcp.CallToolResult) {
				if len(res.Content) != 0 {
					t.Errorf("list_reminders: %d content items, want none", len(res.Content))
				}
			}},
		{name: "exchange_rate", tool: "exchange_rate", args: args("from", "USD", "to", "EUR"), call: observation{result: anyResult},
			check: func(t *testing.T, res *mcp.CallToolResult) {
				want := `{"as_of":"` + time.Now().UTC().Format(time.DateOnly) + `","from":"USD","rate":"0.9200","to":"EUR"}`
				if got := canonical(t, res.StructuredContent); got != want {
					// Midnight may pass between the call and now.
					if !strings.Contains(got, `"rate":"0.9200"`) {
						t.Errorf("exchange_rate: %s, want %s", got, want)
					}
				}
			}},
		{name: "exchange_rate bad currency", tool: "exchange_rate", args: args("from", "usd", "to", "EUR"), call: toolErr("from must be one of USD, EUR")},
		{name: "echo_profile", tool: "echo_profile", args: args("name", "Jane Doe"), call: observation{text: profileSummary},
			check: func(t *testing.T, res *mcp.CallToolResult) { wantText(t, res, profileSummary) }},
		{name: "get_forecast", tool: "get_forecast", args: args("city", "Chicago"), call: observation{result: anyResult, text: "3-day forecast for Chicago:"},
			check: checkForecast("Chicago", 3)},
		{name: "get_forecast 5 days", tool: "get_forecast", args: args("city", "Lisbon", "days", 5), call: observation{result: anyResult, text: "5-day forecast for Lisbon:"},
			check: checkForecast("Lisbon", 5)},
		{name: "get_forecast 6 days", tool: "get_forecast", args: args("city", "Lisbon", "days", 6), call: toolErr(`validating "arguments"`)},

		// Probes.
		{name: "slow_search", tool: "slow_search", args: args("query", "coffee"), call: observation{result: `{"query":"coffee","results":[` +
			`{"title":"coffee: an overview","url":"https://search.example.com/r/1"},` +
			`{"title":"Latest news about coffee","url":"https://search.example.com/r/2"}]}`}},
		{name: "export_catalog", tool: "export_catalog", call: observation{text: "SKU-10001 | Stainless steel water bottle"},
			check: func(t *testing.T, res *mcp.CallToolResult) {
				if got := resultText(res); len(got) != 60000 || strings.Count(got, "\n") != 500 {
					t.Errorf("export_catalog: %d characters in %d lines, want 60000 in 500", len(got), strings.Count(got, "\n"))
				}
			}},

		// Concurrency tools, one call at a time: all well behaved.
		{name: "counter_snapshot", tool: "counter_snapshot", call: emptySnapshot},
		{name: "shared_cache_get", tool: "shared_cache_get", args: args("key", "theme"), call: observation{result: `{"key":"theme","value":"dark"}`}},
		{name: "shared_cache_get other key", tool: "shared_cache_get", args: args("key", "3f6c2a9e"), call: observation{result: `{"key":"3f6c2a9e","value":"v1:` + fnvHex("3f6c2a9e") + `"}`}},
		{name: "ticket_counter", tool: "ticket_counter", call: observation{result: `{"now_serving":1}`}},

		// Lifecycle reads of ids that do not exist.
		{name: "get_note unknown", tool: "get_note", args: args("note_id", "3f6c2a9e-8b1d-4c7e-9a52-1d0e4b7f8c21"), call: toolErr(`note not found: "3f6c2a9e-8b1d-4c7e-9a52-1d0e4b7f8c21"`)},
		{name: "delete_label unknown", tool: "delete_label", args: args("label_id", "x"), call: toolErr(`label not found: "x"`)},
		{name: "create_file in unknown folder", tool: "create_file", args: args("folder_id", "x", "name", "todo.txt"), call: toolErr(`folder not found: "x"`)},

		// format_address accepts what its schema forbids, and answers ok.
		{name: "format_address valid", tool: "format_address", args: args("street", "12 Elm Street", "city", "Chicago", "postcode", "60601"),
			call: observation{result: `{"label":"12 Elm Street\nChicago\n60601"}`}},
		{name: "format_address wrong-type street", tool: "format_address", args: args("street", 12345, "city", "Chicago"),
			call: observation{result: `{"label":"12345\nChicago"}`}},
		{name: "format_address missing city", tool: "format_address", args: args("street", "12 Elm Street"),
			call: observation{result: `{"label":"12 Elm Street"}`}},

		// Families whose valid input another tool offers.
		{name: "list_projects", tool: "list_projects", call: observation{result: `{"projects":[` +
			`{"id":"prj-7f3a","name":"Kitchen remodel","room":"kitchen","status":"in progress"},` +
			`{"id":"prj-91c2","name":"Garden shed","room":"garden","status":"planned"},` +
			`{"id":"prj-c44e","name":"Repaint the hallway","room":"hallway","status":"done"}]}`}},
		{name: "get_project listed", tool: "get_project", args: args("project_id", "prj-91c2"),
			call: observation{result: `{"id":"prj-91c2","name":"Garden shed","room":"garden","status":"planned"}`}},
		{name: "get_project unknown", tool: "get_project", args: args("project_id", "prj-0000"),
			call: toolErr(`no project with id "prj-0000"; list_projects lists them`)},
		{name: "get_project bad pattern", tool: "get_project", args: args("project_id", "kitchen"), call: toolErr(`validating "arguments"`)},
		{name: "shared_folders", tool: "shared_folders", call: observation{text: "Shared folders:\n/srv/household/photos\n/srv/household/shared"}},
		{name: "list_folder shared", tool: "list_folder", args: args("path", "/srv/household/shared/"),
			call: observation{result: `{"entries":["budget-2026.ods","chores.md","recipes/"],"path":"/srv/household/shared"}`}},
		{name: "list_folder outside", tool: "list_folder", args: args("path", "/home"),
			call: toolErr("access denied: /home is outside the shared folders (see shared_folders)")},
	}
}

// anyResult stands for a result whose structuredContent a check function
// inspects.
const anyResult = "any result"

func fnvHex(s string) string {
	h := fnv.New32a()
	h.Write([]byte(s))
	return fmt.Sprintf("%08x", h.Sum32())
}

func wantText(t *testing.T, res *mcp.CallToolResult, want string) {
	t.Helper()
	if got := resultText(res); got != want {
		t.Errorf("text %q, want %q", got, want)
	}
	if res.StructuredContent != nil || len(res.Content) != 1 {
		t.Errorf("%d content items and structuredContent %v, want one text and none", len(res.Content), res.StructuredContent)
	}
}

func checkForecast(city string, days int) func(t *testing.T, res *mcp.CallToolResult) {
	return func(t *testing.T, res *mcp.CallToolResult) {
		t.Helper()
		m, _ := res.StructuredContent.(map[string]any)
		daily, _ := m["daily"].([]any)
		if m["city"] != city || len(daily) != days {
			t.Errorf("forecast %v, want %d days for %s", res.StructuredContent, days, city)
		}
	}
}

// runDefectCase makes the case's call on target and then the observer call.
func runDefectCase(t *testing.T, target defectTarget, transport string, c defectCase) {
	t.Helper()
	want, wantObserver := c.call, c.observer
	if o, ok := c.on[transport]; ok {
		want, wantObserver = o.call, o.observer
	}
	if wantObserver == (observation{}) {
		wantObserver = emptySnapshot
	}
	check := want
	if check.result == anyResult {
		check.result = ""
	}
	res, err := callWithin(t, target.cs, c.tool, c.args, c.timeout)
	if want.result == anyResult && err == nil {
		if res.StructuredContent == nil {
			t.Errorf("%s: no structuredContent", c.tool)
		}
		res2 := *res
		res2.StructuredContent = nil
		checkObservation(t, c.tool, &res2, nil, check)
	} else {
		checkObservation(t, c.tool, res, err, check)
	}
	if err == nil && c.check != nil {
		c.check(t, res)
	}
	res, err = callWithin(t, target.cs, "counter_snapshot", nil, 0)
	checkObservation(t, "observer counter_snapshot after "+c.name, res, err, wantObserver)
}

// TestDefectBehaviours makes every documented call of the defects profile on
// every transport and protocol version, and checks what the go-sdk client
// observes, then whether the session still works.
func TestDefectBehaviours(t *testing.T) {
	for _, transport := range defectTransports {
		for _, version := range protocolVersions {
			for _, c := range defectCases() {
				t.Run(transport+"/"+version+"/"+c.name, func(t *testing.T) {
					t.Parallel() // each case has a server of its own
					target := connectDefects(t, transport, version, false)
					runDefectCase(t, target, transport, c)
					if transport != onStdio {
						return
					}
					// Close reports how the child ended.
					err := target.cs.Close()
					var exit *exec.ExitError
					switch {
					case c.exit == 0 && err != nil:
						t.Errorf("close: %v (stderr %q)", err, target.stderr.String())
					case c.exit != 0 && (!errors.As(err, &exit) || exit.ExitCode() != c.exit):
						t.Errorf("close: %v, want exit status %d", err, c.exit)
					}
					if got := target.stderr.String(); got != c.stderr {
						t.Errorf("stderr %q, want %q", got, c.stderr)
					}
				})
			}
		}
	}
}

// TestDefectToolsListed checks which tools each combination of profiles
// lists on each transport: the fault profile adds the tools its transport
// can serve; the defects profile adds exactly its tools, on every
// transport, and leaves the household's and the fault profile's lists as
// they were.
func TestDefectToolsListed(t *testing.T) {
	household := householdTools
	neutral := []string{"bad_output", "delay", "hang", "local_ref", "ping", "protocol_error", "protocol_ping_liveness", "remote_ref", "tool_error"}
	stdioFaults := []string{"crash", "disconnect", "duplicate_response", "malformed_message", "response_after_cancellation"}
	httpFaults := []string{"disconnect", "duplicate_response", "malformed_message", "session_loss"}
	sorted := func(lists ...[]string) []string { return slices.Sorted(slices.Values(slices.Concat(lists...))) }
	if len(defectTools) != 36 || len(sorted(defectTools)) != len(slices.Compact(sorted(defectTools))) {
		t.Fatalf("defectTools has %d names, some repeated: %v", len(defectTools), defectTools)
	}

	child := func(args ...string) func(t *testing.T) *mcp.ClientSession {
		return func(t *testing.T) *mcp.ClientSession {
			cmd, _ := childCommand(t, args...)
			cs, err := newClient().Connect(testContext(t), &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cs.Close() })
			return cs
		}
	}
	handler := func(opts Options) func(t *testing.T) *mcp.ClientSession {
		return func(t *testing.T) *mcp.ClientSession {
			srv := httptest.NewServer(Handler(opts))
			t.Cleanup(srv.Close)
			return connectHTTP(t, srv.URL+"/mcp", "2025-11-25")
		}
	}
	inMemory := func(opts Options) func(t *testing.T) *mcp.ClientSession {
		return func(t *testing.T) *mcp.ClientSession {
			return connectInMemory(t, testContext(t), NewServer(opts), "2025-11-25")
		}
	}
	tests := []struct {
		name    string
		connect func(t *testing.T) *mcp.ClientSession
		want    []string
	}{
		{"NewServer", inMemory(Options{}), household},
		{"NewServer with Faults", inMemory(Options{Faults: true}), sorted(household, neutral)},
		{"NewServer with Defects", inMemory(Options{Defects: true}), sorted(household, defectTools, behaviourDefectTools)},
		{"NewServer with Faults and Defects", inMemory(Options{Faults: true, Defects: true}), sorted(household, neutral, defectTools, behaviourDefectTools)},
		{"mcpcheck demo", child(), household},
		{"mcpcheck demo --faults", child("--faults"), sorted(household, neutral, stdioFaults)},
		{"mcpcheck demo --defects", child("--defects"), sorted(household, defectTools, behaviourDefectTools)},
		{"mcpcheck demo --defects --faults", child("--defects", "--faults"), sorted(household, neutral, stdioFaults, defectTools, behaviourDefectTools)},
		{"Handler", handler(Options{}), household},
		{"Handler with Faults", handler(Options{Faults: true}), sorted(household, neutral, httpFaults)},
		{"Handler with Defects", handler(Options{Defects: true}), sorted(household, defectTools, behaviourDefectTools)},
		{"Handler with Faults and Defects", handler(Options{Faults: true, Defects: true}), sorted(household, neutral, httpFaults, defectTools, behaviourDefectTools)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := tt.connect(t).ListTools(testContext(t), nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, tool := range res.Tools {
				got = append(got, tool.Name)
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("tools\n got %v\nwant %v", got, tt.want)
			}
		})
	}
}

// TestDefectsWithFaults runs the defects that act on their transport on a
// server with both profiles: the fault layer serves both, and a fault tool
// still works afterwards where the session survives.
func TestDefectsWithFaults(t *testing.T) {
	for _, transport := range []string{onInMemory, onHTTP} {
		t.Run(transport, func(t *testing.T) {
			target := connectDefects(t, transport, "2025-11-25", true)
			for _, c := range defectCases() {
				switch c.name {
				case "search_notes wrong-type limit", "convert_units wrong-type value", "weather_report", "lookup_city valid":
					runDefectCase(t, target, transport, c)
				}
			}
			checkObservation(t, "ping", call(t, testContext(t), target.cs, "ping", args()), nil, pingOK)
			eventually(t, "the hang to stop", func() bool { return target.f.running.Load() == 0 && target.f.acts.len() == 0 })
		})
	}
}
