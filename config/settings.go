package config

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/knadh/koanf/providers/confmap"
	"github.com/knadh/koanf/providers/env/v2"
	"github.com/knadh/koanf/v2"
)

// Environment variables that override a fixture's settings. A variable that
// is unset or empty leaves the setting alone.
const (
	EnvURL                = "MCPCHECK_URL"
	EnvProtocolVersion    = "MCPCHECK_PROTOCOL_VERSION"
	EnvTimeoutMs          = "MCPCHECK_TIMEOUT_MS"
	EnvInitTimeoutMs      = "MCPCHECK_INIT_TIMEOUT_MS"
	EnvDiscoveryTimeoutMs = "MCPCHECK_DISCOVERY_TIMEOUT_MS"
	EnvConcurrency        = "MCPCHECK_CONCURRENCY"
	EnvIsolation          = "MCPCHECK_ISOLATION"
)

// MaxTimeoutMs is the largest time limit a fixture, variable or flag may set
// (24 hours); anything longer is a mistake, and the bound keeps conversions
// to time.Duration far from overflow.
const MaxTimeoutMs = 86400000

// LoadOptions are the layers on top of the fixture file.
type LoadOptions struct {
	// Environ is the runner's environment as "KEY=value" entries, read for
	// the MCPCHECK_* settings. Nil means os.Environ(); pass an empty slice
	// to ignore the environment.
	Environ []string
	// Overrides are the command-line flags; they win over the environment
	// and the file.
	Overrides Overrides
}

// Overrides are settings given on the command line. A zero field is not
// set. Errors name the flags as --url, --protocol-version, --timeout-ms,
// --init-timeout-ms, --discovery-timeout-ms, --concurrency and --isolation.
//
// An Endpoint (from --url, or MCPCHECK_URL) replaces the fixture's target:
// its command, env, envFromEnv and cwd are dropped and the server is reached
// over Streamable HTTP instead.
type Overrides struct {
	Endpoint           string
	ProtocolVersion    string
	TimeoutMs          int
	InitTimeoutMs      int
	DiscoveryTimeoutMs int
	Concurrency        int
	Isolation          string
}

// A setting is one key that can come from the file, the environment or a
// flag. It is also the key in every koanf layer.
type setting struct {
	key  string
	env  string
	flag string
	// isInt settings are parsed from the environment as integers.
	isInt bool
	// check reports why a value is not acceptable, or "".
	check func(v any) string
}

var settings = []setting{
	{key: "endpoint", env: EnvURL, flag: "--url", check: checkURLSetting},
	{key: "protocolVersion", env: EnvProtocolVersion, flag: "--protocol-version", check: checkProtocol},
	{key: "timeoutMs", env: EnvTimeoutMs, flag: "--timeout-ms", isInt: true, check: checkRange(1, MaxTimeoutMs)},
	{key: "initTimeoutMs", env: EnvInitTimeoutMs, flag: "--init-timeout-ms", isInt: true, check: checkRange(1, MaxTimeoutMs)},
	{key: "discoveryTimeoutMs", env: EnvDiscoveryTimeoutMs, flag: "--discovery-timeout-ms", isInt: true, check: checkRange(1, MaxTimeoutMs)},
	{key: "concurrency", env: EnvConcurrency, flag: "--concurrency", isInt: true, check: checkRange(1, MaxConcurrency)},
	{key: "isolation", env: EnvIsolation, flag: "--isolation", check: checkIsolation},
}

func checkURLSetting(v any) string {
	if err := CheckEndpoint(v.(string)); err != nil {
		return err.Error()
	}
	return ""
}

func checkProtocol(v any) string {
	if slices.Contains(SupportedProtocolVersions, v.(string)) {
		return ""
	}
	return fmt.Sprintf("must be one of %s; got %s", strings.Join(SupportedProtocolVersions, ", "), quote(v.(string)))
}

func checkIsolation(v any) string {
	if s := v.(string); s == IsolationShared || s == IsolationScenario {
		return ""
	}
	return fmt.Sprintf("must be %s or %s; got %s", IsolationShared, IsolationScenario, quote(v.(string)))
}

func checkRange(lo, hi int) func(any) string {
	return func(v any) string {
		if n := v.(int); n < lo || n > hi {
			return fmt.Sprintf("must be %d..%d, got %d", lo, hi, n)
		}
		return ""
	}
}

// layerSettings merges the settings of the file, the environment and the
// flags (each later layer wins) over the defaults, validates the values that
// did not come from the file (the schema has checked those), and stores the
// result in s. It reports whether the endpoint came from the environment or
// a flag, which replaces the fixture's target.
func layerSettings(s *Suite, file map[string]any, opts LoadOptions, errs *errList) (endpointOverridden bool) {
	k := koanf.New(".")
	load := func(layer map[string]any) {
		// confmap never fails to read a map.
		_ = k.Load(confmap.Provider(layer, ""), nil)
	}
	load(map[string]any{
		"endpoint":           "",
		"protocolVersion":    DefaultProtocolVersion,
		"timeoutMs":          DefaultTimeoutMs,
		"initTimeoutMs":      DefaultInitTimeoutMs,
		"discoveryTimeoutMs": DefaultDiscoveryTimeoutMs,
		"concurrency":        DefaultConcurrency,
		"isolation":          IsolationShared,
	})
	load(file)
	envLayer := environmentLayer(opts.Environ, errs)
	load(envLayer)
	flagLayer := flagLayer(opts.Overrides, errs)
	load(flagLayer)

	s.Endpoint = k.String("endpoint")
	s.ProtocolVersion = k.String("protocolVersion")
	s.TimeoutMs = k.Int("timeoutMs")
	s.InitTimeoutMs = k.Int("initTimeoutMs")
	s.DiscoveryTimeoutMs = k.Int("discoveryTimeoutMs")
	s.Concurrency = k.Int("concurrency")
	s.Isolation = k.String("isolation")

	// A setting that came from outside the file has no place in it.
	for _, st := range settings {
		_, fromEnv := envLayer[st.key]
		_, fromFlag := flagLayer[st.key]
		if fromEnv || fromFlag {
			delete(s.FieldPos, st.key)
		}
	}
	_, fromEnv := envLayer["endpoint"]
	_, fromFlag := flagLayer["endpoint"]
	return fromEnv || fromFlag
}

// environmentLayer reads the MCPCHECK_* variables through koanf's env
// provider, keyed by setting, keeping only valid values.
func environmentLayer(environ []string, errs *errList) map[string]any {
	if environ == nil {
		environ = os.Environ()
	}
	byEnv := map[string]setting{}
	for _, st := range settings {
		byEnv[st.env] = st
	}
	ek := koanf.New(".")
	provider := env.Provider("", env.Opt{
		Prefix: "MCPCHECK_",
		TransformFunc: func(name, value string) (string, any) {
			if _, ok := byEnv[name]; !ok || value == "" {
				return "", nil
			}
			return name, value
		},
		EnvironFunc: func() []string { return environ },
	})
	// The env provider never fails to read.
	_ = ek.Load(provider, nil)
	layer := map[string]any{}
	for _, st := range settings {
		if !ek.Exists(st.env) {
			continue
		}
		raw := ek.String(st.env)
		var v any = raw
		if st.isInt {
			n, err := strconv.Atoi(raw)
			if err != nil {
				errs.add(Pos{}, "%s: must be an integer, got %s", st.env, quote(raw))
				continue
			}
			v = n
		}
		if msg := st.check(v); msg != "" {
			errs.add(Pos{}, "%s: %s", st.env, msg)
			continue
		}
		layer[st.key] = v
	}
	return layer
}

// flagLayer keeps the set, valid overrides, keyed by setting.
func flagLayer(o Overrides, errs *errList) map[string]any {
	given := map[string]any{
		"endpoint":           o.Endpoint,
		"protocolVersion":    o.ProtocolVersion,
		"timeoutMs":          o.TimeoutMs,
		"initTimeoutMs":      o.InitTimeoutMs,
		"discoveryTimeoutMs": o.DiscoveryTimeoutMs,
		"concurrency":        o.Concurrency,
		"isolation":          o.Isolation,
	}
	layer := map[string]any{}
	for _, st := range settings {
		v := given[st.key]
		if v == "" || v == 0 {
			continue
		}
		if msg := st.check(v); msg != "" {
			errs.add(Pos{}, "%s: %s", st.flag, msg)
			continue
		}
		layer[st.key] = v
	}
	return layer
}
