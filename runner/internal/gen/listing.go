package gen

import (
	"encoding/json"
	"path"
	"slices"
	"strings"
)

// Inputs that reach the code. A path argument that names the directory the
// server serves (the only path a server like server-filesystem offers
// before any call) reaches a file tool's code only as far as EISDIR. So
// the runner asks the server what the directory holds: a read-only listing
// tool (one required property, a path or directory) is called once with
// the first offered directory, and [Offered.AddListing] takes the entries
// it names as paths under that directory: files for path and file
// properties (tried before directories), subdirectories for directory
// ones. Entries are read from the listing's text, line by line, in the
// shapes listing tools answer in:
//
//   - "[FILE] todo.txt", "[DIR] sub" (a bracketed tag, then the name; any
//     columns after the name, such as a size, are ignored);
//   - a bare name with an extension ("todo.txt"), or a tree line
//     ("├── todo.txt");
//   - a JSON array of objects with "name" and "type" (file or directory).
//
// Only plain relative names are taken (no "/", "..", "://" or control
// characters, at most 255 bytes), and at most maxListing of them, so a
// hostile listing can offer nothing outside the directory it was asked
// about.

// maxListing bounds the entries one listing offers.
const maxListing = 64

// PathProperty reports whether a property name takes a path or a
// directory (its last word, singular: path, file, filepath, filename,
// dir, directory, folder, root, cwd, workdir): the properties offered
// paths go to.
func PathProperty(name string) bool {
	w := SplitWords(name)
	if len(w) == 0 {
		return false
	}
	switch singular(w[len(w)-1]) {
	case "path", "file", "filepath", "filename", "dir", "directory", "folder", "root", "cwd", "workdir":
		return true
	}
	return false
}

// FirstDir is the first directory offered ("" when none): the one a
// listing tool is asked about.
func (o *Offered) FirstDir() string {
	if o == nil || len(o.dirs) == 0 {
		return ""
	}
	s, _ := o.dirs[0].value.(string)
	return s
}

// AddListing offers the entries that text, a listing of dir, names (see
// above), as paths under dir, found by source.
func (o *Offered) AddListing(source, dir, text string) {
	// The server answered for dir: a place its tools may write to.
	o.serve(dir)
	sep := "/"
	if strings.Contains(dir, "\\") && !strings.Contains(dir, "/") {
		sep = "\\"
	}
	join := func(name string) string { return strings.TrimRight(dir, "/\\") + sep + name }
	n := 0
	take := func(name string, isDir bool) {
		if n >= maxListing || !plainName(name) {
			return
		}
		n++
		if isDir {
			o.add(&o.dirs, offer{value: join(name), source: source})
		} else {
			o.add(&o.files, offer{value: join(name), source: source})
		}
	}
	t := strings.TrimSpace(text)
	if strings.HasPrefix(t, "[") && !strings.HasPrefix(t, "[FILE]") && !strings.HasPrefix(t, "[DIR]") {
		var entries []struct {
			Name string `json:"name"`
			Type string `json:"type"`
		}
		if json.Unmarshal([]byte(t), &entries) == nil {
			for _, e := range entries {
				switch strings.ToLower(e.Type) {
				case "file":
					take(e.Name, false)
				case "directory", "dir", "folder":
					take(e.Name, true)
				}
			}
			return
		}
	}
	for _, line := range strings.Split(t, "\n") {
		name, kind := listingLine(line)
		switch {
		case name == "":
		case kind == "dir":
			take(name, true)
		case kind == "file" || path.Ext(name) != "":
			take(name, false)
		}
	}
}

// listingLine reads one line of a listing: the entry's name and, when a
// tag says so, its kind ("file" or "dir").
func listingLine(line string) (name, kind string) {
	s := strings.TrimLeft(strings.TrimSpace(line), "-*•├└│─ \t")
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return "", ""
		}
		switch strings.ToLower(strings.TrimSpace(s[1:end])) {
		case "file", "f":
			kind = "file"
		case "dir", "directory", "d", "folder":
			kind = "dir"
		default:
			return "", ""
		}
		s = strings.TrimSpace(s[end+1:])
	}
	if f := strings.Fields(s); len(f) > 0 {
		name = strings.TrimRight(f[0], "/")
	}
	if strings.HasSuffix(name, ":") {
		return "", "" // "Total:", a heading
	}
	return name, kind
}

// plainName reports whether name is a plain relative file name.
func plainName(name string) bool {
	if name == "" || len(name) > 255 || name == "." || name == ".." || strings.ContainsAny(name, "/\\") || strings.Contains(name, "://") {
		return false
	}
	for _, r := range name {
		if r < ' ' || r == 0x7f {
			return false
		}
	}
	return true
}

// listsDirectories reports whether a tool's name says that it works on a
// directory (list, tree, search, dir, directory, folder, ls, find): its
// path property takes offered directories first.
func listsDirectories(tool string) bool {
	for _, w := range SplitWords(tool) {
		switch singular(w) {
		case "list", "tree", "search", "dir", "directory", "folder", "ls", "find", "browse":
			return true
		}
	}
	return false
}

// ListingTool reports whether a tool looks like one that lists a
// directory: its name says so (see listsDirectories) and its one required
// property is a path or directory (prop, returned).
func ListingTool(tool string, required []string) (prop string, ok bool) {
	if len(required) != 1 || !PathProperty(required[0]) || !listsDirectories(tool) {
		return "", false
	}
	return required[0], true
}

// AddRoot offers a directory a client root names (a file:// root's path,
// found by source): first among the directories when added first, and
// served (see fresh.go), since the client told the server it may work
// there.
func (o *Offered) AddRoot(source, dir string) {
	if !isAbsPath(dir) {
		return
	}
	clean := strings.TrimRight(dir, "/\\")
	if clean == "" {
		clean = dir
	}
	o.add(&o.dirs, offer{value: clean, source: source})
	o.serve(clean)
}

func (o *Offered) serve(dir string) {
	if dir != "" && len(o.served) < maxOffers && !slices.Contains(o.served, dir) {
		o.served = append(o.served, dir)
	}
}
