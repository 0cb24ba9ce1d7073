package gen

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
)

// Offered holds values the server itself offered before generation: what
// its argument-free read-only tools answered and what its lists named. A
// tool that only accepts an id another tool returned, or a path inside a
// directory the server serves, refuses every synthetic value; with an
// offer, [Values] tries the server's own value first (still validated
// against the schema like any candidate).
//
// Four kinds are collected, and matched by property name:
//
//   - directories, for properties whose last word is dir, directory,
//     folder, root, cwd or workdir, and also for path properties;
//   - files, for path, file, filepath and filename properties (tried
//     before directories, except for a path of a tool whose name says it
//     lists or searches directories: see listsDirectories); a listing
//     tool's entries are files and directories too (listing.go);
//   - URIs (scheme://...), for uri properties;
//   - ids: string or integer values of keys named id or ending in id
//     (projectId, project_id), for id properties. An id carries the nouns
//     of where it was found (the key's other words, the enclosing list's
//     singular name, the tool's words): project_id takes an id found under
//     a "projects" list or a "projectId" key, or from list_projects, and
//     no other; a bare "id" property takes an id whose nouns share a word
//     with its tool's name, else the first one offered.
//
// Candidates keep the order they were offered in, duplicates dropped, so a
// caller that adds sources in a fixed order gets the same arguments every
// run. An Offered is filled before generation and then only read, apart
// from its record of what was used; it is not safe for concurrent use.
type Offered struct {
	dirs, files, uris []offer
	ids               []offer
	served            []string // directories known to be served (fresh.go)
	seen              map[string]bool
	used              map[string]string // "tool property" → source
}

// offer is one candidate value and where it came from.
type offer struct {
	value  any    // string, or json.Number for an integer id
	source string // e.g. "list_projects", "resources/list"
	nouns  []string
}

// maxOffers bounds each kind: a listing of thousands of files offers the
// first few hundred.
const maxOffers = 256

// maxOfferTries bounds how many offered values one property tries before
// generation goes on as if there were none.
const maxOfferTries = 16

// NewOffered returns an empty offer.
func NewOffered() *Offered {
	return &Offered{seen: map[string]bool{}, used: map[string]string{}}
}

// Empty reports whether nothing was offered.
func (o *Offered) Empty() bool {
	return o == nil || len(o.dirs)+len(o.files)+len(o.uris)+len(o.ids) == 0
}

// Counts describes what was collected, e.g. "2 ids, 1 directory".
func (o *Offered) Counts() string {
	if o.Empty() {
		return "nothing usable"
	}
	var parts []string
	for _, c := range []struct {
		n           int
		one, plural string
	}{{len(o.ids), "id", "ids"}, {len(o.dirs), "directory", "directories"}, {len(o.files), "file path", "file paths"}, {len(o.uris), "URI", "URIs"}} {
		switch {
		case c.n == 1:
			parts = append(parts, "1 "+c.one)
		case c.n > 1:
			parts = append(parts, fmt.Sprintf("%d %s", c.n, c.plural))
		}
	}
	return strings.Join(parts, ", ")
}

// Used lists where offered values were used, one line per source in
// source order: "list_projects → get_project project_id, get_owner ownerId".
func (o *Offered) Used() []string {
	if o == nil {
		return nil
	}
	bySource := map[string][]string{}
	for k, src := range o.used {
		bySource[src] = append(bySource[src], k)
	}
	out := make([]string, 0, len(bySource))
	for src, props := range bySource {
		sort.Strings(props)
		out = append(out, src+" → "+strings.Join(props, ", "))
	}
	sort.Strings(out)
	return out
}

// Merge adds everything b offers after what o already holds.
func (o *Offered) Merge(b *Offered) {
	if b == nil {
		return
	}
	for _, k := range []struct{ dst, src *[]offer }{{&o.dirs, &b.dirs}, {&o.files, &b.files}, {&o.uris, &b.uris}, {&o.ids, &b.ids}} {
		for _, c := range *k.src {
			o.add(k.dst, c)
		}
	}
	for _, d := range b.served {
		o.serve(d)
	}
}

// AddURI offers a URI (a listed resource's, say).
func (o *Offered) AddURI(source, uri string) {
	if isURI(uri) {
		o.add(&o.uris, offer{value: uri, source: source})
	}
}

// AddID offers an id, with the nouns it names (a prompt's name offered
// for promptName properties has noun "prompt").
func (o *Offered) AddID(source string, id any, nouns ...string) {
	o.add(&o.ids, offer{value: id, source: source, nouns: nouns})
}

// AddAnswer offers what a tool's answer holds: structuredContent when it
// has some (v, decoded with json.Number), else its text, read as JSON when
// it is JSON and as lines of words otherwise.
func (o *Offered) AddAnswer(tool string, structured any, text string) {
	if listsDirectories(tool) {
		// An argument-free tool whose name says it names directories
		// (list_allowed_directories, notes_folder) lists the ones the
		// server serves: fresh paths may go there (fresh.go).
		from := len(o.dirs)
		defer func() {
			for _, d := range o.dirs[min(from, len(o.dirs)):] {
				if s, ok := d.value.(string); ok {
					o.serve(s)
				}
			}
		}()
	}
	nouns := toolNouns(tool)
	if structured != nil {
		o.walk(tool, structured, "", nouns)
		return
	}
	t := strings.TrimSpace(text)
	if t == "" {
		return
	}
	dec := json.NewDecoder(strings.NewReader(t))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) == nil && !dec.More() {
		if _, scalar := v.(string); !scalar {
			o.walk(tool, v, "", nouns)
			return
		}
	}
	o.addText(tool, t)
}

// addText offers the URIs and absolute paths among a text's words.
func (o *Offered) addText(source, text string) {
	for _, w := range strings.Fields(text) {
		o.addWord(source, strings.Trim(w, "\"'`,;()[]<>"))
	}
}

// walk collects from a JSON value; key is the name it was found under.
func (o *Offered) walk(source string, v any, key string, nouns []string) {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			o.walk(source, x[k], k, nouns)
		}
	case []any:
		// Items take the list's name in the singular: projects → project.
		inner := nouns
		if w := SplitWords(key); len(w) > 0 {
			inner = append([]string{singular(w[len(w)-1])}, nouns...)
		}
		for _, e := range x {
			o.walk(source, e, singularName(key), inner)
		}
	case string:
		if words, ok := idKey(key); ok && x != "" && len(x) <= 200 {
			o.add(&o.ids, offer{value: x, source: source, nouns: append(words, nouns...)})
			return
		}
		if len(x) <= 1<<16 {
			o.addText(source, x)
		}
	case json.Number:
		if words, ok := idKey(key); ok && !strings.ContainsAny(x.String(), ".eE") {
			o.add(&o.ids, offer{value: x, source: source, nouns: append(words, nouns...)})
		}
	}
}

// addWord offers a string that is a URI or an absolute path.
func (o *Offered) addWord(source, s string) {
	switch {
	case len(s) == 0 || len(s) > 1024:
	case isURI(s):
		o.add(&o.uris, offer{value: s, source: source})
	case isAbsPath(s):
		clean := strings.TrimRight(s, "/\\")
		if clean == "" {
			clean = s
		}
		if path.Ext(strings.ReplaceAll(clean, "\\", "/")) != "" {
			o.add(&o.files, offer{value: clean, source: source})
		} else {
			o.add(&o.dirs, offer{value: clean, source: source})
		}
	}
}

func (o *Offered) add(list *[]offer, c offer) {
	key := fmt.Sprintf("%p %T %v", list, c.value, c.value)
	if o.seen[key] || len(*list) >= maxOffers {
		return
	}
	o.seen[key] = true
	*list = append(*list, c)
}

// candidates returns the offered values for a property of tool, best
// first, or nil when the name matches no kind.
func (o *Offered) candidates(tool, name string) []offer {
	if o.Empty() {
		return nil
	}
	words := SplitWords(name)
	if len(words) == 0 {
		return nil
	}
	last := singular(words[len(words)-1])
	switch last {
	case "dir", "directory", "folder", "root", "cwd", "workdir":
		return o.dirs
	case "path":
		if listsDirectories(tool) {
			// list_directory's, directory_tree's or search_files' path
			// is a directory: a file there would only be refused.
			return append(slices.Clip(o.dirs), o.files...)
		}
		return append(slices.Clip(o.files), o.dirs...)
	case "file", "filepath", "filename":
		return append(slices.Clip(o.files), o.dirs...)
	case "uri":
		return o.uris
	case "id":
		return o.idsFor(tool, words[:len(words)-1])
	}
	return nil
}

// idsFor picks the ids for a property whose name is nouns + "id".
func (o *Offered) idsFor(tool string, nouns []string) []offer {
	match := func(want []string) []offer {
		var out []offer
		for _, c := range o.ids {
			if slices.ContainsFunc(want, func(w string) bool { return slices.Contains(c.nouns, singular(w)) }) {
				out = append(out, c)
			}
		}
		return out
	}
	if len(nouns) > 0 {
		return match(nouns)
	}
	if m := match(toolNouns(tool)); len(m) > 0 {
		return m
	}
	return o.ids
}

// use records that tool's property at path took an offered value.
func (o *Offered) use(tool, path string, c offer) {
	var prop strings.Builder
	for i, seg := range strings.Split(strings.TrimPrefix(path, "/"), "/") {
		switch {
		case strings.Trim(seg, "0123456789") == "" && seg != "":
			prop.WriteString("[" + seg + "]")
		case i > 0:
			prop.WriteString("." + seg)
		default:
			prop.WriteString(seg)
		}
	}
	key := tool + " " + prop.String()
	if _, ok := o.used[key]; !ok {
		o.used[key] = c.source
	}
}

// idKey reports whether key names an id, and its other words.
func idKey(key string) ([]string, bool) {
	w := SplitWords(key)
	if len(w) == 0 || singular(w[len(w)-1]) != "id" {
		return nil, false
	}
	return w[:len(w)-1], true
}

// toolNouns are a tool's name's words in the singular, verbs included
// (they never match a noun that matters).
func toolNouns(tool string) []string {
	var out []string
	for _, w := range SplitWords(tool) {
		out = append(out, singular(w))
	}
	return out
}

func isURI(s string) bool {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok || scheme == "" || rest == "" || strings.ContainsAny(s, " \t\n") {
		return false
	}
	for i, r := range scheme {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && (r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.')) {
			return false
		}
	}
	return true
}

// isAbsPath: /unix/style (more than "/"), or C:\ and C:/ style.
func isAbsPath(s string) bool {
	if strings.ContainsAny(s, "\n\t") || strings.Contains(s, "://") {
		return false
	}
	if len(s) > 1 && s[0] == '/' && s[1] != '/' {
		return true
	}
	return len(s) > 3 && (s[0] >= 'A' && s[0] <= 'Z' || s[0] >= 'a' && s[0] <= 'z') && s[1] == ':' && (s[2] == '\\' || s[2] == '/')
}
