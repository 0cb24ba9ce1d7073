package config

import (
	"slices"
	"strconv"
)

// The generate block asks for checks derived from the server's own tool
// contracts. Config only reads and checks it; what the checks are is the
// runner's.

// Thresholds of the probes when the fixture leaves them out.
const (
	defaultSlowThresholdMs     = 5000
	defaultBloatThresholdChars = 20000
	// DefaultFuzzCases bounds the bad-input cases per tool.
	DefaultFuzzCases = 30
)

// generateSwitches choose which kinds of check run. generate: {} turns on
// the cheap, safe ones (fuzz, fidelity, probes); a block that writes any
// switch says exactly what it wants, so the switches it leaves out are off.
var generateSwitches = []string{"fuzz", "fidelity", "probes", "lifecycle", "protocol", "behaviour"}

// generate decodes a schema-valid generate block, with its defaults.
func (d *decoder) generate(n *node) *Generate {
	explicit := slices.ContainsFunc(generateSwitches, func(k string) bool { return n.get(k) != nil })
	seed, _ := intValue(n.value("seed"))
	g := &Generate{
		Fuzz:     n.boolAt("fuzz", !explicit),
		Fidelity: n.boolAt("fidelity", !explicit),
		Probes:   n.boolAt("probes", !explicit),
		// The protocol probes are off in an empty block (fixtures written
		// before them keep their meaning); quick mode turns them on.
		// Likewise the behaviour checks (annotations verified by observing
		// state).
		Protocol:            n.boolAt("protocol", false),
		Behaviour:           n.boolAt("behaviour", false),
		IncludeDestructive:  n.boolAt("includeDestructive", false),
		NoOfferedInputs:     !n.boolAt("offeredInputs", true),
		FuzzCases:           n.intAt("fuzzCases", DefaultFuzzCases),
		Concurrency:         n.intAt("concurrency", 0),
		Seed:                seed,
		SlowThresholdMs:     n.intAt("slowThresholdMs", defaultSlowThresholdMs),
		BloatThresholdChars: n.intAt("bloatThresholdChars", defaultBloatThresholdChars),
		PriceModel:          strValue(n.value("priceModel")),
		Pos:                 d.pos(n),
	}
	// A list of groups names exactly the groups to check: no others are
	// looked for by name.
	if v := n.value("lifecycle"); v != nil {
		switch v.kind {
		case boolNode:
			g.Lifecycle = v.b
		case arrayNode:
			g.LifecycleGroups = make([]LifecycleGroup, len(v.items))
			for i, it := range v.items {
				g.LifecycleGroups[i] = d.lifecycleGroup(it)
			}
		}
	}
	if fu := n.value("failUnder").fieldsOrNil(); len(fu) > 0 {
		g.FailUnder = make(map[ScoreName]float64, len(fu))
		for _, f := range fu {
			// 0 to 100, as the schema has checked: exact enough as a float.
			g.FailUnder[ScoreName(f.key)], _ = strconv.ParseFloat(f.val.str, 64)
		}
	}
	return g
}

func (d *decoder) lifecycleGroup(n *node) LifecycleGroup {
	return LifecycleGroup{
		Name:      strValue(n.value("name")),
		Create:    d.call(n.value("create")),
		Read:      d.call(n.value("read")),
		Delete:    d.call(n.value("delete")),
		IDPointer: strValue(n.value("idPointer")),
		Pos:       d.pos(n),
	}
}

func (d *decoder) call(n *node) Call {
	c := Call{Tool: strValue(n.value("tool")), Pos: d.pos(n)}
	if a := n.value("arguments"); a != nil {
		c.Arguments, _ = d.value(a).(map[string]any)
	}
	return c
}

// groupCreate is the step name by which read and delete refer to the
// result of their group's create.
const groupCreate = "create"

// checkGenerate checks what the schema cannot say about the generate
// block: that there is something to call and to run, that every group's
// tools are allowed, that group names are unique, and that group $ref
// markers name create only.
func checkGenerate(s *Suite, root *node, errs *errList) {
	gf := root.get("generate")
	g := s.Generate
	if gf == nil || g == nil {
		return
	}
	warnNoEffect(s, gf.val)
	if len(s.Scenarios) == 0 {
		switch {
		case len(s.AllowTools) == 0 && !g.Protocol:
			errs.at(gf.keyPos, "generate has no tool to call: allowTools is empty, and there are no scenarios")
		case !g.Fuzz && !g.Fidelity && !g.Probes && !g.Lifecycle && len(g.LifecycleGroups) == 0 && g.Concurrency == 0 && !g.Protocol && !g.Behaviour:
			errs.at(gf.keyPos, "generate turns every check off, and there are no scenarios: nothing would run")
		}
	}
	groups := gf.val.value("lifecycle").itemsOrNil()
	if len(groups) != len(g.LifecycleGroups) {
		return // lifecycle: true
	}
	calls := [...]string{"create", "read", "delete"}
	for i, gn := range groups {
		grp := &g.LifecycleGroups[i]
		path := indexPath("generate.lifecycle", i)
		if grp.Name != "" {
			for j := range i {
				if g.LifecycleGroups[j].Name == grp.Name {
					errs.at(gn.value("name").pos, "%s.name: %s is already the name of generate.lifecycle[%d] (at %s)", path, quote(grp.Name), j, at(groups[j].value("name").pos))
					break
				}
			}
		}
		for k, c := range []*Call{&grp.Create, &grp.Read, &grp.Delete} {
			key := calls[k]
			cn := gn.value(key)
			if msg := notAllowed(c.Tool, s.AllowTools); msg != "" {
				errs.at(cn.value("tool").pos, "%s.%s.tool: %s", path, key, msg)
			}
			a := cn.value("arguments")
			if a == nil {
				continue
			}
			eachMarker(a, nil, func(val *node, segs []pathSeg) {
				where := formatPath(path+"."+key+".arguments", segs)
				if key == groupCreate {
					errs.at(val.pos, "%s: create is the group's first call, so its arguments cannot hold a $ref", where)
					return
				}
				ref, err := ParseRef(val.str)
				if err != nil {
					errs.at(val.pos, "%s: %v", where, err)
					return
				}
				if ref.Step != groupCreate {
					errs.at(val.pos, "%s: $ref names step %s; in a lifecycle group a $ref may only name create (create#/pointer)", where, quote(ref.Step))
				}
			})
		}
	}
}

// PriceModels are the model names priceModel (and --price-model) accept,
// as the fixture schema lists them.
func PriceModels() []string {
	_, tree, err := compiledSchema()
	if err != nil {
		return nil
	}
	return strList(schemaAt(tree, "#/$defs/generate/properties/priceModel").value("enum"))
}
