package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/go-openapi/jsonpointer"
	"go.yaml.in/yaml/v3"

	"github.com/mcpcheck/mcpcheck/internal/jsonx"
)

// Target is what the written fixture runs against, and where it takes its
// credentials from (never their values).
type Target struct {
	Name    string
	Command []string
	// Cwd is the directory the command ran in, relative to the fixture's
	// ("" or "." when it is the fixture's: a fixture's server starts in
	// its directory).
	Cwd            string
	Endpoint       string
	EnvFromEnv     map[string]string // child variable → runner variable
	HeadersFromEnv map[string]string // header → runner variable
}

// Answer is one step's recorded answer: the result, or the error code.
type Answer struct {
	Step      string
	Result    json.RawMessage
	ErrorCode *int64
}

// Recording is a written fixture and the answers of its steps.
type Recording struct {
	YAML     []byte
	Scenario string
	Answers  []Answer
	// Tools are the tools the client called (allowTools).
	Tools []string
}

// Scenario is the name of the one scenario a recording has.
const Scenario = "Recorded session"

// minRefLength is the shortest string that may become a $ref: shorter
// ones ("ok", "a") match by accident.
const minRefLength = 3

// stepKeys are the methods that become steps, and the key of each.
var stepKeys = map[string]string{
	"tools/call":          "tool",
	"resources/read":      "resource",
	"prompts/get":         "prompt",
	"completion/complete": "complete",
}

type step struct {
	id     string
	key    string
	name   string // tool or prompt name
	args   any    // arguments (tool, prompt), the URI (resource), the request (complete)
	result any    // decoded result, nil when it failed
	code   *int64
	isErr  bool
}

// Fixture writes the fixture of what the session did. supported are the
// protocol versions a fixture may pin (the negotiated one is pinned when
// it is one of them); redact is applied to every string written.
func (s *Session) Fixture(t Target, supported []string, redact func(string) string) (*Recording, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	steps, rec := s.steps()
	doc := mapping()
	target(doc, t, redact)
	if slices.Contains(supported, s.protocol) {
		add(doc, "protocolVersion", str(s.protocol))
	}
	tools := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, n := range rec.Tools {
		tools.Content = append(tools.Content, str(redact(n)))
	}
	add(doc, "allowTools", tools)
	list := &yaml.Node{Kind: yaml.SequenceNode}
	for _, st := range steps {
		list.Content = append(list.Content, st.node(redact))
	}
	scenario := mapping()
	add(scenario, "name", str(Scenario))
	add(scenario, "steps", list)
	add(doc, "scenarios", &yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{scenario}})

	var buf bytes.Buffer
	buf.WriteString("# Recorded by mcpcheck record: one step per call the client made, each\n" +
		"# expecting the answer it got (kept in __snapshots__/). Replay it with\n" +
		"#   mcpcheck --config THIS_FILE\n")
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	enc.Close()
	rec.YAML = buf.Bytes()
	return rec, nil
}

// steps turns the answered calls that become steps into steps, with ids
// by name and $refs to earlier answers, and the recording's answers and
// tools. The caller holds s.mu.
func (s *Session) steps() ([]*step, *Recording) {
	var steps []*step
	counts := map[string]int{}
	sent := map[string]bool{} // strings earlier requests sent
	rec := &Recording{Scenario: Scenario}
	for _, c := range s.calls {
		params, _ := decode(c.params).(map[string]any)
		key, ok := stepKeys[c.method]
		if !ok || !c.answered {
			collectStrings(params, sent)
			continue
		}
		st := &step{key: key, code: c.code}
		switch key {
		case "tool", "prompt":
			st.name, _ = params["name"].(string)
			args, _ := params["arguments"].(map[string]any)
			if args == nil {
				args = map[string]any{}
			}
			st.args = args
		case "resource":
			st.args = params["uri"]
		case "complete":
			delete(params, "_meta")
			st.args = params
		}
		if c.code == nil {
			st.result = decode(c.result)
			r, _ := st.result.(map[string]any)
			st.isErr = r["isError"] == true
		}
		base := key
		if st.name != "" {
			base = idSafe(st.name)
		} else if key == "resource" {
			base = "read"
		}
		counts[base]++
		st.id = fmt.Sprintf("%s-%d", base, counts[base])
		st.args = refs(st.args, steps, sent)
		collectStrings(params, sent)
		steps = append(steps, st)
		rec.Answers = append(rec.Answers, Answer{Step: st.id, Result: c.result, ErrorCode: c.code})
		if key == "tool" && !slices.Contains(rec.Tools, st.name) {
			rec.Tools = append(rec.Tools, st.name)
		}
	}
	sort.Strings(rec.Tools)
	return steps, rec
}

// target adds what the fixture runs against to doc: its name, the
// server, and where its credentials come from.
func target(doc *yaml.Node, t Target, redact func(string) string) {
	name := t.Name
	if name == "" {
		name = "Recorded session"
	}
	add(doc, "name", str(redact(name)))
	if t.Endpoint != "" {
		add(doc, "endpoint", str(redact(t.Endpoint)))
	} else {
		cmd := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, a := range t.Command {
			cmd.Content = append(cmd.Content, str(redact(a)))
		}
		add(doc, "command", cmd)
		if t.Cwd != "" && t.Cwd != "." {
			add(doc, "cwd", str(redact(t.Cwd)))
		}
	}
	if len(t.EnvFromEnv) > 0 {
		add(doc, "envFromEnv", flow(toNode(anyMap(t.EnvFromEnv), redact)))
	}
	if len(t.HeadersFromEnv) > 0 {
		add(doc, "headersFromEnv", flow(toNode(anyMap(t.HeadersFromEnv), redact)))
	}
}

// node is the step as the fixture writes it, expecting the answer it got.
func (st *step) node(redact func(string) string) *yaml.Node {
	n := mapping()
	add(n, "id", str(st.id))
	switch st.key {
	case "tool", "prompt":
		add(n, st.key, str(redact(st.name)))
		if args := st.args.(map[string]any); len(args) > 0 || st.key == "tool" {
			add(n, "arguments", toNode(args, redact))
		}
	default:
		add(n, st.key, toNode(st.args, redact))
	}
	expect := map[string]any{"snapshot": true}
	switch {
	case st.code != nil:
		expect["outcome"] = "protocol_error"
		expect["errorCode"] = json.Number(strconv.FormatInt(*st.code, 10))
	case st.isErr:
		expect["isError"] = true
	}
	add(n, "expect", flow(toNode(expect, redact)))
	return n
}

// refs replaces the strings of v that an earlier step's answer held (and
// no earlier request sent) with a $ref marker to the first such answer.
func refs(v any, earlier []*step, sent map[string]bool) any {
	switch x := v.(type) {
	case string:
		if len(x) < minRefLength || sent[x] {
			return x
		}
		for _, st := range earlier {
			if st.result == nil || st.isErr {
				continue
			}
			if p, ok := find(st.result, x, ""); ok {
				return map[string]any{"$ref": st.id + "#" + p}
			}
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = refs(e, earlier, sent)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = refs(e, earlier, sent)
		}
		return out
	}
	return v
}

// find is the pointer of the first place in v holding s: structured
// content before the rest, keys in sorted order.
func find(v any, s, path string) (string, bool) {
	switch x := v.(type) {
	case string:
		return path, x == s
	case map[string]any:
		keys := slices.Collect(maps.Keys(x))
		sort.Slice(keys, func(i, j int) bool {
			if (keys[i] == "structuredContent") != (keys[j] == "structuredContent") {
				return keys[i] == "structuredContent"
			}
			return keys[i] < keys[j]
		})
		for _, k := range keys {
			if p, ok := find(x[k], s, path+"/"+jsonpointer.Escape(k)); ok {
				return p, true
			}
		}
	case []any:
		for i, e := range x {
			if p, ok := find(e, s, path+"/"+strconv.Itoa(i)); ok {
				return p, true
			}
		}
	}
	return "", false
}

// collectStrings adds every string of v to into.
func collectStrings(v any, into map[string]bool) {
	switch x := v.(type) {
	case string:
		into[x] = true
	case map[string]any:
		for _, e := range x {
			collectStrings(e, into)
		}
	case []any:
		for _, e := range x {
			collectStrings(e, into)
		}
	}
}

// idSafe is name with what a step id may not hold replaced by "-".
func idSafe(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	s := b.String()
	if len(s) > 100 {
		s = s[:100]
	}
	if s == "" {
		s = "step"
	}
	return s
}

func decode(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	return jsonx.Value(raw)
}

func anyMap(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func mapping() *yaml.Node { return &yaml.Node{Kind: yaml.MappingNode} }

func add(m *yaml.Node, key string, v *yaml.Node) {
	m.Content = append(m.Content, str(key), v)
}

func str(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

func flow(n *yaml.Node) *yaml.Node {
	n.Style = yaml.FlowStyle
	return n
}

// toNode is a JSON value as YAML, numbers written as they came (so large
// integers keep their digits) and strings always strings.
func toNode(v any, redact func(string) string) *yaml.Node {
	switch x := v.(type) {
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(x)}
	case json.Number:
		tag := "!!int"
		if strings.ContainsAny(string(x), ".eE") {
			tag = "!!float"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: string(x)}
	case string:
		return str(redact(x))
	case []any:
		n := &yaml.Node{Kind: yaml.SequenceNode}
		for _, e := range x {
			n.Content = append(n.Content, toNode(e, redact))
		}
		return n
	case map[string]any:
		n := mapping()
		for _, k := range slices.Sorted(maps.Keys(x)) {
			n.Content = append(n.Content, str(redact(k)), toNode(x[k], redact))
		}
		return n
	}
	return str(fmt.Sprint(v))
}
