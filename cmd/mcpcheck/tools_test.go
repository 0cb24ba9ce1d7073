package main

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/demo"
)

// surfaceJSON is what the tests read of mcpcheck tools --json.
type surfaceJSON struct {
	SchemaVersion int `json:"schemaVersion"`
	Server        struct {
		Name string `json:"name"`
	} `json:"server"`
	Tools []struct {
		Name         string          `json:"name"`
		InputSchema  json.RawMessage `json:"inputSchema"`
		OutputSchema json.RawMessage `json:"outputSchema"`
		Annotations  map[string]any  `json:"annotations"`
	} `json:"tools"`
	Resources         []struct{ URI string }         `json:"resources"`
	ResourceTemplates []struct{ URITemplate string } `json:"resourceTemplates"`
	Prompts           []struct {
		Name      string `json:"name"`
		Arguments []struct {
			Name     string `json:"name"`
			Required bool   `json:"required"`
		} `json:"arguments"`
	} `json:"prompts"`
}

func decodeSurface(t *testing.T, data string) surfaceJSON {
	t.Helper()
	var s surfaceJSON
	if err := json.Unmarshal([]byte(data), &s); err != nil {
		t.Fatalf("tools --json is not JSON: %v\n%s", err, data)
	}
	return s
}

// TestToolsDemo: the demo's whole surface, for a person (golden) and as
// JSON, the same from a command, a fixture and an HTTP endpoint.
func TestToolsDemo(t *testing.T) {
	parallel(t)
	r := runCmd(t, "tools", "--", "mcpcheck", "demo")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	golden(t, "tools-demo.golden", r.stdout)

	srv := httptest.NewServer(demo.Handler(demo.Options{}))
	defer srv.Close()
	for _, args := range [][]string{
		{"tools", "--json", "--", "mcpcheck", "demo"},
		{"tools", "--json", "--config", "../../examples/demo.yaml"},
		{"tools", "--json", "--url", srv.URL + "/mcp"},
	} {
		r := runCmd(t, args...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, r.code, r.stderr)
		}
		s := decodeSurface(t, r.stdout)
		var names []string
		for _, tl := range s.Tools {
			names = append(names, tl.Name)
			if len(tl.InputSchema) == 0 || len(tl.OutputSchema) == 0 {
				t.Errorf("%v: %s lacks its schemas", args, tl.Name)
			}
		}
		if s.SchemaVersion != 1 || s.Server.Name != "mcpcheck-demo" || !slices.Equal(names, []string{"commit_task", "get_household", "propose_task", "tidy_household"}) {
			t.Errorf("%v: surface %+v", args, s)
		}
		if len(s.Resources) != 2 || len(s.ResourceTemplates) != 1 || len(s.Prompts) != 1 || len(s.Prompts[0].Arguments) != 2 {
			t.Errorf("%v: resources, templates or prompts missing: %+v", args, s)
		}
	}
}

func TestToolsBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"tools"}, 2, "give --config FILE, or -- COMMAND"},
		{[]string{"tools", "--trace", "t.jsonl", "--", "mcpcheck", "demo"}, 2, "--trace is for a run"},
		{[]string{"tools", "--bogus"}, 2, "flag provided but not defined: --bogus (see mcpcheck tools --help)"},
		{[]string{"tools", "--", "./no-such-server"}, 1, "connect"},
		{[]string{"tools", "--json", "--", "./no-such-server"}, 1, "connect"},
	} {
		r := runCmd(t, tc.args...)
		if r.code != tc.code || !strings.Contains(r.stdout+r.stderr, tc.want) {
			t.Errorf("%v: exit %d, want %d with %q\nstdout: %s\nstderr: %s", tc.args, r.code, tc.code, tc.want, r.stdout, r.stderr)
		}
	}
	if r := runCmd(t, "tools", "--help"); r.code != 0 || !strings.Contains(r.stdout, "calls nothing") {
		t.Errorf("tools --help: exit %d\n%s", r.code, r.stdout)
	}
}

// TestToolsEverything: a real third-party server's surface, with its
// annotations and enum arguments shown as the server sent them.
func TestToolsEverything(t *testing.T) {
	parallel(t)
	dir := peerDir(t)
	argv := []string{"--", "node", filepath.Join(dir, peerEverything), "stdio"}
	r := runCmd(t, append([]string{"tools", "--json"}, argv...)...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	s := decodeSurface(t, r.stdout)
	if len(s.Tools) < 10 || len(s.Prompts) == 0 || len(s.Resources) == 0 {
		t.Fatalf("server-everything's surface looks empty: %d tools, %d prompts, %d resources", len(s.Tools), len(s.Prompts), len(s.Resources))
	}
	text := runCmd(t, append([]string{"tools"}, argv...)...)
	if text.code != 0 {
		t.Fatalf("exit %d\n%s", text.code, text.stderr)
	}
	for _, tl := range s.Tools {
		if !strings.Contains(text.stdout, "\n  "+tl.Name) {
			t.Errorf("text output lacks tool %s", tl.Name)
		}
	}
	for _, want := range []string{"Server: mcp-servers/everything", "annotations: ", "one of ", "required", "Prompts ("} {
		if !strings.Contains(text.stdout, want) {
			t.Errorf("text output lacks %q:\n%s", want, text.stdout)
		}
	}
}

// TestListFixtureNeedsNoServer: --list on a fixture without generated
// checks lists its steps without starting the server (here one that
// cannot start), and says it did not connect.
func TestListFixtureNeedsNoServer(t *testing.T) {
	fixture := filepath.Join(t.TempDir(), "f.yaml")
	data, err := os.ReadFile("../../examples/demo.yaml")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(fixture, []byte(strings.Replace(string(data), "command: [mcpcheck, demo]", "command: [./no-such-server]", 1)), 0o600)
	r := runCmd(t, "--config", fixture, "--list")
	if r.code != 0 || !strings.Contains(r.stdout, "not connected") || !strings.Contains(r.stdout, "commit_task") || strings.Contains(r.stdout, "error connect") {
		t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
