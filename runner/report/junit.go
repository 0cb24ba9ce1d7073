package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/config"
)

// The JUnit XML elements, in the shape CI systems read (Jenkins, GitLab,
// GitHub test reporters): testsuites > testsuite > testcase, with
// failure and skipped children.
type (
	junitSuites struct {
		XMLName xml.Name `xml:"testsuites"`
		junitCounts
		Suites []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		junitCounts
		Properties []junitProperty `xml:"properties>property,omitempty"`
		Cases      []junitCase     `xml:"testcase"`
	}
	// junitCounts are the attributes testsuites and testsuite share.
	junitCounts struct {
		Name      string `xml:"name,attr"`
		Tests     int    `xml:"tests,attr"`
		Failures  int    `xml:"failures,attr"`
		Errors    int    `xml:"errors,attr"`
		Skipped   int    `xml:"skipped,attr"`
		Time      string `xml:"time,attr"`
		Timestamp string `xml:"timestamp,attr,omitempty"`
	}
	junitProperty struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	junitCase struct {
		Name      string `xml:"name,attr"`
		Classname string `xml:"classname,attr"`
		Time      string `xml:"time,attr"`
		// File and Line are where the step is written (read by GitLab and
		// several GitHub reporters).
		File    string       `xml:"file,attr,omitempty"`
		Line    int          `xml:"line,attr,omitempty"`
		Failure *junitResult `xml:"failure,omitempty"`
		Skipped *junitResult `xml:"skipped,omitempty"`
		// FlakyFailures and RerunFailures are the step's failures in the
		// runs of its scenario before the last (retry.go).
		FlakyFailures []junitResult `xml:"flakyFailure"`
		RerunFailures []junitResult `xml:"rerunFailure"`
	}
	junitResult struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr,omitempty"`
		// Body is CDATA, so its lines stay lines for whoever reads the
		// file itself.
		Body string `xml:",cdata"`
	}
)

// JUnit writes reps as one JUnit XML document: a testsuite per scenario
// (named after it, its testcases' classname "suite.scenario"), a testcase
// per step ("id subject"), and the checks beside the steps (the run's
// failure, scores, findings) as testcases of test suites of their own, so a
// failed threshold fails a test in CI's test tab. A failure's type is the
// step's outcome ("none" when no call was made), its message the reason in
// one line and its body the lines the human report prints: expected and
// actual values, redacted, and the server's words.
func JUnit(w io.Writer, reps ...*Report) error {
	if len(reps) == 1 && reps[0].Load != nil {
		return loadJUnit(w, reps[0])
	}
	doc := junitSuites{junitCounts: junitCounts{Name: "mcpcheck"}}
	if len(reps) == 1 {
		doc.Name = reps[0].Suite
	}
	var total float64
	for _, r := range reps {
		stamp := junitTime(r.StartedAt)
		if doc.Timestamp == "" {
			doc.Timestamp = stamp
		}
		total += r.Summary.DurationMs
		for i := range r.Scenarios {
			doc.Suites = append(doc.Suites, junitScenario(r, &r.Scenarios[i], stamp))
		}
		for _, g := range checkGroups(r) {
			doc.Suites = append(doc.Suites, junitChecks(r, &g, stamp))
		}
	}
	for _, s := range doc.Suites {
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Skipped += s.Skipped
	}
	doc.Time = seconds(total)
	return writeJUnit(w, doc)
}

// writeJUnit writes doc as a JUnit XML document.
func writeJUnit(w io.Writer, doc junitSuites) error {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// junitScenario is one scenario's test suite.
func junitScenario(r *Report, sc *ScenarioResult, stamp string) junitSuite {
	s := junitSuite{junitCounts: junitCounts{Name: scenarioTitle(sc), Timestamp: stamp}, Properties: junitProperties(r, sc.ProtocolVersion)}
	var ms float64
	for i := range sc.Steps {
		st := &sc.Steps[i]
		ms += st.DurationMs
		c := junitCase{
			Name:      strings.TrimSpace(st.ID + " " + Subject(st)),
			Classname: r.Suite + "." + s.Name,
			Time:      seconds(st.DurationMs),
		}
		if p := st.Position; p != nil {
			c.File, c.Line = p.File, p.Line
		}
		switch {
		case st.Expected != nil:
			// Known: skipped in a test tab (as pytest writes xfail), with why.
			c.Skipped = &junitResult{Message: expectedText(st.Expected) + ": " + why(st)}
		case st.Status == StatusFailed:
			// The type is what failed: the first expectation that did not
			// hold (structuredEquals, text, ...), else the call's outcome
			// (timeout, transport_closed, ...); "ok" never names a failure.
			typ := string(st.Outcome)
			if len(st.Assertions) > 0 {
				typ = string(st.Assertions[0].Kind)
			}
			if typ == "" || typ == string(config.OutcomeOK) {
				typ = "none"
			}
			c.Failure = &junitResult{Message: why(st), Type: typ, Body: xmlText(strings.Join(failureLines(st), "\n"))}
		case st.Status == StatusSkipped:
			c.Skipped = &junitResult{Message: st.Reason}
		}
		junitAttempts(sc, i, &c)
		s.add(c)
	}
	s.Time = seconds(ms)
	return s
}

// junitChecks is a check group's test suite.
func junitChecks(r *Report, g *checkGroup, stamp string) junitSuite {
	s := junitSuite{junitCounts: junitCounts{Name: g.Name, Timestamp: stamp, Time: seconds(0)}, Properties: junitProperties(r, "")}
	for _, ch := range g.Checks {
		c := junitCase{Name: ch.Name, Classname: r.Suite + "." + g.Name, Time: seconds(0)}
		if p := ch.Pos; p != nil {
			c.File, c.Line = p.File, p.Line
		}
		switch ch.Status {
		case StatusFailed:
			c.Failure = &junitResult{Message: ch.Message, Type: g.Name, Body: xmlText(ch.Message)}
		case StatusSkipped:
			c.Skipped = &junitResult{Message: ch.Message}
		}
		s.add(c)
	}
	return s
}

func (s *junitSuite) add(c junitCase) {
	s.Cases = append(s.Cases, c)
	s.Tests++
	switch {
	case c.Failure != nil:
		s.Failures++
	case c.Skipped != nil:
		s.Skipped++
	}
}

// junitProperties say what was tested: the suite, the target, the protocol
// version (the scenario's own in a multi-protocol run) and the server.
func junitProperties(r *Report, protocol string) []junitProperty {
	if protocol == "" {
		protocol = r.ProtocolVersion
	}
	ps := []junitProperty{{"suite", r.Suite}, {"target", targetName(r)}, {"protocolVersion", protocol}}
	if r.Server != nil {
		ps = append(ps, junitProperty{"server.name", r.Server.Name}, junitProperty{"server.version", r.Server.Version})
	}
	if r.Coverage != "" {
		ps = append(ps, junitProperty{"coverage", r.Coverage})
	}
	return ps
}

// targetName is the target in a few words: "stdio mcpcheck", an origin.
func targetName(r *Report) string {
	switch r.Target.Transport {
	case TargetStdio:
		return "stdio " + r.Target.Program
	case TargetHTTP:
		return r.Target.Origin
	}
	return strings.TrimSpace(string(r.Target.Transport) + " " + r.Target.Origin)
}

// junitTime is the ISO 8601 local time without zone that JUnit's schema
// wants, in UTC; empty when the start is unknown.
func junitTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02T15:04:05")
}

func seconds(ms float64) string { return fmt.Sprintf("%.3f", ms/1000) }

// xmlText replaces the characters XML 1.0 cannot hold at all (most C0
// controls, surrogates, U+FFFE/U+FFFF) with U+FFFD; encoding/xml does so
// for attributes and character data, but writes CDATA as it is.
func xmlText(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r',
			r >= 0x20 && r <= 0xD7FF,
			r >= 0xE000 && r <= 0xFFFD,
			r >= 0x10000 && r <= 0x10FFFF:
			return r
		}
		return '\uFFFD'
	}, s)
}
