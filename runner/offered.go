package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"net/url"
	"os"
	"runtime"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/internal/jsonx"
	"github.com/mcpcheck/mcpcheck/runner/internal/gen"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// offerCase labels the calls that gather offered inputs in the trace.
const offerCase = "offered-inputs"

// offerTimeout bounds each offered-inputs call (and the request timeout,
// when shorter): a listing answers at once, and a tool whose optional
// arguments default to real work (server-everything's
// trigger-long-running-operation takes 10 s with {}) must not delay
// every run by its whole length. A call cut off offers nothing; its own
// checks judge it. What is offered decides the generated inputs, so the
// bound must hold on a loaded machine too: at 2 s a listing on a machine
// running two test suites was cut off in one shard and not in the whole
// run, and their inputs differed.
const offerTimeout = 5 * time.Second

// offered gathers the inputs the server itself offers, before generation
// (see gen.Offered for what is taken and where it goes): the URIs of the
// listed resources, the names of the listed prompts, and the answers of
// every allowed read-only tool that needs no argument, called once with
// {} on the shared session (within offerTimeout). Tools not annotated read-only are never
// called here, whatever includeDestructive says. The calls run up to the
// suite's concurrency at once; answers
// are taken in tool-name order, so the offer is the same every run. Each
// call is traced (case offered-inputs) with what it offered. A call that
// fails offers nothing and is not a finding: the tool's own generated
// checks judge it.
func (r *runState) offered(ctx context.Context, sess *session, found *discovered, allowed func(string) bool) (*gen.Offered, []string) {
	o := gen.NewOffered()
	// The roots mcpcheck offers come first: the client told the server
	// it may work there (gen.Offered.AddRoot).
	if c := r.suite.Client; c != nil {
		for _, root := range c.Roots {
			if dir := rootDir(root.URI); dir != "" {
				o.AddRoot("client roots", dir)
				o.AddListing("client roots", dir, localListing(dir))
			}
		}
	}
	for _, res := range found.resources {
		o.AddURI("resources/list", res.URI)
	}
	for _, p := range found.prompts {
		o.AddID("prompts/list", p.Name, "prompt")
	}
	var callees []tool
	for _, t := range sortedTools(found.tools) {
		if allowed(t.Name) && isReadOnly(t) && r.takesNoArguments(t.Name) {
			callees = append(callees, t)
		}
	}
	if len(callees) == 0 {
		return o, nil
	}
	answers := make([]*gen.Offered, len(callees))
	sem := make(chan struct{}, max(1, r.suite.Concurrency))
	var wg sync.WaitGroup
	for i, t := range callees {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			answers[i] = r.offeredBy(ctx, sess, t.Name)
		}()
	}
	wg.Wait()
	var called []string
	for i, a := range answers {
		o.Merge(a)
		called = append(called, r.clean(callees[i].Name, 200))
	}
	return o, called
}

// takesNoArguments reports whether {} is valid input for the tool: a
// schema without required properties (or none at all).
func (r *runState) takesNoArguments(name string) bool {
	c := r.schemasOf(name)
	if c.inputErr != nil {
		return false
	}
	return c.input == nil || c.input.Validate(map[string]any{}) == nil
}

// offeredBy calls one argument-free tool and collects its answer.
func (r *runState) offeredBy(ctx context.Context, sess *session, name string) *gen.Offered {
	o, outcome := r.offerCall(ctx, sess, name, map[string]any{}, func(res *mcp.CallToolResult, o *gen.Offered) {
		o.AddAnswer(name, numbers(res.StructuredContent), contentText(res.Content))
		for _, c := range res.Content {
			if l, ok := c.(*mcp.ResourceLink); ok {
				o.AddURI(name, l.URI)
			}
		}
	})
	if outcome != config.OutcomeOK {
		// Remembered for the behaviour checks' observers (see
		// knownObservers): every shard of a run makes these calls, so what
		// they show is the same whatever the split.
		r.mu.Lock()
		if r.offerFailed == nil {
			r.offerFailed = map[string]string{}
		}
		r.offerFailed[name] = string(outcome)
		r.mu.Unlock()
	}
	return o
}

// offerCall makes one call of the offered-inputs round (bounded by
// offerTimeout), lets take collect a successful answer, and traces it.
func (r *runState) offerCall(ctx context.Context, sess *session, name string, args map[string]any, take func(*mcp.CallToolResult, *gen.Offered)) (*gen.Offered, config.Outcome) {
	o := gen.NewOffered()
	callCtx, cancel := context.WithTimeout(ctx, min(offerTimeout, ms2d(r.suite.TimeoutMs)))
	defer cancel()
	began := time.Now()
	res, err := sess.cs.CallTool(callCtx, &mcp.CallToolParams{Name: name, Arguments: args})
	entry := report.TraceEntry{Tool: name, Case: offerCase, Arguments: args, StartedAt: traceTime(began), DurationMs: ms(time.Since(began))}
	switch {
	case err != nil:
		entry.Outcome, entry.Detail = config.OutcomeProtocolError, r.clean(err.Error(), 300)+"; nothing offered"
		if callCtx.Err() != nil {
			entry.Outcome = config.OutcomeTimeout
		}
	case res == nil || res.IsError:
		entry.Outcome, entry.Detail = config.OutcomeToolError, "answered with isError; nothing offered"
	default:
		entry.Outcome = config.OutcomeOK
		take(res, o)
		entry.Detail = "offered " + o.Counts()
	}
	r.trace.write(entry)
	return o, entry.Outcome
}

// numbers re-decodes a decoded JSON value with json.Number, so an integer
// id keeps its exact digits; nil stays nil.
func numbers(v any) any {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return jsonx.Value(b)
}

// offeredNote is the report's note on the offer: what was called, what it
// gave and where it was used, or nothing when nothing was called and no
// property took an offered value.
func offeredNote(o *gen.Offered, called []string) string {
	// Nothing called and nothing taken is not worth a line: the
	// listed resources and prompts alone are in the trace.
	if len(called) == 0 && len(o.Used()) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("offered inputs: ")
	if len(called) > 0 {
		fmt.Fprintf(&b, "called %d argument-free read-only tool(s) before generating (%s); ", len(called), strings.Join(called, ", "))
	}
	fmt.Fprintf(&b, "the server offered %s", o.Counts())
	if used := o.Used(); len(used) > 0 {
		fmt.Fprintf(&b, "; used: %s", strings.Join(used, "; "))
	} else if !o.Empty() {
		b.WriteString("; no property took one")
	}
	return b.String()
}

// listings is the second round of offered inputs (see gen.AddListing): once
// the first round offered a directory, each allowed read-only listing tool
// (gen.ListingTool: a name that says it lists, one required path or
// directory property) is called once with it, and the entries it names
// are offered as paths under it. So a file tool gets a file the server
// holds rather than the directory itself. Calls are traced like the first
// round's, bounded by offerTimeout, and made one at a time, in tool-name
// order; a failure offers nothing.
func (r *runState) listings(ctx context.Context, sess *session, found *discovered, allowed func(string) bool, o *gen.Offered) []string {
	dir := o.FirstDir()
	if dir == "" {
		return nil
	}
	var called []string
	for _, t := range sortedTools(found.tools) {
		if !allowed(t.Name) || !isReadOnly(t) {
			continue
		}
		prop, ok := gen.ListingTool(t.Name, required(t))
		if !ok {
			continue
		}
		args := map[string]any{prop: dir}
		if c := r.schemasOf(t.Name); c.inputErr != nil || (c.input != nil && c.input.Validate(args) != nil) {
			continue
		}
		called = append(called, r.clean(t.Name, 200))
		o.Merge(r.listingOf(ctx, sess, t.Name, args, dir))
	}
	return called
}

// listingOf calls one listing tool with args and collects the entries of
// its answer under dir.
func (r *runState) listingOf(ctx context.Context, sess *session, name string, args map[string]any, dir string) *gen.Offered {
	o, _ := r.offerCall(ctx, sess, name, args, func(res *mcp.CallToolResult, o *gen.Offered) {
		o.AddListing(name, dir, contentText(res.Content))
	})
	return o
}

// listingNote is what the offered-inputs note adds for the listing
// tools called ("" for none).
func listingNote(listers []string) string {
	if len(listers) == 0 {
		return ""
	}
	return "; listed the first offered directory with " + strings.Join(listers, ", ")
}

// mayWrite says which tools may write, for the generator's path rules
// (gen.Values.Fresh): every tool not annotated read-only. Their path
// properties get fresh paths of mcpcheck's own, under a directory the
// server serves or the run's scratch directory, never a file the server
// already holds.
func mayWrite(tools []tool) func(string) bool {
	writes := map[string]bool{}
	for _, t := range tools {
		if !isReadOnly(t) {
			writes[t.Name] = true
		}
	}
	return func(name string) bool { return writes[name] }
}

// rootDir is the local path a file:// root names ("" for any other URI, or
// one with a host other than localhost).
func rootDir(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || (u.Host != "" && u.Host != "localhost") || u.Path == "" {
		return ""
	}
	p := u.Path
	if runtime.GOOS == "windows" && len(p) > 2 && p[0] == '/' && p[2] == ':' {
		p = strings.ReplaceAll(p[1:], "/", "\\")
	}
	return p
}

// scratchForGenerated makes the run's scratch directory when a generated
// step names it (a fresh path, an anchored example: gen.Values.Fresh) and
// the suite did not, so ${tmp} names a directory that exists. false: it
// could not be made, and the run has failed with the reason.
func (r *runState) scratchForGenerated(sess *session, from int) bool {
	if r.tmp != "" {
		return true
	}
	used := false
	for _, sc := range r.plan[from:] {
		for j := range sc.steps {
			used = used || sc.steps[j].scratch
		}
	}
	if !used {
		return true
	}
	if r.tmp = r.scratch.dir(); r.tmp == "" {
		r.fail(report.StageConnect, scratchError(r.scratch.err))
		return false
	}
	sess.tmp = r.tmp
	return true
}

// maxRootEntries bounds what a client root's local listing reads.
const maxRootEntries = 64

// localListing lists a directory a client root names, as listing tools
// answer ("[FILE] name", "[DIR] name" lines): the roots are mcpcheck's own
// offer, on its own machine, so it may read what they hold and offer the
// entries as paths (gen.Offered.AddListing takes plain names only). At most
// maxRootEntries entries are read; a root that cannot be read lists
// nothing.
func localListing(dir string) string {
	f, err := os.Open(dir)
	if err != nil {
		return ""
	}
	defer f.Close()
	entries, _ := f.ReadDir(maxRootEntries)
	var b strings.Builder
	for _, e := range entries {
		tag := "[FILE] "
		if e.IsDir() {
			tag = "[DIR] "
		}
		b.WriteString(tag + e.Name() + "\n")
	}
	return b.String()
}
