package gen

import (
	"slices"
	"testing"
)

// TestAddListing reads the listing shapes of real servers (server-
// filesystem's list_directory, list_directory_with_sizes and
// directory_tree answers, as captured by hand) and refuses entries that
// would leave the directory.
func TestAddListing(t *testing.T) {
	for _, c := range []struct {
		name, text  string
		files, dirs []string
	}{
		{"list_directory", "[DIR] sub\n[FILE] todo.txt", []string{"/srv/todo.txt"}, []string{"/srv", "/srv/sub"}},
		{"with sizes", "[DIR] sub                            \n[FILE] todo.txt                             17 B\n\nTotal: 1 files, 1 directories\nCombined size: 17 B",
			[]string{"/srv/todo.txt"}, []string{"/srv", "/srv/sub"}},
		{"directory_tree", `[{"name":"sub","type":"directory","children":[]},{"name":"todo.txt","type":"file"}]`, []string{"/srv/todo.txt"}, []string{"/srv", "/srv/sub"}},
		{"tree lines", "├── notes.md\n└── data.csv", []string{"/srv/notes.md", "/srv/data.csv"}, []string{"/srv"}},
		{"hostile", "[FILE] ../../etc/passwd\n[FILE] /etc/passwd\n[DIR] ..\n[FILE] a\x00b.txt\nfile://x.txt", nil, []string{"/srv"}},
		{"prose", "No files here.\nError: permission denied", nil, []string{"/srv"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := NewOffered()
			o.addWord("list_allowed_directories", "/srv")
			o.AddListing("list_directory", o.FirstDir(), c.text)
			var files, dirs []string
			for _, f := range o.files {
				files = append(files, f.value.(string))
			}
			for _, d := range o.dirs {
				dirs = append(dirs, d.value.(string))
			}
			if !slices.Equal(files, c.files) || !slices.Equal(dirs, c.dirs) {
				t.Errorf("files %q (want %q), dirs %q (want %q)", files, c.files, dirs, c.dirs)
			}
		})
	}
}

// TestPathCandidates: a file tool's path takes a listed file first, a
// listing tool's path the directory first.
func TestPathCandidates(t *testing.T) {
	o := NewOffered()
	o.addWord("list_allowed_directories", "/srv")
	o.AddListing("list_directory", "/srv", "[FILE] todo.txt")
	first := func(tool, prop string) any { return o.candidates(tool, prop)[0].value }
	if v := first("read_text_file", "path"); v != "/srv/todo.txt" {
		t.Errorf("read_text_file path: %v", v)
	}
	if v := first("list_directory", "path"); v != "/srv" {
		t.Errorf("list_directory path: %v", v)
	}
	if v := first("search_files", "path"); v != "/srv" {
		t.Errorf("search_files path: %v", v)
	}
	if _, ok := ListingTool("directory_tree", []string{"path"}); !ok {
		t.Error("directory_tree is a listing tool")
	}
	if _, ok := ListingTool("read_file", []string{"path"}); ok {
		t.Error("read_file is not a listing tool")
	}
}
