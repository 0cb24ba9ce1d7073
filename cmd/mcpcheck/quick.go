package main

import (
	"fmt"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/runner"
)

// quickSuite builds the suite of a run without a fixture (see config.Quick)
// from `-- COMMAND ARGS...` or --url, --env, --header and --allow-tools.
func quickSuite(f *flags, opts *runner.Options) (*config.Suite, error) {
	switch {
	case f.set["url"] && len(f.command) > 0:
		return nil, fmt.Errorf("give -- COMMAND or --url, not both")
	case f.set["url"] && len(f.env) > 0:
		return nil, fmt.Errorf("--env is for a server started with -- COMMAND; an --url server gets --header")
	case len(f.command) > 0 && len(f.headers) > 0:
		return nil, fmt.Errorf("--header is for an --url server; a server started with -- COMMAND gets --env")
	}
	s, err := config.Quick(config.Target{Command: f.command, Env: f.env, Headers: f.headers, AllowTools: f.allowTools},
		config.LoadOptions{Environ: opts.Environ, Flags: f.settings})
	if err != nil {
		return nil, err
	}
	if s.Client, err = quickRoots(f.roots); err != nil {
		return nil, err
	}
	return s, nil
}
