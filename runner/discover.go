package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpcheck/mcpcheck/runner/report"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Discovery limits: a server that pages forever or repeats a cursor fails
// discovery (and a list step) instead of hanging the run (the SDK's
// iterator would loop).
const (
	maxPages = 100
	maxItems = 10000
)

// tool, resource (a listed resource or resource template) and prompt are
// what discovery keeps of each listing, as the server sent it; they are
// the exported Surface types (mcpcheck tools prints them).
type (
	tool     = report.SurfaceTool
	resource = report.SurfaceResource
	prompt   = report.SurfacePrompt
)

// discovered is what discovery found: the tools always, resources,
// templates and prompts when the server declares them.
type discovered struct {
	tools     []tool
	resources []resource
	templates []resource
	prompts   []prompt
	warnings  []string
	// raw keeps every kept entry of each list as the server sent it, for
	// the contract.
	raw map[string][]json.RawMessage
}

// discover lists what the server offers, each list within timeout.
func discover(ctx context.Context, sess *session, timeout time.Duration) (*discovered, error) {
	d := &discovered{raw: map[string][]json.RawMessage{}}
	var caps *mcp.ServerCapabilities
	if sess.init != nil {
		caps = sess.init.Capabilities
	}
	lists := []struct {
		what string
		on   bool
		into func(json.RawMessage) (string, error)
	}{
		{"tools", true, func(raw json.RawMessage) (string, error) {
			var t tool
			err := json.Unmarshal(raw, &t)
			d.tools = append(d.tools, t)
			return t.Name, err
		}},
		{"resources", caps != nil && caps.Resources != nil, func(raw json.RawMessage) (string, error) {
			var r resource
			err := json.Unmarshal(raw, &r)
			d.resources = append(d.resources, r)
			return r.URI, err
		}},
		{"resourceTemplates", caps != nil && caps.Resources != nil, func(raw json.RawMessage) (string, error) {
			var r resource
			err := json.Unmarshal(raw, &r)
			d.templates = append(d.templates, r)
			return r.URITemplate, err
		}},
		{"prompts", caps != nil && caps.Prompts != nil, func(raw json.RawMessage) (string, error) {
			var p prompt
			err := json.Unmarshal(raw, &p)
			d.prompts = append(d.prompts, p)
			return p.Name, err
		}},
	}
	for _, l := range lists {
		if !l.on {
			continue
		}
		lctx, cancel := context.WithTimeout(ctx, timeout)
		items, err := walkPages(lctx, sess.cs, l.what)
		if err != nil && lctx.Err() != nil && ctx.Err() == nil {
			err = fmt.Errorf("%s: not complete within %s", listMethods[l.what], timeout)
		}
		cancel()
		if err != nil {
			return nil, err
		}
		seen := map[string]bool{}
		for _, raw := range items {
			name, err := l.into(raw)
			if err != nil {
				return nil, fmt.Errorf("%s: an entry is not a valid listing: %v", listMethods[l.what], err)
			}
			if seen[name] {
				d.warnings = append(d.warnings, fmt.Sprintf("%s names %q more than once; the first definition is used", listMethods[l.what], name))
				d.drop(l.what)
				continue
			}
			seen[name] = true
			d.raw[l.what] = append(d.raw[l.what], raw)
		}
	}
	return d, nil
}

// drop removes the last entry added to the list of what.
func (d *discovered) drop(what string) {
	switch what {
	case "tools":
		d.tools = d.tools[:len(d.tools)-1]
	case "resources":
		d.resources = d.resources[:len(d.resources)-1]
	case "resourceTemplates":
		d.templates = d.templates[:len(d.templates)-1]
	case "prompts":
		d.prompts = d.prompts[:len(d.prompts)-1]
	}
}

// walkPages lists what (tools, resources, resourceTemplates, prompts)
// page by page and returns the raw entries of all pages, in order: at
// most maxPages pages and maxItems entries, and a repeated cursor stops it.
// Entries keep the bytes the server sent (numbers exact); a page the SDK
// answered from its own cache (2026-07-28) is encoded from what it gave.
func walkPages(ctx context.Context, cs *mcp.ClientSession, what string) ([]json.RawMessage, error) {
	method := listMethods[what]
	var items []json.RawMessage
	cursor := ""
	seen := map[string]bool{}
	for page := 1; ; page++ {
		if page > maxPages {
			return nil, errListWalk{fmt.Sprintf("%s: more than %d pages; stopping", method, maxPages)}
		}
		// A warning about this call (a duplicate or late response) names
		// it: discovery has no step to name.
		tp := &tap{label: fmt.Sprintf("discovery's %s page %d", method, page)}
		raw, next, err := listPage(withTap(ctx, tp), cs, what, cursor)
		tp.markDone()
		if cut := tp.oversizedErr(); err != nil && cut != nil {
			// Over HTTP the SDK keeps only the words of why the page's body
			// was cut; the page's own tap has the error.
			err = cut
		}
		if err != nil {
			return nil, fmt.Errorf("%s page %d: %w", method, page, err)
		}
		if r := tp.Result(); r != nil {
			raw = r
		}
		var fields map[string]json.RawMessage
		var entries []json.RawMessage
		if err := json.Unmarshal(raw, &fields); err != nil {
			return nil, fmt.Errorf("%s page %d: %v", method, page, err)
		}
		if list, ok := fields[what]; ok && string(list) != "null" {
			if err := json.Unmarshal(list, &entries); err != nil {
				return nil, fmt.Errorf("%s page %d: %s is not a list: %v", method, page, what, err)
			}
		}
		items = append(items, entries...)
		if len(items) > maxItems {
			return nil, errListWalk{fmt.Sprintf("%s: more than %d entries; stopping", method, maxItems)}
		}
		if next == "" {
			return items, nil
		}
		if seen[next] || next == cursor {
			return nil, errListWalk{fmt.Sprintf("%s page %d repeats an earlier cursor; stopping instead of looping", method, page)}
		}
		seen[next], cursor = true, next
	}
}

// listPage gets one page of a list, as the SDK decoded it, encoded again,
// and its next cursor.
func listPage(ctx context.Context, cs *mcp.ClientSession, what, cursor string) (json.RawMessage, string, error) {
	var (
		res  any
		next string
		err  error
	)
	switch what {
	case "tools":
		var r *mcp.ListToolsResult
		if r, err = cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor}); r != nil {
			res, next = r, r.NextCursor
		}
	case "resources":
		var r *mcp.ListResourcesResult
		if r, err = cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor}); r != nil {
			res, next = r, r.NextCursor
		}
	case "resourceTemplates":
		var r *mcp.ListResourceTemplatesResult
		if r, err = cs.ListResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{Cursor: cursor}); r != nil {
			res, next = r, r.NextCursor
		}
	case "prompts":
		var r *mcp.ListPromptsResult
		if r, err = cs.ListPrompts(ctx, &mcp.ListPromptsParams{Cursor: cursor}); r != nil {
			res, next = r, r.NextCursor
		}
	default:
		return nil, "", fmt.Errorf("nothing to list called %q", what)
	}
	if err != nil {
		return nil, "", err
	}
	raw, err := json.Marshal(res)
	return raw, next, err
}
