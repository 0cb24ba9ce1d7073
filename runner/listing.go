package runner

import (
	"context"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/runner/internal/gen"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

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
		o.AddListing(name, dir, contentText(res.Content))
		entry.Detail = "offered " + o.Counts()
	}
	r.trace.write(entry)
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
