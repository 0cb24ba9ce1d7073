package runner

import (
	"net/url"
	"runtime"
	"strings"

	"github.com/mcpcheck/mcpcheck/runner/report"
)

// mayWrite says which tools may write, for the generator's path rules
// (gen.Values.Fresh): every tool not annotated read-only. Their path
// properties get fresh paths of mcpcheck's own, under a directory the
// server serves or the run's scratch directory, never a file the server
// already holds.
func mayWrite(tools []tool) func(string) bool {
	writes := map[string]bool{}
	for _, t := range tools {
		if !isReadOnly(t) {
			writes[t.Name] = true
		}
	}
	return func(name string) bool { return writes[name] }
}

// rootDir is the local path a file:// root names ("" for any other URI, or
// one with a host other than localhost).
func rootDir(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || (u.Host != "" && u.Host != "localhost") || u.Path == "" {
		return ""
	}
	p := u.Path
	if runtime.GOOS == "windows" && len(p) > 2 && p[0] == '/' && p[2] == ':' {
		p = strings.ReplaceAll(p[1:], "/", "\\")
	}
	return p
}

// scratchForGenerated makes the run's scratch directory when a generated
// step names it (a fresh path, an anchored example: gen.Values.Fresh) and
// the suite did not, so ${tmp} names a directory that exists. false: it
// could not be made, and the run has failed with the reason.
func (r *runState) scratchForGenerated(sess *session, from int) bool {
	if r.tmp != "" {
		return true
	}
	used := false
	for _, sc := range r.plan[from:] {
		for j := range sc.steps {
			used = used || sc.steps[j].scratch
		}
	}
	if !used {
		return true
	}
	if r.tmp = r.scratch.dir(); r.tmp == "" {
		r.fail(report.StageConnect, scratchError(r.scratch.err))
		return false
	}
	sess.tmp = r.tmp
	return true
}
