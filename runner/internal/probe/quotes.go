package probe

import "strings"

// The sentences of the spec the probes' findings quote, by probe: a
// finding names the sentence that states the requirement, not only the
// section. They are MCP 2025-11-25's words (the spec repository's
// docs/specification/2025-11-25: basic/lifecycle, basic/transports,
// server/tools, server/resources, server/prompts, server/utilities/logging
// and pagination; checked by hand) and JSON-RPC 2.0's
// error-code table, so they are quoted only when 2025-11-25 was
// negotiated (the JSON-RPC ones always); under another version the
// reference stays the section's name. Markdown emphasis is dropped.
//
// before-initialize and second-initialize quote the sentence that binds
// the client: it is why those probes only ask the server to live.
var quotes = map[string]string{
	"unsupported-version":      `Version Negotiation: "If the server supports the requested protocol version, it MUST respond with the same version. Otherwise, the server MUST respond with another protocol version it supports."`,
	"before-initialize":        `Initialization: "The client SHOULD NOT send requests other than pings before the server has responded to the initialize request." (a client's rule)`,
	"second-initialize":        `Initialization: "The client MUST initiate this phase by sending an initialize request" (the spec says nothing of a second one)`,
	"missing-protocol-version": `Protocol Version Header: "if the server does not receive an MCP-Protocol-Version header, and has no other way to identify the version - for example, by relying on the protocol version negotiated during initialization - the server SHOULD assume protocol version 2025-03-26."`,
	"invalid-protocol-version": `Protocol Version Header: "If the server receives a request with an invalid or unsupported MCP-Protocol-Version, it MUST respond with 400 Bad Request."`,
	"missing-session-id":       `Session Management: "Servers that require a session ID SHOULD respond to requests without an MCP-Session-Id header (other than initialization) with HTTP 400 Bad Request."`,
	"deleted-session":          `Session Management: "The server MAY terminate the session at any time, after which it MUST respond to requests containing that session ID with HTTP 404 Not Found."`,
	"foreign-origin":           `Security Warning: "Servers MUST validate the Origin header on all incoming connections to prevent DNS rebinding attacks" and "If the Origin header is present and invalid, servers MUST respond with HTTP 403 Forbidden."`,
	"unknown-tool":             `Error Handling: "Protocol Errors: Standard JSON-RPC errors for issues like: Unknown tools" (its example: -32602 "Unknown tool: invalid_tool_name")`,
	"null-arguments":           `Error Handling: "Protocol Errors: Standard JSON-RPC errors for issues like: … Malformed requests (requests that fail to satisfy CallToolRequest schema)"; Security Considerations: "Servers MUST: Validate all tool inputs"`,
	"omitted-arguments":        `Error Handling: "Protocol Errors: Standard JSON-RPC errors for issues like: … Malformed requests (requests that fail to satisfy CallToolRequest schema)"; Security Considerations: "Servers MUST: Validate all tool inputs"`,
	"unknown-resource":         `Error Handling: "Servers SHOULD return standard JSON-RPC errors for common failure cases: Resource not found: -32002"`,
	"unknown-prompt":           `Error Handling: "Servers SHOULD return standard JSON-RPC errors for common failure cases: Invalid prompt name: -32602 (Invalid params)"`,
	"invalid-log-level":        `Error Handling: "Servers SHOULD return standard JSON-RPC errors for common failure cases: Invalid log level: -32602 (Invalid params)"`,
	"invalid-cursor":           `Error Handling: "Invalid cursors SHOULD result in an error with code -32602 (Invalid params)."`,
	"sse-priming":              `Sending Messages to the Server: "The server SHOULD immediately send an SSE event consisting of an event ID and an empty data field in order to prime the client to reconnect (using that event ID as Last-Event-ID)."`,
}

// jsonRPCQuotes are JSON-RPC 2.0's words (§5.1, the error codes), the same
// whatever MCP version was negotiated.
var jsonRPCQuotes = map[string]string{
	"malformed-json": `"-32700 Parse error: Invalid JSON was received by the server."`,
	"missing-method": `"-32600 Invalid Request: The JSON sent is not a valid Request object."`,
	"bad-jsonrpc":    `"-32600 Invalid Request: The JSON sent is not a valid Request object."`,
	"unknown-method": `"-32601 Method not found: The method does not exist / is not available."`,
}

// quoted is p's reference with the sentence it rests on, where one is
// known for version.
func quoted(p Probe, version string) Probe {
	if q, ok := jsonRPCQuotes[p.Name]; ok {
		p.Reference += ": " + q
	} else if q, ok := quotes[p.Name]; ok && version == "2025-11-25" {
		// The quote's heading names the part: "basic/transports (session
		// management)" becomes "basic/transports, Session Management: …".
		if i := strings.Index(p.Reference, " ("); i > 0 {
			p.Reference = p.Reference[:i]
		}
		p.Reference += ", " + q
	}
	return p
}
