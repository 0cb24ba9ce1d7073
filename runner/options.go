package runner

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Version is mcpcheck's version, sent as the client version in initialize.
var Version = "0.1.0"

// ErrMissingCredential means a variable named by envFromEnv or
// headersFromEnv is not set. The run stops before starting anything or
// touching the network (exit code 2).
var ErrMissingCredential = errors.New("missing credential")

// Options tune a run without changing what it checks.
type Options struct {
	// Environ is the runner's environment as KEY=VALUE pairs, read for
	// envFromEnv, headersFromEnv and the stdio child's base variables.
	// Nil means os.Environ().
	Environ []string
	// SelfCommand is what a fixture command whose program is exactly
	// "mcpcheck" runs instead: this very binary (so `command: [mcpcheck,
	// demo]` works without installing anything). Nil means os.Executable().
	SelfCommand []string
	// Dial, when set, replaces the suite's target with a caller-provided
	// transport (tests use in-memory transports). It is called once per
	// session.
	Dial func(ctx context.Context) (mcp.Transport, error)
	// TerminateGrace is how long a stdio server gets after stdin is closed
	// (and again after SIGTERM) before the next signal. Zero means 2s.
	TerminateGrace time.Duration
	// Protocols, when it names more than one version, runs the suite once
	// per version and merges the results into one report with the
	// divergences between versions; one version overrides the suite's.
	Protocols []string
	// ListOnly returns a report in which every step is listed but skipped:
	// it calls no tool (--list). With generated checks it connects,
	// discovers and compiles them; a fixture without them is listed
	// without connecting.
	ListOnly bool
	// Select, when set, leaves scenarios out of the run (--tag, --run,
	// ...); they are in the report, skipped "not selected".
	Select *Selection
	// Snapshot connects, discovers and builds the server's contract into
	// Report.Contract, calling nothing (mcpcheck snapshot).
	Snapshot bool
	// Update rewrites the suite's contract file and golden answers from
	// the live server instead of failing on them, and removes answers no
	// step asks for (--update).
	Update bool
	// ListDiscovers makes a ListOnly run connect and discover even when the
	// suite generates nothing (mcpcheck tools); without it, listing a
	// fixture's own steps needs no server at all.
	ListDiscovers bool
	// KeepTmp keeps the run's ${tmp} scratch directories instead of
	// removing them at the end (--keep-tmp); the report lists them.
	KeepTmp bool
	// Trace, when set, receives one JSON line per tool call (and per tool
	// that generation skipped), with the arguments, redacted.
	Trace io.Writer
	// OnStart, OnStep and OnScenario follow a run as it goes (the human
	// report streams through them on a terminal). OnStart is called once,
	// when the plan is ready and before the first call, with the report as
	// it stands: every scenario and step in place, skipped "not run"; read
	// what it needs before returning. OnStep is called when a step's result
	// is final (from the scenario's goroutine: calls for different scenarios,
	// and for the cases of one fanned-out scenario, may be concurrent), and
	// OnScenario when every step of scenario i is final, skipped ones
	// included. A run that fails before its first call, a --list run and a
	// run under several protocols call none of them.
	OnStart    func(r *Report)
	OnStep     func(scenario, step int, r StepResult)
	OnScenario func(scenario int, r ScenarioResult)

	// keepAnswers keeps every step's decoded result in the StepResult
	// OnStep sees (Sample reads the answers; no report ever holds them).
	keepAnswers bool
}

func (o *Options) terminateGrace() time.Duration {
	if o.TerminateGrace > 0 {
		return o.TerminateGrace
	}
	return 2 * time.Second
}
