package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"time"

	"slices"
	"sort"

	"github.com/mcpcheck/mcpcheck/assert"
	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/runner/internal/gen"
	"github.com/mcpcheck/mcpcheck/runner/internal/schema"
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
	resources, prompts := caps != nil && caps.Resources != nil, caps != nil && caps.Prompts != nil
	lists := []struct {
		what string
		on   bool
		into func(json.RawMessage) (name string, keep func(), err error)
	}{
		{"tools", true, listed(&d.tools, func(t tool) string { return t.Name })},
		{"resources", resources, listed(&d.resources, func(r resource) string { return r.URI })},
		{"resourceTemplates", resources, listed(&d.templates, func(r resource) string { return r.URITemplate })},
		{"prompts", prompts, listed(&d.prompts, func(p prompt) string { return p.Name })},
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
			name, keep, err := l.into(raw)
			if err != nil {
				return nil, fmt.Errorf("%s: an entry is not a valid listing: %v", listMethods[l.what], err)
			}
			if seen[name] {
				d.warnings = append(d.warnings, fmt.Sprintf("%s names %q more than once; the first definition is used", listMethods[l.what], name))
				continue
			}
			seen[name] = true
			keep()
			d.raw[l.what] = append(d.raw[l.what], raw)
		}
	}
	return d, nil
}

// listed decodes an entry of a listing into a T: its name, and keep, which
// adds it to list (a name listed twice keeps the first definition).
func listed[T any](list *[]T, name func(T) string) func(json.RawMessage) (string, func(), error) {
	return func(raw json.RawMessage) (string, func(), error) {
		var v T
		err := json.Unmarshal(raw, &v)
		return name(v), func() { *list = append(*list, v) }, err
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

// toolSchemas are a discovered tool's input and output schemas, compiled
// once at discovery (not to be confused with the contract file of package
// internal/contract, which records a whole server's surface). A schema that
// was refused (see package schema) is a discovery warning; steps that call
// the tool with argument validation on end as input_rejected.
type toolSchemas struct {
	input, output       *schema.Schema
	inputErr, outputErr error
	// taskSupport is the tool's execution.taskSupport ("" when absent).
	taskSupport string
}

func compileSchemas(t tool) toolSchemas {
	c := toolSchemas{taskSupport: taskSupportOf(t)}
	c.input, c.inputErr = schema.Compile(t.Name, "input", t.InputSchema)
	c.output, c.outputErr = schema.Compile(t.Name, "output", t.OutputSchema)
	return c
}

// checkArguments validates a step's arguments against the tool's
// inputSchema before anything is sent.
func checkArguments(c *toolSchemas, args map[string]any) (rejected bool, reason, detail string) {
	if c.inputErr != nil {
		return true, "the tool's inputSchema was refused, so its arguments cannot be checked; nothing was sent", c.inputErr.Error()
	}
	if c.input == nil {
		return false, "", ""
	}
	var v any = args
	if args == nil {
		v = map[string]any{}
	}
	err := c.input.Validate(v)
	if err == nil {
		return false, "", ""
	}
	vi := schema.Explain(err)
	return true, fmt.Sprintf("arguments do not match the tool's inputSchema at %q (%s); nothing was sent", vi.Path, vi.Keyword), vi.Message
}

// checkOutput validates structuredContent against the tool's outputSchema.
// A successful result of a tool that declares one must carry conforming
// structuredContent.
func checkOutput(c *toolSchemas, ar *assert.Result) (bad bool, reason, detail string) {
	if !ar.HasStructured {
		return true, "the tool declares an outputSchema but the result has no structuredContent", ""
	}
	err := c.output.Validate(ar.Structured)
	if err == nil {
		return false, "", ""
	}
	vi := schema.Explain(err)
	return true, fmt.Sprintf("structuredContent does not match the tool's outputSchema at %q (%s)", vi.Path, vi.Keyword), vi.Message
}

// discoverAll reads what the session's initialize said and what the
// server lists into the report (server, surface, names discovered), and
// compares the live contract with the suite's. false: the run cannot go on
// (the failure or the interruption is in the report).
func (r *runState) discoverAll(ctx context.Context, sess *session) bool {
	rep := r.rep
	if ir := sess.init; ir != nil {
		rep.ProtocolVersion = ir.ProtocolVersion
		if n := eraFallback(r.d.version, ir.ProtocolVersion); n != "" {
			rep.Notes = append(rep.Notes, n)
		}
		if ir.ProtocolVersion != r.d.version {
			rep.RequestedProtocolVersion = r.d.version
		}
		if ir.ServerInfo != nil {
			rep.Server = &report.ServerInfo{Name: r.clean(ir.ServerInfo.Name, 200), Version: r.clean(ir.ServerInfo.Version, 100)}
			if r.suite.NameFromServer && strings.TrimSpace(rep.Server.Name) != "" {
				rep.Suite = "quick check of " + rep.Server.Name
			}
		}
	}
	found, err := discover(ctx, sess, ms2d(r.suite.DiscoveryTimeoutMs))
	if err != nil {
		if ctx.Err() != nil {
			r.interrupted()
			return false
		}
		r.fail(report.StageDiscovery, err)
		r.keepStderr(sess)
		return false
	}
	for _, w := range found.warnings {
		rep.Warnings = append(rep.Warnings, r.clean(w, 300))
	}
	rep.Surface = surface(r.red, sess.init, rep.ProtocolVersion, found)
	if sess.declares("tasks") {
		rep.Surface.AddCapability("tasks")
	}
	r.found = found
	r.tools = make(map[string]tool, len(found.tools))
	for _, t := range found.tools {
		r.tools[t.Name] = t
		rep.ToolsDiscovered = append(rep.ToolsDiscovered, r.clean(t.Name, 200))
	}
	sort.Strings(rep.ToolsDiscovered)
	rep.ResourcesDiscovered = names(r, found.resources, func(x resource) string { return uriTarget(x.URI) })
	rep.ResourceTemplatesDiscovered = names(r, found.templates, func(x resource) string { return x.URITemplate })
	rep.PromptsDiscovered = names(r, found.prompts, func(x prompt) string { return x.Name })
	if err := r.checkContract(sess, found); err != nil {
		r.fail(report.StageDiscovery, err)
		return false
	}
	return true
}

// compile checks the fixture's tool steps against what the server offers
// and the allowlist, and compiles the generated checks into the plan (and
// the report, skipped until they run). false: the run cannot go on.
func (r *runState) compile(ctx context.Context, sess *session) bool {
	rep := r.rep
	if err := r.checkTools(); err != nil {
		r.fail(report.StageAllowlist, err)
		return false
	}
	r.checkAllowTools()
	r.schemas = map[string]*toolSchemas{}
	if r.suite.Generate != nil {
		// Inputs the server offers are gathered by calling its
		// argument-free read-only tools: not when asked to call nothing.
		var offered *gen.Offered
		var called, listers []string
		if g := r.suite.Generate; r.purpose.calls() && !g.NoOfferedInputs && !onlyProtocol(g) {
			offered, called = r.offered(ctx, sess, r.found, r.suite.AllowsTool)
			listers = r.listings(ctx, sess, r.found, r.suite.AllowsTool, offered)
		}
		pt := protocolTarget{transport: rep.Target.Transport, version: rep.ProtocolVersion}
		if sess.init != nil {
			pt.caps = sess.init.Capabilities
		}
		g := compileGenerated(r.suite, r.found, func(name string) *schema.Schema { return r.schemasOf(name).input }, offered, pt, len(r.plan))
		from := len(r.plan)
		r.plan = append(r.plan, g.scenarios...)
		if !r.scratchForGenerated(sess, from) {
			return false
		}
		r.addScenarios(g.scenarios)
		r.selectScenarios(from)
		rep.SkippedTools = g.skipped
		rep.Notes = append(rep.Notes, g.notes...)
		if n := offeredNote(offered, called) + listingNote(listers); n != "" {
			rep.Notes = append(rep.Notes, r.clean(n, 2000))
		}
		for _, sk := range g.skipped {
			r.trace.write(report.TraceEntry{Tool: sk.Tool, Skipped: sk.Reason})
		}
	}
	r.compileSchemas()
	return true
}

// names lists what discovery found, cleaned and sorted for the report.
func names[T any](r *runState, list []T, name func(T) string) []string {
	if list == nil {
		return nil
	}
	out := make([]string, 0, len(list))
	for _, x := range list {
		out = append(out, r.clean(name(x), 300))
	}
	sort.Strings(out)
	return out
}

// checkTools demands that every tool a step names was discovered. The
// loader has already checked the allowlist.
func (r *runState) checkTools() error {
	var missing []string
	seen := map[string]bool{}
	for _, sc := range r.plan {
		for j := range sc.steps {
			st := &sc.steps[j]
			if st.call.kind != config.KindTool {
				continue
			}
			if _, ok := r.tools[st.call.name]; ok || seen[st.call.name] {
				continue
			}
			seen[st.call.name] = true
			missing = append(missing, fmt.Sprintf("%q (first used by step %s at %s%s)", st.call.name, st.spec.ID, st.spec.Pos, r.didYouMean(st.call.name)))
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("the server does not list %s; nothing was called", strings.Join(missing, ", "))
}

// toolNames is every discovered tool's name, sorted.
func (r *runState) toolNames() []string {
	return slices.Sorted(maps.Keys(r.tools))
}

// didYouMean is "; did you mean "x"?" for the discovered tool closest to
// name, or "" when none is close.
func (r *runState) didYouMean(name string) string {
	if s := config.Suggest(name, r.toolNames()); s != "" {
		return fmt.Sprintf("; did you mean %q?", r.clean(s, 200))
	}
	return ""
}

// checkAllowTools warns about allowTools entries the server does not list:
// they bound nothing, and are usually a typo or a renamed tool. A warning,
// not a failure: the run is still what the fixture asked for.
func (r *runState) checkAllowTools() {
	for _, name := range r.suite.AllowTools {
		if _, ok := r.tools[name]; ok {
			continue
		}
		where := at(r.suite, "allowTools")
		if where == "" {
			where = "--allow-tools: "
		}
		r.rep.Warnings = append(r.rep.Warnings, fmt.Sprintf("%sallowTools names %q, which the server does not list%s",
			where, r.clean(name, 200), r.didYouMean(name)))
	}
}

// compileSchemas compiles the schemas of every tool a step calls (the
// generated ones already are) before the first call.
func (r *runState) compileSchemas() {
	for _, sc := range r.plan {
		for j := range sc.steps {
			if sc.steps[j].call.kind == config.KindTool {
				r.schemasOf(sc.steps[j].call.name)
			}
		}
	}
}

// schemasOf returns a discovered tool's compiled schemas, compiling them on
// first use and warning about schemas that were refused or do not compile
// (warnings are sorted at the end). It is called before the scheduler
// starts, from one goroutine.
func (r *runState) schemasOf(name string) *toolSchemas {
	if c, ok := r.schemas[name]; ok {
		return c
	}
	c := compileSchemas(r.tools[name])
	r.schemas[name] = &c
	for _, err := range []error{c.inputErr, c.outputErr} {
		if err != nil {
			r.rep.Warnings = append(r.rep.Warnings, r.clean(fmt.Sprintf("tool %q: %v", name, err), 500))
		}
	}
	return &c
}
