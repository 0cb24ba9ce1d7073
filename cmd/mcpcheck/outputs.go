package main

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/mcpcheck/mcpcheck/internal/fileio"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// output is one report file a run writes besides the human report and the
// JSON: --junit and the others. Each is started before the run (a temporary
// file beside it, internal/fileio), so a bad path is exit 2 at once rather
// than after a long run, and put in place only when the reports are
// written: a run that ends before it has a report leaves every existing
// file as it was.
type output struct {
	flag, path string
	write      func(io.Writer, ...*report.Report) error
	file       *fileio.Pending
	// appends: the file is added to, not replaced ($GITHUB_STEP_SUMMARY,
	// which other steps of the job write too), in one write.
	appends  bool
	appender *fileio.Appender
}

// getenv reads the CI system's variables (GITHUB_STEP_SUMMARY,
// GITHUB_ACTIONS).
var getenv = os.Getenv

// outputsOf lists the report files f asks for.
func outputsOf(f *flags) []*output {
	var outs []*output
	add := func(flag, path string, write func(io.Writer, ...*report.Report) error) *output {
		if path == "" {
			return nil
		}
		o := &output{flag: flag, path: path, write: write}
		outs = append(outs, o)
		return o
	}
	add("--junit", f.junit, report.JUnit)
	add("--html", f.html, report.HTML)
	markdown := report.Markdown
	if f.summary == "" && getenv("GITHUB_STEP_SUMMARY") != "" {
		add("GITHUB_STEP_SUMMARY", getenv("GITHUB_STEP_SUMMARY"), markdown).appends = true
	} else {
		add("--summary", f.summary, markdown)
	}
	return outs
}

// openOutputs starts every output's file.
func openOutputs(outs []*output) error {
	for _, o := range outs {
		var err error
		if o.appends {
			o.appender, err = fileio.OpenAppend(o.path, 0o644)
		} else {
			o.file, err = fileio.Create(o.path, 0o644)
		}
		if err != nil {
			closeOutputs(outs)
			return fmt.Errorf("%s: %w", o.flag, err)
		}
	}
	return nil
}

// reportStreams are where a command's reports go: the human report's
// stream and, by --json, the JSON report's (nil: none).
type reportStreams struct {
	human, machine io.Writer
	jsonFile       *fileio.Pending // the --json FILE being written, if any
}

// openJSON starts what --json names: nothing (""), stdout ("-", the
// human report then goes to stderr) or a file (createFile).
func openJSON(path string, stdout, stderr io.Writer) (reportStreams, error) {
	switch path {
	case "":
		return reportStreams{human: stdout}, nil
	case "-":
		return reportStreams{human: stderr, machine: stdout}, nil
	}
	file, err := createFile("--json", path)
	if err != nil {
		return reportStreams{}, err
	}
	return reportStreams{human: stdout, machine: file, jsonFile: file}, nil
}

// useColor reports whether the human report on w is coloured: w is a
// terminal that takes colour and --no-color was not given.
func useColor(w io.Writer, noColor bool) bool {
	fh, ok := w.(*os.File)
	return ok && !noColor && report.UseColor(fh)
}

// createFile starts a file the command writes (--json FILE, --trace,
// --out), for a message naming its flag when that fails.
func createFile(flag, path string) (*fileio.Pending, error) {
	p, err := fileio.Create(path, 0o644)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	return p, nil
}

// writeOutputs writes the reports (one per suite) to every output and puts
// it in place; an appended file gets the whole text in one write.
func writeOutputs(outs []*output, reps []*report.Report) error {
	defer closeOutputs(outs)
	for _, o := range outs {
		if o.appends {
			var b bytes.Buffer
			if err := o.write(&b, reps...); err != nil {
				return fmt.Errorf("writing %s: %w", o.path, err)
			}
			if err := o.appender.Append(b.Bytes()); err != nil {
				return err
			}
			continue
		}
		if err := o.write(o.file, reps...); err != nil {
			return fmt.Errorf("writing %s: %w (the file is unchanged)", o.path, err)
		}
		if err := o.file.Commit(); err != nil {
			return err
		}
	}
	return nil
}

// closeOutputs drops what was not written: each file stays as it was. It
// does nothing to an output already written, so it may always be deferred.
func closeOutputs(outs []*output) {
	for _, o := range outs {
		o.file.Abort()
		o.appender.Close()
	}
}

// annotateCI writes GitHub Actions workflow commands for the failures to w
// (the human report's stream) when the run is a GitHub Actions step
// (GITHUB_ACTIONS=true), so they show on the fixture lines of the pull
// request's diff.
func annotateCI(w io.Writer, rep *report.Report) error {
	if getenv("GITHUB_ACTIONS") != "true" {
		return nil
	}
	return report.GitHubAnnotations(w, rep)
}
