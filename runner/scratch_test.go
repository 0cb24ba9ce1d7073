package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/runner/report"
)

// scratchFixture writes a file in ${tmp} through a tool argument and the
// child's environment, over stdio, so that both substitutions are used.
const scratchFixture = `name: scratch
command: [mcpcheck]
env: {SCRATCH: "${tmp}/child"}
allowTools: [echo, sleep]
scenarios:
  - name: s
    steps:
      - {id: where, tool: echo, arguments: {path: "${tmp}/notes.txt"}, expect: {structuredIncludes: {path: {$match: "^/.*/mcpcheck-[0-9]+/notes.txt$"}}}}
      - {id: wait, tool: sleep, arguments: {ms: MS}}
      - {id: fail, tool: echo, arguments: {a: 1}, expect: {structuredEquals: {a: 2}}}
`

// TestScratchRemoved: the ${tmp} directory exists while the run goes and
// is removed after a success, after a failure and after an interruption;
// --keep-tmp keeps it and says where.
func TestScratchRemoved(t *testing.T) {
	for _, c := range []struct {
		name     string
		ms       string
		interupt bool
		keep     bool
	}{
		{"failure", "1", false, false},
		{"interrupted", "20000", true, false},
		{"kept", "1", false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			s := parse(t, strings.Replace(scratchFixture, "MS", c.ms, 1))
			s.Env[childEnvVar] = "serve"
			opts := stdioOptions()
			opts.KeepTmp = c.keep
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if c.interupt {
				// Interrupt once the first step (the one that used the
				// scratch directory) is final, while the 20 s sleep runs:
				// an event, not a guess at how long starting the server
				// takes (300 ms after the directory appeared was too
				// little on a loaded machine, and cut the first step).
				opts.OnStep = func(_, step int, _ report.StepResult) {
					if step == 0 {
						cancel()
					}
				}
			}
			rep, err := Run(ctx, s, opts)
			if err != nil {
				t.Fatal(err)
			}
			if st := rep.Scenarios[0].Steps[0]; st.Status != report.StatusPassed {
				t.Errorf("the argument was not the scratch file: %+v", st)
			}
			left, _ := filepath.Glob(filepath.Join(tmp, "mcpcheck-*"))
			switch {
			case c.keep && (len(left) != 1 || len(rep.KeptScratch) != 1 || rep.KeptScratch[0] != left[0]):
				t.Errorf("--keep-tmp: left %v, reported %v", left, rep.KeptScratch)
			case !c.keep && len(left) != 0:
				t.Errorf("left behind: %v", left)
			}
			if c.interupt && rep.Failure == nil {
				t.Errorf("the run was not interrupted: %s", statuses(rep))
			}
			for _, d := range left {
				os.RemoveAll(d)
			}
		})
	}
}
