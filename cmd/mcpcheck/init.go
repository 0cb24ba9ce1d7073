package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/internal/fileio"
	"github.com/mcpcheck/mcpcheck/runner"
)

const initUsage = `Usage:
  mcpcheck init [-o FILE] [--force] -- COMMAND ARGS...   a stdio server
  mcpcheck init [-o FILE] [--force] --url URL            a Streamable HTTP server

Writes a starter fixture (default mcpcheck.yaml) that passes at once: the
target, allowTools with the server's read-only tools, one scenario per
read-only tool, called live with arguments made from its inputSchema, a
resource read and a prompt get when the server has them. Expectations are
the answers' shape ($type, the content blocks' types), never their values:
every call is made twice and only what both answers share is kept. Tools
that are not annotated readOnlyHint: true are never called.

Also adds .mcpcheck/ to the .gitignore beside the fixture (where runs keep
their last report).

  -o, --out FILE   the fixture to write (default mcpcheck.yaml)
  --force          replace FILE when it exists (it is refused otherwise)

The target's flags are a run's: --env, --protocol, --timeout,
--allow-tools, --max-message-bytes (see mcpcheck --help).
`

// initFile is the fixture mcpcheck init writes when -o is not given.
const initFile = "mcpcheck.yaml"

// initTimeoutMs bounds each call of init (and the fixture's timeoutMs):
// a starter fixture's calls are lookups.
const initTimeoutMs = 10000

// schemaLine names the fixture schema for editors (README "Editor
// completion").
const schemaLine = "yaml-language-server: $schema=https://mcpcheck.dev/schemas/fixture.schema.json"

// runInit is mcpcheck init: sample the server's read-only surface
// (runner.Sample) and write it as a fixture.
func runInit(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	out, force, rest, err := initFlags(args)
	if err != nil {
		return fail(stderr, exitBadArgs, "mcpcheck init: %v (see mcpcheck init --help)\n", err)
	}
	allowed := []string{"url", "protocol", "timeout", "max-message-bytes", "env", "allow-tools", "no-color"}
	f, code := commandFlags("init", initUsage, rest, allowed, stdout, stderr)
	if f == nil {
		return code
	}
	if len(f.command) == 0 && !f.set["url"] {
		return fail(stderr, exitBadArgs, "mcpcheck init: give the server: -- COMMAND ARGS... or --url URL (see mcpcheck init --help)\n")
	}
	if !force {
		if _, err := os.Lstat(out); err == nil {
			return fail(stderr, exitBadArgs, "mcpcheck init: %s exists; give --force to replace it, or -o another file\n", out)
		}
	}
	if !f.set["timeout"] {
		f.settings["timeoutMs"] = initTimeoutMs
	}
	var opts runner.Options
	if runOptions != nil {
		opts = *runOptions
	}
	suite, err := quickSuite(f, &opts)
	if err != nil {
		return fail(stderr, exitBadArgs, "mcpcheck init: %s\n", settingError(err))
	}
	sample, err := runner.Sample(ctx, suite, opts)
	switch {
	case errors.Is(err, runner.ErrNoSurface):
		return fail(stderr, exitFail, "mcpcheck init: %v\n", err)
	case err != nil:
		return fail(stderr, exitBadArgs, "mcpcheck init: %v\n", err)
	}
	doc, err := starterFixture(suite, f, sample, out)
	if err != nil {
		return fail(stderr, exitBadArgs, "mcpcheck init: %v\n", err)
	}
	if err := writeNew(out, doc, force); err != nil {
		return fail(stderr, exitBadArgs, "mcpcheck init: %v\n", err)
	}
	ignore := filepath.Join(filepath.Dir(out), ".gitignore")
	if err := ignoreRunState(ignore); err != nil {
		fmt.Fprintf(stderr, "mcpcheck init: %v (the fixture is written)\n", err)
	}
	left := 0
	for _, p := range sample.Probes {
		if p.Skipped != "" {
			left++
		}
	}
	steps := len(sample.Probes) - left
	fmt.Fprintf(stdout, "wrote %s: %d scenarios", out, steps)
	if left > 0 {
		fmt.Fprintf(stdout, " (%d calls left out, listed at the end of the file)", left)
	}
	fmt.Fprintf(stdout, "\nrun it: mcpcheck --config %s\n", out)
	return exitPass
}

// initFlags takes init's own flags (-o/--out FILE, --force) out of args,
// before any "--"; the rest are a run's target flags.
func initFlags(args []string) (out string, force bool, rest []string, err error) {
	out = initFile
	for k := 0; k < len(args); k++ {
		a := args[k]
		if a == "--" {
			rest = append(rest, args[k:]...)
			break
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch {
		case !strings.HasPrefix(a, "-"):
			rest = append(rest, a)
		case name == "o" || name == "out":
			if !hasVal {
				if k+1 == len(args) {
					return "", false, nil, fmt.Errorf("%s needs a file", a)
				}
				k++
				val = args[k]
			}
			if val == "" || (len(val) > 1 && val[0] == '-') {
				return "", false, nil, fmt.Errorf("-o takes a file, got %q", val)
			}
			out = val
		case name == "force" && !hasVal:
			force = true
		default:
			rest = append(rest, a)
		}
	}
	return out, force, rest, nil
}

// starterFixture is the fixture's text: comments that say where it came
// from and where to read on, the target as given, and a scenario per
// probe that passed.
func starterFixture(suite *config.Suite, f *flags, s *runner.Sampled, out string) ([]byte, error) {
	root := &yaml.Node{Kind: yaml.MappingNode}
	add := func(key string, v *yaml.Node, comment string) {
		k := &yaml.Node{Kind: yaml.ScalarNode, Value: key, HeadComment: comment}
		root.Content = append(root.Content, k, v)
	}
	server := "the server"
	if s.Surface.Server != nil && s.Surface.Server.Name != "" {
		server = s.Surface.Server.Name
	}
	head := "# " + schemaLine + "\n" +
		"# A starter fixture written by `mcpcheck init`: every scenario below passed\n" +
		"# when it was written. Run it with: mcpcheck --config " + filepath.Base(out) + "\n" +
		"# Every relative path here (cwd, contract, snapshots) is read from this\n" +
		"# file's directory, and the server starts there unless cwd says otherwise.\n" +
		"# README, to go further: \"A fixture\" (step kinds), \"Expectations\" and\n" +
		"# \"Matchers\" (what to check), \"Golden answers\" (expect: {snapshot: true}),\n" +
		"# \"Generated checks and quick mode\" (generate:), \"In CI\"."
	add("name", str(server+" starter"), head)
	if len(suite.Command) > 0 {
		cmd := seq(true)
		for _, a := range suite.Command {
			cmd.Content = append(cmd.Content, str(a))
		}
		add("command", cmd, "")
		dir, err := serverDir(out)
		if err != nil {
			return nil, err
		}
		if dir != "." {
			add("cwd", str(dir), "the directory mcpcheck init ran in, relative to this file")
		}
		if len(suite.SecretEnv) > 0 {
			env := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
			for _, k := range slices.Sorted(maps.Keys(suite.SecretEnv)) {
				env.Content = append(env.Content, str(k), str(suite.SecretEnv[k]))
			}
			add("env", env, "")
		}
	} else {
		add("endpoint", str(suite.Endpoint), "")
	}
	if v := f.settings["protocolVersion"]; v != nil {
		add("protocolVersion", str(fmt.Sprint(v)), "")
	}
	allow := seq(true)
	for _, p := range s.Probes {
		if p.Kind == config.KindTool && p.Skipped == "" {
			allow.Content = append(allow.Content, str(p.Name))
		}
	}
	add("allowTools", allow, "the tools a step may call: the read-only ones (annotations grant nothing)")
	// --timeout, or init's own (runInit sets it).
	add("timeoutMs", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: fmt.Sprint(f.settings["timeoutMs"])}, "")
	scenarios := seq(false)
	var left []string
	for _, p := range s.Probes {
		if p.Skipped != "" {
			left = append(left, fmt.Sprintf("%s %s: %s", p.Kind, probeName(p), p.Skipped))
			continue
		}
		sc, err := probeScenario(p)
		if err != nil {
			return nil, err
		}
		scenarios.Content = append(scenarios.Content, sc)
	}
	add("scenarios", scenarios, "")
	if len(left) > 0 {
		root.FootComment = "Left out (a step needs a call that passes; write these by hand):\n  " + strings.Join(left, "\n  ")
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{root}}); err != nil {
		return nil, fmt.Errorf("writing the fixture: %w", err)
	}
	enc.Close()
	return b.Bytes(), nil
}

// probeName is what a probe addresses: a tool, a prompt, a URI.
func probeName(p runner.Probe) string {
	if p.URI != "" {
		return p.URI
	}
	return p.Name
}

// probeScenario is one probe as a scenario of one step.
func probeScenario(p runner.Probe) (*yaml.Node, error) {
	step := &yaml.Node{Kind: yaml.MappingNode}
	set := func(m *yaml.Node, key string, v *yaml.Node) { m.Content = append(m.Content, str(key), v) }
	// A tool or a prompt, by its name; a resource, by its URI.
	id, name, title := stepID(p.Name), p.Name, string(p.Kind)+" "+p.Name+" answers"
	if p.Kind == config.KindResource {
		id, name, title = "read", p.URI, "resource "+p.URI+" reads"
	}
	set(step, "id", str(id))
	set(step, string(p.Kind), str(name))
	if len(p.Arguments) > 0 {
		n, err := valueNode(p.Arguments, true)
		if err != nil {
			return nil, err
		}
		set(step, "arguments", n)
	}
	expect := &yaml.Node{Kind: yaml.MappingNode}
	if p.Structured != nil {
		n, err := valueNode(p.Structured, false)
		if err != nil {
			return nil, err
		}
		set(expect, "structuredIncludes", n)
	}
	if len(p.Result) > 0 {
		n, err := valueNode(map[string]any{"includes": p.Result}, false)
		if err != nil {
			return nil, err
		}
		set(expect, "result", n)
	}
	if len(expect.Content) > 0 {
		set(step, "expect", expect)
	}
	sc := &yaml.Node{Kind: yaml.MappingNode}
	set(sc, "name", str(title))
	steps := seq(false)
	steps.Content = append(steps.Content, step)
	set(sc, "steps", steps)
	return sc, nil
}

// stepID makes a step id of a name (ids are letters, digits, _ and -).
func stepID(name string) string {
	b := []byte(name)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "call"
	}
	return string(b)
}

// valueNode encodes a decoded value as YAML: small objects and every
// matcher in flow style, so the expectation reads as one line per key.
func valueNode(v any, flow bool) (*yaml.Node, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var n yaml.Node
	if err := yaml.Unmarshal(b, &n); err != nil {
		return nil, err
	}
	doc := n.Content[0]
	styleNodes(doc, flow)
	return doc, nil
}

// styleNodes makes a mapping of one scalar (every matcher) and, with
// flow, everything flow style; the rest block style.
func styleNodes(n *yaml.Node, flow bool) {
	n.Style = 0 // plain where YAML allows it; the encoder quotes the rest
	small := n.Kind == yaml.MappingNode && len(n.Content) == 2 && n.Content[1].Kind == yaml.ScalarNode
	if flow || small {
		n.Style = yaml.FlowStyle
	}
	for _, c := range n.Content {
		styleNodes(c, flow || small)
	}
}

func str(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v} }

func seq(flow bool) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode}
	if flow {
		n.Style = yaml.FlowStyle
	}
	return n
}

// serverDir is the shell's directory relative to the fixture's (out):
// the server started in it when init ran, and the fixture's cwd must say
// so, since a fixture's server starts in the fixture's directory.
func serverDir(out string) (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("finding the current directory: %w", err)
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(filepath.Dir(abs), wd)
	if err != nil {
		return wd, nil
	}
	return filepath.ToSlash(rel), nil
}

// writeNew writes data to path through a temporary file in its directory.
// Without force an existing path is never replaced: the temporary file is
// linked into place, which fails when something is there, even if it
// appeared since init looked.
func writeNew(path string, data []byte, force bool) error {
	if force {
		return fileio.WriteFile(path, data, 0o644)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".mcpcheck-init-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err = tmp.Write(data); err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%s exists; give --force to replace it", path)
		}
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// ignoreRunState adds .mcpcheck/ (where runs keep their last report) to
// the .gitignore at path, unless a line already names it.
func ignoreRunState(path string) error {
	old, err := fileio.ReadFile(path, 1<<20)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, line := range strings.Split(string(old), "\n") {
		switch strings.TrimSpace(line) {
		case ".mcpcheck/", ".mcpcheck", "/.mcpcheck/", "/.mcpcheck":
			return nil
		}
	}
	if len(old) > 0 && old[len(old)-1] != '\n' {
		old = append(old, '\n')
	}
	return fileio.WriteFile(path, append(old, ".mcpcheck/\n"...), 0o644)
}
