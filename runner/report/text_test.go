package report_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

func sample() *report.Report {
	code := int64(-32603)
	r := &report.Report{
		SchemaVersion: 1, Suite: "s", Target: report.Target{Transport: "http", Origin: "https://mcp.example.com"},
		ProtocolVersion: "2025-11-25", ToolsDiscovered: []string{"a"},
		Scenarios: []report.ScenarioResult{{Name: "sc", Steps: []report.StepResult{
			{ID: "one", Tool: "a", Origin: "fixture", Status: report.StatusFailed, Outcome: "protocol_error", ErrorCode: &code,
				Assertions: []report.AssertionResult{{Kind: "structuredEquals", Path: "/x", Message: "value differs",
					Expected: json.Number("1"), HasExpected: true, Actual: "\u009b31mred\x1b[0m" + strings.Repeat("y", 400), HasActual: true}}},
			{ID: "two", Tool: "a", Origin: "fuzz", Status: report.StatusSkipped, Reason: "an earlier step of this scenario failed (one)"},
		}}},
	}
	r.Tally()
	return r
}

func TestTextColor(t *testing.T) {
	var plain, color bytes.Buffer
	report.Text(&plain, sample(), report.TextOptions{NoDurations: true})
	report.Text(&color, sample(), report.TextOptions{Color: true, NoDurations: true})
	if strings.Contains(plain.String(), "\x1b[") {
		t.Errorf("plain output has escape sequences:\n%q", plain.String())
	}
	if !strings.Contains(color.String(), "\x1b[31m") {
		t.Errorf("colour output has no colour")
	}
	for _, want := range []string{"FAIL s", "Target: https://mcp.example.com", "protocol_error -32603", "[fuzz]", `expected: 1`} {
		if !strings.Contains(plain.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, plain.String())
		}
	}
}

func TestShowStripsAndCuts(t *testing.T) {
	var b bytes.Buffer
	report.Text(&b, sample(), report.TextOptions{NoDurations: true})
	line := ""
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.Contains(l, "actual:") {
			line = l
		}
	}
	if strings.ContainsRune(line, '\u009b') || strings.ContainsRune(line, '\x1b') {
		t.Errorf("control characters reached the terminal: %q", line)
	}
	if !strings.HasSuffix(line, " more characters)") || len([]rune(line)) > 370 {
		t.Errorf("long value not cut: %d runes", len([]rune(line)))
	}
}

func TestQuiet(t *testing.T) {
	r := sample()
	r.Scenarios = append(r.Scenarios, report.ScenarioResult{Name: "fine", Steps: []report.StepResult{{ID: "ok", Tool: "a", Origin: "fixture", Status: report.StatusPassed}}})
	r.Tally()
	var b bytes.Buffer
	report.Text(&b, r, report.TextOptions{Quiet: true, NoDurations: true})
	if strings.Contains(b.String(), "fine") {
		t.Errorf("quiet output lists a passing scenario:\n%s", b.String())
	}
}

// TestEveryScoreHasATitle: a score the text report cannot name would print
// as a bare percentage.
func TestEveryScoreHasATitle(t *testing.T) {
	for _, name := range config.ScoreNames {
		if report.ScoreTitles[name] == "" {
			t.Errorf("score %s has no title in scoreTitles", name)
		}
	}
}

// In a multi-protocol run each version's checks are judged apart: the
// text report says which version a score, a finding and a skipped tool
// are from.
func TestTextNamesEachVersion(t *testing.T) {
	r := sample()
	pct := 50.0
	for _, v := range []string{"2025-11-25", "2026-07-28"} {
		r.Summary.Scores = append(r.Summary.Scores, report.Score{Name: config.ScoreCrashResilience, ProtocolVersion: v, Percent: &pct, Grade: "F", Passed: 1, Total: 2})
		r.Findings = append(r.Findings, report.Finding{Tool: "a", Origin: config.OriginFuzz, Kind: "wrong-type x", ProtocolVersion: v, Status: report.StatusFailed, Message: "answered ok"})
		r.SkippedTools = append(r.SkippedTools, report.SkippedTool{Tool: "w", ProtocolVersion: v, Reason: "not read-only"})
	}
	var b bytes.Buffer
	report.Text(&b, r, report.TextOptions{NoDurations: true})
	for _, v := range []string{"2025-11-25", "2026-07-28"} {
		for _, want := range []string{
			"  [" + v + "] crash resilience",
			"FAIL [" + v + "] a [fuzz wrong-type x] answered ok",
			"  [" + v + "] not read-only: w\n",
		} {
			if !strings.Contains(b.String(), want) {
				t.Errorf("output lacks %q:\n%s", want, b.String())
			}
		}
	}
}
