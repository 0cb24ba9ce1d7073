package main

import (
	"fmt"
	"io"
	"os"

	"github.com/mcpcheck/mcpcheck/runner"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// output is one report file a run writes besides the human report and the
// JSON: --junit and the others. Each is opened before the run, so a bad
// path is exit 2 at once rather than after a long run.
type output struct {
	flag, path string
	write      func(io.Writer, *runner.Report) error
	file       *os.File
	// appends: the file is added to, not replaced ($GITHUB_STEP_SUMMARY,
	// which other steps of the job write too).
	appends bool
}

// getenv reads the CI system's variables (GITHUB_STEP_SUMMARY,
// GITHUB_ACTIONS).
var getenv = os.Getenv

// outputsOf lists the report files f asks for.
func outputsOf(f *flags) []*output {
	var outs []*output
	add := func(flag, path string, write func(io.Writer, *runner.Report) error) *output {
		if path == "" {
			return nil
		}
		o := &output{flag: flag, path: path, write: write}
		outs = append(outs, o)
		return o
	}
	add("--junit", f.junit, func(w io.Writer, r *runner.Report) error { return report.JUnit(w, r) })
	add("--html", f.html, func(w io.Writer, r *runner.Report) error { return report.HTML(w, r) })
	markdown := func(w io.Writer, r *runner.Report) error { return report.Markdown(w, r) }
	if f.summary == "" && getenv("GITHUB_STEP_SUMMARY") != "" {
		add("GITHUB_STEP_SUMMARY", getenv("GITHUB_STEP_SUMMARY"), markdown).appends = true
	} else {
		add("--summary", f.summary, markdown)
	}
	return outs
}

// openOutputs creates every output's file.
func openOutputs(outs []*output) error {
	for _, o := range outs {
		var err error
		flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
		if o.appends {
			flags = os.O_WRONLY | os.O_CREATE | os.O_APPEND
		}
		if o.file, err = os.OpenFile(o.path, flags, 0o644); err != nil {
			closeOutputs(outs)
			return fmt.Errorf("%s: %w", o.flag, err)
		}
	}
	return nil
}

// writeOutputs writes rep to every output and closes it.
func writeOutputs(outs []*output, rep *runner.Report) error {
	defer closeOutputs(outs)
	for _, o := range outs {
		if err := o.write(o.file, rep); err != nil {
			return fmt.Errorf("writing %s: %w", o.path, err)
		}
		err := o.file.Close()
		o.file = nil
		if err != nil {
			return fmt.Errorf("writing %s: %w", o.path, err)
		}
	}
	return nil
}

// discardOutputs closes the outputs and removes the files they created
// (never one appended to), when the run ended before it had a report.
func discardOutputs(outs []*output) {
	for _, o := range outs {
		if o.file != nil && !o.appends {
			o.file.Close()
			o.file = nil
			os.Remove(o.path)
		}
	}
	closeOutputs(outs)
}

func closeOutputs(outs []*output) {
	for _, o := range outs {
		if o.file != nil {
			o.file.Close()
			o.file = nil
		}
	}
}

// annotateCI writes GitHub Actions workflow commands for the failures to w
// (the human report's stream) when the run is a GitHub Actions step
// (GITHUB_ACTIONS=true), so they show on the fixture lines of the pull
// request's diff.
func annotateCI(w io.Writer, rep *runner.Report) error {
	if getenv("GITHUB_ACTIONS") != "true" {
		return nil
	}
	return report.GitHubAnnotations(w, rep)
}
