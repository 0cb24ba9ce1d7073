package report_test

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// hostile is sample() with server strings that try to break out of every
// format: markup, CDATA ends, workflow commands, controls XML cannot hold.
func hostile() *report.Report {
	r := sample()
	r.Server = &report.ServerInfo{Name: `<script>alert("name")</script>`, Version: "]]><x/>"}
	st := &r.Scenarios[0].Steps[0]
	st.Tool = `<img src=x onerror=alert(1)>`
	st.Detail = "line one ]]> <b>bold</b>\x00\nline two\r\n::error::forged"
	pct, under, met := 50.0, 80.0, false
	r.Summary.Scores = []report.Score{{Name: config.ScoreCrashResilience, Percent: &pct, Grade: "F", Passed: 1, Total: 2, FailUnder: &under, Met: &met}}
	r.Findings = []report.Finding{{Tool: "<tool>", Origin: "probe", Kind: "slow", Status: report.StatusFailed, Message: "<script>slow</script>"}}
	r.Tally()
	return r
}

func TestJUnitHostileStrings(t *testing.T) {
	var b bytes.Buffer
	if err := report.JUnit(&b, hostile()); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Name       string `xml:"name,attr"`
			Properties []struct {
				Name  string `xml:"name,attr"`
				Value string `xml:"value,attr"`
			} `xml:"properties>property"`
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Body string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("not XML: %v\n%s", err, b.String())
	}
	// The step, the score under its threshold and the finding.
	if doc.Failures != 3 || len(doc.Suites) != 3 || doc.Suites[1].Name != "scores" || doc.Suites[2].Name != "findings" {
		t.Fatalf("failures=%d suites=%+v", doc.Failures, doc.Suites)
	}
	c := doc.Suites[0].Cases[0]
	if c.Name != `one <img src=x onerror=alert(1)>` {
		t.Errorf("case name %q", c.Name)
	}
	if body := c.Failure.Body; !strings.Contains(body, "line one ]]> <b>bold</b>\uFFFD") || !strings.Contains(body, "expected: 1") {
		t.Errorf("failure body did not round-trip: %q", body)
	}
	props := map[string]string{}
	for _, p := range doc.Suites[0].Properties {
		props[p.Name] = p.Value
	}
	if props["server.name"] != `<script>alert("name")</script>` || props["server.version"] != "]]><x/>" || props["protocolVersion"] != "2025-11-25" {
		t.Errorf("properties %v", props)
	}
}
