package gen

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/jsonx/jsonxtest"
)

// TestOfferedValues: the server's own ids, directories, files and URIs are
// what the generator tries first, each for the properties it fits, and
// only when they validate.
func TestOfferedValues(t *testing.T) {
	o := NewOffered()
	o.AddAnswer("list_projects", jsonxtest.Value(t, `{"projects": [
		{"id": "prj-7f3a", "name": "Kitchen remodel", "ownerId": 12},
		{"id": "prj-91c2", "name": "Garden shed"}]}`), "")
	o.AddAnswer("list_allowed_directories", nil, "Allowed directories:\n/srv/share\n/srv/photos/\n")
	o.AddAnswer("recent_files", nil, `["/srv/share/todo.txt", "relative/not.txt"]`)
	o.AddURI("resources/list", "demo://resource/static/document/a.md")
	o.AddURI("resources/list", "not a uri")
	if got := o.Counts(); got != "3 ids, 2 directories, 1 file path, 1 URI" {
		t.Errorf("counts = %q", got)
	}

	cases := []struct {
		tool, schema string
		want         map[string]any
	}{
		{"get_project", `{"type":"object","properties":{"project_id":{"type":"string"}},"required":["project_id"]}`,
			map[string]any{"project_id": "prj-7f3a"}},
		// A bare id takes one whose nouns share a word with the tool.
		{"get_project", `{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`,
			map[string]any{"id": "prj-7f3a"}},
		// An owner id is an integer found under ownerId.
		{"get_owner", `{"type":"object","properties":{"ownerId":{"type":"integer"}},"required":["ownerId"]}`,
			map[string]any{"ownerId": json.Number("12")}},
		// A user id matches no offered noun: generated as before.
		{"get_user", `{"type":"object","properties":{"user_id":{"type":"string","format":"uuid"}},"required":["user_id"]}`,
			map[string]any{"user_id": "3f6c2a9e-8b1d-4c7e-9a52-1d0e4b7f8c21"}},
		// Files first for a path, directories for a directory.
		{"read_file", `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`,
			map[string]any{"path": "/srv/share/todo.txt"}},
		{"list_dir", `{"type":"object","properties":{"directory":{"type":"string"}},"required":["directory"]}`,
			map[string]any{"directory": "/srv/share"}},
		// An offered value the schema forbids is not used.
		{"list_dir", `{"type":"object","properties":{"directory":{"type":"string","pattern":"^/srv/photos$"}},"required":["directory"]}`,
			map[string]any{"directory": "/srv/photos"}},
		{"get_project", `{"type":"object","properties":{"project_id":{"type":"string","pattern":"^[0-9]+$"}},"required":["project_id"]}`,
			nil},
		{"read", `{"type":"object","properties":{"uri":{"type":"string","format":"uri"}},"required":["uri"]}`,
			map[string]any{"uri": "demo://resource/static/document/a.md"}},
	}
	for _, c := range cases {
		sch := mustCompile(t, c.schema)
		args, notes := NewValues(1).Offer(o).Valid(c.tool, sch)
		if len(notes) > 0 {
			t.Errorf("%s %s: notes %v", c.tool, c.schema, notes)
		}
		if c.want == nil {
			if v, _ := args["project_id"].(string); strings.HasPrefix(v, "prj-") {
				t.Errorf("%s: offered %q used although the pattern forbids it", c.tool, v)
			}
			continue
		}
		for k, v := range c.want {
			if args[k] != v {
				t.Errorf("%s %s: %s = %#v, want %#v", c.tool, c.schema, k, args[k], v)
			}
		}
	}
	want := []string{
		"list_allowed_directories → list_dir directory",
		"list_projects → get_owner ownerId, get_project id, get_project project_id",
		"recent_files → read_file path",
		"resources/list → read uri",
	}
	if got := o.Used(); !slices.Equal(got, want) {
		t.Errorf("used = %q\nwant %q", got, want)
	}

	// Distinct variants rotate through the offered ids.
	sch := mustCompile(t, `{"type":"object","properties":{"project_id":{"type":"string"}},"required":["project_id"]}`)
	var ids []any
	for _, a := range NewValues(1).Offer(o).Distinct("get_project", sch, 2) {
		ids = append(ids, a["project_id"])
	}
	if !slices.Equal(ids, []any{"prj-7f3a", "prj-91c2"}) {
		t.Errorf("distinct project ids = %v", ids)
	}
}

// TestOfferedNothing: no offer, an empty one and one that fits nothing
// leave the generated values as they were.
func TestOfferedNothing(t *testing.T) {
	sch := mustCompile(t, `{"type":"object","properties":{"path":{"type":"string"},"id":{"type":"string"}},"required":["path","id"]}`)
	plain, _ := NewValues(3).Valid("read", sch)
	o := NewOffered()
	o.AddAnswer("status", nil, "all good, 3 tasks open")
	for _, off := range []*Offered{nil, NewOffered(), o} {
		got, _ := NewValues(3).Offer(off).Valid("read", sch)
		if got["path"] != plain["path"] || got["id"] != plain["id"] {
			t.Errorf("offer %v changed %v to %v", off.Counts(), plain, got)
		}
	}
	if !o.Empty() || o.Counts() != "nothing usable" || len(o.Used()) != 0 {
		t.Errorf("offer from plain text: %s, used %v", o.Counts(), o.Used())
	}
}
