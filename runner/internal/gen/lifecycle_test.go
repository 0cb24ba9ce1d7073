package gen

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpcheck/mcpcheck/assert"
	"github.com/mcpcheck/mcpcheck/internal/jsonx"
)

// tool is a discovered tool; a schema the runner refuses has none.
func tool(name, raw string) Tool {
	sch, _ := compile([]byte(raw))
	return Tool{Name: name, InputSchema: sch}
}

const (
	idSchema      = `{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`
	textSchema    = `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`
	taskIDSchema  = `{"type":"object","properties":{"task_id":{"type":"string"},"verbose":{"type":"boolean"}},"required":["task_id"]}`
	taskIdSchema  = `{"type":"object","properties":{"taskId":{"type":"integer"}},"required":["taskId"]}`
	soleStrSchema = `{"type":"object","properties":{"key":{"type":"string"},"limit":{"type":"integer"}},"required":["key","limit"]}`
	noIDSchema    = `{"type":"object","properties":{"names":{"type":"array","items":{"type":"string"}}},"required":["names"]}`
)

func TestParseToolName(t *testing.T) {
	tests := []struct {
		name string
		role role
		res  string
	}{
		{"create_task", roleCreate, "task"}, {"createTask", roleCreate, "task"}, {"task_create", roleCreate, "task"},
		{"TaskCreate", roleCreate, "task"}, {"add-tasks", roleCreate, "task"}, {"insert_row", roleCreate, "row"},
		{"new_note", roleCreate, "note"}, {"get_task", roleRead, "task"}, {"fetchTasks", roleRead, "task"},
		{"describe_db_instance", roleRead, "db_instance"}, {"get_task_by_id", roleRead, "task"},
		{"showEntries", roleRead, "entry"}, {"delete_tasks", roleDelete, "task"}, {"destroyBox", roleDelete, "box"},
		{"todo_create_task", roleCreate, "task"}, {"createTodoItem", roleCreate, "todo_item"},
		{"list_tasks", roleNone, ""}, {"get", roleNone, ""}, {"read_graph", roleRead, "graph"}, {"", roleNone, ""},
		{"search_nodes", roleNone, ""}, {"get-status", roleRead, "status"},
	}
	for _, tt := range tests {
		r, res := parseToolName(tt.name)
		if r != tt.role || res != tt.res {
			t.Errorf("parseToolName(%q) = %v %q, want %v %q", tt.name, r, res, tt.role, tt.res)
		}
	}
}

func TestGroups(t *testing.T) {
	tests := []struct {
		name  string
		tools []Tool
		want  []Group
		notes []string // substrings, in order
	}{
		{
			name:  "snake case with id",
			tools: []Tool{tool("create_task", textSchema), tool("get_task", idSchema), tool("delete_task", idSchema)},
			want:  []Group{{Resource: "task", Create: "create_task", Read: "get_task", Delete: "delete_task", ReadIDParam: "id", DeleteIDParam: "id"}},
		},
		{
			name:  "camel case, plural and resource ids",
			tools: []Tool{tool("createTask", textSchema), tool("getTasks", taskIDSchema), tool("removeTask", taskIdSchema)},
			want:  []Group{{Resource: "task", Create: "createTask", Read: "getTasks", Delete: "removeTask", ReadIDParam: "task_id", DeleteIDParam: "taskId"}},
		},
		{
			name:  "verb last and sole required string",
			tools: []Tool{tool("note_add", textSchema), tool("note_show", soleStrSchema)},
			want:  []Group{{Resource: "note", Create: "note_add", Read: "note_show", ReadIDParam: "key"}},
		},
		{
			name:  "delete only",
			tools: []Tool{tool("insert_row", textSchema), tool("destroy_row", `{"type":"object","properties":{"uuid":{"type":"string"}}}`)},
			want:  []Group{{Resource: "row", Create: "insert_row", Delete: "destroy_row", DeleteIDParam: "uuid"}},
		},
		{
			name:  "two creates",
			tools: []Tool{tool("create_task", textSchema), tool("add_task", textSchema), tool("get_task", idSchema)},
			notes: []string{`resource "task": 2 create tools (create_task, add_task); not grouped`},
		},
		{
			name:  "no id parameter",
			tools: []Tool{tool("create_entities", noIDSchema), tool("delete_entities", noIDSchema)},
			notes: []string{`resource "entity": delete_entities has no id-shaped parameter`},
		},
		{
			name:  "two required strings",
			tools: []Tool{tool("create_file", textSchema), tool("get_file", `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["a","b"]}`)},
			notes: []string{`resource "file": get_file has no id-shaped parameter`},
		},
		{
			name:  "create alone or read alone",
			tools: []Tool{tool("create_widget", textSchema), tool("get_gadget", idSchema), tool("list_widgets", idSchema)},
		},
		{
			name:  "id through ref",
			tools: []Tool{tool("create_doc", textSchema), tool("get_doc", `{"$defs":{"i":{"type":"string"}},"type":"object","allOf":[{"properties":{"docId":{"$ref":"#/$defs/i"}}}]}`)},
			want:  []Group{{Resource: "doc", Create: "create_doc", Read: "get_doc", ReadIDParam: "docId"}},
		},
		{
			name:  "malformed schemas",
			tools: []Tool{tool("create_x", `[`), tool("get_x", `{"properties":"id"}`), tool("create_y", ``), tool("delete_y", `{"required":"id"}`)},
			notes: []string{`resource "x": get_x has no id-shaped`, `resource "y": delete_y has no id-shaped`},
		},
		{
			name:  "duplicate listing",
			tools: []Tool{tool("create_task", textSchema), tool("get_task", idSchema), tool("get_task", textSchema)},
			want:  []Group{{Resource: "task", Create: "create_task", Read: "get_task", ReadIDParam: "id"}},
			notes: []string{`tool "get_task" is listed twice`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, notes := Groups(tt.tools)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("groups (-want +got):\n%s", diff)
			}
			if len(notes) != len(tt.notes) {
				t.Fatalf("notes %q, want %d", notes, len(tt.notes))
			}
			for i, n := range tt.notes {
				if !strings.Contains(notes[i], n) {
					t.Errorf("note %q lacks %q", notes[i], n)
				}
			}
		})
	}
}

func TestGroupsMemoryCapture(t *testing.T) {
	var tools []Tool
	for _, pt := range loadPeers(t)["testdata/tools-memory.json"] {
		tools = append(tools, Tool{Name: pt.Name, InputSchema: mustCompile(t, string(pt.InputSchema))})
	}
	groups, notes := Groups(tools)
	if len(groups) != 0 {
		t.Errorf("groups %v, want none (no tool takes an id)", groups)
	}
	want := []string{"entity", "observation", "relation"}
	if len(notes) != len(want) {
		t.Fatalf("notes %q", notes)
	}
	for i, res := range want {
		if !strings.Contains(notes[i], `resource "`+res+`"`) {
			t.Errorf("note %q is not about %s", notes[i], res)
		}
	}
}

func TestLinks(t *testing.T) {
	tools := []Tool{
		tool("create_project", textSchema), tool("get_project", idSchema), tool("delete_project", idSchema),
		tool("create_task", `{"type":"object","properties":{"project_id":{"type":"string"},"text":{"type":"string"}},"required":["project_id","text"]}`),
		tool("get_task", idSchema), tool("delete_task", idSchema),
		tool("create_comment", `{"type":"object","properties":{"taskId":{"type":"string"},"task_id":{"type":"string"}}}`),
		tool("get_comment", idSchema),
		tool("create_label", `{"type":"object","properties":{"projectId":{"type":"string"}}}`),
		tool("delete_label", idSchema),
	}
	groups, notes := Groups(tools)
	if len(groups) != 4 || len(notes) != 0 {
		t.Fatalf("groups %v notes %v", groups, notes)
	}
	got := Links(groups, tools)
	want := []Link{{Parent: "project", Child: "task", Param: "project_id"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("links (-want +got):\n%s", diff)
	}
	if l := Links(nil, nil); l != nil {
		t.Errorf("Links(nil) = %v", l)
	}
}

func TestExtractID(t *testing.T) {
	tests := []struct {
		name       string
		resource   string
		structured string
		text       string
		id         any
		where      string
		ok         bool
	}{
		{"top id", "task", `{"id":"t-1","title":"x"}`, "", "t-1", "/structuredContent/id", true},
		{"numeric id", "task", `{"id":42}`, "", json.Number("42"), "/structuredContent/id", true},
		{"resource_id", "task", `{"task_id":"t-2"}`, "", "t-2", "/structuredContent/task_id", true},
		{"resourceId", "todo_item", `{"todoItemId":"t-3"}`, "", "t-3", "/structuredContent/todoItemId", true},
		{"uuid key", "task", `{"uuid":"u-1"}`, "", "u-1", "/structuredContent/uuid", true},
		{"id wins", "task", `{"uuid":"u-1","id":"i-1"}`, "", "i-1", "/structuredContent/id", true},
		{"sole nested object", "task", `{"task":{"id":"n-1"},"count":1}`, "", "n-1", "/structuredContent/task/id", true},
		{"two nested objects", "task", `{"a":{"id":"x"},"b":{"id":"y"}}`, "", nil, "", false},
		{"first array element", "task", `{"tasks":[{"id":"a-1"},{"id":"a-2"}]}`, "", "a-1", "/structuredContent/tasks/0/id", true},
		{"escaped key", "task", `{"a/b":{"id":"e-1"}}`, "", "e-1", "/structuredContent/a~1b/id", true},
		{"structured array", "task", `[{"id":"r-1"}]`, "", "r-1", "/structuredContent/0/id", true},
		{"empty id", "task", `{"id":"  "}`, "", nil, "", false},
		{"bool id", "task", `{"id":true}`, "", nil, "", false},
		{"object id", "task", `{"id":{"v":1}}`, "", nil, "", false},
		{"deeper is not searched", "task", `{"a":{"b":{"id":"d"}}}`, "", nil, "", false},
		{"other names are not guessed", "task", `{"key":"k","name":"n","ref":"r"}`, "no id here", nil, "", false},
		{"uuid in text", "task", `{}`, "Created task 3F6C2A9E-8B1D-4C7E-9A52-1D0E4B7F8C21.", "3F6C2A9E-8B1D-4C7E-9A52-1D0E4B7F8C21", FoundInText, true},
		{"same uuid twice", "task", ``, "id 3f6c2a9e-8b1d-4c7e-9a52-1d0e4b7f8c21 (3F6C2A9E-8B1D-4C7E-9A52-1D0E4B7F8C21)", "3f6c2a9e-8b1d-4c7e-9a52-1d0e4b7f8c21", FoundInText, true},
		{"two uuids", "task", ``, "3f6c2a9e-8b1d-4c7e-9a52-1d0e4b7f8c21 and 9b2d7e41-5c3a-4f8e-b1d6-0a7c9e2f4b13", nil, "", false},
		{"structured wins over text", "task", `{"id":"s"}`, "3f6c2a9e-8b1d-4c7e-9a52-1d0e4b7f8c21", "s", "/structuredContent/id", true},
		{"nothing", "task", ``, "", nil, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var structured any
			if tt.structured != "" {
				structured = jsonx.Value([]byte(tt.structured))
			}
			id, where, ok := ExtractID(tt.resource, structured, tt.text)
			if !equalID(id, tt.id) || where != tt.where || ok != tt.ok {
				t.Errorf("ExtractID = %#v, %q, %v; want %#v, %q, %v", id, where, ok, tt.id, tt.where, tt.ok)
			}
			if tt.structured != "" {
				id2, where2, ok2 := ExtractID(tt.resource, json.RawMessage(tt.structured), tt.text)
				if !equalID(id2, id) || where2 != where || ok2 != ok {
					t.Errorf("raw JSON gives %v %q %v", id2, where2, ok2)
				}
			}
		})
	}
}

func equalID(a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return assert.Equal(a, b)
}
