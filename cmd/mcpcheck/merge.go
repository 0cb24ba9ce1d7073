package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpcheck/mcpcheck/internal/fileio"
	"github.com/mcpcheck/mcpcheck/internal/safetext"
	"github.com/mcpcheck/mcpcheck/runner"
	"github.com/mcpcheck/mcpcheck/runner/report"
	"github.com/mcpcheck/mcpcheck/schemas"
)

const mergeUsage = `Usage:
  mcpcheck merge REPORT.json... [--json OUT] [--junit OUT] [--html OUT]
                 [--summary OUT] [--allow-partial]

Puts the JSON reports of the shards of a run (--shard K/N, one per CI job)
back together into the report of the whole run: the human report on stdout,
the merged reports to the files asked for. A report of several suites is
merged suite by suite.

  --json OUT        write the merged JSON report to OUT ("-": stdout, the
                    human report then on stderr)
  --junit OUT       write it as JUnit XML
  --html OUT        write it as one self-contained HTML page
  --summary OUT     write a Markdown summary (default, when
                    GITHUB_STEP_SUMMARY is set: append it there)
  --allow-partial   merge even when a shard's report is missing (its
                    scenarios stay skipped, "another shard runs it")

Exit status: the merged verdict (0 every check passed, 1 a check failed);
2 when the reports are not the shards of one run: different suites, two
reports of one shard, a missing shard, a file that is not a report.
`

// mergeReports is the merge subcommand.
func mergeReports(args []string, stdout, stderr io.Writer) int {
	f := &flags{}
	var allowPartial bool
	fs := flag.NewFlagSet("mcpcheck merge", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&f.jsonOut, "json", "", "")
	fs.StringVar(&f.junit, "junit", "", "")
	fs.StringVar(&f.html, "html", "", "")
	fs.StringVar(&f.summary, "summary", "", "")
	fs.BoolVar(&allowPartial, "allow-partial", false, "")
	files, code := parseInterleaved(fs, mergeUsage, args, stdout, stderr)
	if files == nil {
		return code
	}
	if len(files) == 0 {
		return fail(stderr, exitBadArgs, "mcpcheck merge: give the shards' JSON reports (see mcpcheck merge --help)\n")
	}
	var parts [][]runner.Part // per suite, per file
	for _, file := range files {
		reps, err := readReports(file)
		if err != nil {
			// The error may quote the file (a key the schema refuses).
			return fail(stderr, exitBadArgs, "mcpcheck merge: %s\n", safetext.Sanitize(err.Error()))
		}
		if parts == nil {
			parts = make([][]runner.Part, len(reps))
		}
		if len(reps) != len(parts) {
			return fail(stderr, exitBadArgs, "mcpcheck merge: %s holds %d suites and %s %d: reports of different runs\n", files[0], len(parts), file, len(reps))
		}
		for i, r := range reps {
			parts[i] = append(parts[i], runner.Part{Source: file, Report: r})
		}
	}
	merged := make([]*report.Report, len(parts))
	for i, p := range parts {
		m, err := runner.Merge(p, allowPartial)
		if err != nil {
			return fail(stderr, exitBadArgs, "mcpcheck merge: %s\n", safetext.Sanitize(err.Error()))
		}
		merged[i] = m
	}

	rs, err := openJSON(f.jsonOut, stdout, stderr)
	if err != nil {
		return fail(stderr, exitBadArgs, "mcpcheck merge: %v\n", err)
	}
	defer rs.jsonFile.Abort()
	human := rs.human
	outs := outputsOf(f)
	if err := openOutputs(outs); err != nil {
		return fail(stderr, exitBadArgs, "mcpcheck merge: %v\n", err)
	}
	defer closeOutputs(outs)
	code = exitPass
	for i, m := range merged {
		if i > 0 {
			fmt.Fprintln(human)
		}
		if err := report.Text(human, m, report.TextOptions{}); err != nil {
			return fail(stderr, exitBadArgs, "mcpcheck merge: writing the report: %v\n", err)
		}
		if !m.Passed {
			code = exitFail
		}
	}
	if len(merged) > 1 {
		fmt.Fprintln(human)
		report.Total(human, merged, 0, report.TextOptions{})
	}
	if c := writeReports("mcpcheck", f, merged, len(merged) > 1, rs, outs, stderr); c != exitPass {
		return c
	}
	return code
}

// readReports reads a JSON report file, checked against the report
// schema: one suite's report, or each report of a run of several. The file
// is read by the bounded reader (a regular file of at most
// fileio.MaxJSONBytes).
func readReports(file string) ([]*report.Report, error) {
	data, err := fileio.ReadJSONFile(file)
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s is not JSON: %v", file, err)
	}
	// A large file is only checked, by a check that gives up at its first
	// violation, and a small one explained (see schemas.ExplainedValues).
	if fileio.JSONValues(data) > schemas.ExplainedValues {
		ok, err := schemas.Matches(schemas.ReportURL, doc)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("%s is not an mcpcheck JSON report: it does not match the report schema (mcpcheck schema report); a file of more than %d values is not explained further", file, schemas.ExplainedValues)
		}
	} else if err := schemas.Validate(schemas.ReportURL, doc); err != nil {
		msg := err.Error()
		if ve, ok := err.(*jsonschema.ValidationError); ok {
			msg = firstLines(strings.TrimSpace(ve.Error()), 20)
		}
		return nil, fmt.Errorf("%s is not an mcpcheck JSON report: %s", file, msg)
	}
	var several report.Suites
	if err := json.Unmarshal(data, &several); err == nil && several.Suites != nil {
		return several.Suites, nil
	}
	var one report.Report
	if err := json.Unmarshal(data, &one); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	return []*report.Report{&one}, nil
}

// firstLines is s cut after n lines, with a line saying how many more
// there were: a file with a problem in every one of its 100,000 entries
// is one problem repeated.
func firstLines(s string, n int) string {
	cut := 0
	for range n {
		i := strings.IndexByte(s[cut:], '\n')
		if i < 0 {
			return s
		}
		cut += i + 1
	}
	return fmt.Sprintf("%s  ... and %d more lines", s[:cut], strings.Count(s[cut:], "\n")+1)
}
