package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Discovery limits: a server that pages forever or repeats a cursor fails
// discovery instead of hanging the run (the SDK's iterator would loop).
const (
	maxToolPages = 100
	maxTools     = 10000
)

// tool is a discovered tool contract, kept as the server sent it.
type tool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  json.RawMessage `json:"annotations,omitempty"`
}

// discover lists the server's tools, following pagination with a bound on
// pages and a check for repeated cursors.
func discover(ctx context.Context, cs *mcp.ClientSession, timeout time.Duration) ([]tool, []string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var (
		tools    []tool
		warnings []string
		cursor   string
		seen     = map[string]bool{}
		names    = map[string]bool{}
	)
	for page := 1; ; page++ {
		if page > maxToolPages {
			return nil, nil, fmt.Errorf("tools/list: more than %d pages; stopping", maxToolPages)
		}
		tp := &tap{}
		res, err := cs.ListTools(withTap(ctx, tp), &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			if ctx.Err() != nil {
				return nil, nil, fmt.Errorf("tools/list: not complete within %s (page %d)", timeout, page)
			}
			return nil, nil, fmt.Errorf("tools/list page %d: %w", page, err)
		}
		var pageTools []tool
		var raw struct {
			Tools []tool `json:"tools"`
		}
		if r := tp.Result(); r != nil && json.Unmarshal(r, &raw) == nil {
			pageTools = raw.Tools
		} else {
			for _, t := range res.Tools {
				in, _ := json.Marshal(t.InputSchema)
				var out, ann json.RawMessage
				if t.OutputSchema != nil {
					out, _ = json.Marshal(t.OutputSchema)
				}
				if t.Annotations != nil {
					ann, _ = json.Marshal(t.Annotations)
				}
				pageTools = append(pageTools, tool{Name: t.Name, Description: t.Description, InputSchema: in, OutputSchema: out, Annotations: ann})
			}
		}
		for _, t := range pageTools {
			if names[t.Name] {
				warnings = append(warnings, fmt.Sprintf("tools/list names tool %q more than once; the first definition is used", t.Name))
				continue
			}
			names[t.Name] = true
			tools = append(tools, t)
		}
		if len(tools) > maxTools {
			return nil, nil, fmt.Errorf("tools/list: more than %d tools; stopping", maxTools)
		}
		if res.NextCursor == "" {
			return tools, warnings, nil
		}
		if seen[res.NextCursor] || res.NextCursor == cursor {
			return nil, nil, fmt.Errorf("tools/list page %d repeats an earlier cursor; stopping instead of looping", page)
		}
		seen[res.NextCursor] = true
		cursor = res.NextCursor
	}
}
