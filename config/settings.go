package config

import (
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
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
	EnvTransport          = "MCPCHECK_TRANSPORT"
	EnvFailOn             = "MCPCHECK_FAIL_ON"
	EnvMaxMessageBytes    = "MCPCHECK_MAX_MESSAGE_BYTES"
)

// MaxTimeoutMs is the largest time limit a fixture, variable or flag may set
// (24 hours); anything longer is a mistake, and the bound keeps conversions
// to time.Duration far from overflow.
const MaxTimeoutMs = 86400000

// LoadOptions are the layers on top of the fixture file (or of quick mode's
// defaults): the environment, then the command line.
type LoadOptions struct {
	// Environ is the runner's environment as "KEY=value" entries, read for
	// the MCPCHECK_* settings. Nil means os.Environ(); pass an empty slice
	// to ignore the environment.
	Environ []string
	// Flags are settings given on the command line, keyed by the fixture key
	// they set, dotted below generate: "timeoutMs" → 5000, "generate.seed" →
	// int64(7), "generate.failUnder.latency" → 90.0. They win over the
	// environment and the file. An endpoint given here (or in MCPCHECK_URL)
	// replaces the fixture's target: its command, env, envFromEnv and cwd
	// are dropped and the server is reached over Streamable HTTP instead.
	// Settings under generate apply only to a suite that has a generate
	// block.
	Flags map[string]any
}

// settingKind is the Go type of a setting's value.
type settingKind uint8

const (
	stringSetting  settingKind = iota
	intSetting                 // int
	int64Setting               // int64
	boolSetting                // bool
	percentSetting             // float64, 0..100
)

// A setting is one key that can come from the file, the environment or a
// flag. Its key is the fixture's own, dotted below generate; it is also the
// key in every koanf layer.
type setting struct {
	key  string
	env  string // the MCPCHECK_ variable that sets it, if any
	kind settingKind
	// isInt settings are read from the file's top level as integers.
	isInt bool
	// check reports why a value is not acceptable, or "".
	check func(v any) string
}

var settings = func() []setting {
	list := []setting{
		{key: "endpoint", env: EnvURL, check: checkURLSetting},
		{key: "protocolVersion", env: EnvProtocolVersion, check: checkProtocol},
		{key: "timeoutMs", env: EnvTimeoutMs, kind: intSetting, isInt: true, check: checkRange(1, MaxTimeoutMs)},
		{key: "initTimeoutMs", env: EnvInitTimeoutMs, kind: intSetting, isInt: true, check: checkRange(1, MaxTimeoutMs)},
		{key: "discoveryTimeoutMs", env: EnvDiscoveryTimeoutMs, kind: intSetting, isInt: true, check: checkRange(1, MaxTimeoutMs)},
		{key: "maxMessageBytes", env: EnvMaxMessageBytes, kind: intSetting, isInt: true, check: checkRange(MinMessageBytes, MaxMessageBytes)},
		{key: "concurrency", env: EnvConcurrency, kind: intSetting, isInt: true, check: checkRange(1, MaxConcurrency)},
		{key: "isolation", env: EnvIsolation, check: checkEither(IsolationShared, IsolationScenario)},
		{key: "retries", kind: intSetting, isInt: true, check: checkRange(0, MaxRetries)},
		{key: "transport", env: EnvTransport, check: checkEither(TransportHTTP, TransportSSE)},
		{key: "contract"},
		{key: "failOn", env: EnvFailOn, check: checkFailOn},
		{key: "generate.includeDestructive", kind: boolSetting},
		{key: "generate.offeredInputs", kind: boolSetting},
		{key: "generate.protocol", kind: boolSetting},
		{key: "generate.behaviour", kind: boolSetting},
		{key: "generate.fuzzCases", kind: intSetting, check: checkRange(1, 1000)},
		{key: "generate.seed", kind: int64Setting},
		{key: "generate.concurrency", kind: intSetting, check: checkGenerateConcurrency},
		{key: "generate.slowThresholdMs", kind: intSetting, check: checkRange(1, math.MaxInt32)},
		{key: "generate.bloatThresholdChars", kind: intSetting, check: checkRange(1, math.MaxInt32)},
		{key: "generate.priceModel", check: checkPriceModel},
	}
	for _, name := range ScoreNames {
		list = append(list, setting{key: "generate.failUnder." + string(name), kind: percentSetting, check: checkPercent})
	}
	return list
}()

// valid checks v, recording why it is not acceptable as a value from the
// variable env (or the command line when env is "").
func (st setting) valid(v any, env string, errs *errList) bool {
	if st.check == nil {
		return true
	}
	msg := st.check(v)
	if msg != "" {
		errs.addSetting(st.key, env, "%s", msg)
	}
	return msg == ""
}

func settingByKey(key string) (setting, bool) {
	i := slices.IndexFunc(settings, func(st setting) bool { return st.key == key })
	if i < 0 {
		return setting{}, false
	}
	return settings[i], true
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

// checkEither accepts a or b.
func checkEither[T ~string](a, b T) func(any) string {
	return func(v any) string {
		if s := T(v.(string)); s == a || s == b {
			return ""
		}
		return fmt.Sprintf("must be %s or %s; got %s", a, b, quote(v.(string)))
	}
}

func checkFailOn(v any) string {
	if slices.Contains(FailOns, FailOn(v.(string))) {
		return ""
	}
	return fmt.Sprintf("must be one of %s; got %s", Join(FailOns, ", "), quote(v.(string)))
}

func checkRange(lo, hi int) func(any) string {
	return func(v any) string {
		if n := v.(int); n < lo || n > hi {
			return fmt.Sprintf("must be %d..%d, got %d", lo, hi, n)
		}
		return ""
	}
}

func checkGenerateConcurrency(v any) string {
	if n := v.(int); n != 0 && (n < 2 || n > MaxConcurrency) {
		return fmt.Sprintf("must be 2..%d (or 0, off), got %d", MaxConcurrency, n)
	}
	return ""
}

func checkPriceModel(v any) string {
	if known := PriceModels(); !slices.Contains(known, v.(string)) {
		return fmt.Sprintf("unknown model %s; known models: %s", quote(v.(string)), strings.Join(known, ", "))
	}
	return ""
}

func checkPercent(v any) string {
	if f := v.(float64); !(f >= 0 && f <= 100) {
		return fmt.Sprintf("must be a percentage 0..100, got %v", f)
	}
	return ""
}

// layerSettings merges the settings of the file, the environment and the
// flags (each later layer wins) over the defaults, validates the values that
// did not come from the file (the schema has checked those), and stores the
// result in s. It reports whether the endpoint came from the environment or
// a flag, which replaces the fixture's target.
func layerSettings(s *Suite, file map[string]any, opts LoadOptions, errs *errList) (endpointOverridden bool) {
	k := koanf.New(".")
	load := func(layer map[string]any) {
		// confmap never fails to read a map; keys are unflattened at ".".
		_ = k.Load(confmap.Provider(layer, "."), nil)
	}
	load(map[string]any{
		"endpoint":           "",
		"protocolVersion":    DefaultProtocolVersion,
		"timeoutMs":          DefaultTimeoutMs,
		"initTimeoutMs":      DefaultInitTimeoutMs,
		"discoveryTimeoutMs": DefaultDiscoveryTimeoutMs,
		"concurrency":        DefaultConcurrency,
		"maxMessageBytes":    DefaultMaxMessageBytes,
		"isolation":          string(IsolationShared),
	})
	if g := s.Generate; g != nil {
		load(generateLayer(g))
	}
	load(file)
	envLayer := environmentLayer(opts.Environ, errs)
	load(envLayer)
	flagLayer := flagLayer(opts.Flags, s.Generate != nil, errs)
	load(flagLayer)
	// outside reports whether the environment or a flag set key.
	outside := func(key string) bool {
		_, env := envLayer[key]
		_, flag := flagLayer[key]
		return env || flag
	}

	s.Endpoint = k.String("endpoint")
	s.ProtocolVersion = k.String("protocolVersion")
	if outside("protocolVersion") || len(s.ProtocolVersions) < 2 {
		// One version named outside the file replaces the file's list.
		s.ProtocolVersions = nil
	}
	s.TimeoutMs = k.Int("timeoutMs")
	s.InitTimeoutMs = k.Int("initTimeoutMs")
	s.DiscoveryTimeoutMs = k.Int("discoveryTimeoutMs")
	s.Concurrency = k.Int("concurrency")
	s.MaxMessageBytes = k.Int("maxMessageBytes")
	s.Isolation = Isolation(k.String("isolation"))
	s.Retries = k.Int("retries")
	s.Transport = Transport(k.String("transport"))
	s.FailOn = FailOn(k.String("failOn"))
	s.Contract = k.String("contract")
	// A contract named in the file is beside the fixture; one given on the
	// command line is relative to where mcpcheck runs.
	if _, fromFlag := flagLayer["contract"]; !fromFlag && s.Contract != "" && s.File != "" && !filepath.IsAbs(s.Contract) {
		s.Contract = filepath.Join(filepath.Dir(s.File), s.Contract)
	}
	if g := s.Generate; g != nil {
		g.IncludeDestructive = k.Bool("generate.includeDestructive")
		g.NoOfferedInputs = !k.Bool("generate.offeredInputs")
		g.Protocol = k.Bool("generate.protocol")
		g.Behaviour = k.Bool("generate.behaviour")
		g.FuzzCases = k.Int("generate.fuzzCases")
		g.Seed = k.Int64("generate.seed")
		g.Concurrency = k.Int("generate.concurrency")
		g.SlowThresholdMs = k.Int("generate.slowThresholdMs")
		g.BloatThresholdChars = k.Int("generate.bloatThresholdChars")
		g.PriceModel = k.String("generate.priceModel")
		g.FailUnder = nil
		for _, name := range ScoreNames {
			if key := "generate.failUnder." + string(name); k.Exists(key) {
				if g.FailUnder == nil {
					g.FailUnder = map[ScoreName]float64{}
				}
				g.FailUnder[name] = k.Float64(key)
			}
		}
	}

	// A setting that came from outside the file has no place in it.
	for _, layer := range []map[string]any{envLayer, flagLayer} {
		for key := range layer {
			delete(s.FieldPos, key)
		}
	}
	return outside("endpoint")
}

// generateLayer is a decoded generate block's settings, as a layer.
func generateLayer(g *Generate) map[string]any {
	layer := map[string]any{
		"generate.includeDestructive":  g.IncludeDestructive,
		"generate.offeredInputs":       !g.NoOfferedInputs,
		"generate.protocol":            g.Protocol,
		"generate.behaviour":           g.Behaviour,
		"generate.fuzzCases":           g.FuzzCases,
		"generate.seed":                g.Seed,
		"generate.concurrency":         g.Concurrency,
		"generate.slowThresholdMs":     g.SlowThresholdMs,
		"generate.bloatThresholdChars": g.BloatThresholdChars,
		"generate.priceModel":          g.PriceModel,
	}
	for name, v := range g.FailUnder {
		layer["generate.failUnder."+string(name)] = v
	}
	return layer
}

// environmentLayer reads the MCPCHECK_* variables through koanf's env
// provider, keyed by setting, keeping only valid values.
func environmentLayer(environ []string, errs *errList) map[string]any {
	if environ == nil {
		environ = os.Environ()
	}
	byEnv := map[string]setting{}
	for _, st := range settings {
		if st.env != "" {
			byEnv[st.env] = st
		}
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
		if st.env == "" || !ek.Exists(st.env) {
			continue
		}
		raw := ek.String(st.env)
		var v any = raw
		if st.kind == intSetting {
			n, err := strconv.Atoi(raw)
			if err != nil {
				errs.addSetting(st.key, st.env, "must be an integer, got %s", quote(raw))
				continue
			}
			v = n
		}
		if st.valid(v, st.env, errs) {
			layer[st.key] = v
		}
	}
	return layer
}

// flagLayer keeps the valid flag settings. Settings under generate count
// only for a suite with a generate block.
func flagLayer(flags map[string]any, generate bool, errs *errList) map[string]any {
	layer := map[string]any{}
	for _, key := range slices.Sorted(maps.Keys(flags)) {
		st, ok := settingByKey(key)
		if !ok {
			errs.addSetting(key, "", "is not a setting the command line can set")
			continue
		}
		if strings.HasPrefix(key, "generate.") && !generate {
			continue
		}
		v := flags[key]
		if !kindMatches(st.kind, v) {
			errs.addSetting(key, "", "has a value of type %T", v)
			continue
		}
		if st.valid(v, "", errs) {
			layer[key] = v
		}
	}
	return layer
}

func kindMatches(k settingKind, v any) bool {
	switch v.(type) {
	case string:
		return k == stringSetting
	case int:
		return k == intSetting
	case int64:
		return k == int64Setting
	case bool:
		return k == boolSetting
	case float64:
		return k == percentSetting
	}
	return false
}
