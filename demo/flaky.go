package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The flaky tool (--flaky FILE, [Options].FlakyFile) fails every other
// call, deterministically: the 1st, 3rd, 5th ... call is a tool error, the
// 2nd, 4th ... answers ok. It is how a test pins down retries (mcpcheck
// --retries): a scenario that calls it fails, and passes when run again.
// A retry runs on a fresh session, over stdio a new server process, so the
// count cannot live in the process: it is the number in FILE, which the
// tool reads and rewrites (a temporary file and a rename) on each call.
// Calls in one process are counted one at a time; two processes calling at
// once may count one call twice (the demo serves tests, which do not).
// The tool is annotated read-only: its count is the fault's device, not
// state the household shows.

const toolFlaky = "flaky"

var flakyOutputSchema = json.RawMessage(`{"type": "object", "properties": {"call": {"type": "integer", "minimum": 1}}, "required": ["call"], "additionalProperties": false}`)

type flakyOut struct {
	Call int `json:"call"`
}

// addFlaky registers the flaky tool, counting its calls in file.
func addFlaky(s *mcp.Server, file string) {
	var mu sync.Mutex
	no := false
	mcp.AddTool(s, &mcp.Tool{
		Name:  toolFlaky,
		Title: "Flaky",
		Description: "Fails every other call: odd-numbered calls (the 1st, 3rd, ...) are a tool error, even-numbered ones answer " +
			"ok with the call's number. The count is kept in the file given to --flaky, across server processes.",
		InputSchema:  noArgsSchema,
		OutputSchema: flakyOutputSchema,
		Annotations:  &mcp.ToolAnnotations{Title: "Flaky", ReadOnlyHint: true, OpenWorldHint: &no},
	}, func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, any, error) {
		// Out is any, so that a failed call is a tool error without
		// structured content (a typed zero value would fail the schema).
		mu.Lock()
		defer mu.Unlock()
		n, err := countCall(file)
		if err != nil {
			return nil, nil, fmt.Errorf("flaky: counting the call in %s: %v", file, err)
		}
		if n%2 == 1 {
			return nil, nil, fmt.Errorf("flaky: call %d fails (every odd-numbered call does)", n)
		}
		return nil, flakyOut{Call: n}, nil
	})
}

// countCall adds one to the count in file (none yet: 0) and returns it.
func countCall(file string) (int, error) {
	n := 0
	b, err := os.ReadFile(file)
	switch {
	case os.IsNotExist(err):
	case err != nil:
		return 0, err
	case len(b) > 32:
		return 0, fmt.Errorf("the file holds more than a count")
	default:
		if n, err = strconv.Atoi(strings.TrimSpace(string(b))); err != nil {
			return 0, fmt.Errorf("the file holds no count")
		}
	}
	n++
	tmp, err := os.CreateTemp(filepath.Dir(file), ".flaky-*")
	if err != nil {
		return 0, err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(strconv.Itoa(n) + "\n"); err != nil {
		tmp.Close()
		return 0, err
	}
	if err := tmp.Close(); err != nil {
		return 0, err
	}
	return n, os.Rename(tmp.Name(), file)
}
