package config

import (
	"bytes"
	"errors"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/fileio"
	"github.com/mcpcheck/mcpcheck/internal/jsonx"
)

// Load reads the fixture at path and returns the checked suite with the
// environment and flag layers of opts applied. A file that cannot be read
// gives an error matching [ErrFile]; anything wrong with its content, the
// environment or the flags gives [Errors] matching [ErrInvalid].
func Load(path string, opts LoadOptions) (*Suite, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data, opts)
}

// readFile reads a file the user names (a fixture, a baseline) with the
// one bounded reader every user file goes through (internal/fileio): only a
// regular file, at most MaxFileSize bytes. A larger file is the problem
// "file is larger than 16 MiB" at its first line, as Parse says of one held
// in memory; anything else that stops the read matches [ErrFile].
func readFile(path string) ([]byte, error) {
	data, err := fileio.ReadFile(path, MaxFileSize)
	if errors.Is(err, fileio.ErrTooLarge) {
		errs := errList{file: path}
		errs.add(Pos{File: path, Line: 1, Col: 1}, "file is larger than %d MiB", MaxFileSize>>20)
		return nil, errs.err()
	}
	if err != nil {
		return nil, &fileError{path: path, err: err}
	}
	return data, nil
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// Parse checks a fixture held in memory. file names it in positions, picks
// the format by extension (.json is JSON; .yaml and .yml are YAML; otherwise
// a document whose first non-blank character is '{' is JSON) and is the base
// for a relative cwd.
func Parse(file string, data []byte, opts LoadOptions) (*Suite, error) {
	errs := errList{file: file}
	if len(data) > MaxFileSize {
		errs.add(Pos{File: file, Line: 1, Col: 1}, "file is larger than %d MiB", MaxFileSize>>20)
		return nil, errs.err()
	}
	data = bytes.TrimPrefix(data, utf8BOM)
	if off := checkUTF8(data); off >= 0 {
		errs.add(newPosCursor(file, data).pos(off), "file is not valid UTF-8 (byte 0x%02X)", data[off])
		return nil, errs.err()
	}
	root := parseDoc(file, data, &errs)
	if root == nil {
		return nil, errs.err()
	}
	if err := fixtureSchema.validate(root, &errs); err != nil {
		return nil, err
	}
	if !errs.empty() {
		return nil, errs.err()
	}
	s, fileSettings := decodeSuite(file, root)
	if n := root.value("load"); n != nil {
		s.Load = decodeLoad(n, &errs)
	}
	replaced := layerSettings(s, fileSettings, opts, &errs)
	if replaced {
		s.Command, s.Env, s.EnvFromEnv, s.Cwd = nil, nil, nil, ""
		for _, k := range []string{"command", "env", "envFromEnv", "cwd", "endpoint"} {
			delete(s.FieldPos, k)
		}
	}
	checkSuite(s, root, replaced, &errs)
	if !errs.empty() {
		return nil, errs.err()
	}
	return s, nil
}

// parseDoc reads a document as JSON (a .json file, or one that starts
// with '{' and is not named .yaml or .yml) or as YAML.
func parseDoc(file string, data []byte, errs *errList) *node {
	ext := strings.ToLower(filepath.Ext(file))
	if ext == ".json" || ext != ".yaml" && ext != ".yml" && bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte("{")) {
		return parseJSON(file, data, errs)
	}
	return parseYAML(file, data, errs)
}

// decodeSuite turns a schema-valid tree into a Suite. The settings that the
// environment and flags can override are returned as a layer instead of
// being stored.
func decodeSuite(file string, root *node) (*Suite, map[string]any) {
	s := &Suite{
		File:           file,
		Name:           strValue(root.value("name")),
		Command:        strList(root.value("command")),
		Env:            strMap(root.value("env")),
		EnvFromEnv:     strMap(root.value("envFromEnv")),
		Cwd:            strValue(root.value("cwd")),
		HeadersFromEnv: strMap(root.value("headersFromEnv")),
		AllowTools:     strList(root.value("allowTools")),
		Snapshots:      snapshotRules(root),
		Pos:            root.pos.in(file),

		ExpectedFailuresPath: strValue(root.value("expectedFailures")),
		FieldPos:             map[string]Pos{},
	}
	if s.AllowTools == nil {
		s.AllowTools = []string{}
	}
	for _, f := range root.fields {
		s.FieldPos[f.key] = f.keyPos.in(file)
	}
	layer := map[string]any{}
	// A list of versions runs the suite in each (the first is the pinned
	// one, for everything that reads a single version).
	if l := strList(root.value("protocolVersion")); len(l) > 0 {
		s.ProtocolVersions = l
		layer["protocolVersion"] = l[0]
	}
	for _, st := range settings {
		v := root.value(st.key)
		if v == nil || layer[st.key] != nil {
			continue
		}
		if st.isInt {
			n, _ := intValue(v)
			layer[st.key] = int(n)
		} else {
			layer[st.key] = strValue(v)
		}
	}
	d := &decoder{file: file}
	if scs := root.value("scenarios").itemsOrNil(); len(scs) > 0 {
		s.Scenarios = make([]Scenario, len(scs))
		for i, sc := range scs {
			s.Scenarios[i] = d.scenario(sc)
		}
	}
	if g := root.value("generate"); g != nil {
		s.Generate = d.generate(g)
	}
	if c := root.value("client"); c != nil {
		s.Client = d.client(c)
	}
	return s, layer
}

// decoder turns the scenarios of a schema-valid tree into the Suite's.
type decoder struct {
	file   string
	shared sharedValues
	// tools holds one copy of each tool name: a suite calls a handful of
	// tools from thousands of steps, and the parser gives every step its
	// own string.
	tools map[string]string
}

func (d *decoder) tool(name string) string {
	if t, ok := d.tools[name]; ok {
		return t
	}
	if d.tools == nil {
		d.tools = map[string]string{}
	}
	d.tools[name] = name
	return name
}

func (d *decoder) pos(n *node) Pos { return n.pos.in(d.file) }

func (d *decoder) scenario(n *node) Scenario {
	sc := Scenario{
		Name:      strValue(n.value("name")),
		Protocols: strList(n.value("protocols")),
		Tags:      strList(n.value("tags")),
		Pos:       d.pos(n),
	}
	sc.Reconnect = n.boolAt("reconnect", false)
	sc.ContinueOnFailure = n.boolAt("continueOnFailure", false)
	sc.Parallel = n.boolAt("parallel", false)
	if v, ok := intValue(n.value("retries")); ok {
		r := int(v)
		sc.Retries = &r
	}
	sc.Isolation = Isolation(strValue(n.value("isolation")))
	sc.Snapshots = snapshotRules(n)
	// Sized once: a fixture may have thousands of steps, and growing the
	// slice step by step would allocate it twice over.
	if steps := n.value("steps").itemsOrNil(); len(steps) > 0 {
		sc.Steps = make([]Step, len(steps))
		for j, st := range steps {
			sc.Steps[j] = d.step(st, j)
		}
	}
	return sc
}

// defaultStepID names a step that has no id: step-1, step-2, ... counting
// the steps of its scenario from 1.
func defaultStepID(index int) string {
	return "step-" + strconv.Itoa(index+1)
}

func (d *decoder) step(n *node, index int) Step {
	st := Step{
		ID:        strValue(n.value("id")),
		Tool:      d.tool(strValue(n.value("tool"))),
		Origin:    OriginFixture,
		Protocols: strList(n.value("protocols")),
		Pos:       d.pos(n),
	}
	if st.ID == "" {
		st.ID = defaultStepID(index)
	}
	st.Kind = stepKind(n)
	switch st.Kind {
	case KindPrompt:
		st.Prompt = strValue(n.value("prompt"))
	case KindResource, KindSubscribe, KindUnsubscribe:
		st.Resource = d.value(n.value(string(st.Kind)))
	case KindList:
		st.List = strValue(n.value("list"))
	case KindSetLogLevel:
		st.LogLevel = strValue(n.value("setLogLevel"))
	case KindComplete:
		st.Complete, _ = d.value(n.value("complete")).(map[string]any)
	case KindAwait:
		st.Await = d.await(n.value("await"))
	case KindObserve:
		st.Observe = strValue(n.value("observe"))
	}
	if a := n.value("arguments"); a != nil {
		st.Arguments, _ = d.value(a).(map[string]any)
	}
	if v := n.value("validateArguments"); v != nil {
		b := v.b
		st.ValidateArguments = &b
	}
	st.TimeoutMs = n.intAt("timeoutMs", 0)
	st.Advisory = n.boolAt("advisory", false)
	st.Snapshots = snapshotRules(n)
	st.Task = taskCall(n.value("task"))
	st.Expect = d.expect(n.value("expect"), st.Pos)
	return st
}

// snapshotRules reads the snapshotIgnore and snapshotSanitize of a suite,
// scenario or step.
func snapshotRules(n *node) SnapshotRules {
	return SnapshotRules{Ignore: strList(n.value("snapshotIgnore")), Sanitize: strList(n.value("snapshotSanitize"))}
}

// stepKind is the kind a step's keys name: the first kind key written (a
// step with two is refused by checkScenario), tool when none is.
func stepKind(n *node) StepKind {
	for _, f := range n.fields {
		if k := StepKind(f.key); slices.Contains(StepKinds, k) {
			return k
		}
	}
	return KindTool
}

func (d *decoder) client(n *node) *Client {
	c := &Client{Pos: d.pos(n)}
	for _, r := range n.value("roots").itemsOrNil() {
		c.Roots = append(c.Roots, Root{URI: strValue(r.value("uri")), Name: strValue(r.value("name"))})
	}
	if v := n.value("sampling"); v != nil {
		c.Sampling = &Sampling{Text: strValue(v.value("text")), Model: strValue(v.value("model")), StopReason: strValue(v.value("stopReason"))}
	}
	if v := n.value("elicitation"); v != nil {
		c.Elicitation = &Elicitation{Action: strValue(v.value("action"))}
		c.Elicitation.Content, _ = d.value(v.value("content")).(map[string]any)
	}
	return c
}

func (d *decoder) await(n *node) *Await {
	a := &Await{Method: strValue(n.value("method")), Pos: d.pos(n)}
	if p := n.value("params"); p != nil {
		a.Params = &Value{V: d.expected(p), Pos: d.pos(p)}
	}
	a.TimeoutMs = n.intAt("timeoutMs", 0)
	return a
}

// expect reads an expect block. Without one, the Expect is the zero
// value placed at the step, so that failures of the implicit "result with
// isError false" still point somewhere useful.
func (d *decoder) expect(n *node, stepPos Pos) Expect {
	if n == nil {
		return Expect{Pos: stepPos}
	}
	e := Expect{Pos: d.pos(n)}
	if v := n.value("isError"); v != nil {
		b := v.b
		e.IsError = &b
	}
	e.Snapshot = n.boolAt("snapshot", false)
	e.Unchanged = strValue(n.value("unchanged"))
	e.ChangedOnly = strList(n.value("changedOnly"))
	e.StructuredEquals = d.expectedValue(n.value("structuredEquals"))
	e.StructuredIncludes = d.expectedValue(n.value("structuredIncludes"))
	e.StructuredPaths = d.paths(n.value("structuredPaths"))
	if v := n.value("structuredSchema"); v != nil {
		e.StructuredSchema = d.schema(v)
	}
	if v := n.value("text"); v != nil {
		e.Text = d.text(v)
	}
	if v := n.value("textJSON"); v != nil {
		e.TextJSON = d.jsonExpect(v)
	}
	if v := n.value("result"); v != nil {
		e.Result = d.jsonExpect(v)
	}
	for _, it := range n.value("notifications").itemsOrNil() {
		e.Notifications = append(e.Notifications, NotificationExpect{
			Method: strValue(it.value("method")),
			Params: d.expectedValue(it.value("params")),
			Count:  d.expectedValue(it.value("count")),
			Pos:    d.pos(it),
		})
	}
	// One outcome, or a list of them (then Outcome stays empty).
	if v := n.value("outcome"); v != nil && v.kind == arrayNode {
		for _, o := range strList(v) {
			e.OutcomeAny = append(e.OutcomeAny, Outcome(o))
		}
	} else {
		e.Outcome = Outcome(strValue(v))
	}
	e.Fidelity = n.boolAt("fidelity", false)
	if v := n.value("absent"); v != nil {
		e.Absent = &Value{V: d.value(v), Pos: d.pos(v)}
	}
	if v := n.value("errorCode"); v != nil {
		c, _ := intValue(v)
		e.ErrorCode = &c
	}
	e.MaxDurationMs = n.intAt("maxDurationMs", 0)
	return e
}

// expectedValue decodes an expected value (matchers allowed), or nil when
// n is absent.
func (d *decoder) expectedValue(n *node) *Value {
	if n == nil {
		return nil
	}
	return &Value{V: d.expected(n), Pos: d.pos(n)}
}

// paths decodes gjson paths with their expected values.
func (d *decoder) paths(n *node) map[string]*Value {
	if n == nil || n.kind != objectNode {
		return nil
	}
	out := make(map[string]*Value, len(n.fields))
	for _, f := range n.fields {
		out[f.key] = &Value{V: d.expected(f.val), Pos: d.pos(f.val)}
	}
	return out
}

// text decodes expect.text: a string is the text it equals.
func (d *decoder) text(n *node) *TextExpect {
	t := &TextExpect{Pos: d.pos(n)}
	if n.kind == stringNode {
		s := n.str
		t.Equals = &s
		return t
	}
	if v := n.value("equals"); v != nil {
		s := v.str
		t.Equals = &s
	}
	t.Contains = strOrList(n.value("contains"))
	t.NotContains = strOrList(n.value("notContains"))
	if v := n.value("matches"); v != nil {
		t.Matches = compileRE2(v.str)
	}
	return t
}

// strOrList reads a string or a list of strings.
func strOrList(n *node) []string {
	if n != nil && n.kind == stringNode {
		return []string{n.str}
	}
	return strList(n)
}

// jsonExpect decodes expect.result and expect.textJSON.
func (d *decoder) jsonExpect(n *node) *JSONExpect {
	j := &JSONExpect{
		Equals:   d.expectedValue(n.value("equals")),
		Includes: d.expectedValue(n.value("includes")),
		Paths:    d.paths(n.value("paths")),
		Pos:      d.pos(n),
	}
	if v := n.value("schema"); v != nil {
		j.Schema = d.schema(v)
	}
	return j
}

func (n *node) itemsOrNil() []*node {
	if n == nil || n.kind != arrayNode {
		return nil
	}
	return n.items
}

func strValue(n *node) string {
	if n == nil || n.kind != stringNode {
		return ""
	}
	return n.str
}

// strList returns the strings of an array, or nil when n is absent.
func strList(n *node) []string {
	if n == nil || n.kind != arrayNode {
		return nil
	}
	out := make([]string, 0, len(n.items))
	for _, it := range n.items {
		out = append(out, strValue(it))
	}
	return out
}

// strMap returns an object of strings, or nil when n is absent.
func strMap(n *node) map[string]string {
	if n == nil || n.kind != objectNode {
		return nil
	}
	out := make(map[string]string, len(n.fields))
	for _, f := range n.fields {
		out[f.key] = strValue(f.val)
	}
	return out
}

// boolAt is the boolean at key, or def when n has none there.
func (n *node) boolAt(key string, def bool) bool {
	if v := n.value(key); v != nil {
		return v.b
	}
	return def
}

// intAt is the integer at key, or def when n has none there.
func (n *node) intAt(key string, def int) int {
	if v, ok := intValue(n.value(key)); ok {
		return int(v)
	}
	return def
}

// intValue reads an integer-valued number (5000, 5e3 and 5000.0 alike; the
// schema has checked it is an integer in range).
func intValue(n *node) (int64, bool) {
	if n == nil || n.kind != numberNode {
		return 0, false
	}
	return jsonx.Int64(n.str)
}
