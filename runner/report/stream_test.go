package report_test

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// screen is what a terminal shows after out: a carriage return goes back
// to the start of the line, ESC [ K erases to its end, a line feed starts
// the next line (at its start, as a terminal's output processing makes
// it). Any unfinished last line is kept, so a status line left behind
// shows.
func screen(out string) string {
	var b strings.Builder
	var line []rune
	col := 0
	for i := 0; i < len(out); {
		switch {
		case strings.HasPrefix(out[i:], "\x1b[K"):
			line, i = line[:col], i+3
		case out[i] == '\r':
			col, i = 0, i+1
		case out[i] == '\n':
			b.WriteString(string(line) + "\n")
			line, col, i = nil, 0, i+1
		default:
			r, n := utf8.DecodeRuneInString(out[i:])
			if col < len(line) {
				line[col] = r
			} else {
				line = append(line, r)
			}
			col, i = col+1, i+n
		}
	}
	return b.String() + string(line)
}

// recorder is a terminal that counts writes and notes any after close.
type recorder struct {
	mu     sync.Mutex
	b      bytes.Buffer
	writes int
	closed bool
	late   bool
}

func (w *recorder) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes++
	w.late = w.late || w.closed
	return w.b.Write(p)
}

func (w *recorder) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

func (w *recorder) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
}

// streamRun is a finished run and the report its OnStart saw.
func streamRun() (start, final *report.Report) {
	final = &report.Report{
		Suite: "suite", Target: report.Target{Transport: "stdio", Program: "srv"}, ProtocolVersion: "2025-11-25",
		ToolsDiscovered: []string{"a", "bb"}, Warnings: []string{"tool \"bb\": no outputSchema"},
		Scenarios: []report.ScenarioResult{
			{Name: "first", Steps: []report.StepResult{
				{ID: "one", Tool: "a", Origin: "fixture", Status: report.StatusPassed, Outcome: "ok"},
				{ID: "two", Tool: "bb", Origin: "fixture", Status: report.StatusPassed, Outcome: "tool_error", Flagged: true, Notes: []string{"a note"}},
			}},
			{Name: "second", Steps: []report.StepResult{
				{ID: "bad", Tool: "a", Origin: "fixture", Status: report.StatusFailed, Outcome: "ok",
					Assertions: []report.AssertionResult{{Kind: "structuredEquals", Path: "/x", Message: "value differs", Expected: 1.0, HasExpected: true, Actual: 2.0, HasActual: true}}},
				{ID: "later", Tool: "a", Origin: "fixture", Status: report.StatusSkipped, Reason: "an earlier step of this scenario failed (bad)"},
			}},
			{Name: "third", Steps: []report.StepResult{
				{ID: "x", Tool: "a", Origin: "fuzz", Status: report.StatusPassed, Outcome: "ok"},
			}},
			{Name: "fourth", Steps: []report.StepResult{
				{ID: "y", Tool: "a", Origin: "fixture", Status: report.StatusSkipped, Reason: "not run under protocol 2025-11-25: this step is for 2026-07-28"},
			}},
		},
	}
	final.Tally()
	start = &report.Report{Suite: final.Suite, Target: final.Target, ProtocolVersion: final.ProtocolVersion, ToolsDiscovered: final.ToolsDiscovered}
	for _, sc := range final.Scenarios {
		res := report.ScenarioResult{Name: sc.Name, Steps: make([]report.StepResult, len(sc.Steps))}
		for j, st := range sc.Steps {
			res.Steps[j] = report.StepResult{ID: st.ID, Tool: st.Tool, Origin: st.Origin, Status: report.StatusSkipped, Reason: "not run: the suite failed before the first call"}
		}
		start.Scenarios = append(start.Scenarios, res)
	}
	return start, final
}

const wantStreamed = `suite
Target: stdio srv | Protocol: 2025-11-25 | Tools discovered: 2

first
  ok   one  a
  flag two  bb  tool_error
       note: a note

second
  FAIL bad    a
       structuredEquals /x: value differs
         expected: 1
         actual:   2
  skip later  a
       an earlier step of this scenario failed (bad)

third
  ok   x  a  [fuzz]

fourth
  skip y  a
       not run under protocol 2025-11-25: this step is for 2026-07-28

warning tool "bb": no outputSchema

FAIL suite
3 passed, 1 failed, 2 skipped
`

// TestStreamOutOfOrder feeds the hooks as a concurrent run may: later
// scenarios and later steps first. Nothing is printed before its turn,
// and the transcript has every line of the final report once.
func TestStreamOutOfOrder(t *testing.T) {
	start, final := streamRun()
	var w recorder
	s := report.NewStream(&w, report.TextOptions{NoDurations: true})
	report.SetEvery(s, time.Hour) // only the hooks draw here
	s.Start(start)
	if got := screen(w.String()); got != "suite\nTarget: stdio srv | Protocol: 2025-11-25 | Tools discovered: 2\n\nfirst\nrunning 0/6 steps, 0 failed" {
		t.Fatalf("after Start:\n%s", got)
	}
	steps := func(i int) []report.StepResult { return final.Scenarios[i].Steps }
	s.Step(2, 0, steps(2)[0])
	s.Scenario(2, final.Scenarios[2])
	s.Step(1, 0, steps(1)[0])
	s.Step(0, 1, steps(0)[1])
	if got := screen(w.String()); !strings.HasSuffix(got, "\nfirst\nrunning 0/6 steps, 0 failed") {
		t.Fatalf("something was printed before its turn, or the status line is stale:\n%s", got)
	}
	s.Step(0, 0, steps(0)[0]) // step 1 was waiting for this one
	if got := screen(w.String()); !strings.HasSuffix(got, "note: a note\nrunning 4/6 steps, 1 failed") {
		t.Fatalf("after the first step:\n%s", got)
	}
	s.Scenario(0, final.Scenarios[0])
	if got := screen(w.String()); !strings.HasSuffix(got, "\nsecond\n  FAIL bad    a\n       structuredEquals /x: value differs\n         expected: 1\n         actual:   2\nrunning 4/6 steps, 1 failed") {
		t.Fatalf("after the first scenario:\n%s", got)
	}
	s.Scenario(1, final.Scenarios[1])
	s.Scenario(1, final.Scenarios[1]) // once is enough
	s.Step(1, 1, steps(1)[1])         // too late: ignored
	s.Scenario(3, final.Scenarios[3])
	if err := s.Finish(final); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantStreamed, screen(w.String())); diff != "" {
		t.Errorf("transcript (-want +got):\n%s", diff)
	}
	sameLines(t, w.String(), final, report.TextOptions{NoDurations: true})
}

// sameLines checks that every line of the final report appears in the
// transcript exactly as often, the verdict line last but one, and that the
// transcript adds only the suite's name at the top.
func sameLines(t *testing.T, raw string, final *report.Report, opts report.TextOptions) {
	t.Helper()
	var b bytes.Buffer
	report.Text(&b, final, opts)
	count := func(s string) map[string]int {
		m := map[string]int{}
		for _, l := range strings.Split(s, "\n") {
			if l != "" {
				m[l]++
			}
		}
		return m
	}
	got, want := count(screen(raw)), count(b.String())
	want[final.Suite]++
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lines of the transcript (-final report +transcript):\n%s", diff)
	}
	lines := strings.Split(strings.TrimSuffix(screen(raw), "\n"), "\n")
	textLines := strings.Split(b.String(), "\n")
	if len(lines) < 2 || lines[len(lines)-2] != textLines[0] {
		t.Errorf("the verdict line %q is not last but one:\n%s", textLines[0], screen(raw))
	}
}

func TestStreamQuiet(t *testing.T) {
	start, final := streamRun()
	var w recorder
	s := report.NewStream(&w, report.TextOptions{NoDurations: true, Quiet: true})
	report.SetEvery(s, time.Hour)
	s.Start(start)
	s.Step(0, 0, final.Scenarios[0].Steps[0])
	s.Step(1, 0, final.Scenarios[1].Steps[0])
	if got := screen(w.String()); strings.Contains(got, "first") || strings.Contains(got, "second") {
		t.Fatalf("quiet printed an incomplete or passing scenario:\n%s", got)
	}
	for i := range final.Scenarios {
		s.Scenario(i, final.Scenarios[i])
	}
	before := screen(w.String())
	if !strings.Contains(before, "\nsecond\n  FAIL bad") || !strings.Contains(before, "\nfourth\n  skip y") || strings.Contains(before, "third") {
		t.Fatalf("quiet prints the scenarios that did not pass, once complete:\n%s", before)
	}
	s.Finish(final)
	want := `suite
Target: stdio srv | Protocol: 2025-11-25 | Tools discovered: 2

second
  FAIL bad    a
       structuredEquals /x: value differs
         expected: 1
         actual:   2
  skip later  a
       an earlier step of this scenario failed (bad)

fourth
  skip y  a
       not run under protocol 2025-11-25: this step is for 2026-07-28

warning tool "bb": no outputSchema

FAIL suite
3 passed, 1 failed, 2 skipped
`
	if diff := cmp.Diff(want, screen(w.String())); diff != "" {
		t.Errorf("quiet transcript (-want +got):\n%s", diff)
	}
	sameLines(t, w.String(), final, report.TextOptions{NoDurations: true, Quiet: true})
}

// TestStreamWithoutStart is a run that called no hook: Finish writes the
// final report as Text does.
func TestStreamWithoutStart(t *testing.T) {
	_, final := streamRun()
	for _, opts := range []report.TextOptions{{}, {Color: true}, {Quiet: true}} {
		var got, want bytes.Buffer
		if err := report.NewStream(&got, opts).Finish(final); err != nil {
			t.Fatal(err)
		}
		report.Text(&want, final, opts)
		if got.String() != want.String() {
			t.Errorf("%+v: got\n%q\nwant\n%q", opts, got.String(), want.String())
		}
	}
}

// TestStreamConcurrent calls the hooks from many goroutines at once, in
// random order, with the status line redrawn all the while: the
// transcript is the same as ever, in colour too, and nothing is written
// after Finish.
func TestStreamConcurrent(t *testing.T) {
	for _, opts := range []report.TextOptions{{NoDurations: true}, {Color: true}} {
		start, final := streamRun()
		var w recorder
		s := report.NewStream(&w, opts)
		report.SetEvery(s, time.Millisecond)
		s.Start(start)
		var wg sync.WaitGroup
		for i := range final.Scenarios {
			wg.Go(func() {
				steps := final.Scenarios[i].Steps
				for _, j := range rand.Perm(len(steps)) {
					if steps[j].Status != report.StatusSkipped {
						wg.Go(func() { s.Step(i, j, steps[j]) })
					}
				}
				time.Sleep(time.Duration(rand.IntN(5)) * time.Millisecond)
				s.Scenario(i, final.Scenarios[i])
			})
		}
		time.Sleep(10 * time.Millisecond)
		wg.Wait()
		if err := s.Finish(final); err != nil {
			t.Fatal(err)
		}
		w.close()
		time.Sleep(20 * time.Millisecond)
		if w.late {
			t.Errorf("%+v: written after Finish", opts)
		}
		if opts.NoDurations {
			if diff := cmp.Diff(wantStreamed, screen(w.String())); diff != "" {
				t.Errorf("transcript (-want +got):\n%s", diff)
			}
		}
		sameLines(t, w.String(), final, opts)
		if strings.Count(w.String(), "running ") < 2 {
			t.Errorf("%+v: the status line was not redrawn:\n%q", opts, w.String())
		}
	}
}

// TestStreamStatus checks the status line's counts and its erasure.
func TestStreamStatus(t *testing.T) {
	start, final := streamRun()
	var w recorder
	s := report.NewStream(&w, report.TextOptions{})
	report.SetEvery(s, time.Hour)
	s.Start(start)
	if !strings.HasSuffix(w.String(), "running 0/6 steps, 0 failed, 0.0s") {
		t.Errorf("status line at the start: %q", w.String())
	}
	n := w.writes
	s.Step(2, 0, final.Scenarios[2].Steps[0]) // not its turn: prints nothing, no redraw
	if w.writes != n {
		t.Errorf("a step that printed nothing redrew the status line")
	}
	s.Scenario(0, final.Scenarios[0])
	s.Scenario(1, final.Scenarios[1])
	if got := screen(w.String()); !strings.HasSuffix(got, "\nrunning 5/6 steps, 1 failed, 0.0s") {
		t.Errorf("status line after two scenarios: %q", got)
	}
	s.Finish(final)
	if got := screen(w.String()); strings.Contains(got, "running") {
		t.Errorf("the status line was not erased:\n%s", got)
	}
	for d, want := range map[time.Duration]string{0: "0.0s", 59*time.Second + 940*time.Millisecond: "59.9s", time.Minute: "1m00s", 61*time.Minute + 5*time.Second: "61m05s"} {
		if got := report.Elapsed(d); got != want {
			t.Errorf("elapsed(%s) = %q, want %q", d, got, want)
		}
	}
}

// TestStreamNamesTheCall: the status line names the call in flight that
// began first, with how many others are in flight, until it is final.
func TestStreamNamesTheCall(t *testing.T) {
	start, final := streamRun()
	var w recorder
	s := report.NewStream(&w, report.TextOptions{NoDurations: true})
	report.SetEvery(s, time.Hour)
	s.Start(start)
	s.Call(0, 0)
	s.Call(2, 0)
	s.Step(2, 0, final.Scenarios[2].Steps[0])
	s.Scenario(0, final.Scenarios[0]) // redraws
	name := report.Subject(&final.Scenarios[2].Steps[0])
	if got := screen(w.String()); strings.Contains(got[strings.LastIndex(got, "\n")+1:], "now:") {
		t.Errorf("no call in flight, yet the status line is %q", got[strings.LastIndex(got, "\n")+1:])
	}
	s.Call(1, 0)
	s.Call(1, 1)
	s.Step(1, 0, final.Scenarios[1].Steps[0])
	want := ", now: " + report.Subject(&final.Scenarios[1].Steps[1])
	if got := screen(w.String()); !strings.HasSuffix(got, want) {
		t.Errorf("status line %q, want it to end %q (scenario 2's %q is final)", got[strings.LastIndex(got, "\n")+1:], want, name)
	}
	s.Finish(final)
	if got := screen(w.String()); strings.Contains(got, "now:") {
		t.Errorf("the status line was not erased:\n%s", got)
	}
}
