package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/internal/fileio"
	"github.com/mcpcheck/mcpcheck/runner"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// # The last run (--last-failed)
//
// Every run of fixtures (not quick mode, not --list) leaves its JSON
// report at .mcpcheck/last-run.json beside its fixtures: one file per
// directory, holding the reports of the fixtures of that directory that
// the run ran (one report, or {"schemaVersion": 1, "suites": [...]} for
// several), written whole through a temporary file and a rename. It is
// what --last-failed reads: a suite runs only the scenarios whose status
// was failed in its report there (found by the suite's name), each whole,
// so every step its $refs need runs with it. When nothing failed, or the
// file holds no report of the suite, the suite runs everything, and the
// line printed before its report says which of the three it was. Quick
// mode has no fixture to stand beside, and keeps no last run.
//
// The file never holds exchanges (-v): it is the report as the run would
// write it without -v. A file that cannot be written is a warning, not a
// failed run: the verdict is the run's.

// lastRunName is the last run's file, relative to a fixture's directory.
var lastRunName = filepath.Join(".mcpcheck", "last-run.json")

// lastRunFile is the last-run file of the fixture at file.
func lastRunFile(file string) string {
	return filepath.Join(filepath.Dir(file), lastRunName)
}

// keepLastRuns writes the last-run file of every directory whose fixtures
// ran: suites[i] ran as reps[i] (nil: it could not begin).
func keepLastRuns(suites []*config.Suite, reps []*report.Report) error {
	var dirs []string
	byDir := map[string][]*report.Report{}
	for i, s := range suites {
		if s.File == "" || reps[i] == nil {
			continue
		}
		file := lastRunFile(s.File)
		if byDir[file] == nil {
			dirs = append(dirs, file)
		}
		byDir[file] = append(byDir[file], reps[i])
	}
	var errs []error
	for _, file := range dirs {
		var b bytes.Buffer
		var err error
		if rs := byDir[file]; len(rs) == 1 {
			err = report.JSON(&b, rs[0])
		} else {
			err = report.JSONSuites(&b, rs)
		}
		if err == nil {
			err = ownDir(filepath.Dir(file))
		}
		if err == nil {
			err = fileio.WriteFile(file, b.Bytes(), 0o644)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("keeping the last run for --last-failed: %w", err))
		}
	}
	return errors.Join(errs...)
}

// ownDir makes the directory .mcpcheck, or checks that it is one: a link
// there could lead the write out of the fixture's tree.
func ownDir(dir string) error {
	st, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return os.Mkdir(dir, 0o755)
	case err != nil:
		return err
	case !st.IsDir():
		return fmt.Errorf("%s is %s, not a directory", dir, fileio.What(st.Mode()))
	}
	return nil
}

// lastFailed is the selection --last-failed gives suite s (nil: run
// everything) and the line that says what it selected.
func lastFailed(s *config.Suite, base runner.Selection) (*runner.Selection, string) {
	file := lastRunFile(s.File)
	reps, err := readReports(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Sprintf("--last-failed: no last run at %s; running everything", file)
	}
	if err != nil {
		return nil, fmt.Sprintf("--last-failed: the last run cannot be read (%v); running everything", err)
	}
	var last *report.Report
	for _, r := range reps {
		if r.Suite == s.Name {
			last = r
		}
	}
	if last == nil {
		return nil, fmt.Sprintf("--last-failed: %s holds no run of %q; running everything", file, s.Name)
	}
	// Without generated checks only the fixture's scenarios can run
	// again; one renamed or removed since is not looked for.
	present := map[string]bool{}
	for i := range s.Scenarios {
		present[s.Scenarios[i].Name] = true
	}
	failed := map[string]bool{}
	for _, sc := range last.Scenarios {
		if sc.Status == report.StatusFailed && (s.Generate != nil || present[sc.Name]) {
			failed[sc.Name] = true
		}
	}
	if len(failed) == 0 {
		return nil, "--last-failed: nothing failed in the last run; running everything"
	}
	base.Failed = failed
	if len(failed) == 1 {
		return &base, "--last-failed: running the 1 scenario that failed in the last run"
	}
	return &base, fmt.Sprintf("--last-failed: running the %d scenarios that failed in the last run", len(failed))
}

// hideExchanges takes the exchanges out of reps (a JSON report written
// without -v keeps none) and returns what puts them back.
func hideExchanges(reps []*report.Report) (restore func()) {
	type kept struct {
		st *report.StepResult
		ex *report.Exchange
	}
	var hidden []kept
	hide := func(steps []report.StepResult) {
		for j := range steps {
			if st := &steps[j]; st.Exchange != nil {
				hidden = append(hidden, kept{st, st.Exchange})
				st.Exchange = nil
			}
		}
	}
	for _, r := range reps {
		for i := range r.Scenarios {
			hide(r.Scenarios[i].Steps)
			for k := range r.Scenarios[i].Attempts {
				hide(r.Scenarios[i].Attempts[k].Steps)
			}
		}
	}
	return func() {
		for _, h := range hidden {
			h.st.Exchange = h.ex
		}
	}
}

// loopFlags adds the daily loop's flags to fs (--retries is a setting,
// with the others).
func loopFlags(fs *flag.FlagSet, f *flags) {
	fs.BoolFunc("v", "", func(string) error { f.verbose = max(f.verbose, 1); return nil })
	fs.BoolFunc("vv", "", func(string) error { f.verbose = 2; return nil })
	fs.BoolVar(&f.lastFailed, "last-failed", false, "")
	fs.BoolVar(&f.failOnFlaky, "fail-on-flaky", false, "")
	fs.BoolVar(&f.failFast, "x", false, "")
	fs.BoolVar(&f.failFast, "fail-fast", false, "")
	fs.BoolVar(&f.watch, "watch", false, "")
	fs.Func("watch-path", "", appendTo(&f.watchPaths))
}

// exchangeLevel is what the run keeps of its exchanges: what -v / -vv
// show, and what the HTML report folds under a failed step.
func (f *flags) exchangeLevel() runner.ExchangeLevel {
	switch {
	case f.verbose >= 2:
		return runner.ExchangeAll
	case f.verbose == 1 || f.html != "":
		return runner.ExchangeFailed
	}
	return runner.ExchangeNone
}

// suiteExtra is what the daily loop sets for one suite of a run: its
// selection (--last-failed; nil: the run's) and the line printed before
// its report.
type suiteExtra struct {
	sel      *runner.Selection
	headline string
}

// loopOptions sets the run's options for -v, --fail-on-flaky and -x, and
// each suite's --last-failed selection.
func loopOptions(f *flags, suites []*config.Suite, opts *runner.Options) ([]suiteExtra, error) {
	opts.Exchanges = f.exchangeLevel()
	opts.FailOnFlaky = f.failOnFlaky
	if f.failFast {
		// One for every suite: the first failure stops them all.
		opts.FailFast = new(atomic.Bool)
	}
	if !f.lastFailed {
		return nil, nil
	}
	if len(f.configs) == 0 {
		return nil, errors.New("--last-failed reruns the scenarios of fixtures (--config); quick mode keeps no last run")
	}
	extras := make([]suiteExtra, len(suites))
	for i, s := range suites {
		extras[i].sel, extras[i].headline = lastFailed(s, f.sel)
	}
	return extras, nil
}
