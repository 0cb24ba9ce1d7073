package runner

import (
	"context"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// hookLog records what the hooks of a run saw, and every broken promise.
type hookLog struct {
	t         *testing.T
	mu        sync.Mutex
	starts    int
	atStart   []report.ScenarioResult // deep copy of the report OnStart saw
	steps     map[[2]int]report.StepResult
	scenarios map[int]report.ScenarioResult
}

func followed(t *testing.T, opts Options) (Options, *hookLog) {
	h := &hookLog{t: t, steps: map[[2]int]report.StepResult{}, scenarios: map[int]report.ScenarioResult{}}
	opts.OnStart = func(r *report.Report) {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.starts++
		if len(h.steps) > 0 || len(h.scenarios) > 0 {
			t.Errorf("OnStart after OnStep or OnScenario")
		}
		for _, sc := range r.Scenarios {
			sc.Steps = append([]report.StepResult(nil), sc.Steps...)
			h.atStart = append(h.atStart, sc)
		}
	}
	opts.OnStep = func(i, j int, st report.StepResult) {
		h.mu.Lock()
		defer h.mu.Unlock()
		switch {
		case h.starts != 1:
			t.Errorf("OnStep(%d, %d) before OnStart", i, j)
		case i >= len(h.atStart) || j >= len(h.atStart[i].Steps):
			t.Errorf("OnStep(%d, %d): no such step", i, j)
		}
		if _, done := h.scenarios[i]; done {
			t.Errorf("OnStep(%d, %d) after OnScenario(%d)", i, j, i)
		}
		if _, twice := h.steps[[2]int{i, j}]; twice {
			t.Errorf("OnStep(%d, %d) twice", i, j)
		}
		h.steps[[2]int{i, j}] = st
	}
	opts.OnScenario = func(i int, sc report.ScenarioResult) {
		h.mu.Lock()
		defer h.mu.Unlock()
		if h.starts != 1 {
			t.Errorf("OnScenario(%d) before OnStart", i)
		}
		if _, twice := h.scenarios[i]; twice {
			t.Errorf("OnScenario(%d) twice", i)
		}
		sc.Steps = append([]report.StepResult(nil), sc.Steps...)
		h.scenarios[i] = sc
	}
	return opts, h
}

// stepCmp compares step results on every field, the unexported ones
// (analysis' inputs) left out.
var stepCmp = cmpopts.IgnoreUnexported(report.StepResult{})

// check holds the hooks to their documentation against the final report.
func (h *hookLog) check(rep *report.Report) {
	t := h.t
	t.Helper()
	if h.starts != 1 {
		t.Fatalf("OnStart called %d times, want once", h.starts)
	}
	if len(h.atStart) != len(rep.Scenarios) {
		t.Fatalf("OnStart saw %d scenarios, the report has %d", len(h.atStart), len(rep.Scenarios))
	}
	ran := 0
	for i, sc := range rep.Scenarios {
		start := h.atStart[i]
		if start.Name != sc.Name || len(start.Steps) != len(sc.Steps) {
			t.Errorf("scenario %d at OnStart: %q with %d steps, at the end %q with %d", i, start.Name, len(start.Steps), sc.Name, len(sc.Steps))
			continue
		}
		for j, st := range start.Steps {
			if st.Status != report.StatusSkipped || st.ID != sc.Steps[j].ID || st.Tool != sc.Steps[j].Tool {
				t.Errorf("step %d/%d at OnStart: %s %s %s, want skipped %s %s", i, j, st.Status, st.ID, st.Tool, sc.Steps[j].ID, sc.Steps[j].Tool)
			}
		}
		got, ok := h.scenarios[i]
		if !ok {
			t.Errorf("no OnScenario(%d) (%s)", i, sc.Name)
			continue
		}
		// Every step is final by OnScenario: what it carried is the end's.
		if diff := cmp.Diff(sc.Steps, got.Steps, stepCmp); diff != "" {
			t.Errorf("OnScenario(%d) (%s) steps differ from the final ones (-final +hook):\n%s", i, sc.Name, diff)
		}
		for j, st := range sc.Steps {
			hooked, ok := h.steps[[2]int{i, j}]
			if !ok {
				if st.Outcome != "" || st.Status != report.StatusSkipped {
					t.Errorf("step %s / %s was run (%s %s) but had no OnStep", sc.Name, st.ID, st.Status, st.Outcome)
				}
				continue
			}
			ran++
			if diff := cmp.Diff(st, hooked, stepCmp); diff != "" {
				t.Errorf("OnStep(%d, %d) (%s / %s) is not the final result (-final +hook):\n%s", i, j, sc.Name, st.ID, diff)
			}
		}
	}
	if len(h.scenarios) != len(rep.Scenarios) {
		t.Errorf("OnScenario for %d scenarios, the report has %d", len(h.scenarios), len(rep.Scenarios))
	}
	if ran == 0 {
		t.Errorf("no step had an OnStep")
	}
}

// hooksSuite mixes every way a scenario runs: in order with a sleep (so
// later scenarios finish first), a failure that skips the rest, all at
// once, a scenario and a step for another protocol, on its own session.
const hooksSuite = `
name: hooks
command: [mcpcheck, demo]
allowTools: [sleep, echo, get_household]
concurrency: 4
scenarios:
  - name: slow first
    steps:
      - {id: a, tool: sleep, arguments: {ms: 200}}
      - {id: b, tool: echo, arguments: {x: 1}}
  - name: fails early
    steps:
      - {id: bad, tool: echo, arguments: {x: 1}, expect: {structuredEquals: {x: 2}}}
      - {id: never, tool: echo}
  - name: all at once
    parallel: true
    steps:
      - {id: p1, tool: sleep, arguments: {ms: 30}}
      - {id: p2, tool: sleep, arguments: {ms: 10}}
      - {id: p3, tool: echo}
  - name: another protocol
    protocols: ["2026-07-28"]
    steps: [{id: x, tool: echo}]
  - name: a step for another protocol
    steps:
      - {id: s1, tool: echo, protocols: ["2026-07-28"]}
      - {id: s2, tool: get_household}
  - name: on its own session
    isolation: scenario
    steps: [{id: i1, tool: sleep, arguments: {ms: 5}}]
`

// TestHooks checks OnStart, OnStep and OnScenario as Options documents
// them: OnStart once, before anything, with every step in place and
// skipped; OnStep once per step that ran, with its final result; OnScenario
// once per scenario, after its last OnStep, with every step final.
func TestHooks(t *testing.T) {
	t.Run("fixture", func(t *testing.T) {
		opts, h := followed(t, inMemory(nil))
		rep := mustRun(t, parse(t, hooksSuite), opts)
		if rep.Summary.Failed != 1 {
			t.Errorf("want one failed step: %s", statuses(rep))
		}
		h.check(rep)
	})
	t.Run("generated", func(t *testing.T) {
		// Fanned-out cases and concurrency checks (all at once, on
		// sessions of their own) call the hooks concurrently.
		opts, h := followed(t, plantedOptions())
		s := generatedSuite(t, &config.Generate{Fuzz: true, Fidelity: true, Probes: true, Concurrency: 3})
		s.Concurrency = 4
		rep := mustRun(t, s, opts)
		h.check(rep)
	})
	t.Run("interrupted", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		opts, h := followed(t, inMemory(nil))
		step := opts.OnStep
		opts.OnStep = func(i, j int, st report.StepResult) {
			step(i, j, st)
			cancel() // Ctrl-C after the first step
		}
		rep, err := Run(ctx, parse(t, hooksSuite), opts)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Failure == nil || rep.Failure.Stage != "interrupted" {
			t.Errorf("failure = %+v", rep.Failure)
		}
		h.check(rep)
	})
}

// TestHooksNotCalled: a run that fails before its first call, a --list run
// and a run under several protocols call no hook.
func TestHooksNotCalled(t *testing.T) {
	const missing = "name: missing\ncommand: [x]\nallowTools: [echo, nosuchtool]\nscenarios: [{name: s, steps: [{id: a, tool: echo}, {id: b, tool: nosuchtool}]}]\n"
	for name, tc := range map[string]struct {
		suite string
		edit  func(*Options)
		run   func(context.Context, *config.Suite, Options) (*report.Report, error)
	}{
		"missing tool": {missing, nil, Run},
		"list":         {hooksSuite, nil, List},
		"protocols":    {hooksSuite, func(o *Options) { o.Protocols = []string{"2025-11-25", "2026-07-28"} }, Run},
	} {
		t.Run(name, func(t *testing.T) {
			var mu sync.Mutex
			calls := 0
			count := func() { mu.Lock(); calls++; mu.Unlock() }
			opts := inMemory(nil)
			opts.OnStart = func(*report.Report) { count() }
			opts.OnStep = func(int, int, report.StepResult) { count() }
			opts.OnScenario = func(int, report.ScenarioResult) { count() }
			if tc.edit != nil {
				tc.edit(&opts)
			}
			rep, err := tc.run(context.Background(), parse(t, tc.suite), opts)
			if err != nil {
				t.Fatal(err)
			}
			if name == "missing tool" && (rep.Failure == nil || rep.Failure.Stage != "allowlist") {
				t.Errorf("failure = %+v, want allowlist", rep.Failure)
			}
			if calls != 0 {
				t.Errorf("%d hook calls, want none", calls)
			}
		})
	}
}
