// Package contract is a server's contract, normalised so that two snapshots
// of the same surface are byte for byte equal, and the drift between two
// contracts, each change graded by what it breaks for a client.
//
// # The file
//
// [Build] turns what discovery found (the raw tools/list, resources/list,
// resources/templates/list and prompts/list entries, the initialize result)
// into a [Contract]; [Contract.Encode] writes it as pretty-printed JSON with
// every object's keys sorted and every list in a stable order (tools and
// prompts by name, resources by URI, templates by URI template, prompt
// arguments by name, a schema's required and type lists sorted). Tool
// annotations are written with their spec defaults made explicit (absent
// readOnlyHint = false, destructiveHint = true, idempotentHint = false,
// openWorldHint = true), so a server whose SDK starts or stops sending
// defaults shows no drift. The format is schemas/contract.schema.json.
//
// # Drift
//
// [Diff] lists the changes from an old contract to a new one as [Finding]s
// with a [Severity]. Schemas are judged by direction: an input schema is
// what clients send (narrowing it breaks them), an output schema what they
// read (widening it breaks them); the rules are in diff.go and schemadiff.go.
package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/jsonx"
)

// SchemaVersion is the version of the contract file format.
const SchemaVersion = 1

// Contract is a server's surface as a snapshot keeps it. Schemas and
// capabilities are decoded JSON (map[string]any, []any, json.Number, ...).
type Contract struct {
	SchemaVersion     int            `json:"schemaVersion"`
	ProtocolVersion   string         `json:"protocolVersion"`
	Server            Server         `json:"server"`
	Capabilities      map[string]any `json:"capabilities"`
	Tools             []Tool         `json:"tools"`
	Resources         []Resource     `json:"resources"`
	ResourceTemplates []Resource     `json:"resourceTemplates"`
	Prompts           []Prompt       `json:"prompts"`
}

// Server is the server's self-description from initialize.
type Server struct {
	Name         string `json:"name"`
	Title        string `json:"title,omitempty"`
	Version      string `json:"version"`
	Instructions string `json:"instructions,omitempty"`
}

// Tool is one tool's contract.
type Tool struct {
	Name         string      `json:"name"`
	Title        string      `json:"title,omitempty"`
	Description  string      `json:"description,omitempty"`
	InputSchema  any         `json:"inputSchema"`
	OutputSchema any         `json:"outputSchema,omitempty"`
	Annotations  Annotations `json:"annotations"`
	// Execution ({taskSupport}), Icons and Meta (_meta) are as listed.
	Execution map[string]any `json:"execution,omitempty"`
	Icons     []any          `json:"icons,omitempty"`
	Meta      map[string]any `json:"_meta,omitempty"`
}

// Annotations are a tool's hints, every one explicit.
type Annotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    bool   `json:"readOnlyHint"`
	DestructiveHint bool   `json:"destructiveHint"`
	IdempotentHint  bool   `json:"idempotentHint"`
	OpenWorldHint   bool   `json:"openWorldHint"`
}

// Resource is a listed resource (URI) or resource template (URITemplate).
type Resource struct {
	URI         string `json:"uri,omitempty"`
	URITemplate string `json:"uriTemplate,omitempty"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
}

// key is what identifies a resource or template in its list.
func (r Resource) key() string { return r.URI + r.URITemplate }

// Prompt is a listed prompt with its arguments.
type Prompt struct {
	Name        string     `json:"name"`
	Title       string     `json:"title,omitempty"`
	Description string     `json:"description,omitempty"`
	Arguments   []Argument `json:"arguments"`
}

// Argument is one prompt argument.
type Argument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required"`
}

// Input is what discovery found, as the server sent it.
type Input struct {
	ProtocolVersion string
	// ServerInfo, Capabilities and Instructions come from initialize.
	ServerInfo   json.RawMessage
	Capabilities json.RawMessage
	Instructions string
	// The entries of every page of each list, in the order listed.
	Tools, Resources, ResourceTemplates, Prompts []json.RawMessage
}

// Build normalises what discovery found into a contract. redact, when not
// nil, is applied to every string (a server may echo a credential it was
// given; a contract is meant to be committed).
func Build(in Input, redact func(string) string) (*Contract, error) {
	c := &Contract{
		SchemaVersion:     SchemaVersion,
		ProtocolVersion:   in.ProtocolVersion,
		Capabilities:      map[string]any{},
		Tools:             []Tool{},
		Resources:         []Resource{},
		ResourceTemplates: []Resource{},
		Prompts:           []Prompt{},
	}
	if len(in.ServerInfo) > 0 {
		if err := json.Unmarshal(in.ServerInfo, &c.Server); err != nil {
			return nil, fmt.Errorf("serverInfo: %w", err)
		}
	}
	c.Server.Instructions = in.Instructions
	if len(in.Capabilities) > 0 && string(in.Capabilities) != "null" {
		if err := jsonx.Decode(in.Capabilities, &c.Capabilities); err != nil {
			return nil, fmt.Errorf("capabilities: %w", err)
		}
	}
	for _, raw := range in.Tools {
		var t struct {
			Name, Title, Description  string
			InputSchema, OutputSchema json.RawMessage
			Execution, Icons          json.RawMessage
			Meta                      json.RawMessage `json:"_meta"`
			Annotations               *struct {
				Title                                                        string
				ReadOnlyHint, DestructiveHint, IdempotentHint, OpenWorldHint *bool
			}
		}
		if err := json.Unmarshal(raw, &t); err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		tool := Tool{Name: t.Name, Title: t.Title, Description: t.Description}
		for _, s := range []struct {
			raw  json.RawMessage
			into *any
		}{{t.InputSchema, &tool.InputSchema}, {t.OutputSchema, &tool.OutputSchema}} {
			if len(s.raw) == 0 || string(s.raw) == "null" {
				continue
			}
			if err := jsonx.Decode(s.raw, s.into); err != nil {
				return nil, fmt.Errorf("tool %q: %w", t.Name, err)
			}
			*s.into = normalSchema(*s.into)
		}
		if tool.InputSchema == nil {
			tool.InputSchema = map[string]any{}
		}
		for _, f := range []struct {
			raw  json.RawMessage
			into any
		}{{t.Execution, &tool.Execution}, {t.Icons, &tool.Icons}, {t.Meta, &tool.Meta}} {
			if len(f.raw) > 0 && string(f.raw) != "null" {
				// A member of the wrong shape is left out, not an error:
				// the contract keeps what a client could use.
				_ = jsonx.Decode(f.raw, f.into)
			}
		}
		// The spec's defaults (2025-11-25 ToolAnnotations).
		tool.Annotations = Annotations{DestructiveHint: true, OpenWorldHint: true}
		if a := t.Annotations; a != nil {
			tool.Annotations.Title = a.Title
			set := func(into *bool, v *bool) {
				if v != nil {
					*into = *v
				}
			}
			set(&tool.Annotations.ReadOnlyHint, a.ReadOnlyHint)
			set(&tool.Annotations.DestructiveHint, a.DestructiveHint)
			set(&tool.Annotations.IdempotentHint, a.IdempotentHint)
			set(&tool.Annotations.OpenWorldHint, a.OpenWorldHint)
		}
		c.Tools = append(c.Tools, tool)
	}
	for _, l := range []struct {
		what string
		raws []json.RawMessage
		into *[]Resource
	}{{"resources/list", in.Resources, &c.Resources}, {"resources/templates/list", in.ResourceTemplates, &c.ResourceTemplates}} {
		for _, raw := range l.raws {
			var r Resource
			if err := json.Unmarshal(raw, &r); err != nil {
				return nil, fmt.Errorf("%s: %w", l.what, err)
			}
			*l.into = append(*l.into, r)
		}
	}
	for _, raw := range in.Prompts {
		p := Prompt{}
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, fmt.Errorf("prompts/list: %w", err)
		}
		if p.Arguments == nil {
			p.Arguments = []Argument{}
		}
		c.Prompts = append(c.Prompts, p)
	}
	c.sort()
	if redact != nil {
		c.redact(redact)
	}
	return c, nil
}

// sort puts every list in its stable order.
func (c *Contract) sort() {
	slices.SortStableFunc(c.Tools, func(a, b Tool) int { return strings.Compare(a.Name, b.Name) })
	slices.SortStableFunc(c.Prompts, func(a, b Prompt) int { return strings.Compare(a.Name, b.Name) })
	for _, p := range c.Prompts {
		slices.SortStableFunc(p.Arguments, func(a, b Argument) int { return strings.Compare(a.Name, b.Name) })
	}
	byKey := func(a, b Resource) int { return strings.Compare(a.key(), b.key()) }
	slices.SortStableFunc(c.Resources, byKey)
	slices.SortStableFunc(c.ResourceTemplates, byKey)
}

// redact applies f to every string the server sent.
func (c *Contract) redact(f func(string) string) {
	c.Server.Name, c.Server.Title, c.Server.Version, c.Server.Instructions = f(c.Server.Name), f(c.Server.Title), f(c.Server.Version), f(c.Server.Instructions)
	c.Capabilities = mapStrings(c.Capabilities, f).(map[string]any)
	for i := range c.Tools {
		t := &c.Tools[i]
		t.Name, t.Title, t.Description, t.Annotations.Title = f(t.Name), f(t.Title), f(t.Description), f(t.Annotations.Title)
		t.InputSchema, t.OutputSchema = mapStrings(t.InputSchema, f), mapStrings(t.OutputSchema, f)
		if t.Execution != nil {
			t.Execution = mapStrings(t.Execution, f).(map[string]any)
		}
		if t.Meta != nil {
			t.Meta = mapStrings(t.Meta, f).(map[string]any)
		}
		if t.Icons != nil {
			t.Icons = mapStrings(t.Icons, f).([]any)
		}
	}
	for _, list := range [][]Resource{c.Resources, c.ResourceTemplates} {
		for i := range list {
			r := &list[i]
			r.URI, r.URITemplate, r.Name, r.Title, r.Description, r.MIMEType = f(r.URI), f(r.URITemplate), f(r.Name), f(r.Title), f(r.Description), f(r.MIMEType)
		}
	}
	for i := range c.Prompts {
		p := &c.Prompts[i]
		p.Name, p.Title, p.Description = f(p.Name), f(p.Title), f(p.Description)
		for j := range p.Arguments {
			a := &p.Arguments[j]
			a.Name, a.Title, a.Description = f(a.Name), f(a.Title), f(a.Description)
		}
	}
}

// mapStrings applies f to every string of a decoded JSON value, keys
// included.
func mapStrings(v any, f func(string) string) any {
	switch x := v.(type) {
	case string:
		return f(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = mapStrings(e, f)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[f(k)] = mapStrings(e, f)
		}
		return out
	}
	return v
}

// normalSchema sorts the lists of a schema whose order carries no meaning
// (required, a list of types), at every depth.
func normalSchema(v any) any {
	switch x := v.(type) {
	case []any:
		for i, e := range x {
			x[i] = normalSchema(e)
		}
	case map[string]any:
		for k, e := range x {
			if (k == "required" || k == "type") && isStrings(e) {
				slices.SortFunc(e.([]any), func(a, b any) int { return strings.Compare(a.(string), b.(string)) })
				continue
			}
			x[k] = normalSchema(e)
		}
	}
	return v
}

func isStrings(v any) bool {
	list, ok := v.([]any)
	if !ok {
		return false
	}
	for _, e := range list {
		if _, ok := e.(string); !ok {
			return false
		}
	}
	return true
}

// Encode writes the contract: two-space indentation, keys sorted, no HTML
// escaping, a final newline.
func (c *Contract) Encode() ([]byte, error) {
	raw, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	var generic any
	if err := jsonx.Decode(raw, &generic); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(generic); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Parse reads a contract file (validated against the schema by the
// caller). Lists are put in their stable order, so a hand-edited file
// compares like a written one.
func Parse(data []byte) (*Contract, error) {
	var c Contract
	if err := jsonx.Decode(data, &c); err != nil {
		return nil, err
	}
	if c.SchemaVersion != SchemaVersion {
		return nil, fmt.Errorf("schemaVersion %d is not %d, the version this mcpcheck reads", c.SchemaVersion, SchemaVersion)
	}
	for i := range c.Tools {
		c.Tools[i].InputSchema = normalSchema(c.Tools[i].InputSchema)
		c.Tools[i].OutputSchema = normalSchema(c.Tools[i].OutputSchema)
	}
	if c.Capabilities == nil {
		c.Capabilities = map[string]any{}
	}
	c.sort()
	return &c, nil
}
