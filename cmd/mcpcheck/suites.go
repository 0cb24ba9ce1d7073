package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/internal/fileio"
	"github.com/mcpcheck/mcpcheck/runner"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// loadFixtures loads every fixture --config names (files, and the fixtures
// of directories, see config.FixtureFiles) with the command line's
// settings. Every file is loaded, so one run reports the problems of all of
// them; any problem stops the run before anything starts. A file of a
// directory that a fixture names as its contract or its expected failures
// is that fixture's companion, not a fixture, and is passed by.
func loadFixtures(f *flags, opts *runner.Options) ([]*config.Suite, error) {
	for _, name := range []string{"env", "header", "allow-tools", "root"} {
		if f.set[name] {
			return nil, fmt.Errorf("--%s is for quick mode (without --config); put it in the fixture", name)
		}
	}
	files, err := config.FixtureFiles(f.configs)
	if err != nil {
		return nil, err
	}
	largest, size := "", int64(-1)
	for _, file := range files {
		if st, err := os.Stat(file); err == nil && st.Size() > size {
			largest, size = file, st.Size()
		}
	}
	setGCPolicy(largest)
	var suites []*config.Suite
	failed := map[string]error{}
	for _, file := range files {
		s, err := config.Load(file, config.LoadOptions{Environ: opts.Environ, Flags: f.settings})
		if err != nil {
			failed[file] = errors.New(settingError(err))
			continue
		}
		suites = append(suites, s)
	}
	companions := map[string]bool{}
	for _, s := range suites {
		for _, c := range []string{s.Contract, s.ExpectedFailuresFile()} {
			if abs, err := filepath.Abs(c); c != "" && err == nil {
				companions[abs] = true
			}
		}
	}
	var errs []error
	for _, file := range files {
		abs, _ := filepath.Abs(file)
		if err := failed[file]; err != nil && !companions[abs] {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return suites, nil
}

// suiteRun is what became of one suite of a run.
type suiteRun struct {
	rep *report.Report
	err error // the run could not begin (runner.Run's error)
	// streamed: the human report was written while the run went.
	streamed bool
}

// runFiles are the files and streams a run writes: the human report's
// stream, the JSON report (a file, stdout, or none), the trace and the
// other report files.
type runFiles struct {
	reportStreams
	traceFile *fileio.Pending
	outs      []*output
}

// abort drops whatever was not committed: each file stays as it was.
func (rf *runFiles) abort() {
	rf.jsonFile.Abort()
	rf.traceFile.Abort()
	closeOutputs(rf.outs)
}

// openRunFiles starts every file the run writes before it runs, so a bad
// path fails fast (exit 2) instead of after a long run, each written to a
// temporary file that replaces it only once the run has a report: a run
// that ends before (a missing credential, no suite that could start)
// leaves the previous files as they were. The trace is set in opts.
func openRunFiles(f *flags, opts *runner.Options, stdout, stderr io.Writer) (*runFiles, int) {
	streams, err := openJSON(f.jsonOut, stdout, stderr)
	if err != nil {
		return nil, fail(stderr, exitBadArgs, "mcpcheck: %v\n", err)
	}
	rf := &runFiles{reportStreams: streams}
	if f.trace != "" {
		// The trace is written as the run goes, to its temporary file.
		if rf.traceFile, err = createFile("--trace", f.trace); err != nil {
			rf.abort()
			return nil, fail(stderr, exitBadArgs, "mcpcheck: %v\n", err)
		}
		opts.Trace = &lockedWriter{w: rf.traceFile}
	}
	if !f.list {
		rf.outs = outputsOf(f)
		if err := openOutputs(rf.outs); err != nil {
			rf.abort()
			return nil, fail(stderr, exitBadArgs, "mcpcheck: %v\n", err)
		}
	}
	return rf, exitPass
}

// startSuites starts the suites, one after another or jobs at once (each
// with its own concurrency inside), and returns a channel per suite that
// its result arrives on. On a terminal with one suite at a time each
// suite's human report streams to human while it runs.
func startSuites(ctx context.Context, f *flags, suites []*config.Suite, baselines []baseline, extras []suiteExtra, opts runner.Options, human io.Writer, terminal bool, textOpts report.TextOptions) []chan suiteRun {
	jobs := max(1, min(f.jobsSuites, len(suites)))
	runs := make([]chan suiteRun, len(suites))
	for i := range runs {
		runs[i] = make(chan suiteRun, 1)
	}
	slots := make(chan struct{}, jobs)
	go func() {
		for i, s := range suites {
			slots <- struct{}{}
			go func() {
				defer func() { <-slots }()
				o := opts
				if i < len(extras) && extras[i].sel != nil {
					o.Select = extras[i].sel
				}
				var stream *report.Stream
				if terminal && jobs == 1 {
					if i > 0 {
						fmt.Fprintln(human)
					}
					if i < len(extras) && extras[i].headline != "" {
						fmt.Fprintln(human, extras[i].headline)
					}
					stream = report.NewStream(human, textOpts)
					o.OnStart, o.OnStep, o.OnScenario, o.OnCall = stream.Start, stream.Step, stream.Scenario, stream.Call
				}
				run := runner.Run
				if f.list {
					run = runner.List
				}
				rep, err := run(ctx, s, o)
				if err == nil && i < len(baselines) && !f.list {
					err = baselines[i].judge(rep, f.updateBaseline)
				}
				res := suiteRun{rep: rep, err: err}
				if stream != nil && rep != nil {
					// Finished whatever happened, so the status line stops.
					res.streamed = true
					if ferr := stream.Finish(rep); res.err == nil {
						res.err = ferr
					}
				}
				runs[i] <- res
			}()
		}
	}()
	return runs
}

// runSuites runs the suites (startSuites), writes each one's human report
// in the order given, a total when there are several, and the machine
// reports; the exit code is the worst of the suites'.
func runSuites(ctx context.Context, f *flags, suites []*config.Suite, baselines []baseline, extras []suiteExtra, opts runner.Options, stdout, stderr io.Writer) int {
	rf, code := openRunFiles(f, &opts, stdout, stderr)
	if rf == nil {
		return code
	}
	defer rf.abort()
	human := rf.human

	// On a terminal the human report streams while the run goes, under a
	// live status line (report.Stream), when suites run one at a time;
	// anywhere else it is written whole when each suite ends, byte for byte
	// as always.
	fh, isFile := human.(*os.File)
	terminal := isFile && !f.list && report.IsTerminal(fh)
	textOpts := report.TextOptions{Color: useColor(human, f.noColor), Quiet: f.quiet, Exchanges: f.verbose > 0}
	runs := startSuites(ctx, f, suites, baselines, extras, opts, human, terminal, textOpts)

	var err error
	var reps []*report.Report
	ran := make([]*report.Report, len(suites))
	for i := range suites {
		res := <-runs[i]
		if i > 0 && !res.streamed {
			fmt.Fprintln(human)
		}
		if i < len(extras) && extras[i].headline != "" && !res.streamed {
			fmt.Fprintln(human, extras[i].headline)
		}
		if res.err != nil {
			// The run could not begin, its baseline could not be
			// rewritten, or its report not written.
			fmt.Fprintf(stderr, "mcpcheck: %v\n", res.err)
			code = exitBadArgs
			continue
		}
		reps = append(reps, res.rep)
		ran[i] = res.rep
		if !res.rep.Passed || res.rep.Failure != nil {
			code = max(code, exitFail)
		}
		switch {
		case f.list:
			err = report.List(human, res.rep)
		case !res.streamed:
			err = report.Text(human, res.rep, textOpts)
		}
		if err == nil && !f.list {
			err = annotateCI(human, res.rep)
		}
		if err != nil {
			return fail(stderr, exitBadArgs, "mcpcheck: writing the report: %v\n", err)
		}
	}
	if len(suites) > 1 && !f.list {
		fmt.Fprintln(human)
		if err := report.Total(human, reps, len(suites)-len(reps), textOpts); err != nil {
			return fail(stderr, exitBadArgs, "mcpcheck: writing the report: %v\n", err)
		}
	}
	if len(reps) == 0 {
		return code // nothing ran: every file stays as it was
	}
	if rf.traceFile != nil {
		// Every suite has ended: nothing writes to the trace any more. A
		// trace that cannot be written does not keep the reports from
		// being written.
		if err := rf.traceFile.Commit(); err != nil {
			fmt.Fprintf(stderr, "mcpcheck: %v\n", err)
			code = exitBadArgs
		}
	}
	if f.list {
		return code
	}
	restore := hideExchanges(reps)
	if err := keepLastRuns(suites, ran); err != nil {
		fmt.Fprintf(stderr, "mcpcheck: warning: %v\n", err)
	}
	restore()
	if c := writeReports("mcpcheck", f, reps, len(suites) > 1, rf.reportStreams, rf.outs, stderr); c != exitPass {
		return c
	}
	return code
}

// writeReports writes the machine-readable reports of a run: the JSON
// report (one suite's as it always was, several as one document), then
// the report files (--junit, --html, --summary: each holds every suite).
// Every file written from the finished reports is written here, by the
// run, merge, load and diff alike; prog starts the messages.
func writeReports(prog string, f *flags, reps []*report.Report, several bool, rs reportStreams, outs []*output, stderr io.Writer) int {
	if rs.machine != nil {
		var err error
		// The JSON report holds exchanges only when -v asked for them (the
		// HTML report, written next, shows them whenever they were kept).
		restore := func() {}
		if f.verbose == 0 {
			restore = hideExchanges(reps)
		}
		if several {
			err = report.JSONSuites(rs.machine, reps)
		} else if len(reps) == 1 {
			err = report.JSON(rs.machine, reps[0])
		}
		restore()
		if err != nil {
			return fail(stderr, exitBadArgs, "%s: writing the JSON report: %v\n", prog, err)
		}
		if rs.jsonFile != nil {
			if err := rs.jsonFile.Commit(); err != nil {
				return fail(stderr, exitBadArgs, "%s: %v\n", prog, err)
			}
		}
	}
	if err := writeOutputs(outs, reps); err != nil {
		return fail(stderr, exitBadArgs, "%s: %v\n", prog, err)
	}
	return exitPass
}

// lockedWriter serialises writes of suites running at once (the trace).
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// baseline is a suite's baseline of known failures: the file, and its
// entries ("" and none when the suite has no baseline).
type baseline struct {
	file    string
	entries []config.ExpectedFailure
}

// loadBaselines loads each suite's baseline: --expected-failures FILE (one
// suite only: its entries name that fixture's scenarios), else the
// fixture's expectedFailures. With --update-expected-failures a file that
// does not exist yet is an empty baseline.
func loadBaselines(f *flags, suites []*config.Suite) ([]baseline, error) {
	if len(f.configs) == 0 {
		if f.expectedFailures != "" || f.updateBaseline {
			return nil, errors.New("--expected-failures names the scenarios of a fixture; give --config FILE")
		}
		return nil, nil
	}
	if f.expectedFailures != "" && len(suites) > 1 {
		return nil, fmt.Errorf("--expected-failures names the scenarios of one fixture, and %d are given; give each fixture its own with the expectedFailures key", len(suites))
	}
	out := make([]baseline, len(suites))
	for i, s := range suites {
		file := s.ExpectedFailuresFile()
		if f.expectedFailures != "" {
			file = f.expectedFailures
		}
		if file == "" {
			if f.updateBaseline {
				return nil, fmt.Errorf("--update-expected-failures: %s has no expectedFailures file; give --expected-failures FILE", s.File)
			}
			continue
		}
		out[i].file = file
		entries, err := config.LoadExpectedFailures(file, s)
		switch {
		case errors.Is(err, os.ErrNotExist) && f.updateBaseline:
		case err != nil:
			return nil, errors.New(settingError(err))
		}
		out[i].entries = entries
	}
	return out, nil
}

// judge applies the baseline to rep; with update, it first rewrites the
// file to what rep fails, keeping the reasons of the entries that stay.
func (b baseline) judge(rep *report.Report, update bool) error {
	if b.file == "" {
		return nil
	}
	entries := b.entries
	if update {
		entries = runner.Baseline(rep, b.entries)
		if err := config.WriteExpectedFailures(b.file, entries); err != nil {
			return fmt.Errorf("--update-expected-failures: %w", err)
		}
	}
	runner.ApplyBaseline(rep, entries)
	return nil
}

// selectsSomething refuses a selection that leaves every scenario of every
// suite out, before anything runs: a misspelt --tag would otherwise pass a
// CI job that ran nothing. Generated checks are known only once the server
// is discovered, so a suite that generates them always may have something.
func selectsSomething(sel *runner.Selection, suites []*config.Suite) error {
	var tags []string
	seen := map[string]bool{} // a set: a fixture may hold 300,000 scenarios, each tagged
	for _, s := range suites {
		if s.Generate != nil {
			return nil
		}
		for i := range s.Scenarios {
			if sel.Excludes(&s.Scenarios[i]) == "" {
				return nil
			}
			for _, t := range s.Scenarios[i].Tags {
				if !seen[t] {
					seen[t] = true
					tags = append(tags, t)
				}
			}
		}
	}
	var asked []string
	for _, t := range sel.Tags {
		asked = append(asked, "--tag "+t)
	}
	for _, t := range sel.SkipTags {
		asked = append(asked, "--skip-tag "+t)
	}
	if sel.Run != nil {
		asked = append(asked, "--run "+sel.Run.String())
	}
	slices.Sort(tags)
	known := "the fixtures have no tags"
	if len(tags) > 0 {
		known = "their tags: " + strings.Join(tags, ", ")
	}
	return fmt.Errorf("%s selects no scenario, so nothing would run (%s)", strings.Join(asked, " "), known)
}
