package contract

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestTaskSupportDrift: a change of execution.taskSupport is drift, graded
// by whom it breaks; icons and _meta changes are info; a listing that
// leaves execution out means forbidden, so adding "forbidden" is no drift.
func TestTaskSupportDrift(t *testing.T) {
	build := func(tool string) *Contract {
		c, err := Build(Input{Tools: []json.RawMessage{json.RawMessage(tool)}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	plain := `{"name":"t","inputSchema":{"type":"object"}}`
	with := func(members string) string {
		return `{"name":"t","inputSchema":{"type":"object"},` + members + `}`
	}
	for _, c := range []struct {
		old, new string
		want     string // "severity kind", or "" for no drift
	}{
		{plain, with(`"execution":{"taskSupport":"forbidden"}`), ""},
		{plain, with(`"execution":{"taskSupport":"required"}`), "breaking task_support_changed"},
		{with(`"execution":{"taskSupport":"optional"}`), with(`"execution":{"taskSupport":"required"}`), "breaking task_support_changed"},
		{with(`"execution":{"taskSupport":"required"}`), with(`"execution":{"taskSupport":"optional"}`), "compatible task_support_changed"},
		{plain, with(`"execution":{"taskSupport":"optional"}`), "compatible task_support_changed"},
		{with(`"execution":{"taskSupport":"optional"}`), plain, "breaking task_support_changed"},
		{plain, with(`"icons":[{"src":"https://example.com/i.png"}]`), "info icons_changed"},
		{plain, with(`"_meta":{"ui":{"resourceUri":"ui://t/app.html"}}`), "info meta_changed"},
	} {
		var got []string
		for _, f := range Diff(build(c.old), build(c.new)) {
			got = append(got, string(f.Severity)+" "+string(f.Kind))
		}
		if strings.Join(got, "; ") != c.want {
			t.Errorf("%s → %s: drift %q, want %q", c.old, c.new, got, c.want)
		}
	}
	// The members are kept as listed, and written.
	c := build(with(`"execution":{"taskSupport":"required"},"icons":[{"src":"a.png"}],"_meta":{"k":1}`))
	data, err := c.Encode()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"taskSupport": "required"`, `"src": "a.png"`, `"_meta"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("contract lacks %s:\n%s", want, data)
		}
	}
}
