package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/runner"
)

// Quick-mode defaults: mcp-fuzz's per-call timeout, and a few scenarios in
// flight at once (generated scenarios of read-only tools are independent).
const (
	quickTimeoutMs = 15000
	quickJobs      = 4
)

// quickSuite builds the suite of a run without a fixture: the target from
// `-- COMMAND ARGS...` or --url, every discovered tool (bounded by
// --allow-tools), and the generated checks with their defaults — fuzz,
// fidelity and probes; lifecycle with --include-destructive; concurrency
// with --concurrency N.
//
// --env and --header values may be credentials: they reach the server
// through the same path as a fixture's envFromEnv and headersFromEnv, so
// they are redacted from every output.
func quickSuite(f *flags, opts *runner.Options) (*config.Suite, error) {
	s := &config.Suite{
		ProtocolVersion:    config.DefaultProtocolVersion,
		TimeoutMs:          quickTimeoutMs,
		InitTimeoutMs:      config.DefaultInitTimeoutMs,
		DiscoveryTimeoutMs: config.DefaultDiscoveryTimeoutMs,
		Concurrency:        quickJobs,
		Isolation:          config.IsolationShared,
		EnvFromEnv:         map[string]string{},
		HeadersFromEnv:     map[string]string{},
	}
	if len(f.protocols) > 0 {
		s.ProtocolVersion = f.protocols[0]
	}
	if f.timeout > 0 {
		s.TimeoutMs = int(f.timeout.Milliseconds())
	}
	if f.jobs > 0 {
		s.Concurrency = f.jobs
	}
	environ := opts.Environ
	if environ == nil {
		environ = os.Environ()
	}
	environ = append([]string(nil), environ...)
	switch {
	case f.url != "" && len(f.command) > 0:
		return nil, fmt.Errorf("give -- COMMAND or --url, not both")
	case f.url != "":
		if err := config.CheckEndpoint(f.url); err != nil {
			return nil, fmt.Errorf("--url: %w", err)
		}
		if len(f.env) > 0 {
			return nil, fmt.Errorf("--env is for a server started with -- COMMAND; an --url server gets --header")
		}
		s.Endpoint = f.url
		s.Name = "quick check of " + origin(f.url)
		for i, h := range f.headers {
			k, v, _ := strings.Cut(h, "=")
			if err := config.CheckHeaderName(k); err != nil {
				return nil, fmt.Errorf("--header: %w", err)
			}
			name := "MCPCHECK_QUICK_HEADER_" + strconv.Itoa(i)
			s.HeadersFromEnv[k] = name
			environ = append(environ, name+"="+v)
		}
	default:
		if len(f.headers) > 0 {
			return nil, fmt.Errorf("--header is for an --url server; a server started with -- COMMAND gets --env")
		}
		s.Command = f.command
		s.Name = "quick check of " + filepath.Base(f.command[0])
		for i, e := range f.env {
			k, v, _ := strings.Cut(e, "=")
			name := "MCPCHECK_QUICK_ENV_" + strconv.Itoa(i)
			s.EnvFromEnv[k] = name
			environ = append(environ, name+"="+v)
		}
	}
	opts.Environ = environ
	if f.allowTools != "" {
		for _, t := range strings.Split(f.allowTools, ",") {
			if t = strings.TrimSpace(t); t != "" {
				s.AllowTools = append(s.AllowTools, t)
			}
		}
	}
	g := &config.Generate{Fuzz: true, Fidelity: true, Probes: true, Lifecycle: f.includeDestructive}
	applyGenerateFlags(f, g)
	s.Generate = g
	return s, nil
}

func origin(raw string) string {
	if i := strings.Index(raw, "://"); i >= 0 {
		if j := strings.IndexByte(raw[i+3:], '/'); j >= 0 {
			return raw[:i+3+j]
		}
	}
	return raw
}
