package runner

import (
	"encoding/json"
	"slices"
	"sort"

	"github.com/mcpcheck/mcpcheck/runner/report"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// surface is the report's view of what discovery found, with the run's
// secrets redacted from every string (a server may echo a credential in a
// description).
func surface(red *redactor, ir *mcp.InitializeResult, protocol string, found *discovered) *report.Surface {
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
			var out report.Surface
			if json.Unmarshal(b, &out) == nil {
				return &out
			}
		}
	}
	return s
}

func rawSurface(ir *mcp.InitializeResult, protocol string, found *discovered) *report.Surface {
	s := &report.Surface{ProtocolVersion: protocol, Capabilities: []string{}, Tools: []report.SurfaceTool{}}
	if ir != nil {
		if ir.ServerInfo != nil {
			s.Server = &report.ServerInfo{Name: ir.ServerInfo.Name, Version: ir.ServerInfo.Version}
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
