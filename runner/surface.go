package runner

import (
	"encoding/json"
	"slices"
	"sort"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Surface is what a server offers, as discovery found it: its tools with
// their schemas and annotations as sent, its resources, resource templates
// and prompts (mcpcheck tools prints it). Lists are sorted by name or URI.
// Strings are the server's own, sanitized and redacted with the rest of the
// report; the schemas (raw JSON) are redacted, and a writer for a terminal
// or a page escapes what it prints of them.
type Surface struct {
	Server            *ServerInfo       `json:"server,omitempty"`
	ProtocolVersion   string            `json:"protocolVersion"`
	Capabilities      []string          `json:"capabilities"`
	Instructions      string            `json:"instructions,omitempty"`
	Tools             []SurfaceTool     `json:"tools"`
	Resources         []SurfaceResource `json:"resources,omitempty"`
	ResourceTemplates []SurfaceResource `json:"resourceTemplates,omitempty"`
	Prompts           []SurfacePrompt   `json:"prompts,omitempty"`
}

// SurfaceTool is one listed tool.
type SurfaceTool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  json.RawMessage `json:"annotations,omitempty"`
	// Execution ({"taskSupport": ...}), Icons and Meta (_meta) are kept
	// as sent: the SDK's Tool type drops the first, and a UI (an app's
	// _meta.ui.resourceUri) lives in the last.
	Execution json.RawMessage `json:"execution,omitempty"`
	Icons     json.RawMessage `json:"icons,omitempty"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
}

// SurfaceResource is a listed resource (URI) or resource template
// (URITemplate).
type SurfaceResource struct {
	URI         string `json:"uri,omitempty"`
	URITemplate string `json:"uriTemplate,omitempty"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
}

// SurfacePrompt is a listed prompt with its arguments, in the server's
// order.
type SurfacePrompt struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
}

// PromptArgument is one argument a prompt takes.
type PromptArgument struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required"` // false written too, as the spec's default
}

// surface is the report's view of what discovery found, with the run's
// secrets redacted from every string (a server may echo a credential in a
// description).
func surface(red *redactor, ir *mcp.InitializeResult, protocol string, found *discovered) *Surface {
	s := rawSurface(ir, protocol, found)
	if red == nil || len(red.needles) == 0 {
		return s
	}
	b, err := json.Marshal(s)
	if err != nil {
		return s
	}
	if v := numbers(json.RawMessage(b)); v != nil {
		if b, err = json.Marshal(red.Value(v)); err == nil {
			var out Surface
			if json.Unmarshal(b, &out) == nil {
				return &out
			}
		}
	}
	return s
}

func rawSurface(ir *mcp.InitializeResult, protocol string, found *discovered) *Surface {
	s := &Surface{ProtocolVersion: protocol, Capabilities: []string{}, Tools: []SurfaceTool{}}
	if ir != nil {
		if ir.ServerInfo != nil {
			s.Server = &ServerInfo{Name: ir.ServerInfo.Name, Version: ir.ServerInfo.Version}
		}
		s.Instructions = ir.Instructions
		if c := ir.Capabilities; c != nil {
			for _, k := range []struct {
				name string
				on   bool
			}{{"completions", c.Completions != nil}, {"logging", c.Logging != nil}, {"prompts", c.Prompts != nil},
				{"resources", c.Resources != nil}, {"tools", c.Tools != nil}} {
				if k.on {
					s.Capabilities = append(s.Capabilities, k.name)
				}
			}
		}
	}
	s.Tools = append(s.Tools, sortedTools(found.tools)...)
	s.Resources = sortedBy(found.resources, func(x resource) string { return x.URI })
	s.ResourceTemplates = sortedBy(found.templates, func(x resource) string { return x.URITemplate })
	s.Prompts = sortedBy(found.prompts, func(x prompt) string { return x.Name })
	return s
}

// sortedBy is a sorted copy of list (nil when it is empty).
func sortedBy[T any](list []T, key func(T) string) []T {
	if len(list) == 0 {
		return nil
	}
	out := slices.Clone(list)
	sort.SliceStable(out, func(i, j int) bool { return key(out[i]) < key(out[j]) })
	return out
}

// addCapability adds a capability the SDK's type does not know, keeping
// the list sorted.
func (s *Surface) addCapability(name string) {
	if !slices.Contains(s.Capabilities, name) {
		s.Capabilities = append(s.Capabilities, name)
		slices.Sort(s.Capabilities)
	}
}

// UIResource is the ui:// resource a tool's _meta names as its MCP App
// (_meta.ui.resourceUri), or "".
func UIResource(t SurfaceTool) string {
	var m struct {
		UI struct {
			ResourceURI string `json:"resourceUri"`
		} `json:"ui"`
	}
	if len(t.Meta) == 0 || json.Unmarshal(t.Meta, &m) != nil {
		return ""
	}
	return m.UI.ResourceURI
}
