package demo

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// releaseVersion is the server version of this release or the next.
func releaseVersion(next bool) string {
	if next {
		return "0.2.0"
	}
	return serverVersion
}

// release returns t as this release serves it, or as the next release
// does (Options.NextRelease). The next release changes the household's
// contract once at each drift severity, and nothing a call sees:
//
//   - breaking: commit_task is no longer idempotentHint (a safety promise
//     withdrawn, though the tool still replays an idempotencyKey);
//   - risky: get_household's description is reworded;
//   - compatible: propose_task accepts an optional "room" (ignored);
//   - info: the server version is 0.2.0.
func release(next bool, t *mcp.Tool) *mcp.Tool {
	if !next {
		return t
	}
	switch t.Name {
	case "commit_task":
		a := *t.Annotations
		a.IdempotentHint = false
		t.Annotations = &a
	case "get_household":
		t.Description = "Returns this session's household: its revision and every committed task, in commit order."
	case "propose_task":
		t.InputSchema = nextProposeTaskInputSchema
	}
	return t
}

var nextProposeTaskInputSchema = json.RawMessage(`{
	"type": "object",
	"properties": {
		"text": {"type": "string", "minLength": 1, "maxLength": 500, "pattern": "\\S", "description": "What the task is; not blank, at most 500 characters."},
		"room": {"type": "string", "maxLength": 100, "description": "Where the task is done, such as kitchen; optional."}
	},
	"required": ["text"],
	"additionalProperties": false
}`)
