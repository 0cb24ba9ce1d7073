package contract

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/jsonx/jsonxtest"
)

// withSchemas is a one-tool contract whose input or output schema is s.
func withSchemas(in, out any) *Contract {
	if in == nil {
		in = map[string]any{"type": "object"}
	}
	return &Contract{SchemaVersion: 1, Capabilities: map[string]any{}, Tools: []Tool{{
		Name: "t", InputSchema: in, OutputSchema: out,
		Annotations: Annotations{DestructiveHint: true, OpenWorldHint: true},
	}}}
}

func render(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "%s %s %s; ", f.Severity, f.Kind, f.Path)
	}
	return b.String()
}

// TestSchemaRules walks every row of the drift table, on the input side
// (what clients send) and the output side (what they read).
func TestSchemaRules(t *testing.T) {
	obj := func(props, required string) string {
		return `{"type":"object","properties":{` + props + `},"required":[` + required + `]}`
	}
	cases := []struct {
		name, old, new string
		// in and out are "severity kind" on each side.
		in, out string
		path    string
	}{
		{"optional property added", obj(`"a":{"type":"string"}`, `"a"`), obj(`"a":{"type":"string"},"b":{"type":"string"}`, `"a"`),
			"compatible property_added", "compatible property_added", "/properties/b"},
		{"required property added", obj(`"a":{"type":"string"}`, `"a"`), obj(`"a":{"type":"string"},"b":{"type":"string"}`, `"a","b"`),
			"breaking property_added", "compatible property_added", "/properties/b"},
		{"property removed", obj(`"a":{"type":"string"},"b":{"type":"string"}`, `"a"`), obj(`"a":{"type":"string"}`, `"a"`),
			"breaking property_removed", "breaking property_removed", "/properties/b"},
		{"property becomes required", obj(`"a":{"type":"string"}`, ``), obj(`"a":{"type":"string"}`, `"a"`),
			"breaking became_required", "compatible became_required", "/required"},
		{"property no longer required", obj(`"a":{"type":"string"}`, `"a"`), obj(`"a":{"type":"string"}`, ``),
			"compatible became_optional", "breaking became_optional", "/required"},
		{"type widened", `{"type":"string"}`, `{"type":["null","string"]}`,
			"compatible type_changed", "breaking type_changed", "/type"},
		{"integer widened to number", `{"type":"integer"}`, `{"type":"number"}`,
			"compatible type_changed", "breaking type_changed", "/type"},
		{"type narrowed", `{"type":["string","null"]}`, `{"type":"string"}`,
			"breaking type_changed", "compatible type_changed", "/type"},
		{"type changed", `{"type":"string"}`, `{"type":"integer"}`,
			"breaking type_changed", "breaking type_changed", "/type"},
		{"enum value added", `{"enum":["a","b"]}`, `{"enum":["a","b","c"]}`,
			"compatible enum_added", "breaking enum_added", "/enum"},
		{"enum value removed", `{"enum":["a","b"]}`, `{"enum":["a"]}`,
			"breaking enum_removed", "compatible enum_removed", "/enum"},
		{"minimum raised", `{"type":"integer","minimum":0}`, `{"type":"integer","minimum":1}`,
			"breaking bound_tightened", "compatible bound_tightened", "/minimum"},
		{"maximum lowered", `{"type":"integer","maximum":10}`, `{"type":"integer","maximum":9}`,
			"breaking bound_tightened", "compatible bound_tightened", "/maximum"},
		{"maxLength lowered", `{"type":"string","maxLength":10}`, `{"type":"string","maxLength":5}`,
			"breaking bound_tightened", "compatible bound_tightened", "/maxLength"},
		{"pattern added", `{"type":"string"}`, `{"type":"string","pattern":"^a"}`,
			"breaking bound_tightened", "compatible bound_tightened", "/pattern"},
		{"pattern changed", `{"type":"string","pattern":"^a"}`, `{"type":"string","pattern":"^b"}`,
			"breaking bound_tightened", "compatible bound_tightened", "/pattern"},
		{"format added", `{"type":"string"}`, `{"type":"string","format":"date"}`,
			"breaking bound_tightened", "compatible bound_tightened", "/format"},
		{"minimum lowered", `{"type":"integer","minimum":1}`, `{"type":"integer","minimum":0}`,
			"compatible bound_loosened", "breaking bound_loosened", "/minimum"},
		{"maximum removed", `{"type":"integer","maximum":10}`, `{"type":"integer"}`,
			"compatible bound_loosened", "breaking bound_loosened", "/maximum"},
		{"maxLength raised", `{"type":"string","maxLength":5}`, `{"type":"string","maxLength":50}`,
			"compatible bound_loosened", "breaking bound_loosened", "/maxLength"},
		{"pattern removed", `{"type":"string","pattern":"^a"}`, `{"type":"string"}`,
			"compatible bound_loosened", "breaking bound_loosened", "/pattern"},
		{"additionalProperties closed", `{"type":"object"}`, `{"type":"object","additionalProperties":false}`,
			"breaking bound_tightened", "compatible bound_tightened", "/additionalProperties"},
		{"anyOf alternative added", `{"anyOf":[{"type":"string"}]}`, `{"anyOf":[{"type":"string"},{"type":"null"}]}`,
			"compatible variant_added", "breaking variant_added", "/anyOf/1"},
		{"description changed", `{"type":"string","description":"a"}`, `{"type":"string","description":"b"}`,
			"risky description_changed", "risky description_changed", "/description"},
		{"other keyword changed", `{"type":"string","default":"a"}`, `{"type":"string","default":"b"}`,
			"risky schema_changed", "risky schema_changed", "/default"},
	}
	for _, c := range cases {
		for _, side := range []string{"input", "output"} {
			t.Run(c.name+"/"+side, func(t *testing.T) {
				old, nw := jsonxtest.Value(t, c.old), jsonxtest.Value(t, c.new)
				want, base := c.in, "/tools/0/inputSchema"
				var a, b *Contract
				if side == "input" {
					a, b = withSchemas(old, nil), withSchemas(nw, nil)
				} else {
					want, base = c.out, "/tools/0/outputSchema"
					a, b = withSchemas(nil, old), withSchemas(nil, nw)
				}
				got := Diff(a, b)
				if len(got) != 1 {
					t.Fatalf("%d findings, want 1: %s", len(got), render(got))
				}
				if s := string(got[0].Severity) + " " + string(got[0].Kind); s != want {
					t.Errorf("got %s, want %s", s, want)
				}
				if got[0].Path != base+c.path {
					t.Errorf("path %s, want %s", got[0].Path, base+c.path)
				}
				if got[0].Subject != SubjectTool || got[0].Name != "t" {
					t.Errorf("subject %s %q", got[0].Subject, got[0].Name)
				}
			})
		}
	}
}

// TestSchemaRulesRecurse finds a change deep in items, anyOf, oneOf and
// $defs, judged with the direction of the schema it is in.
func TestSchemaRulesRecurse(t *testing.T) {
	cases := []struct{ name, old, new, path string }{
		{"items", `{"type":"array","items":{"type":"object","properties":{"x":{"type":"string"}}}}`,
			`{"type":"array","items":{"type":"object","properties":{"x":{"type":"string","maxLength":3}}}}`, "/items/properties/x/maxLength"},
		{"anyOf", `{"anyOf":[{"type":"string"},{"type":"integer","maximum":9}]}`,
			`{"anyOf":[{"type":"string"},{"type":"integer","maximum":5}]}`, "/anyOf/1/maximum"},
		{"oneOf", `{"oneOf":[{"type":"object","properties":{"a":{"enum":[1,2]}}}]}`,
			`{"oneOf":[{"type":"object","properties":{"a":{"enum":[1]}}}]}`, "/oneOf/0/properties/a/enum"},
		{"$defs", `{"$defs":{"p":{"type":"string"}},"$ref":"#/$defs/p"}`,
			`{"$defs":{"p":{"type":"string","minLength":2}},"$ref":"#/$defs/p"}`, "/$defs/p/minLength"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := Diff(withSchemas(jsonxtest.Value(t, c.old), nil), withSchemas(jsonxtest.Value(t, c.new), nil))
			out := Diff(withSchemas(nil, jsonxtest.Value(t, c.old)), withSchemas(nil, jsonxtest.Value(t, c.new)))
			if len(in) != 1 || in[0].Severity != Breaking || in[0].Path != "/tools/0/inputSchema"+c.path {
				t.Errorf("input: %s", render(in))
			}
			if len(out) != 1 || out[0].Severity != Compatible || out[0].Path != "/tools/0/outputSchema"+c.path {
				t.Errorf("output: %s", render(out))
			}
		})
	}
}

func TestOutputSchemaAddedRemoved(t *testing.T) {
	schema := map[string]any{"type": "object"}
	if got := render(Diff(withSchemas(nil, nil), withSchemas(nil, schema))); got != "compatible output_schema_added /tools/0/outputSchema; " {
		t.Errorf("added: %s", got)
	}
	if got := render(Diff(withSchemas(nil, schema), withSchemas(nil, nil))); got != "breaking output_schema_removed /tools/0/outputSchema; " {
		t.Errorf("removed: %s", got)
	}
}

func tool(name, desc string) Tool {
	return Tool{Name: name, Description: desc, InputSchema: map[string]any{"type": "object"},
		Annotations: Annotations{DestructiveHint: true, OpenWorldHint: true}}
}

func tools(ts ...Tool) *Contract {
	return &Contract{SchemaVersion: 1, Capabilities: map[string]any{}, Tools: ts}
}

func TestToolsAddedRemovedRenamed(t *testing.T) {
	cases := []struct {
		name     string
		old, new *Contract
		want     string
	}{
		{"removed", tools(tool("a", ""), tool("b", "")), tools(tool("a", "")), "breaking removed /tools/1; "},
		{"added", tools(tool("a", "")), tools(tool("a", ""), tool("b", "")), "compatible added /tools/1; "},
		{"renamed", tools(tool("a", ""), tool("old", "x")), tools(tool("a", ""), tool("new", "x")), "breaking renamed /tools/1/name; "},
		// A rename plus a change is a removal and an addition.
		{"renamed and changed", tools(tool("old", "x")), tools(tool("new", "y")), "breaking removed /tools/0; compatible added /tools/0; "},
		{"description", tools(tool("a", "x")), tools(tool("a", "y")), "risky description_changed /tools/0/description; "},
	}
	for _, c := range cases {
		if got := render(Diff(c.old, c.new)); got != c.want {
			t.Errorf("%s: got %s, want %s", c.name, got, c.want)
		}
	}
	f := Diff(tools(tool("old", "x")), tools(tool("new", "x")))[0]
	if f.Old != `"old"` || f.New != `"new"` || f.Name != "old" {
		t.Errorf("rename: %+v", f)
	}
}

func TestAnnotationRules(t *testing.T) {
	cases := []struct {
		hint     string
		from, to bool
		want     Severity
	}{
		{"readOnlyHint", true, false, Breaking},
		{"readOnlyHint", false, true, Compatible},
		{"destructiveHint", false, true, Breaking},
		{"destructiveHint", true, false, Compatible},
		{"idempotentHint", true, false, Breaking},
		{"idempotentHint", false, true, Compatible},
		{"openWorldHint", true, false, Risky},
		{"openWorldHint", false, true, Risky},
	}
	set := func(a *Annotations, hint string, v bool) {
		switch hint {
		case "readOnlyHint":
			a.ReadOnlyHint = v
		case "destructiveHint":
			a.DestructiveHint = v
		case "idempotentHint":
			a.IdempotentHint = v
		case "openWorldHint":
			a.OpenWorldHint = v
		}
	}
	for _, c := range cases {
		a, b := tool("t", ""), tool("t", "")
		set(&a.Annotations, c.hint, c.from)
		set(&b.Annotations, c.hint, c.to)
		got := Diff(tools(a), tools(b))
		if len(got) != 1 || got[0].Severity != c.want || got[0].Kind != KindAnnotation || got[0].Path != "/tools/0/annotations/"+c.hint {
			t.Errorf("%s %v→%v: %s, want %s", c.hint, c.from, c.to, render(got), c.want)
		}
	}
}

// TestDefaultAnnotationsNoDrift: a server that starts sending the spec's
// default hints (or stops) has the same contract.
func TestDefaultAnnotationsNoDrift(t *testing.T) {
	build := func(raw string) *Contract {
		c, err := Build(Input{Tools: []json.RawMessage{json.RawMessage(raw)}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	bare := build(`{"name":"t","inputSchema":{"type":"object"}}`)
	explicit := build(`{"name":"t","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":false,"destructiveHint":true,"idempotentHint":false,"openWorldHint":true}}`)
	if got := Diff(bare, explicit); len(got) != 0 {
		t.Errorf("defaults made explicit drift: %s", render(got))
	}
	a, _ := bare.Encode()
	b, _ := explicit.Encode()
	if string(a) != string(b) {
		t.Errorf("the files differ:\n%s\n%s", a, b)
	}
}

func TestPromptRules(t *testing.T) {
	p := func(args ...Argument) *Contract {
		return &Contract{SchemaVersion: 1, Capabilities: map[string]any{}, Prompts: []Prompt{{Name: "p", Arguments: args}}}
	}
	a := Argument{Name: "a"}
	req := Argument{Name: "b", Required: true}
	opt := Argument{Name: "b"}
	cases := []struct {
		name     string
		old, new *Contract
		want     string
	}{
		{"required argument added", p(a), p(a, req), "breaking argument_added /prompts/0/arguments/1; "},
		{"optional argument added", p(a), p(a, opt), "compatible argument_added /prompts/0/arguments/1; "},
		{"argument removed", p(a, opt), p(a), "breaking argument_removed /prompts/0/arguments/1; "},
		{"argument became required", p(a, opt), p(a, req), "breaking became_required /prompts/0/arguments/1/required; "},
		{"argument became optional", p(a, req), p(a, opt), "compatible became_optional /prompts/0/arguments/1/required; "},
		{"prompt removed", p(a), &Contract{Capabilities: map[string]any{}}, "breaking removed /prompts/0; "},
	}
	for _, c := range cases {
		if got := render(Diff(c.old, c.new)); got != c.want {
			t.Errorf("%s: got %s, want %s", c.name, got, c.want)
		}
	}
}

func TestServerProtocolCapabilities(t *testing.T) {
	old := &Contract{ProtocolVersion: "2025-06-18", Server: Server{Name: "s", Version: "1"},
		Capabilities: map[string]any{"tools": map[string]any{"listChanged": true}, "logging": map[string]any{}}}
	nw := &Contract{ProtocolVersion: "2025-11-25", Server: Server{Name: "s", Version: "2", Instructions: "hi"},
		Capabilities: map[string]any{"tools": map[string]any{}, "prompts": map[string]any{}, "logging": map[string]any{}}}
	want := "breaking protocol_changed /protocolVersion; breaking capability_removed /capabilities/tools/listChanged; " +
		"compatible capability_added /capabilities/prompts; info server_changed /server/version; info server_changed /server/instructions; "
	if got := render(Diff(old, nw)); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestResources(t *testing.T) {
	r := func(rs ...Resource) *Contract {
		return &Contract{Capabilities: map[string]any{}, Resources: rs}
	}
	x, y := Resource{URI: "a://x", Name: "x"}, Resource{URI: "a://y", Name: "y"}
	if got := render(Diff(r(x, y), r(x))); got != "breaking removed /resources/1; " {
		t.Errorf("removed: %s", got)
	}
	if got := render(Diff(r(x), r(x, y))); got != "compatible added /resources/1; " {
		t.Errorf("added: %s", got)
	}
}

func TestReadRefusesWhatIsNotAContract(t *testing.T) {
	for _, bad := range []string{`{`, `{"schemaVersion":1}`, `{"schemaVersion":2,"protocolVersion":"x","server":{"name":"a","version":"1"},"capabilities":{},"tools":[],"resources":[],"resourceTemplates":[],"prompts":[]}`} {
		if _, err := Read([]byte(bad)); err == nil {
			t.Errorf("%s: read without an error", bad)
		}
	}
	c, _ := Build(Input{ProtocolVersion: "2025-11-25", ServerInfo: json.RawMessage(`{"name":"a","version":"1"}`)}, nil)
	data, _ := c.Encode()
	back, err := Read(data)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := back.Encode()
	if string(again) != string(data) {
		t.Errorf("a round trip changed the file:\n%s\n%s", data, again)
	}
}

func TestBuildSortsAndRedacts(t *testing.T) {
	c, err := Build(Input{
		ServerInfo:   json.RawMessage(`{"name":"s","version":"1"}`),
		Instructions: "token sekrit",
		Tools: []json.RawMessage{
			json.RawMessage(`{"name":"b","inputSchema":{"type":"object","required":["z","a"]}}`),
			json.RawMessage(`{"name":"a","inputSchema":{"type":"object"}}`),
		},
	}, func(s string) string { return strings.ReplaceAll(s, "sekrit", "[REDACTED]") })
	if err != nil {
		t.Fatal(err)
	}
	data, _ := c.Encode()
	s := string(data)
	if strings.Contains(s, "sekrit") || !strings.Contains(s, "[REDACTED]") {
		t.Errorf("not redacted:\n%s", s)
	}
	if strings.Index(s, `"name": "a"`) > strings.Index(s, `"name": "b"`) {
		t.Errorf("tools not sorted:\n%s", s)
	}
	if !regexp.MustCompile(`"a",\s+"z"`).MatchString(s) {
		t.Errorf("required not sorted:\n%s", s)
	}
}
