package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tools of the defects profile that test how honestly mcpcheck judges what
// a server accepts and what it needs: format_address accepts input its own
// schema forbids (schema enforcement), and two families answer only to
// input another tool offers — get_project to an id list_projects returns,
// list_folder to a directory shared_folders names. Without the server's
// own values the valid calls of get_project and list_folder are refused and
// inconclusive; with them (mcpcheck's offered inputs) they are judged.
const (
	toolFormatAddress = "format_address"
	toolListProjects  = "list_projects"
	toolGetProject    = "get_project"
	toolSharedFolders = "shared_folders"
	toolListFolder    = "list_folder"
)

// project is one of the household's projects.
type project struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Room   string `json:"room"`
	Status string `json:"status"`
}

// projects are fixed: the ids look like nothing a generator would invent.
var projects = []project{
	{ID: "prj-7f3a", Name: "Kitchen remodel", Room: "kitchen", Status: "in progress"},
	{ID: "prj-91c2", Name: "Garden shed", Room: "garden", Status: "planned"},
	{ID: "prj-c44e", Name: "Repaint the hallway", Room: "hallway", Status: "done"},
}

// sharedFolders and their entries: the only paths list_folder serves.
var sharedFolders = map[string][]string{
	"/srv/household/shared": {"budget-2026.ods", "chores.md", "recipes/"},
	"/srv/household/photos": {"2026-01-ski-trip/", "garden-before.jpg", "garden-after.jpg"},
}

type projectsOut struct {
	Projects []project `json:"projects"`
}

type getProjectIn struct {
	ProjectID string `json:"project_id"`
}

type sharedFolderIn struct {
	Path string `json:"path"`
}

type sharedFolderOut struct {
	Path    string   `json:"path"`
	Entries []string `json:"entries"`
}

func (d *defects) addOfferedTools(s *mcp.Server) {
	// Planted defect: format_address checks nothing. A wrong-typed street
	// or a missing city is formatted like any value and answered ok — no
	// crash, so crash resilience holds, but schema enforcement fails for
	// every such case.
	s.AddTool(&mcp.Tool{
		Name:         toolFormatAddress,
		Title:        "Format address",
		Description:  "Formats a postal address as the lines of a label.",
		InputSchema:  formatAddressInputSchema,
		OutputSchema: formatAddressOutputSchema,
		Annotations:  readOnly("Format address"),
	}, formatAddress)

	// Control: lists the projects, needing no argument.
	mcp.AddTool(s, &mcp.Tool{
		Name:         toolListProjects,
		Title:        "List projects",
		Description:  "Lists the household's projects with their ids.",
		InputSchema:  noArgsSchema,
		OutputSchema: listProjectsOutputSchema,
		Annotations:  readOnly("List projects"),
	}, func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, projectsOut, error) {
		return nil, projectsOut{Projects: projects}, nil
	})

	// Control: answers for an id list_projects returned, and an unknown id
	// is a tool error that says where the ids are.
	mcp.AddTool(s, &mcp.Tool{
		Name:         toolGetProject,
		Title:        "Get project",
		Description:  "Returns one project by the id list_projects gives it.",
		InputSchema:  getProjectInputSchema,
		OutputSchema: projectOutputSchema,
		Annotations:  readOnly("Get project"),
	}, func(_ context.Context, _ *mcp.CallToolRequest, in getProjectIn) (*mcp.CallToolResult, project, error) {
		for _, p := range projects {
			if p.ID == in.ProjectID {
				return nil, p, nil
			}
		}
		return nil, project{}, fmt.Errorf("no project with id %q; list_projects lists them", in.ProjectID)
	})

	// Control: names the shared folders in plain text, as filesystem
	// servers do.
	mcp.AddTool(s, &mcp.Tool{
		Name:        toolSharedFolders,
		Title:       "Shared folders",
		Description: "Names the folders list_folder may read.",
		InputSchema: noArgsSchema,
		Annotations: readOnly("Shared folders"),
	}, func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, any, error) {
		names := make([]string, 0, len(sharedFolders))
		for dir := range sharedFolders {
			names = append(names, dir)
		}
		sort.Strings(names)
		return textResult("Shared folders:\n" + strings.Join(names, "\n")), nil, nil
	})

	// Control: lists a shared folder, and refuses any other path.
	mcp.AddTool(s, &mcp.Tool{
		Name:         toolListFolder,
		Title:        "List folder",
		Description:  "Lists the entries of a folder that shared_folders names.",
		InputSchema:  listFolderInputSchema,
		OutputSchema: listFolderOutputSchema,
		Annotations:  readOnly("List folder"),
	}, func(_ context.Context, _ *mcp.CallToolRequest, in sharedFolderIn) (*mcp.CallToolResult, sharedFolderOut, error) {
		entries, ok := sharedFolders[strings.TrimRight(in.Path, "/")]
		if !ok {
			return nil, sharedFolderOut{}, fmt.Errorf("access denied: %s is outside the shared folders (see shared_folders)", in.Path)
		}
		return nil, sharedFolderOut{Path: strings.TrimRight(in.Path, "/"), Entries: entries}, nil
	})
}

// formatAddress is format_address's handler (see the planted defect at
// its registration): whatever street, city and postcode are, it prints
// them.
func formatAddress(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args map[string]any
	_ = json.Unmarshal(req.Params.Arguments, &args) // anything goes
	var lines []string
	for _, k := range []string{"street", "city", "postcode"} {
		if v, ok := args[k]; ok {
			lines = append(lines, fmt.Sprint(v))
		}
	}
	return structuredResult(map[string]any{"label": strings.Join(lines, "\n")})
}
