package demo

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Apps profile (Options.Apps, "mcpcheck demo --apps"): an MCP App (the MCP
// Apps extension, 2026-01-26) — show_household, whose _meta.ui.resourceUri
// names ui://household/board.html, a listed resource served as
// text/html;profile=mcp-app with well-formed CSP and permissions metadata.
// With Defects (or ProtocolDefects) it also has show_chart, whose UI
// resource breaks the extension: served as plain text/html, a CSP entry
// that is no origin ("*" and one with a path), a permission that is not an
// object, and a visibility the extension does not know.

// appMIME is the MIME type of an MCP App's HTML resource.
const appMIME = "text/html;profile=mcp-app"

const (
	boardURI = "ui://household/board.html"
	chartURI = "ui://household/chart.html"
)

const boardHTML = `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Household board</title></head>
<body><h1>Household</h1><ul id="tasks"></ul></body></html>
`

func addApps(s *mcp.Server, defects bool) {
	boardMeta := mcp.Meta{"ui": map[string]any{
		"csp":           map[string]any{"connectDomains": []string{}, "resourceDomains": []string{"https://cdn.example.com"}},
		"permissions":   map[string]any{"clipboardWrite": map[string]any{}},
		"prefersBorder": true,
	}}
	s.AddResource(&mcp.Resource{
		URI: boardURI, Name: "household-board", Title: "Household board",
		Description: "The household's tasks as a page (an MCP App's UI).",
		MIMEType:    appMIME, Meta: boardMeta,
	}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
			{URI: boardURI, MIMEType: appMIME, Text: boardHTML, Meta: boardMeta},
		}}, nil
	})
	s.AddTool(&mcp.Tool{
		Name:        "show_household",
		Description: "Shows the household's tasks on a board (an MCP App; text for hosts without apps).",
		InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true},
		Meta:        mcp.Meta{"ui": map[string]any{"resourceUri": boardURI, "visibility": []string{"model", "app"}}},
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if bad := noArguments(req.Params.Arguments); bad != nil {
			return bad, nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "The household board."}}}, nil
	})
	if !defects {
		return
	}
	chartMeta := mcp.Meta{"ui": map[string]any{
		"csp":         map[string]any{"connectDomains": []string{"*", "https://api.example.com/v1"}},
		"permissions": map[string]any{"camera": true},
	}}
	s.AddResource(&mcp.Resource{
		URI: chartURI, Name: "household-chart", Description: "A chart of the household (planted: a malformed app resource).",
		MIMEType: "text/html", Meta: chartMeta,
	}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
			{URI: chartURI, MIMEType: "text/html", Text: "<p>chart</p>", Meta: chartMeta},
		}}, nil
	})
	s.AddTool(&mcp.Tool{
		Name:        "show_chart",
		Description: "Shows a chart of the household (an MCP App).",
		InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true},
		Meta:        mcp.Meta{"ui": map[string]any{"resourceUri": chartURI, "visibility": []string{"everyone"}}},
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if bad := noArguments(req.Params.Arguments); bad != nil {
			return bad, nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "A chart."}}}, nil
	})
}

// noArguments refuses arguments other than {}: the SDK does not hold a raw
// handler's to its inputSchema.
func noArguments(args json.RawMessage) *mcp.CallToolResult {
	var m map[string]json.RawMessage
	if len(args) == 0 || (json.Unmarshal(args, &m) == nil && len(m) == 0) {
		return nil
	}
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "this tool takes no arguments"}}}
}
