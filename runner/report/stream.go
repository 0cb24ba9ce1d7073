package report

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"
)

// Stream writes the human report while a run goes, for a terminal: results
// as they come and the verdict last, as go test -v, cargo test and jest do.
// It follows the run through runner.Options hooks (OnStart, OnStep, OnScenario, OnCall: the methods of the same names) and
// is ended by [Stream.Finish] with the final report. For example (durations
// cut):
//
//	Household revision and idempotency regression
//	Target: stdio mcpcheck | Protocol: 2025-11-25 | Server: mcpcheck-demo 0.1.0 | Tools discovered: 3
//
//	One approved task
//	  ok   initial   get_household  3ms
//	  FAIL proposal  propose_task   2ms
//	       at demo.yaml:20:9
//	       structuredIncludes /revision: value differs
//	  skip commit    commit_task
//	       an earlier step of this scenario failed (proposal)
//
//	Next scenario
//	running 3/5 steps, 1 failed, 0.4s, now: slow_search 6.1s (+1)
//
// The last line is the status line: steps final out of all, failed steps
// so far, time since the run began, and the call in flight that began
// first (its step's subject, cut to statusName characters, how long it has
// been waiting, and how many other calls are in flight). It is redrawn in place (carriage
// return, erase line) five times a second and after every line, and erased
// for good when the run ends; it is short so that it never wraps (a
// wrapped line could not be erased). Then come the parts that only the end
// knows, in the final report's order: the suite's error, an early
// termination, warnings, the server's stderr, the generated checks'
// sections, protocol runs. Last, after a blank line, the verdict line and
// the summary line, so the verdict is what the eye lands on:
//
//	error interrupted: the run was interrupted; steps not run are skipped
//
//	FAIL Household revision and idempotency regression
//	9 passed, 1 failed, 3 skipped in 1.20s
//
// Every line of [Text]'s report appears exactly once, byte for byte;
// the suite's name at the top (the verdict is not known yet) is the only
// line Text does not have. Scenarios keep report order: a scenario's name is
// printed once every scenario before it is complete (the last name printed
// is the scenario the output waits for), and each of its step lines, with
// the step's detail lines, once the step and every step before it are
// final; scenarios that finish early wait, buffered, for their turn.
// Under Quiet only scenarios that did not pass are printed, each as one
// block once it is complete, exactly as Text prints it under Quiet.
//
// A run that calls no hook (one that fails before its first call, a --list
// run, a run under several protocols) is printed by Finish as Text prints
// it. The hooks may be called concurrently; nothing is written after
// Finish returns.
type Stream struct {
	w     io.Writer
	t     textWriter
	every time.Duration

	mu        sync.Mutex
	started   bool
	finished  bool
	begin     time.Time
	scenarios []*streamed
	next      int // the first scenario not yet printed in full
	total     int // steps in the run
	done      int // steps final
	failed    int // final steps that failed
	// running are the steps whose call has begun and is not final, with
	// when it began.
	running map[[2]int]time.Time
	drawn   bool
	err     error
	stop    chan struct{}
	stopped chan struct{}
}

// streamed is one scenario as the stream knows it.
type streamed struct {
	index    int            // in the report
	res      ScenarioResult // steps as they become final
	final    []bool
	cols     columns
	complete bool // every step final (OnScenario)
	named    bool // its name is printed
	printed  int  // steps printed
}

// statusEvery is how often the status line is redrawn.
const statusEvery = 200 * time.Millisecond

// eraseLine puts the cursor at the start of the line and erases the line.
const eraseLine = "\r\x1b[K"

// NewStream returns a stream of the human report to w, a terminal.
func NewStream(w io.Writer, opts TextOptions) *Stream {
	return &Stream{w: w, t: textWriter{opts: opts}, every: statusEvery}
}

// Call takes the beginning of step j of scenario i (runner.Options.OnCall):
// the status line names it until it is final.
func (s *Stream) Call(i, j int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.started || s.finished || i < 0 || i >= len(s.scenarios) {
		return
	}
	sc := s.scenarios[i]
	if j < 0 || j >= len(sc.final) || sc.final[j] {
		return
	}
	if s.running == nil {
		s.running = map[[2]int]time.Time{}
	}
	s.running[[2]int{i, j}] = time.Now()
}

// Start writes the suite's name and the target line, and shows the status
// line (runner.Options.OnStart).
func (s *Stream) Start(r *Report) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started || s.finished {
		return
	}
	s.started = true
	s.begin = r.StartedAt
	if s.begin.IsZero() {
		s.begin = time.Now()
	}
	for i := range r.Scenarios {
		res := r.Scenarios[i]
		res.Steps = slices.Clone(res.Steps)
		s.scenarios = append(s.scenarios, &streamed{index: i, res: res, final: make([]bool, len(res.Steps)), cols: columnsOf(&res)})
		s.total += len(res.Steps)
	}
	s.t.printf("%s\n%s\n", r.Suite, targetLine(r))
	s.flush()
	s.stop, s.stopped = make(chan struct{}), make(chan struct{})
	go s.tick()
}

// Step takes step j of scenario i, final (runner.Options.OnStep).
func (s *Stream) Step(i, j int, st StepResult) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.started || s.finished || i < 0 || i >= len(s.scenarios) {
		return
	}
	sc := s.scenarios[i]
	if sc.complete || j < 0 || j >= len(sc.final) || sc.final[j] {
		return
	}
	s.settle(sc, j, st)
	s.flush()
}

// Scenario takes scenario i, every step final (runner.Options.OnScenario).
func (s *Stream) Scenario(i int, res ScenarioResult) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.started || s.finished || i < 0 || i >= len(s.scenarios) || s.scenarios[i].complete {
		return
	}
	s.complete(s.scenarios[i], res)
	s.flush()
}

// Finish writes the rest of the report r, erases the status line and stops
// redrawing it. Without a Start it writes r as Text does.
func (s *Stream) Finish(r *Report) error {
	s.mu.Lock()
	if s.finished {
		s.mu.Unlock()
		return s.err
	}
	s.finished = true
	if !s.started {
		s.mu.Unlock()
		return Text(s.w, r, s.t.opts)
	}
	// Scenarios the hooks did not complete (none, when the runner keeps
	// its word) are taken from the final report, so no line goes missing.
	for i, sc := range s.scenarios {
		if !sc.complete && i < len(r.Scenarios) {
			s.complete(sc, r.Scenarios[i])
		}
		sc.complete = true
	}
	s.print()
	s.end(r)
	s.draw()
	err := s.err
	s.mu.Unlock()
	close(s.stop)
	<-s.stopped
	return err
}

// settle makes step j of sc final.
func (s *Stream) settle(sc *streamed, j int, st StepResult) {
	if len(s.running) > 0 {
		delete(s.running, [2]int{sc.index, j})
	}
	sc.res.Steps[j], sc.final[j] = st, true
	s.done++
	if st.Status == StatusFailed {
		s.failed++
	}
}

// complete makes every step of sc final, from res.
func (s *Stream) complete(sc *streamed, res ScenarioResult) {
	for j := range sc.final {
		if !sc.final[j] && j < len(res.Steps) {
			s.settle(sc, j, res.Steps[j])
		}
	}
	sc.res.Attempts = res.Attempts
	sc.complete = true
}

// flush prints what has become printable, and the status line under it.
// A step that prints nothing yet leaves the status line to the ticker: a
// fast run would otherwise redraw it for every step.
func (s *Stream) flush() {
	s.print()
	if s.t.b.Len() > 0 || !s.drawn {
		s.draw()
	}
}

// print renders, in report order, the lines that are now final.
func (s *Stream) print() {
	for ; s.next < len(s.scenarios); s.next++ {
		sc := s.scenarios[s.next]
		if s.t.opts.Quiet || sc.res.NotSelected != "" {
			// Written whole once final (a scenario left out: one line).
			if sc.complete {
				res := sc.res
				res.Status = statusOf(res)
				s.t.scenario(&res)
			}
		} else {
			if !sc.named {
				s.t.scenarioName(&sc.res)
				sc.named = true
			}
			for ; sc.printed < len(sc.final) && sc.final[sc.printed]; sc.printed++ {
				s.t.step(&sc.res.Steps[sc.printed], sc.cols)
			}
			if sc.complete {
				s.t.attempts(&sc.res)
			}
		}
		if !sc.complete {
			return
		}
	}
}

// end renders the parts of the report only its end knows, then the
// verdict and the summary.
func (s *Stream) end(r *Report) {
	p := textWriter{opts: s.t.opts}
	p.problems(r)
	if p.b.Len() > 0 && p.b.Bytes()[0] != '\n' {
		// In Text the warnings follow the target line; here they
		// follow a step, and a blank line sets them apart.
		s.t.printf("\n")
	}
	s.t.b.Write(p.b.Bytes())
	s.t.drift(r)
	s.t.generated(r)
	s.t.protocolRuns(r)
	s.t.printf("\n")
	s.t.verdict(r)
	s.t.summary(r)
}

// draw writes the rendered lines over the status line, then the status
// line again (none once finished).
func (s *Stream) draw() {
	var b bytes.Buffer
	if s.drawn {
		b.WriteString(eraseLine)
		s.drawn = false
	}
	b.Write(s.t.b.Bytes())
	s.t.b.Reset()
	if !s.finished {
		b.WriteString(s.status())
		s.drawn = true
	}
	if s.err == nil && b.Len() > 0 {
		_, s.err = s.w.Write(b.Bytes())
	}
}

// status is the status line, without a line break.
func (s *Stream) status() string {
	failed := fmt.Sprintf("%d failed", s.failed)
	if s.failed > 0 {
		failed = s.t.paint(red, failed)
	}
	line := fmt.Sprintf("running %d/%d steps, %s", s.done, s.total, failed)
	if !s.t.opts.NoDurations {
		line += ", " + elapsed(time.Since(s.begin))
	}
	return line + s.inFlight()
}

// statusName bounds the name of the call in flight on the status line,
// which must never wrap.
const statusName = 32

// inFlight is the status line's part about the calls in flight: the one
// that began first, how long it has waited, how many others there are.
func (s *Stream) inFlight() string {
	var first [2]int
	var since time.Time
	for k, t := range s.running {
		if since.IsZero() || t.Before(since) || t.Equal(since) && (k[0] < first[0] || k[0] == first[0] && k[1] < first[1]) {
			first, since = k, t
		}
	}
	if since.IsZero() {
		return ""
	}
	st := &s.scenarios[first[0]].res.Steps[first[1]]
	name := Subject(st)
	if name == "" {
		name = st.ID
	}
	if r := []rune(name); len(r) > statusName {
		name = string(r[:statusName-1]) + "…"
	}
	out := ", now: " + name
	if !s.t.opts.NoDurations {
		out += " " + elapsed(time.Since(since))
	}
	if n := len(s.running) - 1; n > 0 {
		out += fmt.Sprintf(" (+%d)", n)
	}
	return out
}

// tick redraws the status line until Finish.
func (s *Stream) tick() {
	defer close(s.stopped)
	t := time.NewTicker(s.every)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			s.mu.Lock()
			if !s.finished {
				s.draw()
			}
			s.mu.Unlock()
		}
	}
}

// statusOf is the status Report.Tally gives a scenario with these steps.
func statusOf(res ScenarioResult) Status {
	r := Report{Scenarios: []ScenarioResult{res}}
	r.Tally()
	return r.Scenarios[0].Status
}

// elapsed is a running time, to a tenth of a second.
func elapsed(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}
