package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/internal/safetext"
	"github.com/mcpcheck/mcpcheck/runner/internal/gen"
	"github.com/mcpcheck/mcpcheck/runner/internal/schema"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// A sample is what mcpcheck init learns from a live server to write a
// starter fixture that passes at once. The rules, enforced here:
//
//   - Only the read-only surface is called: tools annotated readOnlyHint
//     true, the first listed resource, the first listed prompt (one that
//     needs no argument when there is one). A tool whose arguments the
//     generator cannot make valid from its inputSchema is left out, with
//     the reason.
//   - Every call is made twice, on two sessions of their own, through the
//     very runner that will run the fixture (same transports, allowlist,
//     time limits). A call that does not answer ok both times is left
//     out, with its outcome: the fixture must pass as written.
//   - The expectations are the answer's shape, never its values: what was
//     the same in both answers, as $type (strings, numbers, booleans,
//     objects) and, for the MCP arrays of the result itself (content,
//     contents, messages), the items in order with the "type" of each
//     content block, which is the protocol's, not the server's data.
//     Arrays inside the server's own data are only {$type: array}: their
//     length is state. A key whose type differs between the two answers is
//     left out; so is a key that sanitizing or redacting would change
//     (it would not match what the server sends), and beyond shapeDepth
//     levels or shapeKeys keys an object is only {$type: object}.
//
// [Sample] returns the probes; cmd/mcpcheck writes them as YAML.

// shapeDepth and shapeKeys bound a derived shape, so a starter fixture
// stays readable whatever the server answers.
const (
	shapeDepth = 4
	shapeKeys  = 20
)

// Probe is one call of a sample: a step of the starter fixture, or why
// there is none.
type Probe struct {
	Kind config.StepKind
	// Name is the tool or prompt; URI the resource.
	Name, URI string
	// Arguments are the tool's or prompt's arguments (generated valid).
	Arguments map[string]any
	// Structured is the shape of a tool's structuredContent (nil when it
	// has none); Result the shape of the rest of the result (content,
	// contents, messages), for expect.result.includes.
	Structured any
	Result     map[string]any
	// Skipped says why the probe is no step of the fixture ("" when it
	// is one).
	Skipped string
}

// Sampled is a server's read-only surface, called: the server's own
// listing and the probes, tools first (by name), then the resource and
// the prompt.
type Sampled struct {
	Surface *report.Surface
	Probes  []Probe
}

// ErrNoSurface is a sample of a server that could not be reached or
// listed: the message says where it failed.
var ErrNoSurface = errors.New("the server could not be listed")

// Sample connects to suite's target, lists it, calls its read-only
// surface twice and derives each answer's shape (see the rules above).
// The suite's scenarios and generate block are ignored.
func Sample(ctx context.Context, suite *config.Suite, opts Options) (*Sampled, error) {
	base := *suite
	base.Generate, base.Scenarios, base.Contract = nil, nil, ""
	rep, err := Discover(ctx, &base, opts)
	if err != nil {
		return nil, err
	}
	if rep.Surface == nil {
		msg := "no answer"
		if rep.Failure != nil {
			msg = string(rep.Failure.Stage) + ": " + rep.Failure.Message
		}
		return nil, fmt.Errorf("%w: %s", ErrNoSurface, msg)
	}
	sec, err := resolveSecrets(&base, newEnviron(opts.Environ))
	if err != nil {
		return nil, err
	}
	red := newRedactor(sec.values, base.Endpoint)
	same := func(s string) bool { return s != "" && len(s) <= 300 && red.String(safetext.Sanitize(s)) == s }

	out := &Sampled{Surface: rep.Surface}
	values := gen.NewValues(0)
	for _, t := range rep.Surface.Tools {
		if v, present := gen.Hint(t.Annotations, "readOnlyHint"); !present || !v || !base.AllowsTool(t.Name) {
			continue
		}
		p := Probe{Kind: config.KindTool, Name: t.Name}
		switch in, err := schema.Compile(t.Name, "input", t.InputSchema); {
		case !same(t.Name):
			p.Skipped = "its name does not survive sanitizing"
		case err != nil:
			p.Skipped = "its inputSchema cannot be compiled"
		default:
			args, notes := values.Valid(t.Name, in)
			if len(notes) > 0 {
				p.Skipped = "no valid arguments could be made from its inputSchema"
			}
			p.Arguments = args
		}
		out.Probes = append(out.Probes, p)
	}
	sort.SliceStable(out.Probes, func(i, j int) bool { return out.Probes[i].Name < out.Probes[j].Name })
	for _, res := range rep.Surface.Resources {
		if same(res.URI) {
			out.Probes = append(out.Probes, Probe{Kind: config.KindResource, URI: res.URI})
			break
		}
	}
	if p := samplePrompt(rep.Surface.Prompts, same); p != nil {
		out.Probes = append(out.Probes, *p)
	}

	// Two passes; the second repeats only what passed the first, so a
	// call that times out costs its time limit once.
	var answers [2]map[int]map[string]any
	for pass := range answers {
		got, err := sampleCalls(ctx, &base, opts, out.Probes)
		if err != nil {
			return nil, err
		}
		answers[pass] = got
	}
	for i := range out.Probes {
		p := &out.Probes[i]
		if p.Skipped != "" {
			continue
		}
		a, b := answers[0][i], answers[1][i]
		if a == nil || b == nil {
			p.Skipped = "the answer was not a JSON object"
			continue
		}
		if p.Kind == config.KindTool {
			if sa, ok := a["structuredContent"]; ok {
				if sb, ok := b["structuredContent"]; ok {
					p.Structured = shapeOf(sa, sb, 0, false, same)
				}
			}
		}
		p.Result = map[string]any{}
		for _, key := range []string{"content", "contents", "messages"} {
			xa, oka := a[key].([]any)
			xb, okb := b[key].([]any)
			if !oka || !okb || len(xa) != len(xb) {
				continue
			}
			items := make([]any, len(xa))
			for n := range xa {
				if items[n] = shapeOf(xa[n], xb[n], 1, true, same); items[n] == nil {
					items = nil // an item changed type: the array's shape is not fixed
					break
				}
			}
			if items != nil {
				p.Result[key] = items
			}
		}
	}
	return out, nil
}

// sampleCalls calls every probe not yet skipped once, each in a scenario
// of its own on one session, and returns the decoded answers by probe
// index. A probe whose call did not pass is skipped with its outcome.
func sampleCalls(ctx context.Context, base *config.Suite, opts Options, probes []Probe) (map[int]map[string]any, error) {
	suite := *base
	suite.AllowTools = []string{}
	var index []int // scenario → probe
	for i, p := range probes {
		if p.Skipped != "" {
			continue
		}
		st := config.Step{ID: "call", Kind: p.Kind, Arguments: p.Arguments, Origin: config.OriginFixture}
		switch p.Kind {
		case config.KindTool:
			st.Tool = p.Name
			suite.AllowTools = append(suite.AllowTools, p.Name)
		case config.KindResource:
			st.Resource = p.URI
		case config.KindPrompt:
			st.Prompt = p.Name
		}
		suite.Scenarios = append(suite.Scenarios, config.Scenario{Name: fmt.Sprintf("probe %d", i), Steps: []config.Step{st}})
		index = append(index, i)
	}
	got := map[int]map[string]any{}
	if len(index) == 0 {
		return got, nil
	}
	results := make([]report.StepResult, len(index))
	o := opts
	o.keepAnswers = true
	o.OnStart, o.OnScenario, o.Trace, o.Select = nil, nil, nil, nil
	o.OnStep = func(sc, _ int, r report.StepResult) { results[sc] = r }
	rep, err := Run(ctx, &suite, o)
	switch {
	case err != nil:
		return nil, err
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case rep.Failure != nil:
		return nil, fmt.Errorf("%w: %s: %s", ErrNoSurface, rep.Failure.Stage, rep.Failure.Message)
	}
	for k, i := range index {
		r := results[k]
		if r.Status != report.StatusPassed || r.Outcome != config.OutcomeOK {
			probes[i].Skipped = fmt.Sprintf("the call did not pass (%s)", probeOutcome(r))
			continue
		}
		got[i] = r.Decoded
	}
	return got, nil
}

// probeOutcome names what a probe call did in the runner's words.
func probeOutcome(r report.StepResult) string {
	switch {
	case r.Outcome != "" && r.Outcome != config.OutcomeOK:
		return string(r.Outcome)
	case r.Reason != "":
		return r.Reason
	case r.Status != "":
		return string(r.Status)
	}
	return "no result"
}

// samplePrompt picks the prompt a starter fixture gets: the first listed
// that needs no argument; else the first, its required arguments given
// the word "example".
func samplePrompt(prompts []report.SurfacePrompt, same func(string) bool) *Probe {
	var first *Probe
	for _, p := range prompts {
		if !same(p.Name) {
			continue
		}
		args := map[string]any{}
		usable := true
		for _, a := range p.Arguments {
			if a.Required {
				usable = usable && same(a.Name)
				args[a.Name] = "example"
			}
		}
		if !usable {
			continue
		}
		pr := &Probe{Kind: config.KindPrompt, Name: p.Name}
		if len(args) == 0 {
			return pr
		}
		if first == nil {
			pr.Arguments = args
			first = pr
		}
	}
	return first
}

// shapeOf is the shape two answers a and b share (see the rules at the
// top of the file): nil when they do not share one. protocol says a and b
// are items of the result's own arrays (content blocks, resource
// contents, prompt messages), whose "type" is the protocol's.
func shapeOf(a, b any, depth int, protocol bool, same func(string) bool) any {
	ta, tb := jsonType(a), jsonType(b)
	if ta != tb {
		if (ta == config.TypeInteger || ta == config.TypeNumber) && (tb == config.TypeInteger || tb == config.TypeNumber) {
			return typeMatcher(config.TypeNumber)
		}
		return nil
	}
	oa, ok := a.(map[string]any)
	if !ok || depth >= shapeDepth {
		return typeMatcher(ta)
	}
	ob := b.(map[string]any)
	keys := make([]string, 0, len(oa))
	for k := range oa {
		if _, ok := ob[k]; ok && same(k) && !strings.HasPrefix(k, "$") {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	if len(keys) == 0 || len(keys) > shapeKeys {
		return typeMatcher(config.TypeObject)
	}
	out := make(map[string]any, len(keys))
	for _, k := range keys {
		if protocol && k == "type" {
			if s, ok := oa[k].(string); ok && s == ob[k] && same(s) {
				out[k] = s
				continue
			}
		}
		// A message's content is one content block: the protocol's too.
		if v := shapeOf(oa[k], ob[k], depth+1, protocol && k == "content", same); v != nil {
			out[k] = v
		}
	}
	if len(out) == 0 {
		return typeMatcher(config.TypeObject)
	}
	return out
}

// typeMatcher is {$type: t} as a decoded expected value is written.
func typeMatcher(t config.JSONType) map[string]any {
	return map[string]any{string(config.MatchType): string(t)}
}

// jsonType is the $type of a decoded JSON value (numbers are json.Number
// or float64; integer is a number without a fraction).
func jsonType(v any) config.JSONType {
	switch x := v.(type) {
	case nil:
		return config.TypeNull
	case string:
		return config.TypeString
	case bool:
		return config.TypeBoolean
	case []any:
		return config.TypeArray
	case map[string]any:
		return config.TypeObject
	case json.Number:
		if _, err := x.Int64(); err == nil {
			return config.TypeInteger
		}
		return config.TypeNumber
	case float64:
		if x == float64(int64(x)) {
			return config.TypeInteger
		}
		return config.TypeNumber
	}
	return config.TypeObject
}
