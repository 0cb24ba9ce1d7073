package config

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const stdioFixture = `name: layered
command: [srv, --flag]
env: {SEED: "1"}
envFromEnv: {KEY: RUNNER_KEY}
cwd: /srv
protocolVersion: "2025-06-18"
timeoutMs: 1000
concurrency: 3
allowTools: [t]
scenarios:
  - name: s
    steps:
      - tool: t
`

// settingsOf picks the layered settings out of a suite.
type settingsOf struct {
	Endpoint, ProtocolVersion                                 string
	TimeoutMs, InitTimeoutMs, DiscoveryTimeoutMs, Concurrency int
	Isolation                                                 Isolation
}

func settingsFrom(s *Suite) settingsOf {
	return settingsOf{s.Endpoint, s.ProtocolVersion, s.TimeoutMs, s.InitTimeoutMs, s.DiscoveryTimeoutMs, s.Concurrency, s.Isolation}
}

func TestSettingsLayers(t *testing.T) {
	fromFile := settingsOf{"", "2025-06-18", 1000, DefaultInitTimeoutMs, DefaultDiscoveryTimeoutMs, 3, IsolationShared}
	for _, c := range []struct {
		name string
		opts LoadOptions
		want settingsOf
	}{
		{"file and defaults", LoadOptions{Environ: []string{}}, fromFile},
		{
			"environment over file",
			LoadOptions{Environ: []string{
				"MCPCHECK_TIMEOUT_MS=2000", "MCPCHECK_INIT_TIMEOUT_MS=3000", "MCPCHECK_DISCOVERY_TIMEOUT_MS=4000",
				"MCPCHECK_CONCURRENCY=4", "MCPCHECK_ISOLATION=scenario", "MCPCHECK_PROTOCOL_VERSION=2024-11-05",
				"MCPCHECK_UNKNOWN=whatever", "PATH=/bin", "MCPCHECK_CONCURRENCY_X=99",
			}},
			settingsOf{"", "2024-11-05", 2000, 3000, 4000, 4, IsolationScenario},
		},
		{
			"empty variables are unset",
			LoadOptions{Environ: []string{"MCPCHECK_TIMEOUT_MS=", "MCPCHECK_URL="}},
			fromFile,
		},
		{
			"flags over environment over file",
			LoadOptions{
				Environ: []string{"MCPCHECK_TIMEOUT_MS=2000", "MCPCHECK_CONCURRENCY=4", "MCPCHECK_ISOLATION=scenario"},
				Flags:   map[string]any{"timeoutMs": 5000, "protocolVersion": "2026-07-28", "isolation": "shared"},
			},
			settingsOf{"", "2026-07-28", 5000, DefaultInitTimeoutMs, DefaultDiscoveryTimeoutMs, 4, IsolationShared},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := Parse("f.yaml", []byte(stdioFixture), c.opts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, settingsFrom(s)); diff != "" {
				t.Errorf("settings (-want +got):\n%s", diff)
			}
			if want := []string{"srv", "--flag"}; !cmp.Equal(s.Command, want) {
				t.Errorf("command = %q, want %q", s.Command, want)
			}
		})
	}
}

func TestSettingsFieldPos(t *testing.T) {
	s, err := Parse("f.yaml", []byte(stdioFixture), LoadOptions{Environ: []string{"MCPCHECK_CONCURRENCY=5"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.FieldPos["concurrency"]; ok {
		t.Errorf("FieldPos keeps concurrency, which came from the environment")
	}
	if p := s.FieldPos["timeoutMs"]; p != (Pos{File: "f.yaml", Line: 7, Col: 1}) {
		t.Errorf("FieldPos[timeoutMs] = %v", p)
	}
}

// TestURLReplacesTarget: --url (or MCPCHECK_URL) turns a stdio fixture into
// an HTTP one, and satisfies the target rule of a fixture without one.
func TestURLReplacesTarget(t *testing.T) {
	for _, opts := range []LoadOptions{
		{Environ: []string{}, Flags: map[string]any{"endpoint": "http://localhost:8080/mcp"}},
		{Environ: []string{"MCPCHECK_URL=http://localhost:8080/mcp"}},
		{Environ: []string{"MCPCHECK_URL=https://elsewhere.example/mcp"}, Flags: map[string]any{"endpoint": "http://localhost:8080/mcp"}},
	} {
		s, err := Parse("f.yaml", []byte(stdioFixture), opts)
		if err != nil {
			t.Fatalf("%+v: %v", opts, err)
		}
		if s.Endpoint != "http://localhost:8080/mcp" || s.Command != nil || s.Env != nil || s.EnvFromEnv != nil || s.Cwd != "" {
			t.Errorf("%+v: target not replaced: endpoint %q command %q env %v envFromEnv %v cwd %q", opts, s.Endpoint, s.Command, s.Env, s.EnvFromEnv, s.Cwd)
		}
		for _, k := range []string{"command", "env", "envFromEnv", "cwd", "endpoint"} {
			if _, ok := s.FieldPos[k]; ok {
				t.Errorf("%+v: FieldPos keeps %s", opts, k)
			}
		}
	}

	// A fixture with no target, or with both, is fine under --url.
	for _, src := range []string{
		"name: n\nallowTools: [t]\nheadersFromEnv: {Authorization: TOKEN}\nscenarios: [{name: s, steps: [{tool: t}]}]\n",
		"name: n\ncommand: [x]\nendpoint: https://a.example/mcp\nallowTools: [t]\nscenarios: [{name: s, steps: [{tool: t}]}]\n",
	} {
		s, err := Parse("f.yaml", []byte(src), LoadOptions{Environ: []string{}, Flags: map[string]any{"endpoint": "https://b.example/mcp"}})
		if err != nil {
			t.Errorf("%q: %v", src, err)
			continue
		}
		if s.Endpoint != "https://b.example/mcp" {
			t.Errorf("endpoint = %q", s.Endpoint)
		}
	}
	// Without it, the same fixture has no target.
	_, err := Parse("f.yaml", []byte("name: n\nallowTools: [t]\nscenarios: [{name: s, steps: [{tool: t}]}]\n"), noEnv)
	if err == nil || err.Error() != "f.yaml:1:1: no target: set command (a stdio server) or endpoint (Streamable HTTP), or pass --url" {
		t.Errorf("no target: %v", err)
	}
}

func TestSettingsErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		opts LoadOptions
		want string
	}{
		{"env not a number", LoadOptions{Environ: []string{"MCPCHECK_TIMEOUT_MS=5s"}}, `MCPCHECK_TIMEOUT_MS: must be an integer, got "5s"`},
		{"env out of range", LoadOptions{Environ: []string{"MCPCHECK_CONCURRENCY=40"}}, `MCPCHECK_CONCURRENCY: must be 1..16, got 40`},
		{"env zero", LoadOptions{Environ: []string{"MCPCHECK_INIT_TIMEOUT_MS=0"}}, `MCPCHECK_INIT_TIMEOUT_MS: must be 1..86400000, got 0`},
		{"env protocol", LoadOptions{Environ: []string{"MCPCHECK_PROTOCOL_VERSION=2020-01-01"}}, `MCPCHECK_PROTOCOL_VERSION: must be one of 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05; got "2020-01-01"`},
		{"env isolation", LoadOptions{Environ: []string{"MCPCHECK_ISOLATION=none"}}, `MCPCHECK_ISOLATION: must be shared or scenario; got "none"`},
		{"env url", LoadOptions{Environ: []string{"MCPCHECK_URL=http://example.com/mcp"}}, `MCPCHECK_URL: plain http is only allowed to localhost, 127.0.0.1 or [::1], not example.com; use https`},
		{"flag concurrency", LoadOptions{Environ: []string{}, Flags: map[string]any{"concurrency": 40}}, `setting concurrency: must be 1..16, got 40`},
		{"flag negative timeout", LoadOptions{Environ: []string{}, Flags: map[string]any{"timeoutMs": -1}}, `setting timeoutMs: must be 1..86400000, got -1`},
		{"flag discovery timeout", LoadOptions{Environ: []string{}, Flags: map[string]any{"discoveryTimeoutMs": MaxTimeoutMs + 1}}, `setting discoveryTimeoutMs: must be 1..86400000, got 86400001`},
		{"flag init timeout", LoadOptions{Environ: []string{}, Flags: map[string]any{"initTimeoutMs": -5}}, `setting initTimeoutMs: must be 1..86400000, got -5`},
		{"flag protocol", LoadOptions{Environ: []string{}, Flags: map[string]any{"protocolVersion": "latest"}}, `setting protocolVersion: must be one of 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05; got "latest"`},
		{"flag isolation", LoadOptions{Environ: []string{}, Flags: map[string]any{"isolation": "Scenario"}}, `setting isolation: must be shared or scenario; got "Scenario"`},
		{"flag url", LoadOptions{Environ: []string{}, Flags: map[string]any{"endpoint": "https://u:p@example.com/mcp"}}, `setting endpoint: URL must not contain credentials (user:password@); send them with headersFromEnv`},
		{
			"both bad: env and flag errors, flags sorted by message",
			LoadOptions{Environ: []string{"MCPCHECK_CONCURRENCY=x"}, Flags: map[string]any{"concurrency": 17, "timeoutMs": -2}},
			"setting concurrency: must be 1..16, got 17\nsetting timeoutMs: must be 1..86400000, got -2\nMCPCHECK_CONCURRENCY: must be an integer, got \"x\"",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("f.yaml", []byte(stdioFixture), c.opts)
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("want ErrInvalid, got %v", err)
			}
			if err.Error() != c.want {
				t.Errorf("error:\n got %s\nwant %s", err, c.want)
			}
		})
	}
}

// TestSettingsWithFileErrors: problems from the environment come before the
// fixture's own, which keep their positions.
func TestSettingsWithFileErrors(t *testing.T) {
	src := "name: n\ncommand: [x]\nallowTools: [t]\nscenarios: [{name: s, steps: [{tool: u}]}]\n"
	_, err := Parse("f.yaml", []byte(src), LoadOptions{Environ: []string{"MCPCHECK_CONCURRENCY=0"}})
	want := "MCPCHECK_CONCURRENCY: must be 1..16, got 0\nf.yaml:4:38: scenarios[0].steps[0].tool: \"u\" is not in allowTools"
	if err == nil || err.Error() != want {
		t.Errorf("error:\n got %v\nwant %s", err, want)
	}
}

func TestEnvironDefaultsToProcess(t *testing.T) {
	t.Setenv("MCPCHECK_CONCURRENCY", "7")
	s, err := Parse("f.yaml", []byte(stdioFixture), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Concurrency != 7 {
		t.Errorf("concurrency = %d, want 7 from the process environment", s.Concurrency)
	}
}
