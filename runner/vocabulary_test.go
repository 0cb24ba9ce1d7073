package runner

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/go-openapi/jsonpointer"

	"github.com/mcpcheck/mcpcheck/assert"
	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/runner/report"
	"github.com/mcpcheck/mcpcheck/schemas"
)

// TestReportVocabularies keeps the enums of schemas/report.schema.json and
// the Go vocabularies in step: statuses, origins, outcomes, scores,
// assertion kinds, failOn, failure Stages and target transports.
func TestReportVocabularies(t *testing.T) {
	var doc any
	if err := json.Unmarshal(schemas.Report, &doc); err != nil {
		t.Fatal(err)
	}
	enum := func(ptr string) []string {
		t.Helper()
		p, err := jsonpointer.New(ptr)
		if err != nil {
			t.Fatal(err)
		}
		v, _, err := p.Get(doc)
		if err != nil {
			t.Fatalf("%s: %v", ptr, err)
		}
		var out []string
		for _, e := range v.([]any) {
			out = append(out, e.(string))
		}
		return out
	}
	var kinds []string
	for _, k := range assert.Kinds {
		kinds = append(kinds, string(k.Name))
	}
	for _, c := range []struct {
		ptr  string
		want []string
	}{
		{"/$defs/step/properties/status/enum", stringsOf(report.Statuses)},
		{"/$defs/scenario/properties/status/enum", stringsOf(report.Statuses)},
		{"/$defs/scenario/properties/notSelected/enum", stringsOf(report.Exclusions)},
		{"/$defs/scenario/properties/notRun/enum", stringsOf(report.NotRuns)},
		{"/$defs/step/properties/origin/enum", stringsOf(config.Origins)},
		{"/properties/findings/items/properties/origin/enum", stringsOf(config.Origins)}, // fixture: a step's check without _meta (progress.go)
		{"/$defs/outcome/enum", stringsOf(config.Outcomes)},
		{"/$defs/step/properties/score/enum", stringsOf(config.ScoreNames)},
		{"/properties/summary/properties/scores/items/properties/name/enum", stringsOf(config.ScoreNames)},
		{"/$defs/assertion/properties/kind/enum", kinds},
		{"/$defs/step/properties/kind/enum", append(stringsOf(config.StepKinds), string(kindRaw))},
		{"/properties/drift/items/properties/severity/enum", stringsOf(report.Severities)},
		{"/$defs/scenario/properties/behaviour/items/properties/rule/enum", stringsOf(report.BehaviourRules)},
		{"/$defs/scenario/properties/behaviour/items/properties/status/enum", stringsOf(report.BehaviourStatuses)},
		{"/properties/drift/items/properties/kind/enum", stringsOf(report.DriftKinds)},
		{"/properties/drift/items/properties/subject/enum", stringsOf(report.DriftSubjects)},
		{"/properties/summary/properties/drift/properties/failOn/enum", stringsOf(config.FailOns)},
		{"/properties/failure/properties/stage/enum", stringsOf(report.Stages)},
		{"/properties/target/properties/transport/enum", stringsOf(report.TargetTransports)},
	} {
		if got := enum(c.ptr); !slices.Equal(got, c.want) {
			t.Errorf("%s = %q, Go %q", c.ptr, got, c.want)
		}
	}
}

func stringsOf[T ~string](list []T) []string {
	out := make([]string, len(list))
	for i, v := range list {
		out[i] = string(v)
	}
	return out
}

// TestSanitizerNames keeps the fixture schema's snapshotSanitize enum and
// config's names in step (golden's own test keeps the sanitizers
// themselves in step with config).
func TestSanitizerNames(t *testing.T) {
	var doc any
	if err := json.Unmarshal(schemas.Fixture, &doc); err != nil {
		t.Fatal(err)
	}
	p, _ := jsonpointer.New("/$defs/snapshotSanitize/items/enum")
	v, _, err := p.Get(doc)
	if err != nil {
		t.Fatal(err)
	}
	var enum []string
	for _, e := range v.([]any) {
		enum = append(enum, e.(string))
	}
	if !slices.Equal(enum, config.SanitizerNames) {
		t.Errorf("schema %q, config %q", enum, config.SanitizerNames)
	}
}
