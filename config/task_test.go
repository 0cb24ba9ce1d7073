package config

import (
	"strings"
	"testing"
)

// TestTaskKey: a tool step's task key is true, false or an object with
// cancelAfterMs and ttlMs; anything else, or task on another kind of step,
// is refused at its line.
func TestTaskKey(t *testing.T) {
	head := "name: t\ncommand: [srv]\nallowTools: [a]\nscenarios:\n  - name: s\n    steps:\n"
	s, err := Parse("t.yaml", []byte(head+
		"      - {tool: a, task: true}\n"+
		"      - {tool: a, task: false}\n"+
		"      - {tool: a, task: {cancelAfterMs: 50, ttlMs: 9000}}\n"+
		"      - {tool: a}\n"), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	steps := s.Scenarios[0].Steps
	if steps[0].Task == nil || steps[0].Task.Off || steps[0].Task.CancelAfterMs != 0 {
		t.Errorf("task: true = %+v", steps[0].Task)
	}
	if steps[1].Task == nil || !steps[1].Task.Off {
		t.Errorf("task: false = %+v", steps[1].Task)
	}
	if c := steps[2].Task; c == nil || c.CancelAfterMs != 50 || c.TTLMs != 9000 {
		t.Errorf("task object = %+v", c)
	}
	if steps[3].Task != nil {
		t.Errorf("no task key = %+v", steps[3].Task)
	}
	for _, bad := range []struct{ step, want string }{
		{"      - {tool: a, task: {cancelAfterMs: 0}}\n", "t.yaml:7"},
		{"      - {tool: a, task: {every: 5}}\n", "t.yaml:7"},
		{"      - {tool: a, task: yes please}\n", "t.yaml:7"},
		{"      - {prompt: p, task: true}\n", "task applies to tool steps"},
	} {
		_, err := Parse("t.yaml", []byte(head+bad.step), noEnv)
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: %v, want an error with %q", strings.TrimSpace(bad.step), err, bad.want)
		}
	}
}
