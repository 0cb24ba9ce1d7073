package gen

// Optional properties that are not filled together. A schema cannot say
// that two optional properties exclude each other (server-filesystem's
// read_text_file takes `head` or `tail`, and answers "Cannot specify both
// head and tail" to both), and a call that sends every optional property
// at once is refused before it reaches the code: an inconclusive check.
// An optional property without a `default` is a switch that the caller
// turns on; one that declares a default only restates what the server
// does anyway. So the rule, for every object generated:
//
//   - the required properties, always;
//   - every optional property that declares a `default` (and validates);
//   - of the optional properties without one, at most one per call: the
//     first in name order for the valid call, the next for each later
//     variant ([Values.Distinct]), so each switch is still reached;
//   - deprecated and readOnly properties never (a realistic caller would
//     not send them), and at most maxProps optional properties in all.
//
// minProperties still adds whatever optional properties it needs.

// optionalsToFill picks, from optional (sorted), the properties the
// object of variant vk takes (see above).
func (g *gen) optionalsToFill(objs []fobj, optional []string, vk int) []string {
	var out, switches []string
	for _, p := range optional {
		switch {
		case skipOptional(objs, p):
		case g.declaresDefault(objs, p):
			out = append(out, p)
		default:
			switches = append(switches, p)
		}
	}
	if len(switches) > 0 {
		out = append(out, switches[vk%len(switches)])
	}
	return out
}

// declaresDefault reports whether the schema of property p, in any schema
// of the conjunction, declares a `default`.
func (g *gen) declaresDefault(objs []fobj, p string) bool {
	for _, e := range g.propertyEnts(objs, p) {
		if m, ok := e.s.(map[string]any); ok {
			if _, present := m["default"]; present {
				return true
			}
		}
	}
	return false
}
