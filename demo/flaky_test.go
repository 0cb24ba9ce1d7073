package demo

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestFlakyTool: the flaky tool fails every odd-numbered call and answers
// the even ones, counting in its file across sessions (and so across
// server processes, which share nothing else); without the option it is
// not there.
func TestFlakyTool(t *testing.T) {
	file := filepath.Join(t.TempDir(), "count")
	srv := NewServer(Options{FlakyFile: file})
	a := connectInMemory(t, testContext(t), srv, "2025-11-25")
	b := connectInMemory(t, testContext(t), NewServer(Options{FlakyFile: file}), "2025-11-25")
	for i, cs := range []*mcp.ClientSession{a, b, a, b} {
		res, err := cs.CallTool(testContext(t), &mcp.CallToolParams{Name: "flaky", Arguments: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		n := i + 1
		if n%2 == 1 {
			if !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, fmt.Sprintf("call %d fails", n)) {
				t.Errorf("call %d: %+v", n, res)
			}
			continue
		}
		if res.IsError || res.StructuredContent.(map[string]any)["call"] != float64(n) {
			t.Errorf("call %d: %+v", n, res)
		}
	}
	if b, _ := os.ReadFile(file); string(b) != "4\n" {
		t.Errorf("the count file holds %q, want 4", b)
	}
	res, err := connectInMemory(t, testContext(t), NewServer(Options{}), "2025-11-25").ListTools(testContext(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if tool.Name == "flaky" {
			t.Error("the flaky tool is listed without FlakyFile")
		}
	}
}
