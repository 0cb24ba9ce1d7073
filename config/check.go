package config

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// checkSuite applies the rules the schema cannot express. The tree gives
// positions; s holds the decoded values after the settings layers. replaced
// says the endpoint came from the environment or a flag and replaced the
// fixture's own target.
func checkSuite(s *Suite, root *node, replaced bool, errs *errList) {
	if !replaced {
		checkTarget(s, root, errs)
	}
	checkHeaders(s, root, errs)
	idx := &suiteIndex{s: s, names: make(map[string]int, len(s.Scenarios)), noAllowTools: root.get("allowTools") == nil}
	for i := range s.Scenarios {
		checkScenario(s, root, i, idx, errs)
	}
	checkGenerate(s, root, errs)
}

// suiteIndex looks scenarios up by name and step id for the checks, so
// that loading stays linear in the size of the fixture: a fixture may hold
// hundreds of thousands of scenarios, and a check that compares each with
// every earlier one took minutes.
type suiteIndex struct {
	// noAllowTools: the fixture has no allowTools key; allowToolsMissing:
	// a tool step has said so.
	noAllowTools, allowToolsMissing bool
	s                               *Suite
	// names holds the first scenario of each name seen so far.
	names map[string]int
	// stepOwner holds the first scenario with each step id; built on the
	// first $ref that names no step of its own scenario (an error).
	stepOwner map[string]int
}

// owner is the first scenario with a step of that id, or -1.
func (x *suiteIndex) owner(id string) int {
	if x.stepOwner == nil {
		x.stepOwner = map[string]int{}
		for m := range x.s.Scenarios {
			for _, st := range x.s.Scenarios[m].Steps {
				if _, seen := x.stepOwner[st.ID]; !seen {
					x.stepOwner[st.ID] = m
				}
			}
		}
	}
	if m, ok := x.stepOwner[id]; ok {
		return m
	}
	return -1
}

func at(p loc) string { return fmt.Sprintf("%d:%d", p.line, p.col) }

func checkTarget(s *Suite, root *node, errs *errList) {
	cmd, ep := root.get("command"), root.get("endpoint")
	switch {
	case cmd != nil && ep != nil:
		first, second := cmd, ep
		if first.keyPos.after(second.keyPos) {
			first, second = second, first
		}
		errs.at(second.keyPos, "command and endpoint are both set (%s at %s); a fixture has exactly one target", first.key, at(first.keyPos))
		return
	case cmd == nil && ep == nil:
		errs.at(root.pos, "no target: set command (a stdio server) or endpoint (Streamable HTTP), or pass --url")
		return
	case ep != nil:
		if err := CheckEndpoint(s.Endpoint); err != nil {
			errs.at(ep.val.pos, "endpoint: %v", err)
		}
		for _, key := range []string{"env", "envFromEnv", "cwd"} {
			if f := root.get(key); f != nil {
				errs.at(f.keyPos, "%s applies only to a command target; an endpoint target starts no process", key)
			}
		}
		return
	}
	// A command target.
	if f := root.get("transport"); f != nil {
		errs.at(f.keyPos, "transport applies only to an endpoint target; a command target speaks stdio")
	}
	env, fromEnv := root.value("env"), root.value("envFromEnv")
	for _, f := range env.fieldsOrNil() {
		checkVarName(errs, f.keyPos, keyPath("env", f.key), "variable", f.key)
	}
	for _, f := range fromEnv.fieldsOrNil() {
		path := keyPath("envFromEnv", f.key)
		checkVarName(errs, f.keyPos, path, "variable", f.key)
		checkVarName(errs, f.val.pos, path, "runner variable", f.val.str)
		if lit := env.get(f.key); lit != nil {
			errs.at(f.keyPos, "%s: %s is set in env too (at %s); set it in one place", path, display(f.key), at(lit.keyPos))
		}
	}
	if s.Cwd != "" && !strings.HasPrefix(s.Cwd, "${tmp}") {
		// A cwd in the run's scratch directory is made absolute when the
		// directory is.
		cwd := s.Cwd
		if !filepath.IsAbs(cwd) {
			cwd = filepath.Join(filepath.Dir(s.File), cwd)
		}
		abs, err := filepath.Abs(cwd)
		if err != nil {
			errs.at(root.value("cwd").pos, "cwd: %v", err)
			return
		}
		s.Cwd = abs
	} else if s.Cwd == "" && s.File != "" && len(s.Command) > 0 {
		// One rule for every relative path of a fixture: it is read from
		// the fixture's directory. The server starts there too, so a
		// relative program or argument in command means the same file
		// whichever directory mcpcheck is run from.
		if abs, err := filepath.Abs(filepath.Dir(s.File)); err == nil {
			s.Cwd = abs
		}
	}
}

// checkVarName records why name, written at pos, cannot be the name of a
// variable (what: "variable", the server's, or "runner variable").
func checkVarName(errs *errList, pos loc, path, what, name string) {
	if msg := checkEnvName(name); msg != "" {
		errs.at(pos, "%s: %s name %s %s", path, what, quote(name), msg)
	}
}

// checkEnvName reports why name cannot be an environment variable name.
func checkEnvName(name string) string {
	switch {
	case name == "":
		return "is empty"
	case strings.ContainsRune(name, '='):
		return "contains '='"
	case strings.ContainsRune(name, 0):
		return "contains a NUL character"
	}
	return ""
}

// protocolHeaders are set by the MCP transport; a fixture may not replace them.
var protocolHeaders = []string{
	"Mcp-Session-Id", "Mcp-Protocol-Version", "Content-Type", "Accept", "Host",
	"Content-Length", "Connection", "Transfer-Encoding", "Last-Event-ID",
}

func checkHeaders(s *Suite, root *node, errs *errList) {
	hf := root.get("headersFromEnv")
	if hf == nil {
		return
	}
	if s.Endpoint == "" {
		errs.at(hf.keyPos, "headersFromEnv applies only to an endpoint target; a command target sends no HTTP headers")
	}
	seen := map[string]field{}
	for _, f := range hf.val.fields {
		path := keyPath("headersFromEnv", f.key)
		switch {
		case !validToken(f.key):
			errs.at(f.keyPos, "%s: %s is not a valid HTTP header name", path, quote(f.key))
		case slices.ContainsFunc(protocolHeaders, func(h string) bool { return strings.EqualFold(h, f.key) }):
			errs.at(f.keyPos, "%s: header %s is set by the MCP transport and cannot be overridden", path, display(f.key))
		}
		lower := strings.ToLower(f.key)
		if first, dup := seen[lower]; dup {
			errs.at(f.keyPos, "%s: header %s repeats %s at %s (header names ignore case)", path, quote(f.key), quote(first.key), at(first.keyPos))
		} else {
			seen[lower] = f
		}
		checkVarName(errs, f.val.pos, path, "runner variable", f.val.str)
	}
}

// validToken reports whether s is an HTTP token (RFC 9110 §5.6.2), the
// syntax of a header name.
func validToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

func checkScenario(s *Suite, root *node, i int, idx *suiteIndex, errs *errList) {
	scNodes := root.value("scenarios").items
	scNode := scNodes[i]
	sc := &s.Scenarios[i]
	path := indexPath("scenarios", i)

	// Scenario names are unique: reports and --run filters name them.
	if j, dup := idx.names[sc.Name]; dup {
		errs.at(scNode.value("name").pos, "%s.name: %s is already the name of scenarios[%d] (at %s)", path, quote(sc.Name), j, at(scNodes[j].value("name").pos))
	} else {
		idx.names[sc.Name] = i
	}

	// Step ids are unique within their scenario, defaults included.
	ids := make(map[string]int, len(sc.Steps))
	stepNodes := scNode.value("steps").items
	// Paths are formatted only for a message: a scenario may have thousands
	// of steps, nearly always without a problem.
	stepPath := func(j int) string { return indexPath(path+".steps", j) }
	for j := range sc.Steps {
		st := &sc.Steps[j]
		if first, dup := ids[st.ID]; dup {
			firstPos := stepIDPos(stepNodes[first])
			if idn := stepNodes[j].value("id"); idn != nil {
				errs.at(idn.pos, "%s.id: duplicate step id %s (steps[%d] at %s has it)", stepPath(j), quote(st.ID), first, at(firstPos))
			} else {
				errs.at(stepNodes[j].pos, "%s: its default id %s is already used by steps[%d] (at %s); give this step an id", stepPath(j), quote(st.ID), first, at(firstPos))
			}
			continue
		}
		ids[st.ID] = j
	}

	rc := &refCheck{s: s, idx: idx, sc: i, ids: ids, parallel: sc.Parallel, errs: errs, segs: make([]pathSeg, 0, 16)}
	check := rc.check // one method value for the scenario, not one per step
	for j := range sc.Steps {
		st := &sc.Steps[j]
		n := stepNodes[j]
		if !checkKind(st, n, func() string { return stepPath(j) }, errs) {
			continue
		}
		if st.Kind == KindTool {
			if idx.noAllowTools {
				// allowTools is required where a tool is called (the schema
				// cannot say so without walking every step twice): once.
				if !idx.allowToolsMissing {
					errs.at(root.pos, "missing required key %s: the fixture calls tools (%s at %s), and allowTools lists the ones it may", quote("allowTools"), quote(st.Tool), n.value("tool").pos.in(s.File))
					idx.allowToolsMissing = true
				}
			} else if msg := notAllowed(st.Tool, s.AllowTools); msg != "" {
				errs.at(n.value("tool").pos, "%s.tool: %s", stepPath(j), msg)
			}
		}
		rc.step = j
		for _, key := range []string{"arguments", "resource", "subscribe", "unsubscribe", "complete"} {
			if a := n.value(key); a != nil {
				rc.where = key
				eachMarker(a, rc.segs[:0], check)
			}
		}
		if e := n.value("expect"); e != nil {
			checkExpect(&st.Expect, e, func() string { return stepPath(j) + ".expect" }, errs)
			checkUnchanged(sc.Steps[:j], st, e, sc.Parallel, func() string { return stepPath(j) + ".expect.unchanged" }, errs)
			// absent is compared with an answer, so it may name values of
			// earlier steps; the other expectations are data as written.
			if a := e.value("absent"); a != nil {
				rc.where = "expect.absent"
				eachMarker(a, rc.segs[:0], check)
			}
		}
	}
}

// kindOnly are the keys of a step (in expect: of its expect block) that
// only some kinds of step take, and what a step of another kind is told
// after the key's path (%s: its kind).
var kindOnly = []struct {
	expect bool
	keys   []string
	kinds  []StepKind
	msg    string
}{
	{false, []string{"arguments"}, []StepKind{KindTool, KindPrompt}, ": a %s step takes no arguments (arguments are for tool and prompt steps)"},
	{false, []string{"validateArguments", "task"}, []StepKind{KindTool}, " applies to tool steps, not to a %s step"},
	{true, []string{"isError", "structuredEquals", "structuredIncludes", "structuredPaths", "structuredSchema"}, []StepKind{KindTool}, " applies to tool steps (structuredContent, isError), not to a %s step"},
	// Tool, prompt and resource steps answer with text.
	{true, []string{"text", "textJSON"}, []StepKind{KindTool, KindPrompt, KindResource}, " reads the text of a tool, prompt or resource answer; a %s step has none"},
}

// checkKind checks that a step names exactly one kind and has only the keys
// its kind takes, and reports whether it does.
func checkKind(st *Step, n *node, path func() string, errs *errList) bool {
	var kinds []field
	for _, f := range n.fields {
		if slices.Contains(StepKinds, StepKind(f.key)) { // the keys that name a kind
			kinds = append(kinds, f)
		}
	}
	switch len(kinds) {
	case 0:
		errs.at(n.pos, "%s: a step needs one of %s (what it asks of the server)", path(), Join(StepKinds, ", "))
		return false
	case 1:
	default:
		errs.at(kinds[1].keyPos, "%s: a step has exactly one kind; %s and %s are both set (%s at %s)", path(), kinds[0].key, kinds[1].key, kinds[0].key, at(kinds[0].keyPos))
		return false
	}
	ok := true
	for _, r := range kindOnly {
		in, where := n, ""
		if r.expect {
			in, where = n.value("expect"), ".expect"
		}
		for _, key := range r.keys {
			if f := in.get(key); f != nil && !slices.Contains(r.kinds, st.Kind) {
				errs.at(f.keyPos, "%s%s.%s"+r.msg, path(), where, key, st.Kind)
				ok = false
			}
		}
	}
	if st.Kind == KindPrompt {
		for _, f := range n.value("arguments").fieldsOrNil() {
			if _, marker := RefMarker(toAny(f.val)); f.val.kind != stringNode && !marker {
				errs.at(f.val.pos, "%s.arguments.%s: a prompt's arguments are strings, got %s", path(), f.key, describe(f.val))
				ok = false
			}
		}
	}
	return ok
}

// notAllowed says why a tool may not be called, or "" when it is in
// allowTools.
func notAllowed(tool string, allowTools []string) string {
	if slices.Contains(allowTools, tool) {
		return ""
	}
	msg := quote(tool) + " is not in allowTools"
	if sug := Suggest(tool, allowTools); sug != "" {
		msg += "; did you mean " + quote(sug) + "?"
	}
	return msg
}

// stepIDPos is where a step's id is written, or the step itself when it has
// the default id.
func stepIDPos(n *node) loc {
	if idn := n.value("id"); idn != nil {
		return idn.pos
	}
	return n.pos
}

// pathSeg is one step of a path below a known base, formatted only when a
// message needs it: arguments can be large, and most hold no marker.
type pathSeg struct {
	key   string // an object member
	index int    // an array item, when isIdx
	isIdx bool
}

func formatPath(base string, segs []pathSeg) string {
	for _, s := range segs {
		if s.isIdx {
			base = indexPath(base, s.index)
		} else {
			base = keyPath(base, s.key)
		}
	}
	return base
}

// eachMarker calls fn with the string of every $ref marker in n (see
// [RefMarker]), n itself included, and the path from n to the marker.
func eachMarker(n *node, segs []pathSeg, fn func(val *node, segs []pathSeg)) {
	switch n.kind {
	case arrayNode:
		for k, it := range n.items {
			eachMarker(it, append(segs, pathSeg{index: k, isIdx: true}), fn)
		}
	case objectNode:
		if len(n.fields) == 1 && n.fields[0].key == "$ref" && n.fields[0].val.kind == stringNode {
			fn(n.fields[0].val, segs)
			return
		}
		for _, f := range n.fields {
			eachMarker(f.val, append(segs, pathSeg{key: f.key}), fn)
		}
	}
}

// refCheck checks the $ref markers of the steps of one scenario (in
// arguments and in expect.absent): each must parse and name an earlier
// step of the same scenario, and in a parallel scenario no step of it.
type refCheck struct {
	s        *Suite
	idx      *suiteIndex
	sc, step int
	where    string // "arguments" or "expect.absent"
	parallel bool
	ids      map[string]int
	errs     *errList
	segs     []pathSeg // reused from step to step
}

func (rc *refCheck) check(val *node, segs []pathSeg) {
	path := formatPath(indexPath(indexPath("scenarios", rc.sc)+".steps", rc.step)+"."+rc.where, segs)
	ref, err := ParseRef(val.str)
	if err != nil {
		rc.errs.at(val.pos, "%s: %v", path, err)
		return
	}
	const rule = "a $ref may only name an earlier step of the same scenario"
	target, ok := rc.ids[ref.Step]
	switch {
	case ok && rc.parallel:
		rc.errs.at(val.pos, "%s: $ref names step %s; steps of a parallel scenario run at once and cannot refer to each other", path, quote(ref.Step))
	case ok && target < rc.step:
		return
	case ok && target == rc.step:
		rc.errs.at(val.pos, "%s: $ref names its own step %s; %s", path, quote(ref.Step), rule)
	case ok:
		rc.errs.at(val.pos, "%s: $ref names step %s, which comes later (steps[%d]); %s", path, quote(ref.Step), target, rule)
	default:
		if m := rc.idx.owner(ref.Step); m >= 0 {
			rc.errs.at(val.pos, "%s: $ref names step %s of another scenario (scenarios[%d] %s); %s", path, quote(ref.Step), m, quote(rc.s.Scenarios[m].Name), rule)
			return
		}
		rc.errs.at(val.pos, "%s: $ref names step %s, which is not in this scenario", path, quote(ref.Step))
	}
}

// resultOutcomes are the outcomes in which a result (isError,
// structuredContent) arrived.
var resultOutcomes = []Outcome{OutcomeOK, OutcomeToolError, OutcomeOutputInvalid}

// needResult are the expectations that read a result, and so cannot hold
// in an outcome without one. (notifications can: a server may notify
// before it times out.)
var needResult = []string{"isError", "structuredEquals", "structuredIncludes", "structuredPaths", "structuredSchema", "text", "textJSON", "result"}

// checkExpect refuses expectations that contradict each other and so could
// never pass, and inline schemas that do not compile. path gives the expect
// block's path, formatted only for a message.
func checkExpect(e *Expect, n *node, path func() string, errs *errList) {
	checkSchemas(e, path, errs)
	if len(e.OutcomeAny) > 0 {
		checkExpectAny(e, n, path, errs)
		return
	}
	keyPos := func(key string) loc { return n.get(key).keyPos }
	if e.ErrorCode != nil && e.Outcome != "protocol_error" {
		if e.Outcome == "" {
			errs.at(keyPos("errorCode"), "%s.errorCode needs outcome: protocol_error", path())
		} else {
			errs.at(keyPos("errorCode"), "%s.errorCode needs outcome: protocol_error, not %s", path(), e.Outcome)
		}
	}
	if e.Outcome != "" && !slices.Contains(resultOutcomes, e.Outcome) {
		for _, key := range needResult {
			if n.get(key) != nil {
				errs.at(keyPos(key), "%s.%s needs a result, and outcome %s has none", path(), key, e.Outcome)
			}
		}
		return
	}
	if e.IsError != nil {
		switch {
		case *e.IsError && e.Outcome == "ok":
			errs.at(keyPos("isError"), "%s.isError: true contradicts outcome ok (a result with isError true is the outcome tool_error)", path())
		case !*e.IsError && e.Outcome == "tool_error":
			errs.at(keyPos("isError"), "%s.isError: false contradicts outcome tool_error", path())
		}
	}
}

// checkExpectAny is checkExpect for a list of outcomes, any of which will
// do: the expectations must hold together in at least one of them.
func checkExpectAny(e *Expect, n *node, path func() string, errs *errList) {
	keyPos := func(key string) loc { return n.get(key).keyPos }
	list := "[" + Join(e.OutcomeAny, ", ") + "]"
	if e.ErrorCode != nil && !slices.Contains(e.OutcomeAny, "protocol_error") {
		errs.at(keyPos("errorCode"), "%s.errorCode needs outcome protocol_error, which the list %s lacks", path(), list)
	}
	// The outcomes of the list in which a result arrives.
	var withResult []Outcome
	for _, o := range e.OutcomeAny {
		if slices.Contains(resultOutcomes, o) {
			withResult = append(withResult, o)
		}
	}
	if len(withResult) == 0 {
		for _, key := range needResult {
			if n.get(key) != nil {
				errs.at(keyPos(key), "%s.%s needs a result, and no outcome in %s has one", path(), key, list)
			}
		}
		return
	}
	if e.IsError != nil && len(withResult) == 1 {
		switch {
		case *e.IsError && withResult[0] == "ok":
			errs.at(keyPos("isError"), "%s.isError: true contradicts outcome %s: ok is its only outcome with a result, and a result with isError true is the outcome tool_error", path(), list)
		case !*e.IsError && withResult[0] == "tool_error":
			errs.at(keyPos("isError"), "%s.isError: false contradicts outcome %s: tool_error is its only outcome with a result", path(), list)
		}
	}
}

// checkSchemas reports the inline schemas of e that do not compile (they
// were compiled as they were decoded, see [decoder.schema]).
func checkSchemas(e *Expect, path func() string, errs *errList) {
	report := func(key string, s *JSONSchema) {
		if s != nil && s.compiled != nil && s.compiled.err != nil {
			errs.add(s.Pos, "%s.%s: %s", path(), key, schemaError(s.compiled.err))
		}
	}
	report("structuredSchema", e.StructuredSchema)
	if e.Result != nil {
		report("result.schema", e.Result.Schema)
	}
}
