package gen

import (
	"fmt"
	"strings"
)

// Paths that reach the code without touching what the server holds.
//
// A tool that may write (the runner says which: those not annotated
// read-only, called only under --include-destructive or by a behaviour
// check the allowlist permits) never gets a path the server already has:
// not a file a listing named, not the allowed directory itself (which only
// reaches EISDIR), not a relative path the server would resolve against
// whatever working directory it was started in. Each of its path
// properties (see [PathProperty]) gets a fresh child path of mcpcheck's
// own, "mcpcheck-<tool>-<property>.txt" (no extension for a directory
// property, or for a tool whose name says it makes directories), under:
//
//  1. a directory the server serves ([Offered.Served]), in the order
//     offered: one the client roots mcpcheck offered name, one an
//     argument-free tool whose name says it names directories answered
//     (list_allowed_directories), or one the server's own listing tool
//     answered for; a directory merely mentioned in some answer (a HOME
//     in an environment dump) is not one; else
//  2. the run's scratch directory (${tmp}), made for the run and removed
//     after it.
//
// The name is the same every run, so a second run rewrites what the first
// left in a served directory rather than spreading new files. The first
// candidate that validates is used; a schema that refuses them all (a
// pattern, a maxLength) gets what generation would give otherwise.
//
// Any tool's path property that no offered value fits takes the hint
// table's relative example ("notes/todo.txt") under the scratch directory,
// so it too names a place mcpcheck chose, never one relative to the
// server's working directory by accident.
type freshPaths struct {
	scratch  string            // "${tmp}" as the runner spells it; "" for none
	writer   func(string) bool // whether a tool may write
	tool     string            // set by forTool
	mayWrite bool              // whether tool may write
}

// Fresh makes v give path properties the paths described above: fresh
// children for the tools writer says may write, and relative examples
// anchored under scratch (the string the runner replaces by the run's
// scratch directory; "" leaves relative examples alone). It returns v.
func (v *Values) Fresh(scratch string, writer func(tool string) bool) *Values {
	v.fresh = &freshPaths{scratch: scratch, writer: writer}
	return v
}

// forTool is f for one tool (nil stays nil).
func (f *freshPaths) forTool(tool string) *freshPaths {
	if f == nil {
		return nil
	}
	c := *f
	c.tool = tool
	c.mayWrite = f.writer != nil && f.writer(tool)
	return &c
}

// writes reports whether property name of the tool gets fresh paths only.
func (f *freshPaths) writes(name string) bool {
	return f != nil && f.mayWrite && PathProperty(name)
}

// freshPath tries the fresh children of a path property of a tool that
// may write.
func (g *gen) freshPath(t *attempt, path, name string, vk int) (any, bool) {
	f := g.fresh
	if !f.writes(name) {
		return nil, false
	}
	leaf := freshName(f.tool, name, vk)
	var parents []string
	if g.offered != nil {
		parents = append(parents, g.offered.served...)
	}
	if f.scratch != "" {
		parents = append(parents, f.scratch)
	}
	t.quiet = true
	defer func() { t.quiet = false }()
	for _, dir := range parents {
		c := joinPath(dir, leaf)
		if t.try(c) {
			src := "a fresh path under " + dir
			if g.offered != nil {
				g.offered.use(g.tool, path, offer{value: c, source: src})
			}
			return c, true
		}
	}
	return nil, false
}

// anchor puts the relative examples of a path property under the scratch
// directory.
func (f *freshPaths) anchor(name string, cands []string) []string {
	if f == nil || f.scratch == "" || !PathProperty(name) {
		return cands
	}
	out := make([]string, len(cands))
	for i, c := range cands {
		out[i] = c
		if c != "" && !isAbsPath(c) && !strings.HasPrefix(c, f.scratch) && !strings.Contains(c, "://") {
			out[i] = joinPath(f.scratch, c)
		}
	}
	return out
}

// freshName is the leaf of a fresh path: mcpcheck's prefix, the tool's
// and the property's names reduced to letters, digits, '-' and '_', the
// variant (from the second), and ".txt" unless a directory is wanted.
func freshName(tool, prop string, vk int) string {
	name := "mcpcheck-" + safeName(tool) + "-" + safeName(prop)
	if vk > 0 {
		name += fmt.Sprintf("-%d", vk+1)
	}
	if wantsDirectory(tool, prop) {
		return name
	}
	return name + ".txt"
}

// wantsDirectory: the property names a directory, or the tool's name says
// it makes or works on directories.
func wantsDirectory(tool, prop string) bool {
	if w := SplitWords(prop); len(w) > 0 {
		switch singular(w[len(w)-1]) {
		case "dir", "directory", "folder", "root", "cwd", "workdir":
			return true
		}
	}
	for _, w := range SplitWords(tool) {
		switch singular(w) {
		case "dir", "directory", "folder", "mkdir":
			return true
		}
	}
	return false
}

func safeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if b.Len() >= 48 {
			break
		}
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "x"
	}
	return b.String()
}

// joinPath joins a directory and a relative path with the directory's
// own separator.
func joinPath(dir, rel string) string {
	if strings.Contains(dir, "\\") && !strings.Contains(dir, "/") {
		return strings.TrimRight(dir, "\\") + "\\" + strings.ReplaceAll(rel, "/", "\\")
	}
	return strings.TrimRight(dir, "/") + "/" + rel
}
