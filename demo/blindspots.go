package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Defects that a client making calls the way mcpcheck used to would never
// see (issue 19, "blind spots"): each is planted in the defects profile
// and found by the generated checks.

// Names of the blind-spot tools of the defects profile.
const (
	// toolScanInbox needs the request's _meta (progress) to be there.
	toolScanInbox = "scan_inbox"
	// toolFindTemplate reports its errors as successes.
	toolFindTemplate = "find_template"
)

// nilDeref is the message a Go server's recovering middleware answers for
// a nil pointer dereference (mcp-go's "internal panic" reply has it too).
const nilDeref = "internal panic: runtime error: invalid memory address or nil pointer dereference"

type scanInboxIn struct {
	Folder string `json:"folder,omitempty" jsonschema:"the folder to scan (default inbox)"`
}

type scanInboxOut struct {
	Folder string `json:"folder"`
	Unread int    `json:"unread"`
}

type findTemplateIn struct {
	Name string `json:"name" jsonschema:"the template's name"`
}

// templates are find_template's data.
var templates = map[string]string{
	"invoice":  "Invoice {{number}} for {{customer}}: {{total}} due on {{date}}.",
	"reminder": "Reminder: {{task}} is due on {{date}}.",
}

// addBlindspotTools registers the blind-spot tools.
func (d *defects) addBlindspotTools(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{
		Name:        toolScanInbox,
		Title:       "Scan inbox",
		Description: "Counts the unread messages of a mail folder, reporting progress as it scans.",
		Annotations: readOnly("Scan inbox"),
	}, func(ctx context.Context, req *mcp.CallToolRequest, in scanInboxIn) (*mcp.CallToolResult, scanInboxOut, error) {
		// Planted defect: the handler reads the request's progress token
		// without checking that the client sent one, as servers written
		// against a client that always asks for progress do. A plain call
		// (no _meta, what most clients send) is a nil dereference, which
		// the server's recovering middleware answers with -32603.
		token := req.Params.GetProgressToken()
		if token == nil {
			return nil, scanInboxOut{}, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: nilDeref}
		}
		folder := in.Folder
		if folder == "" {
			folder = "inbox"
		}
		for i := 1; i <= 2; i++ {
			req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(i), Total: 2, Message: "scanning " + folder})
		}
		return nil, scanInboxOut{Folder: folder, Unread: len(folder) % 7}, nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name:        toolFindTemplate,
		Title:       "Find template",
		Description: "Returns the text of a message template by name.",
		Annotations: readOnly("Find template"),
	}, func(_ context.Context, _ *mcp.CallToolRequest, in findTemplateIn) (*mcp.CallToolResult, any, error) {
		text, ok := templates[strings.ToLower(strings.TrimSpace(in.Name))]
		if !ok {
			// Planted defect: the error is a JSON object with an "error"
			// member in a successful result (isError absent), as some
			// HTTP-API wrappers pass their backend's error body on.
			b, err := json.Marshal(map[string]string{"error": fmt.Sprintf("Template '%s' not found", in.Name)})
			if err != nil {
				return nil, nil, err
			}
			return textResult(string(b)), nil, nil
		}
		if text == "" {
			return toolError(errors.New("empty template")), nil, nil
		}
		return textResult(text), nil, nil
	})
}
