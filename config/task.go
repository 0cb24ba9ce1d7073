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
		t := &TaskCall{}
		if v, ok := intValue(n.value("cancelAfterMs")); ok {
			t.CancelAfterMs = int(v)
		}
		if v, ok := intValue(n.value("ttlMs")); ok {
			t.TTLMs = int(v)
		}
		return t
	}
	return nil
}
