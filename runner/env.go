package runner

import (
	"fmt"
	"maps"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/internal/safetext"
)

// baseEnvNames are the runner's variables a stdio server inherits. Nothing
// else from the runner's environment reaches the child unless the fixture
// names it: a shell full of tokens stays with the shell.
var baseEnvNames = []string{
	"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TZ",
	// Windows needs these to start most programs at all.
	"SYSTEMROOT", "WINDIR", "COMSPEC", "PATHEXT", "TEMP", "TMP", "USERPROFILE", "APPDATA", "LOCALAPPDATA",
}

// environ is a lookup over a KEY=VALUE list.
type environ map[string]string

func newEnviron(list []string) environ {
	if list == nil {
		list = os.Environ()
	}
	e := make(environ, len(list))
	for _, kv := range list {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			if runtime.GOOS == "windows" {
				k = strings.ToUpper(k)
			}
			e[k] = v
		}
	}
	return e
}

// secrets resolves the suite's credential variables: the values of
// envFromEnv (for the child) and headersFromEnv (for HTTP requests). A
// missing variable is ErrMissingCredential: nothing may start or go on the
// network without it.
type secrets struct {
	childEnv map[string]string // child variable → value
	headers  map[string]string // header → value
	values   []Secret          // what the redactor hides (see "What is a secret")
	// plain names the declared values that are plain short words, which
	// the redactor does not search for: the run warns of each.
	plain []string
}

func resolveSecrets(s *config.Suite, env environ) (*secrets, error) {
	out := &secrets{childEnv: map[string]string{}, headers: map[string]string{}}
	var missing []string
	for _, child := range slices.Sorted(maps.Keys(s.EnvFromEnv)) {
		name := s.EnvFromEnv[child]
		v, ok := env[name]
		if !ok {
			missing = append(missing, at(s, "envFromEnv")+fmt.Sprintf("envFromEnv %s needs variable %s", child, name))
			continue
		}
		out.childEnv[child] = v
		out.declare("envFromEnv "+child, v, true)
	}
	for _, h := range slices.Sorted(maps.Keys(s.HeadersFromEnv)) {
		name := s.HeadersFromEnv[h]
		v, ok := env[name]
		switch {
		case !ok || v == "":
			missing = append(missing, at(s, "headersFromEnv")+fmt.Sprintf("headersFromEnv %s needs variable %s", h, name))
			continue
		case strings.ContainsAny(v, "\r\n\x00"):
			missing = append(missing, at(s, "headersFromEnv")+fmt.Sprintf("headersFromEnv %s: variable %s holds a line break or NUL, which no header value may contain", h, name))
			continue
		}
		out.headers[h] = v
		out.declare("headersFromEnv "+h, v, true)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: %s", ErrMissingCredential, strings.Join(missing, "; "))
	}
	// Quick mode's --env and --header values are configuration as often
	// as credentials: a secret when the name says so (API_KEY,
	// Authorization) or the value looks like one; MODE=string and
	// PORT=8080 are not, and the server's words "string" and "8080" stay.
	for _, k := range slices.Sorted(maps.Keys(s.SecretEnv)) {
		out.childEnv[k] = s.SecretEnv[k]
		out.declare("--env "+k, s.SecretEnv[k], credentialName(k))
	}
	for _, h := range slices.Sorted(maps.Keys(s.SecretHeaders)) {
		out.headers[h] = s.SecretHeaders[h]
		out.declare("--header "+h, s.SecretHeaders[h], credentialName(h))
	}
	return out, nil
}

// declare adds a value for the redactor, and names a declared one that
// is a plain short word, which it will not hide.
func (s *secrets) declare(name, v string, declared bool) {
	s.values = append(s.values, Secret{Value: v, Declared: declared})
	if declared && len(safetext.Sanitize(v)) >= minSecret && !looksLikeCredential(safetext.Sanitize(v)) && PlainWord(safetext.Sanitize(v)) {
		s.plain = append(s.plain, name)
	}
}

// at is "file:line:col: " of a top-level key of the fixture, or "" when
// it has no place in a file.
func at(s *config.Suite, key string) string {
	if p, ok := s.FieldPos[key]; ok && p.Line > 0 {
		return p.String() + ": "
	}
	return ""
}

// childEnv builds the stdio server's environment: the base variables that
// are set, then the fixture's literal env, then the envFromEnv values.
func childEnv(s *config.Suite, env environ, sec *secrets) []string {
	vars := map[string]string{}
	for _, k := range baseEnvNames {
		if v, ok := env[k]; ok {
			vars[k] = v
		}
	}
	maps.Copy(vars, s.Env)
	maps.Copy(vars, sec.childEnv)
	out := make([]string, 0, len(vars))
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		out = append(out, k+"="+vars[k])
	}
	return out
}

// ChildEnv is the environment mcpcheck gives a stdio server it starts: the
// base variables (PATH, HOME, LANG, ...) of environ (nil: os.Environ())
// and extra on top; nothing else of the caller's environment.
func ChildEnv(environ []string, extra map[string]string) []string {
	return childEnv(&config.Suite{Env: extra}, newEnviron(environ), &secrets{})
}

// scratchVar is replaced, in a fixture's command, env, cwd and tool or
// prompt arguments, by a directory made for the run: one per suite, and
// one per scenario under isolation: scenario (a fresh server for a
// scenario gets a fresh directory too). Stateful servers keep their files
// there, so a second run starts as clean as the first. The directories are
// removed when the run ends, however it ends, unless Options.KeepTmp.
const scratchVar = "${tmp}"

// scratch makes and removes a run's scratch directories.
type scratch struct {
	mu   sync.Mutex
	dirs []string
	err  error
}

// dir makes a new scratch directory; "" when it could not, and the error
// is kept for the report.
func (s *scratch) dir() string {
	d, err := os.MkdirTemp("", "mcpcheck-")
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.err = err
		return ""
	}
	s.dirs = append(s.dirs, d)
	return d
}

// cleanup removes the directories, or returns them when keep.
func (s *scratch) cleanup(keep bool) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if keep {
		return s.dirs
	}
	for _, d := range s.dirs {
		os.RemoveAll(d)
	}
	return nil
}

// usesScratch reports whether any string in v holds the scratch variable.
func usesScratch(v any) bool {
	holds := func(s string) bool { return strings.Contains(s, scratchVar) }
	switch x := v.(type) {
	case string:
		return holds(x)
	case []string:
		return slices.ContainsFunc(x, holds)
	case map[string]string:
		return slices.ContainsFunc(slices.Collect(maps.Values(x)), holds)
	case map[string]any:
		for _, e := range x {
			if usesScratch(e) {
				return true
			}
		}
	case []any:
		return slices.ContainsFunc(x, usesScratch)
	}
	return false
}

// expandScratch returns v with the scratch variable replaced by dir in
// every string; containers are copied only where something changes.
func expandScratch(v any, dir string) any {
	switch x := v.(type) {
	case string:
		return strings.ReplaceAll(x, scratchVar, dir)
	case map[string]any:
		if !usesScratch(x) {
			return x
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = expandScratch(e, dir)
		}
		return out
	case []any:
		if !usesScratch(x) {
			return x
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = expandScratch(e, dir)
		}
		return out
	}
	return v
}

// scratchError says that a scratch directory could not be made.
func scratchError(err error) error {
	return fmt.Errorf("making the scratch directory for %s: %w", scratchVar, err)
}
