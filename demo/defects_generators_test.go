package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/runner/generate"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// These tests drive the defects profile the way mcpcheck's generated checks
// do, with the runner/generate building blocks fed from the discovered
// tools/list, and check that exactly the planted defects are caught: each
// tool's one defect is flagged, and nothing else (the controls included).

// dialer opens a new, independent connection to one defects-profile server:
// another session of the same in-memory server or HTTP endpoint, or another
// "mcpcheck demo --defects" process sharing the first one's temporary
// directory (and so ticket_counter's lock file).
type dialer func(t *testing.T) *mcp.ClientSession

func defectDialer(t *testing.T, transport string) dialer {
	t.Helper()
	switch transport {
	case onInMemory:
		s, _, f := buildServer(Options{Defects: true}, anyTransport)
		isolateTickets(t, f)
		return func(t *testing.T) *mcp.ClientSession { return connectInMemory(t, testContext(t), s, "2025-11-25") }
	case onHTTP:
		s, _, f := buildServer(Options{Defects: true}, httpTransport)
		isolateTickets(t, f)
		srv := httptest.NewServer(handlerFor(s, f, Options{}))
		t.Cleanup(srv.Close) // after the sessions' cleanups
		return func(t *testing.T) *mcp.ClientSession { return connectHTTP(t, srv.URL+"/mcp", "2025-11-25") }
	case onStdio:
		tmp := t.TempDir()
		return func(t *testing.T) *mcp.ClientSession {
			cmd, _ := defectsChild(t, tmp)
			cs, err := newClient().Connect(testContext(t), &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			t.Cleanup(func() { cs.Close() }) // an error after a crash is expected
			return cs
		}
	}
	t.Fatalf("unknown transport %q", transport)
	return nil
}

// generatorTimeout bounds each generated call: well above slow_search's
// 1.2 s, so only a hang times out.
const generatorTimeout = 4 * time.Second

// outcomeOf classifies what the client observed in the runner's outcome
// vocabulary (input_rejected, output_invalid, session_lost and
// malformed_response do not arise here).
func outcomeOf(res *mcp.CallToolResult, err error) string {
	var rpcErr *jsonrpc.Error
	switch {
	case err == nil && res.IsError:
		return "tool_error"
	case err == nil:
		return "ok"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.As(err, &rpcErr):
		return fmt.Sprintf("protocol_error %d", rpcErr.Code)
	default:
		return "transport_closed"
	}
}

// graceful is mcp-fuzz's verdict on a bad-input call: a structured error.
func graceful(outcome string) bool {
	return outcome == "tool_error" || outcome == fmt.Sprintf("protocol_error %d", jsonrpc.CodeInvalidParams)
}

type discovered struct {
	tools  []*mcp.Tool
	byName map[string]*mcp.Tool
	gen    []generate.Tool
}

func discover(t *testing.T, cs *mcp.ClientSession) discovered {
	t.Helper()
	res, err := cs.ListTools(testContext(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	d := discovered{tools: res.Tools, byName: map[string]*mcp.Tool{}}
	for _, tool := range res.Tools {
		d.byName[tool.Name] = tool
		d.gen = append(d.gen, generate.Tool{
			Name:         tool.Name,
			InputSchema:  rawJSON(t, tool.InputSchema),
			OutputSchema: rawJSON(t, tool.OutputSchema),
			Annotations:  rawJSON(t, tool.Annotations),
		})
	}
	return d
}

func rawJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readOnlyDefectTools are the defects tools that mcp-fuzz and
// mcp-reality-check call by default, by their readOnlyHint.
func (d discovered) readOnlyDefectTools() []generate.Tool {
	var out []generate.Tool
	for _, tool := range d.gen {
		if ro, _ := generate.Hint(tool.Annotations, "readOnlyHint"); ro && slices.Contains(defectTools, tool.Name) {
			out = append(out, tool)
		}
	}
	return out
}

// validCall is one generated valid call and what came back.
type validCall struct {
	args    map[string]any
	outcome string
	res     *mcp.CallToolResult
	took    time.Duration
}

// TestGeneratorsCatchPlantedDefects runs mcp-fuzz's valid, missing-required
// and wrong-type calls (generate.FuzzCases) against every read-only tool of
// the profile, reconnecting (over stdio: relaunching) after a transport
// failure, and then applies the fidelity and probe checks to the valid
// calls' results.
func TestGeneratorsCatchPlantedDefects(t *testing.T) {
	for _, transport := range defectTransports {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			dial := defectDialer(t, transport)
			cs := dial(t)
			d := discover(t, cs)
			tools := d.readOnlyDefectTools()
			if len(tools) != 18 {
				t.Errorf("%d read-only defects tools, want 18", len(tools))
			}

			values := generate.NewValues(1)
			flagged := map[string]string{} // "tool case property" → outcome, for bad-input calls not handled gracefully
			valid := map[string]validCall{}
			connections := 1
			for _, tool := range tools {
				cases, notes := generate.FuzzCases(tool.Name, tool.InputSchema, values)
				if len(notes) > 0 {
					t.Errorf("%s: generator notes %v", tool.Name, notes)
				}
				for _, c := range cases {
					ctx, cancel := context.WithTimeout(testContext(t), generatorTimeout)
					start := time.Now()
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool.Name, Arguments: c.Arguments})
					took := time.Since(start)
					cancel()
					outcome := outcomeOf(res, err)
					switch {
					case c.Name == generate.CaseValid:
						valid[tool.Name] = validCall{args: c.Arguments, outcome: outcome, res: res, took: took}
					case !graceful(outcome):
						flagged[strings.Join([]string{tool.Name, c.Name, c.Property}, " ")] = outcome
					}
					if outcome == "transport_closed" {
						cs = dial(t)
						connections++
					}
				}
			}

			wantFlagged := map[string]string{
				"convert_units wrong-type value":   "protocol_error -32603",
				"parse_date missing-required date": "transport_closed",
				"search_notes wrong-type limit":    "timeout",
			}
			if !maps.Equal(flagged, wantFlagged) {
				t.Errorf("crash resilience flags\n got %v\nwant %v", flagged, wantFlagged)
			}
			if connections != 2 {
				t.Errorf("%d connections, want 2 (one relaunch after parse_date)", connections)
			}

			// Every valid call succeeds, but reads of ids the generator made up.
			for name, v := range valid {
				want := "ok"
				if strings.HasPrefix(name, "get_") && name != "get_forecast" {
					want = "tool_error"
				}
				if v.outcome != want {
					t.Errorf("%s valid call %v: %s, want %s", name, v.args, v.outcome, want)
				}
			}

			checkFidelity(t, d, valid)
			checkProbes(t, valid)
		})
	}
}

// checkFidelity applies mcp-reality-check's checks to the successful valid
// calls: disguised refusal, empty content, output schema violation (hard
// failures) and echo mismatch (a note).
func checkFidelity(t *testing.T, d discovered, valid map[string]validCall) {
	t.Helper()
	var withOutput []*mcp.Tool
	for _, tool := range d.tools {
		if tool.OutputSchema != nil {
			withOutput = append(withOutput, tool)
		}
	}
	schemas := compileOutputSchemas(t, withOutput)

	var refusals, empty, invalid, echo []string
	for _, name := range slices.Sorted(maps.Keys(valid)) {
		v := valid[name]
		if v.outcome != "ok" {
			continue
		}
		text := resultText(v.res)
		if _, ok := generate.Refusal(text); ok {
			refusals = append(refusals, name)
		}
		if len(v.res.Content) == 0 && v.res.StructuredContent == nil {
			empty = append(empty, name)
		}
		if s := schemas[name]; s != nil {
			inst, err := jsonschema.UnmarshalJSON(strings.NewReader(canonical(t, v.res.StructuredContent)))
			if err != nil {
				t.Fatal(err)
			}
			if s.Validate(inst) != nil {
				invalid = append(invalid, name)
			}
		}
		if checked, mismatch := generate.EchoMismatch(v.args, text); checked && mismatch {
			echo = append(echo, name)
		}
	}
	for _, c := range []struct {
		check     string
		got, want []string
	}{
		{"disguised refusal", refusals, []string{"weather_report"}},
		{"empty content", empty, []string{"list_reminders"}},
		{"output schema violation", invalid, []string{"exchange_rate"}},
		{"echo mismatch (note)", echo, []string{"echo_profile"}},
	} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s: flagged %v, want %v", c.check, c.got, c.want)
		}
	}
}

// checkProbes applies mcp-fuzz's latency and response size rules, with its
// defaults, to the successful valid calls.
func checkProbes(t *testing.T, valid map[string]validCall) {
	t.Helper()
	latency := map[string]float64{}
	size := map[string]float64{}
	for name, v := range valid {
		if v.outcome != "ok" {
			continue
		}
		latency[name] = float64(v.took) / float64(time.Millisecond)
		size[name] = float64(len(rawJSON(t, v.res)))
	}
	if got := slices.Sorted(maps.Keys(generate.Outliers(latency, 5000, 3, 100, 3))); !slices.Equal(got, []string{"slow_search"}) {
		// Timing depends on the machine; report what was measured.
		t.Errorf("slow: flagged %v, want [slow_search]; latencies (ms) %v", got, latency)
	}
	if latency["slow_search"] < float64(slowSearchDelay/time.Millisecond) {
		t.Errorf("slow_search answered in %v ms, want at least %v", latency["slow_search"], slowSearchDelay)
	}
	if got := slices.Sorted(maps.Keys(generate.Outliers(size, 20000, 3, 1000, 3))); !slices.Equal(got, []string{"export_catalog"}) {
		t.Errorf("bloated: flagged %v, want [export_catalog]; sizes %v", got, size)
	}
	for name, n := range size {
		if name != "export_catalog" && n >= 1000 {
			t.Errorf("%s: response of %v characters; controls stay under 1,000", name, n)
		}
	}
}

// TestGeneratorsLifecycle finds the resource groups and the parent/child
// link by name, as the lifecycle generator does, and runs create → read →
// delete → read for each: only notes stay readable after deletion, and a
// file stays readable after its folder is deleted.
func TestGeneratorsLifecycle(t *testing.T) {
	for _, transport := range defectTransports {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			cs := defectDialer(t, transport)(t)
			d := discover(t, cs)
			groups, notes := generate.Groups(d.gen)
			if len(notes) > 0 {
				t.Errorf("grouping notes: %v", notes)
			}
			want := []generate.Group{
				{Resource: "file", Create: "create_file", Read: "get_file", Delete: "delete_file", ReadIDParam: "file_id", DeleteIDParam: "file_id"},
				{Resource: "folder", Create: "create_folder", Read: "get_folder", Delete: "delete_folder", ReadIDParam: "folder_id", DeleteIDParam: "folder_id"},
				{Resource: "label", Create: "create_label", Read: "get_label", Delete: "delete_label", ReadIDParam: "label_id", DeleteIDParam: "label_id"},
				{Resource: "note", Create: "create_note", Read: "get_note", Delete: "delete_note", ReadIDParam: "note_id", DeleteIDParam: "note_id"},
			}
			if !slices.Equal(groups, want) {
				t.Fatalf("groups\n got %+v\nwant %+v", groups, want)
			}
			links := generate.Links(groups, d.gen)
			if want := []generate.Link{{Parent: "folder", Child: "file", Param: "folder_id"}}; !slices.Equal(links, want) {
				t.Fatalf("links %+v, want %+v", links, want)
			}
			for _, g := range groups {
				if ro, _ := generate.Hint(rawJSON(t, d.byName[g.Delete].Annotations), "destructiveHint"); !ro {
					t.Errorf("%s is not annotated destructive", g.Delete)
				}
			}

			values := generate.NewValues(1)
			ctx := testContext(t)
			create := func(g generate.Group, override map[string]any) any {
				t.Helper()
				a, _ := values.Valid(g.Create, rawJSON(t, d.byName[g.Create].InputSchema))
				maps.Copy(a, override)
				res := call(t, ctx, cs, g.Create, a)
				if res.IsError {
					t.Fatalf("%s %v: %s", g.Create, a, resultText(res))
				}
				id, where, ok := generate.ExtractID(g.Resource, res.StructuredContent, resultText(res))
				if want := "/structuredContent/" + g.Resource + "_id"; !ok || where != want {
					t.Fatalf("%s: id %v at %q, want one at %s", g.Create, id, where, want)
				}
				return id
			}
			read := func(g generate.Group, id any) string {
				return outcomeOf(cs.CallTool(ctx, &mcp.CallToolParams{Name: g.Read, Arguments: args(g.ReadIDParam, id)}))
			}
			del := func(g generate.Group, id any) string {
				return outcomeOf(cs.CallTool(ctx, &mcp.CallToolParams{Name: g.Delete, Arguments: args(g.DeleteIDParam, id)}))
			}

			folderID := create(groups[1], nil)
			staleAfterDelete := map[string]bool{}
			for _, g := range groups {
				var id any
				if g.Resource == "file" {
					id = create(g, args("folder_id", folderID))
				} else {
					id = create(g, nil)
				}
				if got := read(g, id); got != "ok" {
					t.Errorf("%s after create: %s, want ok", g.Read, got)
				}
				if got := del(g, id); got != "ok" {
					t.Errorf("%s: %s, want ok", g.Delete, got)
				}
				staleAfterDelete[g.Resource] = read(g, id) == "ok"
			}
			if want := map[string]bool{"file": false, "folder": false, "label": false, "note": true}; !maps.Equal(staleAfterDelete, want) {
				t.Errorf("readable after delete: %v, want %v", staleAfterDelete, want)
			}

			// The cross-resource check: delete the parent, read the child.
			folder := create(groups[1], nil)
			file := create(groups[0], args("folder_id", folder))
			if got := del(groups[1], folder); got != "ok" {
				t.Fatalf("delete_folder: %s", got)
			}
			if got := read(groups[1], folder); got != "tool_error" {
				t.Errorf("get_folder after delete: %s, want tool_error", got)
			}
			res := call(t, ctx, cs, "get_file", args("file_id", file))
			if res.IsError || !strings.Contains(canonical(t, res.StructuredContent), fmt.Sprintf(`"folder_id":%q`, folder)) {
				t.Errorf("get_file after its folder was deleted: %v %s, want the orphan, still naming the folder", res.IsError, resultText(res))
			}
		})
	}
}

// together makes the calls at once, after all are ready, and returns what
// came back, in order.
func together(n int, f func(i int) (*mcp.CallToolResult, error)) ([]*mcp.CallToolResult, []error) {
	results := make([]*mcp.CallToolResult, n)
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			results[i], errs[i] = f(i)
		})
	}
	close(start)
	wg.Wait()
	return results, errs
}

// TestGeneratorsCrossedResponses sends distinct generated arguments
// (generate.Values.Distinct) to one tool at once on one session, several
// times over, and checks each answer against its own call:
// shared_cache_get answers overlapping calls for the latest key, every time;
// the controls never do.
func TestGeneratorsCrossedResponses(t *testing.T) {
	const calls, rounds = 3, 5
	for _, transport := range defectTransports {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			cs := defectDialer(t, transport)(t)
			d := discover(t, cs)
			values := generate.NewValues(1)
			for _, tc := range []struct {
				tool    string
				key     string // the argument each answer must echo
				crossed bool
			}{
				{"shared_cache_get", "key", true},
				{"lookup_city", "city", false},
				{"parse_date", "date", false},
				{"search_notes", "query", false},
			} {
				distinct := values.Distinct(tc.tool, rawJSON(t, d.byName[tc.tool].InputSchema), calls)
				if len(distinct) != calls {
					t.Fatalf("%s: %d distinct argument objects, want %d", tc.tool, len(distinct), calls)
				}
				for round := range rounds {
					results, errs := together(calls, func(i int) (*mcp.CallToolResult, error) {
						return cs.CallTool(testContext(t), &mcp.CallToolParams{Name: tc.tool, Arguments: distinct[i]})
					})
					wrong := 0
					for i, res := range results {
						if errs[i] != nil || res.IsError {
							t.Fatalf("%s %v: %v %s", tc.tool, distinct[i], errs[i], resultText(res))
						}
						own := fmt.Sprint(distinct[i][tc.key])
						if !strings.Contains(strings.ToLower(resultText(res)), strings.ToLower(own)) {
							wrong++
						}
					}
					if tc.crossed && wrong == 0 || !tc.crossed && wrong > 0 {
						t.Errorf("%s round %d: %d of %d answers are for another call's %s; want crossed %v", tc.tool, round, wrong, calls, tc.key, tc.crossed)
					}
				}
				// One at a time, every answer is its own.
				for _, a := range distinct {
					res := call(t, testContext(t), cs, tc.tool, a)
					if own := fmt.Sprint(a[tc.key]); !strings.Contains(strings.ToLower(resultText(res)), strings.ToLower(own)) {
						t.Errorf("%s %v alone: answered %s", tc.tool, a, resultText(res))
					}
				}
			}
		})
	}
}

// TestGeneratorsIndependentConnections calls a tool with the same valid
// arguments on several independent connections at once (over stdio:
// separate processes), as mcp-fuzz's concurrency check does: ticket_counter
// fails some of them with "busy", every round, though one at a time it
// always succeeds; counter_snapshot never fails.
func TestGeneratorsIndependentConnections(t *testing.T) {
	const conns, rounds = 4, 3
	for _, transport := range defectTransports {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			dial := defectDialer(t, transport)
			sessions := make([]*mcp.ClientSession, conns)
			for i := range sessions {
				sessions[i] = dial(t)
			}
			for _, tc := range []struct {
				tool      string
				someFail  bool
				wantError string
			}{
				{"ticket_counter", true, errBusy.Error()},
				{"counter_snapshot", false, ""},
			} {
				for round := range rounds {
					results, errs := together(conns, func(i int) (*mcp.CallToolResult, error) {
						return sessions[i].CallTool(testContext(t), &mcp.CallToolParams{Name: tc.tool, Arguments: args()})
					})
					failed := 0
					for i, res := range results {
						switch outcomeOf(res, errs[i]) {
						case "ok":
						case "tool_error":
							failed++
							if got := resultText(res); got != tc.wantError {
								t.Errorf("%s: tool error %q, want %q", tc.tool, got, tc.wantError)
							}
						default:
							t.Errorf("%s: %v", tc.tool, errs[i])
						}
					}
					if tc.someFail && (failed == 0 || failed == conns) || !tc.someFail && failed > 0 {
						t.Errorf("%s round %d: %d of %d concurrent calls failed; want some but not all: %v", tc.tool, round, failed, conns, tc.someFail)
					}
				}
				for i, cs := range sessions {
					if res := call(t, testContext(t), cs, tc.tool, args()); res.IsError {
						t.Errorf("%s alone on connection %d: %s", tc.tool, i, resultText(res))
					}
				}
			}
		})
	}
}
