package runner

import (
	"fmt"

	"github.com/mcpcheck/mcpcheck/assert"
	"github.com/mcpcheck/mcpcheck/runner/internal/schema"
)

// toolSchemas are a discovered tool's input and output schemas, compiled
// once at discovery (not to be confused with the contract file of package
// internal/contract, which records a whole server's surface). A schema that
// was refused (see package schema) is a discovery warning; steps that call
// the tool with argument validation on end as input_rejected.
type toolSchemas struct {
	input, output       *schema.Schema
	inputErr, outputErr error
	// taskSupport is the tool's execution.taskSupport ("" when absent).
	taskSupport string
}

func compileSchemas(t tool) toolSchemas {
	c := toolSchemas{taskSupport: taskSupportOf(t)}
	c.input, c.inputErr = schema.Compile(t.Name, "input", t.InputSchema)
	c.output, c.outputErr = schema.Compile(t.Name, "output", t.OutputSchema)
	return c
}

// checkArguments validates a step's arguments against the tool's
// inputSchema before anything is sent.
func checkArguments(c *toolSchemas, args map[string]any) (rejected bool, reason, detail string) {
	if c.inputErr != nil {
		return true, "the tool's inputSchema was refused, so its arguments cannot be checked; nothing was sent", c.inputErr.Error()
	}
	if c.input == nil {
		return false, "", ""
	}
	var v any = args
	if args == nil {
		v = map[string]any{}
	}
	err := c.input.Validate(v)
	if err == nil {
		return false, "", ""
	}
	vi := schema.Explain(err)
	return true, fmt.Sprintf("arguments do not match the tool's inputSchema at %q (%s); nothing was sent", vi.Path, vi.Keyword), vi.Message
}

// checkOutput validates structuredContent against the tool's outputSchema.
// A successful result of a tool that declares one must carry conforming
// structuredContent.
func checkOutput(c *toolSchemas, ar *assert.Result) (bad bool, reason, detail string) {
	if !ar.HasStructured {
		return true, "the tool declares an outputSchema but the result has no structuredContent", ""
	}
	err := c.output.Validate(ar.Structured)
	if err == nil {
		return false, "", ""
	}
	vi := schema.Explain(err)
	return true, fmt.Sprintf("structuredContent does not match the tool's outputSchema at %q (%s)", vi.Path, vi.Keyword), vi.Message
}
