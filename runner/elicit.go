package runner

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/internal/jsonx"
	"github.com/mcpcheck/mcpcheck/internal/schemacheck"
	"github.com/mcpcheck/mcpcheck/runner/internal/schema"
)

// The fixture's elicitation answer (client.elicitation) reaches the SDK
// with JSON's types: a fixture's numbers are decoded as json.Number to keep
// their exact text, which is a Go string, and the SDK checks the answer
// against the form the server asked with by Go type, so 7 failed as
// "has type string, want integer". Numbers become int64 (a whole number
// that fits) or float64 here, once per session.
//
// An answer that does not fit the form is still sent (the server's
// handling of a bad answer is worth seeing), but the SDK refuses it before
// it leaves and the server only relays the refusal: the run warns that the
// fixture's answer was refused, so the failure is not read as the server's.

// elicitHandler answers every elicitation/create with el.
func elicitHandler(el *config.Elicitation, where string, warn func(string)) func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	content, _ := sdkValue(el.Content).(map[string]any)
	return func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		if el.Action == "accept" && warn != nil && req != nil && req.Params != nil && req.Params.RequestedSchema != nil {
			if msg := elicitMismatch(req.Params.RequestedSchema, el.Content); msg != "" {
				warn(where + "client.elicitation.content does not fit the form the server asked with, so the client refused to send it (the error the server relays is the fixture's, not the server's): " + msg)
			}
		}
		return &mcp.ElicitResult{Action: el.Action, Content: content}, nil
	}
}

// elicitMismatch is why content does not validate against the requested
// schema ("" when it does, or when the schema cannot be compiled: the SDK
// judges then).
func elicitMismatch(requested any, content map[string]any) string {
	raw, err := json.Marshal(requested)
	if err != nil {
		return ""
	}
	s, err := schema.Compile("elicitation", "requested", raw)
	if err != nil || s == nil {
		return ""
	}
	doc, err := json.Marshal(content)
	if err != nil {
		return ""
	}
	err = s.Validate(jsonx.Value(doc))
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		leaf := schemacheck.FirstLeaf(ve)
		at := schemacheck.Pointer(leaf.InstanceLocation)
		if at == "" {
			at = "/"
		}
		return at + ": " + schemacheck.Message(leaf.ErrorKind)
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

// sdkValue is a decoded fixture value with its numbers as Go numbers:
// int64 when whole and in range, float64 otherwise.
func sdkValue(v any) any {
	switch x := v.(type) {
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = sdkValue(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = sdkValue(e)
		}
		return out
	}
	return v
}
