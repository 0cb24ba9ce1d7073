package runner

import (
	"context"
	"maps"
	"slices"
	"sort"
	"time"

	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// runProtocols runs the suite once per protocol version, each a part of
// its own, and joins the parts: the scenarios of each pass in turn (each
// tagged with its negotiated version), sessions summed, the first
// failure, warnings, notes and skipped tools tagged with the version the
// pass asked for. [Analyze] then judges each version's checks apart and
// lists the divergences between them.
func runProtocols(ctx context.Context, suite *config.Suite, opts Options, m purpose, versions []string) (*report.Report, error) {
	start := time.Now()
	// Each pass has scenarios of its own; the joined report exists only at
	// the end, so the passes are not followed as they go.
	opts.OnStart, opts.OnStep, opts.OnScenario = nil, nil, nil
	opts.answerKey = newAnswerKey()
	var parts []*report.Report
	for _, v := range versions {
		s := *suite
		s.ProtocolVersion = v
		rep, err := runOne(ctx, &s, opts, m)
		if err != nil {
			return nil, err
		}
		// An interrupted run still gives every pass its report: the passes
		// not begun list their steps skipped, "interrupted".
		parts = append(parts, rep)
	}
	joined := joinProtocols(parts, versions)
	joined.Summary.DurationMs = ms(time.Since(start))
	return joined, nil
}

// joinProtocols joins the passes of a multi-protocol run (requested[k] is
// what parts[k] asked for) into one report, not analysed yet.
func joinProtocols(parts []*report.Report, requested []string) *report.Report {
	first := parts[0]
	m := &report.Report{
		SchemaVersion:   report.SchemaVersion,
		Suite:           first.Suite, // named by the server in quick mode
		Target:          first.Target,
		ProtocolVersion: first.ProtocolVersion,
		ToolsDiscovered: []string{},
		StartedAt:       first.StartedAt,
		Analysis:        first.Analysis,
	}
	tools := map[string]bool{}
	for k, rep := range parts {
		v := requested[k]
		pr := report.ProtocolRun{Requested: v, Negotiated: rep.ProtocolVersion, From: len(m.Scenarios)}
		pr.Failed = rep.Failure != nil || rep.TerminatedEarly != nil || len(rep.StaleBaseline) > 0 ||
			slices.ContainsFunc(rep.Drift, func(d report.Drift) bool { return d.Failing })
		if m.Server == nil {
			m.Server = rep.Server
		}
		for _, t := range rep.ToolsDiscovered {
			tools[t] = true
		}
		joinPart(m, rep, v)
		if m.Analysis == nil {
			m.Analysis = rep.Analysis
		}
		m.ServerStderr = append(m.ServerStderr, rep.ServerStderr...)
		// The contract is compared under the first version asked for.
		if m.Summary.Drift == nil && rep.Summary.Drift != nil {
			m.Drift, m.Summary.Drift = rep.Drift, rep.Summary.Drift
		}
		for _, sc := range rep.Scenarios {
			sc.ProtocolVersion = rep.ProtocolVersion
			m.Scenarios = append(m.Scenarios, sc)
		}
		for _, st := range rep.SkippedTools {
			st.ProtocolVersion = v
			m.SkippedTools = append(m.SkippedTools, st)
		}
		pr.To = len(m.Scenarios)
		m.ProtocolRuns = append(m.ProtocolRuns, pr)
	}
	for t := range tools {
		m.ToolsDiscovered = append(m.ToolsDiscovered, t)
	}
	sort.Strings(m.ToolsDiscovered)
	m.Warnings, m.Notes = distinct(m.Warnings), distinct(m.Notes)
	sort.Strings(m.Warnings)
	return m
}

// divergences lists the steps whose status, outcome, error code or answer
// (its members' values, see answerDigests in protocols.go) differ between the passes of a
// multi-protocol run, compared by value: each
// step of the first pass with the step of the same scenario name and id in
// the others. A step that is not for one of the versions (a `protocols`
// tag) is by design not divergent.
func divergences(eras []era) []report.Divergence {
	type key struct{ scenario, step string }
	index := make([]map[key]*report.StepResult, len(eras))
	for k, e := range eras {
		index[k] = map[key]*report.StepResult{}
		for i := range e.scenarios {
			sc := &e.scenarios[i]
			for j := range sc.Steps {
				kk := key{sc.Name, sc.Steps[j].ID}
				if _, dup := index[k][kk]; !dup {
					index[k][kk] = &sc.Steps[j]
				}
			}
		}
	}
	var out []report.Divergence
	for i := range eras[0].scenarios {
		sc := &eras[0].scenarios[i]
		for j := range sc.Steps {
			kk := key{sc.Name, sc.Steps[j].ID}
			if index[0][kk] != &sc.Steps[j] {
				continue // a repeated name: compared at its first
			}
			var results []report.DivergentOutcome
			var values []string
			differs, tagged := false, false
			for k, e := range eras {
				o := index[k][kk]
				if o == nil {
					continue
				}
				// A step not judged under one version (out of its scope,
				// or the run was interrupted) differs in nothing.
				if o.Cause == report.SkipNotForProtocol || interruptedStep(o) {
					tagged = true
					break
				}
				d := report.DivergentOutcome{ProtocolVersion: e.negotiated, Status: o.Status, Outcome: o.Outcome, ErrorCode: o.ErrorCode}
				if len(results) > 0 && !sameResult(d, results[0]) {
					differs = true
				}
				for _, v := range valuesDiffer(index[0][kk].AnswerDigests, o.AnswerDigests) {
					if !slices.Contains(values, v) {
						values = append(values, v)
					}
				}
				results = append(results, d)
			}
			if (differs || len(values) > 0) && !tagged {
				slices.Sort(values)
				out = append(out, report.Divergence{Scenario: sc.Name, Step: sc.Steps[j].ID, Results: results, Values: values})
			}
		}
	}
	return out
}

// sameResult reports whether two passes' results of a step are equal in
// value: status, outcome and error code (the code compared as a number,
// not as where it is stored).
func sameResult(a, b report.DivergentOutcome) bool {
	codeEqual := (a.ErrorCode == nil) == (b.ErrorCode == nil) && (a.ErrorCode == nil || *a.ErrorCode == *b.ErrorCode)
	return a.Status == b.Status && a.Outcome == b.Outcome && codeEqual
}

// Divergence in value. A run in several protocol eras compares each
// hand-written step's answers between the eras, not only its status and
// outcome (generated steps, which create records with server-minted ids,
// are compared by status, outcome and error code only): each
// top-level member of a result (structuredContent, content, contents,
// messages, tools, ...) is kept in the report as a keyed digest, and the
// members whose digests differ are the step's value divergence. The
// digests are HMACs under a key drawn for the run, so they say whether two
// answers of the run are equal and nothing about the answer itself (the
// report holds no result values). What the 2026-07-28 revision added to
// every result is left out, so that it is no divergence: resultType, the
// caching hints ttlMs and cacheScope, and the _meta keys of the protocol
// itself (io.modelcontextprotocol/..., such as serverInfo); isError false
// counts as absent.

// newAnswerKey is the key of one run's answer digests.
func newAnswerKey() []byte {
	k := make([]byte, 32)
	rand.Read(k)
	return k
}

// eraFields are the result members the revision added.
var eraFields = map[string]bool{"resultType": true, "ttlMs": true, "cacheScope": true}

// answerDigests digests raw's top-level members under key, or nil when raw
// is not a JSON object.
func answerDigests(key []byte, raw json.RawMessage) map[string]string {
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) != nil || top == nil {
		return nil
	}
	out := make(map[string]string, len(top))
	for name, v := range top {
		if eraFields[name] || (name == "isError" && string(bytes.TrimSpace(v)) == "false") {
			continue
		}
		var val any
		d := json.NewDecoder(bytes.NewReader(v))
		d.UseNumber()
		if d.Decode(&val) != nil {
			continue
		}
		if name == "_meta" {
			if m, ok := val.(map[string]any); ok {
				maps.DeleteFunc(m, func(k string, _ any) bool { return strings.HasPrefix(k, "io.modelcontextprotocol/") })
				if len(m) == 0 {
					continue
				}
			}
		}
		canon, err := json.Marshal(val) // object keys sorted: key order is no difference
		if err != nil {
			continue
		}
		mac := hmac.New(sha256.New, key)
		mac.Write(canon)
		out[name] = base64.RawURLEncoding.EncodeToString(mac.Sum(nil)[:12])
	}
	return out
}

// valuesDiffer names the members whose values differ between two results
// of a step, sorted; nil when either has no digests (no answer, or a run
// in one era).
func valuesDiffer(a, b map[string]string) []string {
	if a == nil || b == nil {
		return nil
	}
	var out []string
	for k, v := range a {
		if b[k] != v {
			out = append(out, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// withoutEraFields is a decoded result without what the 2026-07-28
// revision added to every result (a copy when it had any), so that a
// golden answer holds in both eras.
func withoutEraFields(m map[string]any) map[string]any {
	var out map[string]any
	for k, v := range m {
		drop := eraFields[k]
		var meta map[string]any
		if k == "_meta" {
			if mm, ok := v.(map[string]any); ok {
				for mk := range mm {
					if strings.HasPrefix(mk, "io.modelcontextprotocol/") {
						if meta == nil {
							meta = maps.Clone(mm)
						}
						delete(meta, mk)
					}
				}
			}
		}
		if !drop && meta == nil {
			continue
		}
		if out == nil {
			out = maps.Clone(m)
		}
		switch {
		case drop, len(meta) == 0:
			delete(out, k)
		default:
			out[k] = meta
		}
	}
	if out == nil {
		return m
	}
	return out
}
