package runner

import (
	"fmt"
	"os"
	"strings"
	"sync"
)

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
	switch x := v.(type) {
	case string:
		return strings.Contains(x, scratchVar)
	case []string:
		for _, e := range x {
			if strings.Contains(e, scratchVar) {
				return true
			}
		}
	case map[string]string:
		for _, e := range x {
			if strings.Contains(e, scratchVar) {
				return true
			}
		}
	case map[string]any:
		for _, e := range x {
			if usesScratch(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if usesScratch(e) {
				return true
			}
		}
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
