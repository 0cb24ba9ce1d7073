package runner

import (
	"testing"

	"github.com/mcpcheck/mcpcheck/runner/report"
)

func TestRedactorSecrets(t *testing.T) {
	const token = "hcZq81xYw40pLm7Tv2AB"
	r := newRedactor([]Secret{
		{Value: token},                                   // credential-shaped, undeclared: everywhere
		{Value: "string"},                                // undeclared, plain: not a secret
		{Value: "8080"},                                  // undeclared, plain: not a secret
		{Value: "false", Always: true},                   // record's, plain: whole tokens
		{Value: "text", Declared: true},                  // declared, a plain short word: not searched for
		{Value: "2468", Declared: true},                  // declared, a plain number: not searched for
		{Value: "Bearer zz-plain-token", Declared: true}, // the token alone too
		{Value: "abc", Declared: true},                   // too short to search for
	}, "")
	for _, tc := range []struct{ in, want string }{
		{"key " + token + " and x" + token + "y", "key [redacted] and x[redacted]y"},
		{"split " + token[:10] + "\x1b[0m" + token[10:], `split ` + token[:10] + `\x1b[0m` + token[10:]},
		{"split " + token[:10] + "\x01" + token[10:], `split ` + token[:10] + `\x01` + token[10:]},
		{"message string required, port 8080", "message string required, port 8080"},
		{"false positive, not falsehood or isfalse", "[redacted] positive, not falsehood or isfalse"},
		{"/false/ and false.", "/[redacted]/ and [redacted]."},
		{"got zz-plain-token", "got [redacted]"},
		{"abc stays", "abc stays"},
		{"text/markdown, port 2468", "text/markdown, port 2468"},
	} {
		if got := r.String(tc.in); got != tc.want {
			t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// Keys of values too.
	v := r.Value(map[string]any{token: []any{"false"}, "ok": "string"}).(map[string]any)
	if _, ok := v["[redacted]"]; !ok || v["ok"] != "string" || v["[redacted]"].([]any)[0] != "[redacted]" {
		t.Errorf("Value: %v", v)
	}
}

func TestPlainWord(t *testing.T) {
	for v, want := range map[string]bool{
		"string": true, "text": true, "Password": true, "8080": true, "café": true,
		"correcthorse": false, "hunter2": false, "x-y": false, "127.0.0.1": false, "": false,
	} {
		if got := PlainWord(v); got != want {
			t.Errorf("PlainWord(%q) = %v, want %v", v, got, want)
		}
	}
}

func TestLooksLikeCredential(t *testing.T) {
	for v, want := range map[string]bool{
		"hcZq81xYw40pLm7Tv2AB":                 true,
		"ghp_abcdefghijklmnop":                 true,
		"sk-proj-abcdefghij":                   true,
		"3f9a2b7c4d1e8f6a0b5c9d2e7f1a4b8c":     true, // hex
		"550e8400-e29b-41d4-a716-446655440000": true, // UUID
		"postgres://u:pw@db.example.com/x":     true,
		"string":                               false,
		"false":                                false,
		"8080":                                 false,
		"synthetic-input":                      false,
		"localhost:8080":                       false,
		"http://127.0.0.1:8080/":               false,
		"/home/someone/project2/data":          false,
		"Hello World 2024":                     false, // white space
	} {
		if got := looksLikeCredential(v); got != want {
			t.Errorf("looksLikeCredential(%q) = %v, want %v", v, got, want)
		}
	}
	for name, want := range map[string]bool{"Authorization": true, "Cookie": true, "X-Api-Key": true, "GITHUB_TOKEN": true,
		"DB_PASSWORD": true, "MY_SECRET": true, "MY_FLAG": false, "PORT": false, "X": false} {
		if got := credentialName(name); got != want {
			t.Errorf("credentialName(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestRedactorReport: the walk reaches every string of a report, map keys
// and assertion values included, and writes nothing when nothing changes.
func TestRedactorReport(t *testing.T) {
	const token = "hcZq81xYw40pLm7Tv2AB"
	r := newRedactor([]Secret{{Value: token, Declared: true}}, "")
	rep := &report.Report{Suite: "s " + token, ToolsDiscovered: []string{"\x1b[2J" + token},
		Scenarios: []report.ScenarioResult{{Name: "generated: " + token, Steps: []report.StepResult{{
			ID: "a\x1bb", Tool: token, Notes: []string{"n " + token},
			Assertions: []report.AssertionResult{{Path: "/" + token, Actual: map[string]any{token: "\x07"}}},
		}}}}}
	step := visible(r, rep.Scenarios[0].Steps[0])
	if step.Tool != Redacted || rep.Scenarios[0].Steps[0].Tool != token {
		t.Errorf("visible: copy %q, original %q", step.Tool, rep.Scenarios[0].Steps[0].Tool)
	}
	r.report(rep)
	st := rep.Scenarios[0].Steps[0]
	got := []string{rep.Suite, rep.ToolsDiscovered[0], rep.Scenarios[0].Name, st.ID, st.Tool, st.Notes[0], st.Assertions[0].Path}
	want := []string{"s [redacted]", `\x1b[2J[redacted]`, "generated: [redacted]", `a\x1bb`, Redacted, "n [redacted]", "/[redacted]"}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("field %d: %q, want %q", i, got[i], want[i])
		}
	}
	if a := st.Assertions[0].Actual.(map[string]any); a[Redacted] != `\a` {
		t.Errorf("assertion value: %v", a)
	}
}

// BenchmarkRedactorReport is the edge's cost on a 10,000-step report with
// a secret to look for (the common case: nothing to change).
func BenchmarkRedactorReport(b *testing.B) {
	r := newRedactor([]Secret{{Value: "hcZq81xYw40pLm7Tv2AB", Declared: true}}, "")
	rep := &report.Report{}
	for i := 0; i < 100; i++ {
		sc := report.ScenarioResult{Name: "scenario with an ordinary name"}
		for j := 0; j < 100; j++ {
			sc.Steps = append(sc.Steps, report.StepResult{ID: "step-id", Tool: "get_household", Reason: "an earlier step of this scenario failed",
				Notes: []string{"note: fidelity: the answer mentions none of the input strings"}})
		}
		rep.Scenarios = append(rep.Scenarios, sc)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r.report(rep)
	}
}
