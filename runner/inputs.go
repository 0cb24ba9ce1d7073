package runner

import (
	"net/url"
	"os"
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

// maxRootEntries bounds what a client root's local listing reads.
const maxRootEntries = 64

// localListing lists a directory a client root names, as listing tools
// answer ("[FILE] name", "[DIR] name" lines): the roots are mcpcheck's own
// offer, on its own machine, so it may read what they hold and offer the
// entries as paths (gen.Offered.AddListing takes plain names only). At most
// maxRootEntries entries are read; a root that cannot be read lists
// nothing.
func localListing(dir string) string {
	f, err := os.Open(dir)
	if err != nil {
		return ""
	}
	defer f.Close()
	entries, _ := f.ReadDir(maxRootEntries)
	var b strings.Builder
	for _, e := range entries {
		tag := "[FILE] "
		if e.IsDir() {
			tag = "[DIR] "
		}
		b.WriteString(tag + e.Name() + "\n")
	}
	return b.String()
}
