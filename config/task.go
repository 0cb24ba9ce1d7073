package config

// taskCall reads a step's task key: true (a task with the defaults), false
// (a plain call even of a tool that requires a task: to check how it
// refuses), absent (a plain call unless the tool requires a task), or an
// object with cancelAfterMs and ttlMs. The schema has checked the shape.
func taskCall(n *node) *TaskCall {
	if n == nil {
		return nil
	}
	switch n.kind {
	case boolNode:
		if !n.b {
			return &TaskCall{Off: true}
		}
		return &TaskCall{}
	case objectNode:
		return &TaskCall{CancelAfterMs: n.intAt("cancelAfterMs", 0), TTLMs: n.intAt("ttlMs", 0)}
	}
	return nil
}
