package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/safetext"
)

// Tools writes a server's surface for a person (mcpcheck tools): each tool
// with its arguments (name, type, required, allowed values, the first line
// of the description), its annotations with what their absence means, and
// whether it declares an output schema; then resources, resource templates
// and prompts. Every server string is cleaned for the terminal.
func Tools(w io.Writer, r *Report) error {
	s := r.Surface
	var b bytes.Buffer
	b.WriteString(targetLine(r) + "\n")
	if s == nil {
		if r.Failure != nil {
			fmt.Fprintf(&b, "\nerror %s: %s\n", r.Failure.Stage, r.Failure.Message)
		}
		_, err := w.Write(b.Bytes())
		return err
	}
	if len(s.Capabilities) > 0 {
		fmt.Fprintf(&b, "Capabilities: %s\n", strings.Join(s.Capabilities, ", "))
	}
	if s.Instructions != "" {
		fmt.Fprintf(&b, "Instructions: %s\n", firstLine(s.Instructions, 200))
	}
	fmt.Fprintf(&b, "\nTools (%d):\n", len(s.Tools))
	for _, t := range s.Tools {
		toolBlock(&b, t)
	}
	resources := func(title string, list []SurfaceResource, key func(SurfaceResource) string) {
		if len(list) == 0 {
			return
		}
		fmt.Fprintf(&b, "\n%s (%d):\n", title, len(list))
		for _, x := range list {
			line := "  " + cleanLine(key(x), 300)
			for _, part := range []string{x.Name, x.MIMEType} {
				if part != "" {
					line += "  " + cleanLine(part, 100)
				}
			}
			b.WriteString(line + "\n")
			if d := firstLine(x.Description, 160); d != "" {
				fmt.Fprintf(&b, "      %s\n", d)
			}
		}
	}
	resources("Resources", s.Resources, func(x SurfaceResource) string { return x.URI })
	resources("Resource templates", s.ResourceTemplates, func(x SurfaceResource) string { return x.URITemplate })
	if len(s.Prompts) > 0 {
		fmt.Fprintf(&b, "\nPrompts (%d):\n", len(s.Prompts))
		for _, p := range s.Prompts {
			fmt.Fprintf(&b, "  %s\n", cleanLine(p.Name, 200))
			if d := firstLine(p.Description, 160); d != "" {
				fmt.Fprintf(&b, "      %s\n", d)
			}
			if len(p.Arguments) == 0 {
				b.WriteString("      arguments: none\n")
			}
			for _, a := range p.Arguments {
				req := "optional"
				if a.Required {
					req = "required"
				}
				fmt.Fprintf(&b, "      %s  %s", cleanLine(a.Name, 100), req)
				if d := firstLine(a.Description, 120); d != "" {
					fmt.Fprintf(&b, "  %s", d)
				}
				b.WriteString("\n")
			}
		}
	}
	if len(r.Warnings) > 0 {
		b.WriteString("\n")
		for _, w := range r.Warnings {
			fmt.Fprintf(&b, "warning %s\n", w)
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// ToolsJSON writes the surface as JSON: schemas and annotations exactly as
// the server sent them, secrets redacted.
func ToolsJSON(w io.Writer, r *Report) error {
	out := struct {
		SchemaVersion int `json:"schemaVersion"`
		*Surface
	}{1, r.Surface}
	if out.Surface == nil {
		out.Surface = &Surface{Tools: []SurfaceTool{}, Capabilities: []string{}}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func toolBlock(b *bytes.Buffer, t SurfaceTool) {
	head := "  " + cleanLine(t.Name, 200)
	if t.Title != "" {
		head += "  (" + cleanLine(t.Title, 100) + ")"
	}
	b.WriteString(head + "\n")
	if d := firstLine(t.Description, 160); d != "" {
		fmt.Fprintf(b, "      %s\n", d)
	}
	fmt.Fprintf(b, "      annotations: %s\n", annotationLine(t.Annotations))
	if line := taskLine(t.Execution); line != "" {
		fmt.Fprintf(b, "      tasks: %s\n", line)
	}
	if uri := UIResource(t); uri != "" {
		fmt.Fprintf(b, "      ui: %s (an MCP App's resource)\n", cleanLine(uri, 200))
	}
	if n := iconCount(t.Icons); n > 0 {
		fmt.Fprintf(b, "      icons: %d\n", n)
	}
	args := arguments(t.InputSchema)
	switch {
	case args == nil:
		b.WriteString("      arguments: no usable inputSchema\n")
	case len(args) == 0:
		b.WriteString("      arguments: none\n")
	default:
		b.WriteString("      arguments:\n")
		width, kindWidth := 0, 0
		for _, a := range args {
			width = max(width, len([]rune(a.name)))
			kindWidth = max(kindWidth, len([]rune(a.kind)))
		}
		for _, a := range args {
			req := ""
			if a.required {
				req = "required"
			}
			line := fmt.Sprintf("        %-*s  %-*s  %-8s", width, a.name, kindWidth, a.kind, req)
			if a.enum != "" {
				line += "  one of " + a.enum
			}
			if a.desc != "" {
				line += "  " + a.desc
			}
			b.WriteString(strings.TrimRight(line, " ") + "\n")
		}
	}
	if len(t.OutputSchema) > 0 && string(t.OutputSchema) != "null" {
		b.WriteString("      output schema: yes (structuredContent is checked against it)\n")
	} else {
		b.WriteString("      output schema: none\n")
	}
}

// annotationLine names the hints a tool sent and, for the ones it did not,
// what the spec's defaults make of it.
func annotationLine(raw json.RawMessage) string {
	var a map[string]any
	if len(raw) > 0 {
		json.Unmarshal(raw, &a)
	}
	var sent []string
	for _, k := range []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} {
		if v, ok := a[k].(bool); ok {
			sent = append(sent, fmt.Sprintf("%s %v", k, v))
		}
	}
	readOnly, _ := a["readOnlyHint"].(bool)
	if len(sent) == 0 {
		return "none (so not read-only: generated checks leave it alone unless --include-destructive)"
	}
	line := strings.Join(sent, ", ")
	if !readOnly {
		line += " (not read-only: generated checks leave it alone unless --include-destructive)"
	}
	return line
}

type argument struct {
	name, kind, enum, desc string
	required               bool
}

// arguments lists the top-level properties of an input schema, required
// ones first, then by name; nil when the schema is not an object schema
// with properties that can be read.
func arguments(raw json.RawMessage) []argument {
	var s struct {
		Type       any                        `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &s) != nil {
		return nil
	}
	var root map[string]any
	json.Unmarshal(raw, &root)
	if s.Type != nil && s.Type != "object" {
		return nil
	}
	out := make([]argument, 0, len(s.Properties))
	for name, p := range s.Properties {
		a := argument{name: cleanLine(name, 80), required: slices.Contains(s.Required, name)}
		var prop map[string]any
		json.Unmarshal(p, &prop)
		a.kind = cleanLine(kindOf(root, prop, 0), 120)
		if enum, ok := prop["enum"].([]any); ok {
			a.enum = enumList(enum)
		}
		desc, _ := prop["description"].(string)
		a.desc = firstLine(desc, 100)
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].required != out[j].required {
			return out[i].required
		}
		return out[i].name < out[j].name
	})
	return out
}

// kindOf is a property's type as a person reads it: "string (date)",
// "integer 1..10", "string, length 1..64, matching ^[a-z]+$", "array of
// string, 1..5 items", "string|null" for an anyOf of two, "one of: A | B",
// what a local $ref names (resolved against the root schema, at most three
// deep: refs may cycle), with ", default X" when the schema gives one.
func kindOf(root, p map[string]any, depth int) string {
	if ref, ok := p["$ref"].(string); ok {
		if target := localRef(root, ref); target != nil && depth < 3 {
			return kindOf(root, target, depth+1)
		}
		return "ref " + ref
	}
	kind := "any"
	switch t := p["type"].(type) {
	case string:
		kind = t
	case []any:
		var parts []string
		for _, x := range t {
			if s, ok := x.(string); ok {
				parts = append(parts, s)
			}
		}
		if len(parts) > 0 {
			kind = strings.Join(parts, "|")
		}
	default:
		for _, key := range []string{"anyOf", "oneOf"} {
			alts, ok := p[key].([]any)
			if !ok || depth >= 3 {
				continue
			}
			var parts []string
			for _, alt := range alts {
				if m, ok := alt.(map[string]any); ok {
					parts = append(parts, kindOf(root, m, depth+1))
				}
			}
			if len(parts) == 0 {
				kind = key
				break
			}
			// A plain union of types reads as one; richer alternatives
			// are listed.
			simple := true
			for _, x := range parts {
				simple = simple && !strings.ContainsAny(x, " ,")
			}
			if simple {
				kind = strings.Join(parts, "|")
			} else {
				kind = "one of: " + strings.Join(parts, " | ")
			}
		}
	}
	if items, ok := p["items"].(map[string]any); ok && strings.HasPrefix(kind, "array") && depth < 3 {
		kind += " of " + kindOf(root, items, depth+1)
	}
	if f, ok := p["format"].(string); ok {
		kind += " (" + cleanLine(f, 40) + ")"
	}
	kind += span(p, "minimum", "maximum", " ", "")
	kind += span(p, "minLength", "maxLength", ", length ", "")
	kind += span(p, "minItems", "maxItems", ", ", " items")
	if pat, ok := p["pattern"].(string); ok {
		kind += ", matching " + cleanLine(pat, 60)
	}
	if d, ok := p["default"]; ok {
		b, _ := json.Marshal(d)
		kind += ", default " + cleanLine(string(b), 40)
	}
	return kind
}

// span renders a pair of bounds: "lo..hi", ">= lo" or "<= hi".
func span(p map[string]any, lo, hi, before, after string) string {
	l, hasL := p[lo].(float64)
	h, hasH := p[hi].(float64)
	switch {
	case hasL && hasH:
		return fmt.Sprintf("%s%g..%g%s", before, l, h, after)
	case hasL:
		return fmt.Sprintf("%s>= %g%s", before, l, after)
	case hasH:
		return fmt.Sprintf("%s<= %g%s", before, h, after)
	}
	return ""
}

// localRef resolves "#/$defs/x" (or any local JSON Pointer) in root; nil
// for anything else (remote refs are never fetched).
func localRef(root map[string]any, ref string) map[string]any {
	if !strings.HasPrefix(ref, "#/") {
		return nil
	}
	var cur any = root
	for _, tok := range strings.Split(ref[2:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[tok]
	}
	m, _ := cur.(map[string]any)
	return m
}

// taskLine says what a tool's execution.taskSupport means for a caller.
func taskLine(raw json.RawMessage) string {
	var e struct {
		TaskSupport string `json:"taskSupport"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &e) != nil || e.TaskSupport == "" {
		return ""
	}
	switch e.TaskSupport {
	case "required":
		return "required (only as a task: mcpcheck calls it as one)"
	case "optional":
		return "optional (may be called as a task: task: true)"
	case "forbidden":
		return "forbidden"
	}
	return cleanLine(e.TaskSupport, 40) + " (not a taskSupport the spec knows)"
}

// iconCount is how many icons a tool lists.
func iconCount(raw json.RawMessage) int {
	var icons []json.RawMessage
	if json.Unmarshal(raw, &icons) != nil {
		return 0
	}
	return len(icons)
}

// enumList shows at most eight allowed values.
func enumList(values []any) string {
	var parts []string
	for i, v := range values {
		if i == 8 {
			parts = append(parts, fmt.Sprintf("… (%d in all)", len(values)))
			break
		}
		b, _ := json.Marshal(v)
		parts = append(parts, string(b))
	}
	return cleanLine(strings.Join(parts, ", "), 200)
}

// firstLine is the first non-empty line of a description, cleaned and cut.
func firstLine(s string, max int) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return cleanLine(l, max)
		}
	}
	return ""
}

// cleanLine is server text made safe for one terminal line.
func cleanLine(s string, max int) string {
	return strings.ReplaceAll(safetext.Clean(s, max), "\n", " ")
}
