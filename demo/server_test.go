package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// A step of a household scenario: a tool call and what must come back.
type step struct {
	tool string
	args map[string]any
	// want is the exact structuredContent as canonical JSON; empty when the
	// call must be a tool error whose text contains errHas.
	want   string
	errHas string
}

func TestHouseholdRules(t *testing.T) {
	const emptyHousehold = `{"revision":0,"tasks":[]}`
	get := func(want string) step { return step{tool: "get_household", args: args(), want: want} }
	propose := func(text, want string) step {
		return step{tool: "propose_task", args: args("text", text), want: want}
	}
	commit := func(id string, rev int, key, want string) step {
		return step{tool: "commit_task", args: args("proposalId", id, "expectedRevision", rev, "idempotencyKey", key), want: want}
	}
	commitErr := func(id string, rev int, key, errHas string) step {
		return step{tool: "commit_task", args: args("proposalId", id, "expectedRevision", rev, "idempotencyKey", key), errHas: errHas}
	}

	tests := []struct {
		name  string
		steps []step
	}{
		{"initial revision 0 and no tasks", []step{
			get(emptyHousehold),
		}},
		{"proposal leaves the household unchanged", []step{
			propose("Collect the library books", `{"proposalId":"proposal-1","revision":0}`),
			get(emptyHousehold),
		}},
		{"commit advances the revision once", []step{
			propose("Collect the library books", `{"proposalId":"proposal-1","revision":0}`),
			commit("proposal-1", 0, "k1", `{"replayed":false,"revision":1}`),
			get(`{"revision":1,"tasks":[{"id":"task-1","text":"Collect the library books"}]}`),
		}},
		{"replayed key returns the stored result without a duplicate", []step{
			propose("Collect the library books", `{"proposalId":"proposal-1","revision":0}`),
			commit("proposal-1", 0, "k1", `{"replayed":false,"revision":1}`),
			commit("proposal-1", 0, "k1", `{"replayed":true,"revision":1}`),
			// Any arguments: the key alone decides.
			commit("proposal-99", 42, "k1", `{"replayed":true,"revision":1}`),
			get(`{"revision":1,"tasks":[{"id":"task-1","text":"Collect the library books"}]}`),
		}},
		{"replay returns the original revision after later commits", []step{
			propose("a", `{"proposalId":"proposal-1","revision":0}`),
			commit("proposal-1", 0, "k1", `{"replayed":false,"revision":1}`),
			propose("b", `{"proposalId":"proposal-2","revision":1}`),
			commit("proposal-2", 1, "k2", `{"replayed":false,"revision":2}`),
			commit("proposal-1", 0, "k1", `{"replayed":true,"revision":1}`),
			get(`{"revision":2,"tasks":[{"id":"task-1","text":"a"},{"id":"task-2","text":"b"}]}`),
		}},
		{"stale proposal is a tool error", []step{
			propose("a", `{"proposalId":"proposal-1","revision":0}`),
			propose("b", `{"proposalId":"proposal-2","revision":0}`),
			commit("proposal-1", 0, "k1", `{"replayed":false,"revision":1}`),
			commitErr("proposal-2", 1, "k2", "stale proposal"),
			get(`{"revision":1,"tasks":[{"id":"task-1","text":"a"}]}`),
		}},
		{"unknown proposal is a tool error", []step{
			commitErr("proposal-1", 0, "k1", "unknown proposal"),
			get(emptyHousehold),
		}},
		{"expectedRevision other than the current one is a tool error", []step{
			propose("a", `{"proposalId":"proposal-1","revision":0}`),
			commitErr("proposal-1", 3, "k1", "revision conflict"),
			get(emptyHousehold),
			// A refused commit does not consume its key.
			commit("proposal-1", 0, "k1", `{"replayed":false,"revision":1}`),
		}},
		{"committing a proposal twice under new keys is a tool error", []step{
			propose("a", `{"proposalId":"proposal-1","revision":0}`),
			commit("proposal-1", 0, "k1", `{"replayed":false,"revision":1}`),
			commitErr("proposal-1", 1, "k2", "already committed"),
			get(`{"revision":1,"tasks":[{"id":"task-1","text":"a"}]}`),
		}},
		{"input schema violations are tool errors", []step{
			{tool: "propose_task", args: args("text", ""), errHas: "validating"},
			{tool: "propose_task", args: args("text", " \t\n"), errHas: "validating"},
			{tool: "propose_task", args: args("text", strings.Repeat("é", 501)), errHas: "validating"},
			{tool: "propose_task", args: args(), errHas: "validating"},
			{tool: "propose_task", args: args("text", "a", "extra", 1), errHas: "validating"},
			{tool: "get_household", args: args("extra", 1), errHas: "validating"},
			{tool: "commit_task", args: args("proposalId", "proposal-1", "expectedRevision", -1, "idempotencyKey", "k"), errHas: "validating"},
			{tool: "commit_task", args: args("proposalId", "proposal-1", "expectedRevision", 0.5, "idempotencyKey", "k"), errHas: "validating"},
			{tool: "commit_task", args: args("proposalId", "proposal-1", "expectedRevision", 0, "idempotencyKey", ""), errHas: "validating"},
			{tool: "commit_task", args: args("proposalId", "proposal-1", "expectedRevision", 0), errHas: "validating"},
			get(emptyHousehold),
			// The longest text allowed is accepted, counted in characters.
			propose(strings.Repeat("é", 500), `{"proposalId":"proposal-1","revision":0}`),
		}},
	}
	for _, version := range protocolVersions {
		for _, tt := range tests {
			t.Run(version+"/"+tt.name, func(t *testing.T) {
				ctx := testContext(t)
				cs := connectInMemory(t, ctx, NewServer(Options{}), version)
				for i, s := range tt.steps {
					if s.want == "" {
						if got := mustToolError(t, ctx, cs, s.tool, s.args); !strings.Contains(got, s.errHas) {
							t.Errorf("step %d %s: error %q does not contain %q", i, s.tool, got, s.errHas)
						}
						continue
					}
					if got := mustOK(t, ctx, cs, s.tool, s.args); got != s.want {
						t.Errorf("step %d %s:\n got %s\nwant %s", i, s.tool, got, s.want)
					}
				}
			})
		}
	}
}

func TestNegotiatedVersionInMemory(t *testing.T) {
	for _, version := range protocolVersions {
		t.Run(version, func(t *testing.T) {
			ctx := testContext(t)
			cs := connectInMemory(t, ctx, NewServer(Options{}), version)
			res := cs.InitializeResult()
			if res.ProtocolVersion != version {
				t.Errorf("negotiated %q, want %q", res.ProtocolVersion, version)
			}
			if res.ServerInfo == nil || res.ServerInfo.Name != "mcpcheck-demo" || res.ServerInfo.Version != "0.1.0" {
				t.Errorf("server info = %+v, want mcpcheck-demo 0.1.0", res.ServerInfo)
			}
			if res.Instructions == "" || strings.Contains(res.Instructions, "\n") {
				t.Errorf("instructions %q, want one line", res.Instructions)
			}
		})
	}
}

// TestCapabilities checks what the default profile declares: resources
// with subscriptions but no list changes, prompts without list changes,
// completions, logging, and tools as before.
func TestCapabilities(t *testing.T) {
	onEverySurface(t, func(t *testing.T, sf surface, version string) {
		c := sf.connect(t, newClient(), version).InitializeResult().Capabilities
		if c.Resources == nil || !c.Resources.Subscribe || c.Resources.ListChanged {
			t.Errorf("resources %+v, want subscribe and no listChanged", c.Resources)
		}
		if c.Prompts == nil || c.Prompts.ListChanged {
			t.Errorf("prompts %+v, want {} (no listChanged)", c.Prompts)
		}
		if c.Completions == nil || c.Logging == nil {
			t.Errorf("completions %v, logging %v; want both", c.Completions, c.Logging)
		}
		if c.Tools == nil || !c.Tools.ListChanged {
			t.Errorf("tools %+v, want listChanged as before", c.Tools)
		}
	})
}

// TestStructuredContentKeys checks each tool's exact key set on its own, so a
// stray key is reported by name.
func TestStructuredContentKeys(t *testing.T) {
	ctx := testContext(t)
	cs := connectInMemory(t, ctx, NewServer(Options{}), "2025-11-25")
	mustOK(t, ctx, cs, "propose_task", args("text", "t"))
	mustOK(t, ctx, cs, "commit_task", args("proposalId", "proposal-1", "expectedRevision", 0, "idempotencyKey", "k"))
	for _, tc := range []struct {
		tool string
		args map[string]any
		keys []string
	}{
		{"get_household", args(), []string{"revision", "tasks"}},
		{"propose_task", args("text", "u"), []string{"proposalId", "revision"}},
		{"commit_task", args("proposalId", "proposal-2", "expectedRevision", 1, "idempotencyKey", "k2"), []string{"replayed", "revision"}},
		{"commit_task", args("proposalId", "proposal-2", "expectedRevision", 1, "idempotencyKey", "k2"), []string{"replayed", "revision"}},
	} {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(mustOK(t, ctx, cs, tc.tool, tc.args)), &m); err != nil {
			t.Fatal(err)
		}
		if got := sortedKeys(m); !slices.Equal(got, tc.keys) {
			t.Errorf("%s keys = %v, want %v", tc.tool, got, tc.keys)
		}
		if tc.tool == "get_household" {
			var tasks []map[string]json.RawMessage
			if err := json.Unmarshal(m["tasks"], &tasks); err != nil || len(tasks) != 1 {
				t.Fatalf("tasks = %s (%v), want one task", m["tasks"], err)
			}
			if got := sortedKeys(tasks[0]); !slices.Equal(got, []string{"id", "text"}) {
				t.Errorf("task keys = %v, want [id text]", got)
			}
		}
	}
}

// TestTextFallback checks that every successful result also carries its
// structuredContent as text, for clients that read only content.
func TestTextFallback(t *testing.T) {
	ctx := testContext(t)
	cs := connectInMemory(t, ctx, NewServer(Options{}), "2025-11-25")
	res := call(t, ctx, cs, "propose_task", args("text", "t"))
	if got, want := canonical(t, json.RawMessage(resultText(res))), canonical(t, res.StructuredContent); got != want {
		t.Errorf("text content %s, want %s", got, want)
	}
}

func TestSessionIsolation(t *testing.T) {
	for _, version := range protocolVersions {
		t.Run(version, func(t *testing.T) {
			ctx := testContext(t)
			s := NewServer(Options{}) // one server, two sessions
			a := connectInMemory(t, ctx, s, version)
			b := connectInMemory(t, ctx, s, version)

			mustOK(t, ctx, a, "propose_task", args("text", "a's task"))
			mustOK(t, ctx, a, "commit_task", args("proposalId", "proposal-1", "expectedRevision", 0, "idempotencyKey", "k"))

			if got, want := mustOK(t, ctx, b, "get_household", args()), `{"revision":0,"tasks":[]}`; got != want {
				t.Errorf("b sees %s, want %s", got, want)
			}
			// a's proposal id and idempotency key mean nothing in b.
			mustToolError(t, ctx, b, "commit_task", args("proposalId", "proposal-1", "expectedRevision", 0, "idempotencyKey", "k"))
			if got, want := mustOK(t, ctx, b, "propose_task", args("text", "b's task")), `{"proposalId":"proposal-1","revision":0}`; got != want {
				t.Errorf("b's first proposal = %s, want %s", got, want)
			}
			if got, want := mustOK(t, ctx, a, "get_household", args()), `{"revision":1,"tasks":[{"id":"task-1","text":"a's task"}]}`; got != want {
				t.Errorf("a sees %s, want %s", got, want)
			}
		})
	}
}

// TestSessionStateDropped checks that a session's household is released
// when the session ends.
func TestSessionStateDropped(t *testing.T) {
	ctx := testContext(t)
	s, reg := newServer(Options{})
	cs := connectInMemory(t, ctx, s, "2025-11-25")
	mustOK(t, ctx, cs, "get_household", args())
	if n := reg.len(); n != 1 {
		t.Fatalf("%d households held, want 1", n)
	}
	cs.Close()
	eventually(t, "the household to be dropped", func() bool { return reg.len() == 0 })
}

func TestToolsList(t *testing.T) {
	for _, version := range protocolVersions {
		t.Run(version, func(t *testing.T) {
			ctx := testContext(t)
			cs := connectInMemory(t, ctx, NewServer(Options{}), version)
			res, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]struct {
				in, out              []string // required properties
				readOnly, idempotent bool
			}{
				"get_household":  {nil, []string{"revision", "tasks"}, true, false},
				"propose_task":   {[]string{"text"}, []string{"proposalId", "revision"}, true, false},
				"commit_task":    {[]string{"proposalId", "expectedRevision", "idempotencyKey"}, []string{"revision", "replayed"}, false, true},
				"tidy_household": {nil, []string{"steps", "tasks"}, true, true},
			}
			if len(res.Tools) != len(want) {
				t.Errorf("%d tools, want %d", len(res.Tools), len(want))
			}
			for _, tool := range res.Tools {
				w, ok := want[tool.Name]
				if !ok {
					t.Errorf("unexpected tool %q", tool.Name)
					continue
				}
				if tool.Description == "" {
					t.Errorf("%s: no description", tool.Name)
				}
				checkStrictObject(t, tool.Name+" inputSchema", tool.InputSchema, w.in)
				checkStrictObject(t, tool.Name+" outputSchema", tool.OutputSchema, w.out)
				a := tool.Annotations
				if a == nil {
					t.Errorf("%s: no annotations", tool.Name)
					continue
				}
				if a.ReadOnlyHint != w.readOnly {
					t.Errorf("%s: readOnlyHint %v, want %v", tool.Name, a.ReadOnlyHint, w.readOnly)
				}
				if a.OpenWorldHint == nil || *a.OpenWorldHint {
					t.Errorf("%s: openWorldHint %v, want false", tool.Name, a.OpenWorldHint)
				}
				if a.IdempotentHint != w.idempotent {
					t.Errorf("%s: idempotentHint %v, want %v", tool.Name, a.IdempotentHint, w.idempotent)
				}
				if tool.Name == "commit_task" && (a.DestructiveHint == nil || *a.DestructiveHint) {
					t.Errorf("commit_task: destructiveHint %v, want false", a.DestructiveHint)
				}
			}
		})
	}
}

// checkStrictObject checks that schema is an object schema that forbids
// additional properties and requires exactly the given properties.
func checkStrictObject(t *testing.T, what string, schema any, required []string) {
	t.Helper()
	m, ok := schema.(map[string]any)
	if !ok {
		t.Errorf("%s: %T, want a JSON object", what, schema)
		return
	}
	if m["type"] != "object" {
		t.Errorf("%s: type %v, want object", what, m["type"])
	}
	if m["additionalProperties"] != false {
		t.Errorf("%s: additionalProperties %v, want false", what, m["additionalProperties"])
	}
	var got []string
	if r, ok := m["required"].([]any); ok {
		for _, v := range r {
			got = append(got, fmt.Sprint(v))
		}
	}
	if !slices.Equal(got, required) {
		t.Errorf("%s: required %v, want %v", what, got, required)
	}
}

// TestOutputMatchesDeclaredSchema validates every structuredContent the
// household scenario produces against the outputSchema its tool declares in
// tools/list, compiled the way the runner does (no loading of anything).
func TestOutputMatchesDeclaredSchema(t *testing.T) {
	for _, version := range protocolVersions {
		t.Run(version, func(t *testing.T) {
			ctx := testContext(t)
			cs := connectInMemory(t, ctx, NewServer(Options{}), version)
			schemas := outputSchemas(t, ctx, cs)

			calls := []struct {
				tool string
				args map[string]any
			}{
				{"get_household", args()},
				{"propose_task", args("text", "Collect the library books")},
				{"commit_task", args("proposalId", "proposal-1", "expectedRevision", 0, "idempotencyKey", "k")},
				{"commit_task", args("proposalId", "proposal-1", "expectedRevision", 0, "idempotencyKey", "k")},
				{"propose_task", args("text", "Water the plants")},
				{"get_household", args()},
				{"tidy_household", args()},
				{"tidy_household", args("steps", 10)},
			}
			for _, c := range calls {
				out := mustOK(t, ctx, cs, c.tool, c.args)
				inst, err := jsonschema.UnmarshalJSON(strings.NewReader(out))
				if err != nil {
					t.Fatal(err)
				}
				if err := schemas[c.tool].Validate(inst); err != nil {
					t.Errorf("%s: %s does not match its outputSchema: %v", c.tool, out, err)
				}
			}

			// The schemas are strict: an extra key or a missing one fails.
			for tool, bad := range map[string]string{
				"get_household":  `{"revision":0,"tasks":[],"extra":1}`,
				"propose_task":   `{"proposalId":"proposal-1"}`,
				"commit_task":    `{"revision":1,"replayed":false,"note":""}`,
				"tidy_household": `{"steps":0,"tasks":0}`,
			} {
				inst, err := jsonschema.UnmarshalJSON(strings.NewReader(bad))
				if err != nil {
					t.Fatal(err)
				}
				if schemas[tool].Validate(inst) == nil {
					t.Errorf("%s outputSchema accepts %s", tool, bad)
				}
			}
		})
	}
}

// outputSchemas lists cs's tools and compiles the outputSchema of each
// that declares one, as the runner does (no loading of anything).
func outputSchemas(t *testing.T, ctx context.Context, cs *mcp.ClientSession) map[string]*jsonschema.Schema {
	t.Helper()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(jsonschema.SchemeURLLoader{}) // never fetch or read anything
	out := make(map[string]*jsonschema.Schema)
	for _, tool := range res.Tools {
		if tool.OutputSchema == nil {
			continue
		}
		u := "mcp://tool/" + url.PathEscape(tool.Name) + "/output"
		if err := c.AddResource(u, tool.OutputSchema); err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
		s, err := c.Compile(u)
		if err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
		out[tool.Name] = s
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
