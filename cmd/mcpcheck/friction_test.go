package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The friction of issue 20 item 7, one test each, run as a user runs the
// command.

// TestFixtureWordSuggestsConfig: a fixture file given as a word, or after
// a "run" word, is named back with --config.
func TestFixtureWordSuggestsConfig(t *testing.T) {
	dir := t.TempDir()
	fixture := filepath.Join(dir, "basics.yaml")
	os.WriteFile(fixture, []byte("name: b\ncommand: [mcpcheck, demo]\nscenarios: [{name: s, steps: [{ping: {}}]}]\n"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{fixture}, "to run the fixture, give it with --config: mcpcheck --config " + fixture},
		{[]string{"run", "--config", fixture}, "a run needs no word: mcpcheck --config " + fixture},
		{[]string{filepath.Join(dir, "missing.yaml")}, "a server to check goes after --"},
		{[]string{"nodee", "server.js"}, "a server to check goes after --"},
	} {
		r := runCmd(t, tc.args...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}

// TestAllowToolsOnlyForToolSteps: a fixture that calls no tool needs no
// allowTools; one with a tool step, or a generate block, still does.
func TestAllowToolsOnlyForToolSteps(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	noTools := write("reads.yaml", "name: reads\ncommand: [mcpcheck, demo]\nscenarios:\n  - name: s\n    steps:\n      - list: tools\n      - resource: household://about\n      - prompt: plan_chores\n        arguments: {member: Ada}\n")
	if r := runCmd(t, "--config", noTools); r.code != 0 {
		t.Fatalf("a fixture without tool steps: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	tool := write("tool.yaml", "name: t\ncommand: [mcpcheck, demo]\nscenarios:\n  - name: s\n    steps:\n      - tool: get_household\n")
	if r := runCmd(t, "--config", tool); r.code != 2 || !strings.Contains(r.stderr, `tool.yaml:1:1: missing required key "allowTools"`) {
		t.Errorf("a tool step without allowTools: exit %d, stderr %q", r.code, r.stderr)
	}
	gen := write("gen.yaml", "name: g\ncommand: [mcpcheck, demo]\ngenerate: {}\n")
	if r := runCmd(t, "--config", gen); r.code != 2 || !strings.Contains(r.stderr, `missing required key "allowTools"`) {
		t.Errorf("generate without allowTools: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestGenerateSettingsPlacedAndMoot: a generate setting written at the
// top level names its place; one whose check is off warns in the report.
func TestGenerateSettingsPlacedAndMoot(t *testing.T) {
	dir := t.TempDir()
	top := filepath.Join(dir, "top.yaml")
	os.WriteFile(top, []byte("name: g\ncommand: [mcpcheck, demo]\nallowTools: []\nfailUnder: {crashResilience: 80}\ngenerate: {}\n"), 0o644)
	r := runCmd(t, "--config", top)
	if want := `top.yaml:4:1: unknown key "failUnder"; did you mean generate.failUnder?`; r.code != 2 || !strings.Contains(r.stderr, want) {
		t.Errorf("exit %d, stderr %q; want 2 and %q", r.code, r.stderr, want)
	}
	moot := filepath.Join(dir, "moot.yaml")
	os.WriteFile(moot, []byte("name: g\ncommand: [mcpcheck, demo]\nallowTools: [get_household]\ngenerate:\n  fidelity: true\n  fuzzCases: 5\n  slowThresholdMs: 100\n  failUnder: {responseFidelity: 50, latency: 10}\n"), 0o644)
	r = runCmd(t, "--config", moot, "--json", "-")
	var rep struct{ Warnings []string }
	json.Unmarshal([]byte(r.stdout), &rep)
	want := []string{
		moot + ":6:3: generate.fuzzCases has no effect: fuzz is off",
		moot + ":7:3: generate.slowThresholdMs has no effect: probes is off",
		moot + ":8:37: generate.failUnder.latency has no effect: probes is off",
	}
	got := strings.Join(rep.Warnings, "\n")
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("warnings lack %q:\n%s", w, got)
		}
	}
	if strings.Contains(got, "responseFidelity") {
		t.Errorf("a setting that has an effect is warned about:\n%s", got)
	}
}

// TestDiffBecameRequired: a property that became required is shown once,
// as the required list's new entry, not as the same old and new value.
func TestDiffBecameRequired(t *testing.T) {
	data, err := os.ReadFile("../../examples/demo.contract.json")
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]any
	json.Unmarshal(data, &c)
	for _, tool := range c["tools"].([]any) {
		tool := tool.(map[string]any)
		if tool["name"] == "tidy_household" {
			tool["inputSchema"].(map[string]any)["required"] = []any{"steps"}
		}
	}
	changed, _ := json.Marshal(c)
	dir := t.TempDir()
	old, cur := filepath.Join(dir, "old.json"), filepath.Join(dir, "new.json")
	os.WriteFile(old, data, 0o644)
	os.WriteFile(cur, changed, 0o644)
	r := runCmd(t, "diff", old, cur)
	if r.code != 1 || !strings.Contains(r.stdout, "tool tidy_household: became required at /tools/") || !strings.Contains(r.stdout, "new: \"steps\"") {
		t.Fatalf("exit %d, stdout:\n%s%s", r.code, r.stdout, r.stderr)
	}
	if strings.Contains(r.stdout, "old: \"steps\"") {
		t.Errorf("old and new are the same value:\n%s", r.stdout)
	}
}

// TestGoldenMismatchGoesOn: a golden answer that differs fails its step
// and the scenario goes on: the next step, which refers to the first's
// answer, still runs, and its own mismatch shows in the same run. The
// actual value prints as written (<time>-style placeholders unescaped).
func TestGoldenMismatchGoesOn(t *testing.T) {
	dir := t.TempDir()
	fixture, err := os.ReadFile("../../examples/golden.yaml")
	if err != nil {
		t.Fatal(err)
	}
	stored, err := os.ReadFile("../../examples/__snapshots__/golden.yaml.json")
	if err != nil {
		t.Fatal(err)
	}
	// Two stored answers that the demo will not give: the proposal's id
	// and the commit's revision.
	s := strings.Replace(string(stored), `"proposalId": "proposal-1"`, `"proposalId": "<uuid> & more"`, 1)
	s = strings.Replace(s, `"replayed": false,
          "revision": 1`, `"replayed": false,
          "revision": 7`, 1)
	if s == string(stored) {
		t.Fatal("the stored answers did not change")
	}
	os.Mkdir(filepath.Join(dir, "__snapshots__"), 0o755)
	os.WriteFile(filepath.Join(dir, "golden.yaml"), fixture, 0o644)
	os.WriteFile(filepath.Join(dir, "__snapshots__", "golden.yaml.json"), []byte(s), 0o644)
	r := runCmd(t, "--config", filepath.Join(dir, "golden.yaml"), "--no-color")
	if r.code != 1 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		"FAIL proposal", "FAIL commit", "ok   household",
		`expected: "<uuid> & more"`, `actual:   "proposal-1"`,
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "earlier step") || strings.Contains(r.stdout, `\u003c`) {
		t.Errorf("a step was skipped, or a value escaped:\n%s", r.stdout)
	}
}

// TestRequestedProtocolShown: a run that asks for 2026-07-28 of a server
// that negotiates 2025-11-25 says both, in the headline and the JSON; a
// run that gets what it asked for says one.
func TestRequestedProtocolShown(t *testing.T) {
	parallel(t)
	dir := peerDir(t)
	fixture := filepath.Join(t.TempDir(), "p.yaml")
	os.WriteFile(fixture, []byte("name: p\ncommand: [node, "+filepath.Join(dir, peerEverything)+", stdio]\nscenarios: [{name: s, steps: [{ping: {}}]}]\n"), 0o644)
	r := runCmd(t, "--config", fixture, "--protocol", "2026-07-28")
	if r.code != 0 || !strings.Contains(r.stdout, "Protocol: 2025-11-25 (negotiated; requested 2026-07-28)") {
		t.Errorf("exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runCmd(t, "--config", fixture, "--protocol", "2026-07-28", "--json", "-")
	m := validReport(t, r.stdout)
	if m["protocolVersion"] != "2025-11-25" || m["requestedProtocolVersion"] != "2026-07-28" {
		t.Errorf("protocolVersion %v, requestedProtocolVersion %v", m["protocolVersion"], m["requestedProtocolVersion"])
	}
	r = runCmd(t, "--config", fixture, "--json", "-")
	if m := validReport(t, r.stdout); m["requestedProtocolVersion"] != nil {
		t.Errorf("requestedProtocolVersion %v with the version asked for", m["requestedProtocolVersion"])
	}
}

// TestElicitationTypes: numbers and booleans of client.elicitation reach
// the server with their JSON types (server-everything's form asks for an
// integer, a number and a boolean); an answer that does not fit the form
// warns that the refusal is the fixture's.
func TestElicitationTypes(t *testing.T) {
	parallel(t)
	dir := peerDir(t)
	write := func(content string) string {
		p := filepath.Join(t.TempDir(), "el.yaml")
		os.WriteFile(p, []byte("name: el\ncommand: [node, "+filepath.Join(dir, peerEverything)+", stdio]\nallowTools: [trigger-elicitation-request]\ntimeoutMs: 10000\n"+
			"client:\n  elicitation: {action: accept, content: "+content+"}\n"+
			"scenarios:\n  - name: e\n    steps:\n      - tool: trigger-elicitation-request\n        expect: {text: {contains: accept}}\n"), 0o644)
		return p
	}
	r := runCmd(t, "--config", write("{name: Ada, integer: 7, number: 2.5, check: true}"), "--json", "-")
	m := validReport(t, r.stdout)
	if r.code != 0 || m["warnings"] != nil {
		t.Errorf("typed answer: exit %d, warnings %v\n%s", r.code, m["warnings"], r.stderr)
	}
	fixture := write(`{name: Ada, integer: "seven"}`)
	r = runCmd(t, "--config", fixture, "--json", "-")
	m = validReport(t, r.stdout)
	ws, _ := json.Marshal(m["warnings"])
	want := fixture + `:5:1: client.elicitation.content does not fit the form the server asked with, so the client refused to send it (the error the server relays is the fixture's, not the server's): /integer: expected integer, got string`
	if r.code != 1 || !strings.Contains(string(ws), want) {
		t.Errorf("mistyped answer: exit %d, warnings %s; want %q", r.code, ws, want)
	}
}

// TestRelativePathsFromFixture: a fixture's command is read from the
// fixture's directory, like every other relative path, whichever directory
// mcpcheck runs in; a server that cannot start names the directory used.
func TestRelativePathsFromFixture(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "fixtures")
	os.Mkdir(dir, 0o755)
	// A server script beside the fixture: the test binary as the demo.
	os.WriteFile(filepath.Join(dir, "server.sh"), []byte("#!/bin/sh\nexec "+os.Args[0]+" demo\n"), 0o755)
	for name, command := range map[string]string{"program.yaml": "[./server.sh]", "argument.yaml": "[sh, server.sh]"} {
		fixture := filepath.Join(dir, name)
		os.WriteFile(fixture, []byte("name: r\ncommand: "+command+"\nallowTools: [get_household]\nscenarios: [{name: s, steps: [{tool: get_household}]}]\n"), 0o644)
		// Run from elsewhere (the package directory), by a relative path.
		rel, err := filepath.Rel(".", fixture)
		if err != nil {
			rel = fixture
		}
		if r := runCmd(t, "--config", rel); r.code != 0 {
			t.Errorf("%s: exit %d\n%s%s", name, r.code, r.stdout, r.stderr)
		}
	}
	missing := filepath.Join(dir, "missing.yaml")
	os.WriteFile(missing, []byte("name: r\ncommand: [./nope.sh]\nscenarios: [{name: s, steps: [{ping: {}}]}]\n"), 0o644)
	r := runCmd(t, "--config", missing)
	if want := "starting server nope.sh in " + dir + ": "; r.code != 1 || !strings.Contains(r.stdout, want) {
		t.Errorf("exit %d; want 1 and %q in:\n%s%s", r.code, want, r.stdout, r.stderr)
	}
}

// TestTTYNamesTheCall: on a terminal, the status line names the call the
// run is waiting for, and how long it has waited.
func TestTTYNamesTheCall(t *testing.T) {
	terminalEnv(t)
	p := openPTY(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	waiting := regexp.MustCompile(`running 0/3 steps, 0 failed, [0-9.]+s, now: hang [0-9.]+s`)
	go func() {
		for ctx.Err() == nil && !waiting.MatchString(p.output()) {
			time.Sleep(20 * time.Millisecond)
		}
		cancel()
	}()
	ttyRun(t, ctx, p, false, "--config", "testdata/interrupt.yaml", "--no-color")
	if raw := p.drain(); !waiting.MatchString(raw) {
		t.Errorf("the status line never named the hanging call:\n%q", raw)
	}
	waitNoDemoChildren(t)
}

// TestSignalHurriesShutdown: Ctrl-C during a call to a server that is not
// stuck but does not end at EOF (it honours SIGTERM) exits 130, and the
// server gets SIGTERM well within the 2 s grace an ordinary shutdown gives
// it after EOF: the interrupted run sends it after stdio.HurryGrace.
func TestSignalHurriesShutdown(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	mark := filepath.Join(dir, "mark")
	fx := deafFixture(t, dir, "EOF deaf", "eof-deaf", mark, deafScenarios)
	c := startCLI(t, nil, "--config", fx, "--json", filepath.Join(dir, "r.json"))
	pid := waitMark(t, c, mark)
	began := time.Now()
	c.signal(t, syscall.SIGINT)
	code := c.wait(t, signalBound)
	took := time.Since(began)
	t.Logf("exit %d %s after the signal", code, took.Round(time.Millisecond))
	if code != 130 {
		t.Fatalf("exit %d, want 130\n%s", code, c.stderr.String())
	}
	waitProcessGone(t, pid)
	// The server measured the wait from the end of its input to SIGTERM:
	// what the client decides (stdio.HurryGrace, 250 ms, not the 2 s an
	// ordinary shutdown gives), whatever the rest of a loaded machine's
	// shutdown took.
	gap, err := strconv.Atoi(strings.TrimSpace(readFile(t, mark+".term")))
	if err != nil {
		t.Fatalf("the server did not say when SIGTERM came: %v", err)
	}
	t.Logf("SIGTERM %d ms after the server's input ended", gap)
	if gap >= 2000 {
		t.Errorf("SIGTERM came %d ms after the server's input ended: the server got the whole grace", gap)
	}
	if m := validReport(t, readFile(t, filepath.Join(dir, "r.json"))); m["passed"] != false {
		t.Errorf("passed = %v", m["passed"])
	}
}
