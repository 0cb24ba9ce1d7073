package gen

import (
	"strings"
	"testing"
)

// server-filesystem's write_file and create_directory, as listed.
const (
	writeFile = `{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}`
	mkdir     = `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`
)

func writers(tool string) bool {
	return tool == "write_file" || tool == "create_directory" || tool == "move_file"
}

func TestFreshPathsForWriters(t *testing.T) {
	o := NewOffered()
	o.AddAnswer("list_allowed_directories", nil, "Allowed directories:\n/srv/allowed")
	if got := o.served; len(got) != 1 || got[0] != "/srv/allowed" {
		t.Errorf("served after list_allowed_directories: %v", got)
	}
	o.AddListing("list_directory", "/srv/allowed", "[FILE] todo.txt\n[DIR] sub")
	v := NewValues(1).Offer(o).Fresh("${tmp}", writers)

	args, notes := v.Valid("write_file", mustCompile(t, writeFile))
	if len(notes) > 0 {
		t.Fatal(notes)
	}
	if got, want := args["path"], "/srv/allowed/mcpcheck-write_file-path.txt"; got != want {
		t.Errorf("write_file path = %v, want %v (a fresh child of the served directory, never todo.txt or the directory)", got, want)
	}
	args, _ = v.Valid("create_directory", mustCompile(t, mkdir))
	if got, want := args["path"], "/srv/allowed/mcpcheck-create_directory-path"; got != want {
		t.Errorf("create_directory path = %v, want %v", got, want)
	}
	// A reader keeps the server's own file.
	args, _ = v.Valid("read_text_file", mustCompile(t, mkdir))
	if got, want := args["path"], "/srv/allowed/todo.txt"; got != want {
		t.Errorf("read_text_file path = %v, want %v", got, want)
	}
	if used := strings.Join(o.Used(), "; "); !strings.Contains(used, "a fresh path under /srv/allowed → create_directory path, write_file path") {
		t.Errorf("used: %s", used)
	}
	// Variants are distinct fresh paths.
	for _, d := range v.Distinct("write_file", mustCompile(t, writeFile), 3) {
		p, _ := d["path"].(string)
		if !strings.HasPrefix(p, "/srv/allowed/mcpcheck-write_file-path") {
			t.Errorf("variant path %q", p)
		}
	}
}

func TestFreshPathsWithoutServedDirectory(t *testing.T) {
	// A directory found in some answer is not known to be served: the
	// scratch directory is used, and relative examples go under it.
	o := NewOffered()
	o.AddAnswer("get_env", nil, "HOME=/root PATH=/usr/bin")
	v := NewValues(1).Offer(o).Fresh("${tmp}", writers)
	args, _ := v.Valid("move_file", mustCompile(t, `{"type":"object","properties":{"source":{"type":"string"},"destination":{"type":"string"},"target_path":{"type":"string"}},"required":["source","destination","target_path"]}`))
	if got, want := args["target_path"], "${tmp}/mcpcheck-move_file-target_path.txt"; got != want {
		t.Errorf("target_path = %v, want %v", got, want)
	}
	args, _ = NewValues(1).Fresh("${tmp}", writers).Valid("read_note", mustCompile(t, mkdir))
	if got, want := args["path"], "${tmp}/notes/todo.txt"; got != want {
		t.Errorf("a reader's relative example = %v, want %v (anchored, not the server's cwd)", got, want)
	}
	// Client roots are served.
	o = NewOffered()
	o.AddRoot("client roots", "/home/me/project/")
	args, _ = NewValues(1).Offer(o).Fresh("${tmp}", writers).Valid("write_file", mustCompile(t, writeFile))
	if got, want := args["path"], "/home/me/project/mcpcheck-write_file-path.txt"; got != want {
		t.Errorf("under a root: %v, want %v", got, want)
	}
	// Hostile tool names stay one path segment.
	if got := freshName("../../etc/passwd", "path", 0); strings.ContainsAny(got, "/\\") || strings.Contains(got, "..") {
		t.Errorf("freshName = %q", got)
	}
}
