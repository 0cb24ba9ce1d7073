package config

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"
)

// Quick mode's defaults, under the environment and flag layers: mcp-fuzz's
// per-call timeout, and a few scenarios in flight at once (generated
// scenarios of read-only tools are independent).
const (
	QuickTimeoutMs   = 15000
	QuickConcurrency = 4
)

// Target is the server of a quick check as the command line names it: a
// stdio command or a Streamable HTTP endpoint (the endpoint may also come
// from MCPCHECK_URL or Flags, as for a fixture).
type Target struct {
	Command  []string
	Endpoint string
	// Env are variables for the stdio server and Headers headers for the
	// HTTP one, given as values (--env, --header): they are credentials as
	// much as a fixture's envFromEnv and headersFromEnv, and are kept in
	// [Suite.SecretEnv] and [Suite.SecretHeaders].
	Env, Headers map[string]string
	// AllowTools bounds generation; nil means every discovered tool.
	AllowTools []string
}

// Quick builds the suite of a run without a fixture: the target, and the
// generated checks with quick mode's defaults (fuzz, fidelity and probes;
// lifecycle too with generate.includeDestructive), through the same
// settings layers as a fixture and the same checks of the target. Problems
// are [Errors] naming the setting, as for a fixture's flags.
func Quick(t Target, opts LoadOptions) (*Suite, error) {
	errs := errList{}
	s := &Suite{
		Command:       t.Command,
		AllowTools:    t.AllowTools,
		SecretEnv:     t.Env,
		SecretHeaders: t.Headers,
		FieldPos:      map[string]Pos{},
		Generate: &Generate{Fuzz: true, Fidelity: true, Probes: true, Protocol: true, Behaviour: true, FuzzCases: DefaultFuzzCases,
			SlowThresholdMs: defaultSlowThresholdMs, BloatThresholdChars: defaultBloatThresholdChars},
	}
	file := map[string]any{"timeoutMs": QuickTimeoutMs, "concurrency": QuickConcurrency}
	if t.Endpoint != "" {
		file["endpoint"] = t.Endpoint
	}
	if msg := checkURLSetting(t.Endpoint); t.Endpoint != "" && msg != "" {
		errs.addSetting("endpoint", "", "%s", msg)
	}
	if layerSettings(s, file, opts, &errs) {
		s.Command = nil
	}
	s.Generate.Lifecycle = s.Generate.IncludeDestructive
	endpointRefused := slices.ContainsFunc(errs.errs, func(e *Error) bool { return e.Setting == "endpoint" })
	switch {
	case endpointRefused:
	case s.Endpoint == "" && len(s.Command) == 0:
		errs.addSetting("command", "", "no target: give a command or an endpoint")
	case s.Endpoint != "" && len(s.Command) > 0:
		errs.addSetting("endpoint", "", "a quick check has one target: a command or an endpoint, not both")
	case s.Endpoint != "":
		s.Name, s.NameFromServer = "quick check of "+endpointOrigin(s.Endpoint), true
		if len(t.Env) > 0 {
			errs.addSetting("env", "", "applies only to a command target; an endpoint gets headers")
		}
	default:
		s.Name, s.NameFromServer = "quick check of "+commandName(s.Command), true
		if len(t.Headers) > 0 {
			errs.addSetting("headers", "", "applies only to an endpoint target; a command gets env")
		}
	}
	for _, name := range slices.Sorted(maps.Keys(t.Env)) {
		if msg := checkEnvName(name); msg != "" {
			errs.addSetting("env", "", "variable name %s %s", quote(name), msg)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(t.Headers)) {
		if err := CheckHeaderName(name); err != nil {
			errs.addSetting("headers", "", "%v", err)
		}
		if strings.ContainsAny(t.Headers[name], "\r\n\x00") {
			errs.addSetting("headers", "", "header %s: a value may not hold a line break or NUL", display(name))
		}
	}
	if err := errs.err(); err != nil {
		return nil, err
	}
	return s, nil
}

// endpointOrigin is scheme://host[:port] of a checked endpoint: the path may
// carry a tenant or a token and is never shown.
// launchers are programs that run the server rather than being it: the
// title of a quick check names what they run. The value is how many words
// after the program are the launcher's own (go run, uv run, npm exec...).
var launchers = map[string]int{
	"node": 0, "nodejs": 0, "python": 0, "python3": 0, "ruby": 0, "php": 0,
	"perl": 0, "java": 0, "sh": 0, "bash": 0, "env": 0, "npx": 0, "bunx": 0,
	"uvx": 0, "pipx": 1, "bun": 0, "tsx": 0, "ts-node": 0,
	"go": 1, "uv": 1, "deno": 1, "cargo": 1, "dotnet": 1, "npm": 1,
	"pnpm": 1, "yarn": 1, "poetry": 1, "docker": 1,
}

// commandName names the server a command starts: the program's base name,
// or, when the program is a launcher, the first word that is not the
// launcher's own (a flag, a flag's value, or the launcher's subcommand).
// "node dist/index.js" is index.js, "npx -y @scope/server@1.2" is
// @scope/server, "python -m pkg.server" is pkg.server, "go run ./cmd/srv"
// is srv. The server's own name from initialize replaces it once known
// (Suite.NameFromServer).
func commandName(argv []string) string {
	prog := filepath.Base(argv[0])
	base := strings.TrimSuffix(strings.TrimSuffix(prog, ".exe"), ".cmd")
	if v := strings.TrimRight(base, "0123456789."); v == "python" {
		base = v
	}
	skip, ok := launchers[base]
	if !ok {
		return prog
	}
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "-m" && i+1 < len(argv): // python -m module
			return argv[i+1]
		case strings.HasPrefix(a, "-"), base == "env" && strings.Contains(a, "="):
			continue
		case base == "env": // env VAR=x program...: name the program
			return commandName(argv[i:])
		case skip > 0:
			skip--
			continue
		}
		if strings.HasPrefix(a, "@") || (!strings.ContainsAny(a, "/\\") && strings.Contains(a, "@")) {
			// an npm package: @scope/name@version or name@version
			if at := strings.LastIndex(a, "@"); at > 0 {
				a = a[:at]
			}
			return a
		}
		if b := filepath.Base(strings.TrimRight(a, "/\\")); b != "." && b != "" {
			return b
		}
	}
	return prog
}

func endpointOrigin(raw string) string {
	scheme, rest, _ := strings.Cut(raw, "://")
	host, _, _ := strings.Cut(rest, "/")
	return scheme + "://" + host
}
