package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/internal/goldentest"
	"github.com/mcpcheck/mcpcheck/runner"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	goldentest.Compare(t, filepath.Join("testdata", name), got)
}

// quickRun runs quick mode's generated checks against an in-memory go-sdk
// server, with the given flag settings, and renders the human report.
func quickRun(t *testing.T, s *mcp.Server, allow []string, flags map[string]any) (*report.Report, string) {
	t.Helper()
	target := config.Target{Command: []string{"household-admin"}, AllowTools: allow}
	suite, err := config.Quick(target, config.LoadOptions{Environ: []string{}, Flags: flags})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rep, err := runner.Run(ctx, suite, runner.Options{Dial: func(ctx context.Context) (mcp.Transport, error) {
		ct, st := mcp.NewInMemoryTransports()
		if _, err := s.Connect(ctx, st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	report.Text(&b, rep, report.TextOptions{NoDurations: true})
	return rep, regexp.MustCompile(` in [0-9.]+(µs|ms|s)\n`).ReplaceAllString(b.String(), " in 1ms\n")
}

func addTool(s *mcp.Server, name string, readOnly bool, input string) {
	tool := &mcp.Tool{Name: name, Description: "household " + name, InputSchema: json.RawMessage(input)}
	if readOnly {
		tool.Annotations = &mcp.ToolAnnotations{ReadOnlyHint: true}
	}
	s.AddTool(tool, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
	})
}

// TestNothingTestedGolden: a server whose every tool is left alone and that
// offers no resource or prompt is NOTHING TESTED, with the reason and what
// lifts it, and no score pretends otherwise.
func TestNothingTestedGolden(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "household-admin", Version: "1.0.0"}, nil)
	addTool(s, "wipe_household", false, `{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}`)
	addTool(s, "reset_rota", false, `{"type":"object"}`)
	addTool(s, "export_tasks", true, `{"type":"object"}`)
	rep, text := quickRun(t, s, []string{"wipe_household", "reset_rota"}, nil)
	if rep.NothingTested == nil {
		t.Fatalf("a run that called nothing is not NOTHING TESTED:\n%s", text)
	}
	golden(t, "nothing-tested.golden", text)
}

// TestNotApplicableGolden: scores with no case to judge are n/a with no
// grade; a threshold on one is not met (it has nothing to meet it with),
// and the run fails on that alone.
func TestNotApplicableGolden(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "household-admin", Version: "1.0.0"}, nil)
	// No property at all: no missing-required or wrong-type case exists,
	// so crash resilience is judged on the valid call alone and schema
	// enforcement has nothing to judge.
	addTool(s, "export_tasks", true, `{"type":"object"}`)
	addTool(s, "wipe_household", false, `{"type":"object"}`)
	rep, text := quickRun(t, s, nil, map[string]any{"generate.failUnder.schemaEnforcement": 90.0})
	if rep.Passed {
		t.Errorf("a threshold on a score with no data passed:\n%s", text)
	}
	golden(t, "not-applicable.golden", text)
}

// TestNoToolTestedGolden: protocol probes ran but no tool was called
// (every tool is left alone): the headline says NO TOOL TESTED and what
// was covered, never PASS (issue 19 item 14). Probes need stdio or HTTP,
// so the report is the one such a run gives (cmd/mcpcheck's
// TestNoToolTested makes it against the demo); every writer is rendered.
func TestNoToolTestedGolden(t *testing.T) {
	rep := &report.Report{SchemaVersion: 1, Suite: "quick check of household-admin", Passed: true, ProtocolVersion: "2025-11-25",
		Target: report.Target{Transport: report.TargetStdio, Program: "household-admin"}, ToolsDiscovered: []string{"reset_rota", "wipe_household"},
		NothingTested: &report.NothingTested{Reason: "0 of 2 tools called: 2 no readOnlyHint annotation (a missing hint is not read-only), so no generated call is made",
			Fix: "--include-destructive calls tools not annotated read-only", Ran: "14 protocol probe messages"},
		Summary: report.Summary{Passed: 28}}
	var text, md, junit bytes.Buffer
	report.Text(&text, rep, report.TextOptions{NoDurations: true})
	report.Markdown(&md, rep)
	if err := report.JUnit(&junit, rep); err != nil {
		t.Fatal(err)
	}
	golden(t, "no-tool-tested.golden", text.String()+"\n--- markdown\n"+md.String()+"\n--- junit\n"+junit.String())
}
