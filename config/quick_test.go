package config

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestQuickLayers: quick mode has defaults of its own and the same
// environment and flag layers as a fixture; --env and --header values are
// kept as secrets.
func TestQuickLayers(t *testing.T) {
	target := Target{Command: []string{"/usr/bin/node", "server.js"}, Env: map[string]string{"API_KEY": "s3cret"}}
	for _, c := range []struct {
		name string
		opts LoadOptions
		want settingsOf
	}{
		{"defaults", LoadOptions{Environ: []string{}}, settingsOf{"", DefaultProtocolVersion, QuickTimeoutMs, DefaultInitTimeoutMs, DefaultDiscoveryTimeoutMs, QuickConcurrency, IsolationShared}},
		{"environment", LoadOptions{Environ: []string{"MCPCHECK_TIMEOUT_MS=2000", "MCPCHECK_CONCURRENCY=2"}},
			settingsOf{"", DefaultProtocolVersion, 2000, DefaultInitTimeoutMs, DefaultDiscoveryTimeoutMs, 2, IsolationShared}},
		{"flags over environment", LoadOptions{Environ: []string{"MCPCHECK_TIMEOUT_MS=2000"}, Flags: map[string]any{"timeoutMs": 3000, "protocolVersion": "2026-07-28"}},
			settingsOf{"", "2026-07-28", 3000, DefaultInitTimeoutMs, DefaultDiscoveryTimeoutMs, QuickConcurrency, IsolationShared}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := Quick(target, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, settingsFrom(s)); diff != "" {
				t.Errorf("settings (-want +got):\n%s", diff)
			}
			if s.Name != "quick check of server.js" || !s.NameFromServer || s.SecretEnv["API_KEY"] != "s3cret" || s.Env != nil || s.EnvFromEnv != nil {
				t.Errorf("suite = name %q secretEnv %v env %v envFromEnv %v", s.Name, s.SecretEnv, s.Env, s.EnvFromEnv)
			}
			if g := s.Generate; !g.Fuzz || !g.Fidelity || !g.Probes || g.Lifecycle || g.SlowThresholdMs != defaultSlowThresholdMs {
				t.Errorf("generate = %+v", g)
			}
		})
	}
}

func TestQuickGenerateFlags(t *testing.T) {
	s, err := Quick(Target{Command: []string{"srv"}}, LoadOptions{Environ: []string{}, Flags: map[string]any{
		"generate.includeDestructive": true, "generate.seed": int64(-3), "generate.concurrency": 3,
		"generate.priceModel": "claude-haiku-4-5", "generate.failUnder.latency": 90.0,
		"generate.fuzzCases": 7, "generate.failUnder.protocolRobustness": 95.0,
	}})
	if err != nil {
		t.Fatal(err)
	}
	g := s.Generate
	if !g.IncludeDestructive || !g.Lifecycle || g.Seed != -3 || g.Concurrency != 3 || g.PriceModel != "claude-haiku-4-5" || g.FailUnder[ScoreLatency] != 90 ||
		g.FuzzCases != 7 || g.FailUnder[ScoreProtocol] != 95 || !g.Protocol {
		t.Errorf("generate = %+v", g)
	}
	// Quick mode sends the protocol probes unless told not to.
	s, err = Quick(Target{Command: []string{"srv"}}, LoadOptions{Environ: []string{}, Flags: map[string]any{"generate.protocol": false}})
	if err != nil || s.Generate.Protocol || s.Generate.FuzzCases != DefaultFuzzCases {
		t.Errorf("generate.protocol false: %v, %+v", err, s.Generate)
	}
}

// TestGenerateFlagsOverFixture: flags change a fixture's generate block key
// by key; failUnder thresholds merge.
func TestGenerateFlagsOverFixture(t *testing.T) {
	src := "name: n\ncommand: [x]\nallowTools: [t]\ngenerate: {seed: 5, failUnder: {latency: 50, lifecycle: 60}}\n"
	s, err := Parse("f.yaml", []byte(src), LoadOptions{Environ: []string{}, Flags: map[string]any{"generate.failUnder.latency": 80.0, "generate.slowThresholdMs": 100}})
	if err != nil {
		t.Fatal(err)
	}
	g := s.Generate
	if g.Seed != 5 || g.SlowThresholdMs != 100 || !cmp.Equal(g.FailUnder, map[ScoreName]float64{ScoreLatency: 80, ScoreLifecycle: 60}) {
		t.Errorf("generate = %+v", g)
	}
	// Without a generate block, generate flags have nothing to change.
	s, err = Parse("f.yaml", []byte(stdioFixture), LoadOptions{Environ: []string{}, Flags: map[string]any{"generate.seed": int64(1)}})
	if err != nil || s.Generate != nil {
		t.Errorf("no generate block: %v, %+v", err, s.Generate)
	}
}

func TestQuickErrors(t *testing.T) {
	for _, c := range []struct {
		name   string
		target Target
		opts   LoadOptions
		want   string
	}{
		{"no target", Target{}, LoadOptions{Environ: []string{}}, "setting command: no target: give a command or an endpoint"},
		{"plain http", Target{}, LoadOptions{Environ: []string{}, Flags: map[string]any{"endpoint": "http://example.com/mcp"}}, "setting endpoint: plain http is only allowed to localhost, 127.0.0.1 or [::1], not example.com; use https"},
		{"protocol header", Target{Headers: map[string]string{"Mcp-Session-Id": "x"}}, LoadOptions{Environ: []string{}, Flags: map[string]any{"endpoint": "https://example.com/mcp"}}, "setting headers: header Mcp-Session-Id is set by the MCP transport and cannot be overridden"},
		{"header value", Target{Headers: map[string]string{"X-Key": "a\nb"}}, LoadOptions{Environ: []string{}, Flags: map[string]any{"endpoint": "https://example.com/mcp"}}, "setting headers: header X-Key: a value may not hold a line break or NUL"},
		{"env for an endpoint", Target{Env: map[string]string{"A": "1"}}, LoadOptions{Environ: []string{"MCPCHECK_URL=https://example.com/mcp"}}, "setting env: applies only to a command target; an endpoint gets headers"},
		{"jobs", Target{Command: []string{"x"}}, LoadOptions{Environ: []string{}, Flags: map[string]any{"concurrency": 0}}, "setting concurrency: must be 1..16, got 0"},
		{"price model", Target{Command: []string{"x"}}, LoadOptions{Environ: []string{}, Flags: map[string]any{"generate.priceModel": "gpt-9"}}, `setting generate.priceModel: unknown model "gpt-9"; known models: claude-haiku-4-5, claude-opus-4-1, claude-opus-4-5, claude-sonnet-4-5, claude-sonnet-5`},
		{"env variable", Target{Command: []string{"x"}}, LoadOptions{Environ: []string{"MCPCHECK_TIMEOUT_MS=soon"}}, `MCPCHECK_TIMEOUT_MS: must be an integer, got "soon"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Quick(c.target, c.opts)
			if !errors.Is(err, ErrInvalid) || err.Error() != c.want {
				t.Errorf("error:\n got %v\nwant %s", err, c.want)
			}
		})
	}
}

// TestCommandName checks that a quick check's title names the server a
// command starts, not the interpreter or launcher that starts it.
func TestCommandName(t *testing.T) {
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"./my-server"}, "my-server"},
		{[]string{"/usr/bin/node", "dist/index.js"}, "index.js"},
		{[]string{"node", "--enable-source-maps", "build/server.mjs", "--port", "3"}, "server.mjs"},
		{[]string{"npx", "-y", "@modelcontextprotocol/server-memory@2025.4.25"}, "@modelcontextprotocol/server-memory"},
		{[]string{"npx", "some-server@1.0.0", "/tmp"}, "some-server"},
		{[]string{"python3", "-m", "weather.server"}, "weather.server"},
		{[]string{"python3.12", "srv.py"}, "srv.py"},
		{[]string{"uv", "run", "server.py"}, "server.py"},
		{[]string{"uvx", "mcp-server-fetch"}, "mcp-server-fetch"},
		{[]string{"go", "run", "./cmd/srv/"}, "srv"},
		{[]string{"env", "A=1", "node", "x.js"}, "x.js"},
		{[]string{"node"}, "node"},
	} {
		if got := commandName(c.argv); got != c.want {
			t.Errorf("commandName(%q) = %q, want %q", c.argv, got, c.want)
		}
	}
}
