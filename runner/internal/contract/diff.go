package contract

import (
	"bytes"
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strconv"

	"github.com/go-openapi/jsonpointer"
)

// Severity grades a change by what it does to a client written against the
// old contract.
type Severity string

// The severities, most severe first (the order of the report schema).
const (
	// Breaking: a client that worked may now fail (a tool removed, an
	// input narrowed, an output widened, a safety hint withdrawn).
	Breaking Severity = "breaking"
	// Risky: nothing fails, but what an agent reads to decide changed (a
	// description, a title, openWorldHint).
	Risky Severity = "risky"
	// Compatible: a client that worked still works.
	Compatible Severity = "compatible"
	// Info: worth knowing, never a reason to fail (server version).
	Info Severity = "info"
)

// Severities lists every severity, most severe first.
var Severities = []Severity{Breaking, Risky, Compatible, Info}

// Rank is 0 for info up to 3 for breaking.
func (s Severity) Rank() int { return len(Severities) - 1 - slices.Index(Severities, s) }

// Kind names a change.
type Kind string

// The kinds of change, in the order of the report schema.
const (
	KindAdded             Kind = "added"            // a tool, prompt, resource or template appeared
	KindRemoved           Kind = "removed"          // ... disappeared
	KindRenamed           Kind = "renamed"          // a tool or prompt has a new name and nothing else changed
	KindPropertyAdded     Kind = "property_added"   // a schema property
	KindPropertyRemoved   Kind = "property_removed" //
	KindBecameRequired    Kind = "became_required"  // a property or prompt argument
	KindBecameOptional    Kind = "became_optional"  //
	KindTypeChanged       Kind = "type_changed"     // a schema's type
	KindEnumAdded         Kind = "enum_added"       // an enum (or const) value
	KindEnumRemoved       Kind = "enum_removed"     //
	KindBoundTightened    Kind = "bound_tightened"  // min up, max down, pattern/format added or changed, ...
	KindBoundLoosened     Kind = "bound_loosened"   //
	KindVariantAdded      Kind = "variant_added"    // an anyOf/oneOf alternative
	KindVariantRemoved    Kind = "variant_removed"  //
	KindSchemaChanged     Kind = "schema_changed"   // any other schema keyword
	KindOutputAdded       Kind = "output_schema_added"
	KindOutputRemoved     Kind = "output_schema_removed"
	KindAnnotation        Kind = "annotation_changed"
	KindDescription       Kind = "description_changed"
	KindTitle             Kind = "title_changed"
	KindArgumentAdded     Kind = "argument_added" // a prompt argument
	KindArgumentRemoved   Kind = "argument_removed"
	KindResourceChanged   Kind = "resource_changed" // a resource's name or MIME type
	KindServerChanged     Kind = "server_changed"   // name, title, version, instructions
	KindProtocolChanged   Kind = "protocol_changed"
	KindCapabilityAdded   Kind = "capability_added"
	KindCapabilityRemoved Kind = "capability_removed"
	KindTaskSupport       Kind = "task_support_changed" // a tool's execution.taskSupport
	KindIcons             Kind = "icons_changed"        // a tool's icons
	KindMeta              Kind = "meta_changed"         // a tool's _meta
)

// Kinds lists every kind of change, in the order of the report schema.
var Kinds = []Kind{KindAdded, KindRemoved, KindRenamed, KindPropertyAdded, KindPropertyRemoved,
	KindBecameRequired, KindBecameOptional, KindTypeChanged, KindEnumAdded, KindEnumRemoved,
	KindBoundTightened, KindBoundLoosened, KindVariantAdded, KindVariantRemoved, KindSchemaChanged,
	KindOutputAdded, KindOutputRemoved, KindAnnotation, KindDescription, KindTitle,
	KindArgumentAdded, KindArgumentRemoved, KindResourceChanged, KindServerChanged,
	KindProtocolChanged, KindCapabilityAdded, KindCapabilityRemoved, KindTaskSupport, KindIcons, KindMeta}

// Subject is what a finding is about.
type Subject string

// The subjects, in the order of the report schema.
const (
	SubjectTool       Subject = "tool"
	SubjectPrompt     Subject = "prompt"
	SubjectResource   Subject = "resource"
	SubjectTemplate   Subject = "resourceTemplate"
	SubjectServer     Subject = "server"
	SubjectProtocol   Subject = "protocol"
	SubjectCapability Subject = "capability"
)

// Subjects lists every subject, in the order of the report schema.
var Subjects = []Subject{SubjectTool, SubjectPrompt, SubjectResource, SubjectTemplate, SubjectServer, SubjectProtocol, SubjectCapability}

// Finding is one change between two contracts.
type Finding struct {
	Severity Severity
	Kind     Kind
	Subject  Subject
	// Name is the tool, prompt, resource URI or template, or the
	// capability's path; empty for the server and the protocol.
	Name string
	// Path is the JSON Pointer of what changed in the contract file: in
	// the new contract for an addition, in the old one otherwise.
	Path string
	// Old and New are the values before and after, as compact JSON (""
	// when there is none: an addition has no Old, a removal no New).
	Old, New string
}

// Diff lists the changes from old to new, most severe first and otherwise
// in the order of the contract (server, protocol, capabilities, tools,
// prompts, resources, templates). It calls nothing.
func Diff(old, new *Contract) []Finding {
	d := &differ{}
	d.server(old, new)
	d.capabilities(old.Capabilities, new.Capabilities)
	d.tools(old.Tools, new.Tools)
	d.prompts(old.Prompts, new.Prompts)
	d.resources(SubjectResource, "/resources", old.Resources, new.Resources)
	d.resources(SubjectTemplate, "/resourceTemplates", old.ResourceTemplates, new.ResourceTemplates)
	sort.SliceStable(d.out, func(i, j int) bool { return d.out[i].Severity.Rank() > d.out[j].Severity.Rank() })
	return d.out
}

type differ struct {
	out []Finding
	// subject and name are the item being compared.
	subject Subject
	name    string
}

func (d *differ) add(sev Severity, kind Kind, path string, old, new any) {
	d.out = append(d.out, Finding{Severity: sev, Kind: kind, Subject: d.subject, Name: d.name, Path: path, Old: compact(old), New: compact(new)})
}

// none marks a side that has no value (an addition's old, a removal's new).
var none = struct{}{}

// compact is v as one line of JSON, "" for none.
func compact(v any) string {
	if v == none {
		return ""
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return ""
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

// ptr joins a pointer and a token, escaping it (RFC 6901).
func ptr(base string, token any) string {
	switch t := token.(type) {
	case int:
		return base + "/" + strconv.Itoa(t)
	default:
		return base + "/" + jsonpointer.Escape(t.(string))
	}
}

func (d *differ) server(old, new *Contract) {
	d.subject, d.name = SubjectServer, ""
	for _, f := range []struct {
		key      string
		old, new string
	}{
		{"name", old.Server.Name, new.Server.Name},
		{"title", old.Server.Title, new.Server.Title},
		{"version", old.Server.Version, new.Server.Version},
		{"instructions", old.Server.Instructions, new.Server.Instructions},
	} {
		if f.old != f.new {
			d.add(Info, KindServerChanged, "/server/"+f.key, f.old, f.new)
		}
	}
	if old.ProtocolVersion != new.ProtocolVersion {
		d.subject = SubjectProtocol
		d.add(Breaking, KindProtocolChanged, "/protocolVersion", old.ProtocolVersion, new.ProtocolVersion)
	}
}

// capabilities compares the capabilities as sets of paths: every object
// key whose value is an object or true is offered; false or absent is not.
func (d *differ) capabilities(old, new map[string]any) {
	d.subject = SubjectCapability
	o, n := offered(old, ""), offered(new, "")
	for _, p := range slices.Sorted(maps.Keys(o)) {
		if !n[p] {
			d.name = p
			d.add(Breaking, KindCapabilityRemoved, "/capabilities"+p, true, none)
		}
	}
	for _, p := range slices.Sorted(maps.Keys(n)) {
		if !o[p] {
			d.name = p
			d.add(Compatible, KindCapabilityAdded, "/capabilities"+p, none, true)
		}
	}
}

func offered(m map[string]any, base string) map[string]bool {
	out := map[string]bool{}
	for k, v := range m {
		p := ptr(base, k)
		switch x := v.(type) {
		case map[string]any:
			out[p] = true
			for q := range offered(x, p) {
				out[q] = true
			}
		case bool:
			if x {
				out[p] = true
			}
		default:
			out[p] = true
		}
	}
	return out
}

// pairs matches two lists by key: the index in each of every common key,
// and the indexes of the keys only one side has.
func pairs(oldKeys, newKeys []string) (common [][2]int, removed, added []int) {
	at := map[string]int{}
	for j, k := range newKeys {
		at[k] = j
	}
	seen := map[string]bool{}
	for i, k := range oldKeys {
		if j, ok := at[k]; ok {
			common = append(common, [2]int{i, j})
			seen[k] = true
		} else {
			removed = append(removed, i)
		}
	}
	for j, k := range newKeys {
		if !seen[k] {
			added = append(added, j)
		}
	}
	return common, removed, added
}

func keysOf[T any](list []T, key func(T) string) []string {
	out := make([]string, len(list))
	for i, x := range list {
		out[i] = key(x)
	}
	return out
}

func (d *differ) tools(old, new []Tool) {
	d.subject = SubjectTool
	unnamed := func(t Tool) Tool {
		t.Name = ""
		return t
	}
	for _, c := range members(d, "/tools", old, new, func(t Tool) string { return t.Name }, unnamed) {
		a, b := old[c[0]], new[c[1]]
		d.name = a.Name
		base := ptr("/tools", c[0])
		d.text(Risky, KindTitle, base+"/title", a.Title, b.Title)
		d.text(Risky, KindDescription, base+"/description", a.Description, b.Description)
		d.annotations(base+"/annotations", a.Annotations, b.Annotations)
		d.execution(base, a, b)
		d.schema(a.InputSchema, b.InputSchema, base+"/inputSchema", input)
		switch {
		case a.OutputSchema == nil && b.OutputSchema != nil:
			d.add(Compatible, KindOutputAdded, ptr("/tools", c[1])+"/outputSchema", none, b.OutputSchema)
		case a.OutputSchema != nil && b.OutputSchema == nil:
			d.add(Breaking, KindOutputRemoved, base+"/outputSchema", a.OutputSchema, none)
		case a.OutputSchema != nil:
			d.schema(a.OutputSchema, b.OutputSchema, base+"/outputSchema", output)
		}
	}
}

// members pairs the items of the lists old and new by key, reports the
// removed and the added ones, and returns the pairs found in both. With
// unnamed, a removed and an added item that are equal once unnamed (each
// used once) are reported as renamed instead.
func members[T any](d *differ, list string, old, new []T, key func(T) string, unnamed func(T) T) [][2]int {
	common, removed, added := pairs(keysOf(old, key), keysOf(new, key))
	renamed := map[int]bool{} // the added items that are renames
	var gone []int
	for _, i := range removed {
		k := slices.IndexFunc(added, func(j int) bool {
			return unnamed != nil && !renamed[j] && reflect.DeepEqual(unnamed(old[i]), unnamed(new[j]))
		})
		if k < 0 {
			gone = append(gone, i)
			continue
		}
		renamed[added[k]] = true
		d.name = key(old[i])
		d.add(Breaking, KindRenamed, ptr(list, i)+"/name", d.name, key(new[added[k]]))
	}
	for _, i := range gone {
		d.name = key(old[i])
		d.add(Breaking, KindRemoved, ptr(list, i), d.name, none)
	}
	for _, j := range added {
		if !renamed[j] {
			d.name = key(new[j])
			d.add(Compatible, KindAdded, ptr(list, j), none, d.name)
		}
	}
	return common
}

// text reports a changed string (a description, a title).
func (d *differ) text(sev Severity, kind Kind, path, old, new string) {
	if old != new {
		d.add(sev, kind, path, old, new)
	}
}

// annotations grades each hint: withdrawing a safety promise breaks
// clients that relied on it, making one is compatible, and openWorldHint
// either way is for an agent to weigh.
func (d *differ) annotations(base string, old, new Annotations) {
	d.text(Risky, KindTitle, base+"/title", old.Title, new.Title)
	for _, h := range []struct {
		key      string
		old, new bool
		// safe is the value that promises more.
		safe bool
	}{
		{"readOnlyHint", old.ReadOnlyHint, new.ReadOnlyHint, true},
		{"destructiveHint", old.DestructiveHint, new.DestructiveHint, false},
		{"idempotentHint", old.IdempotentHint, new.IdempotentHint, true},
	} {
		switch {
		case h.old == h.new:
		case h.old == h.safe:
			d.add(Breaking, KindAnnotation, base+"/"+h.key, h.old, h.new)
		default:
			d.add(Compatible, KindAnnotation, base+"/"+h.key, h.old, h.new)
		}
	}
	if old.OpenWorldHint != new.OpenWorldHint {
		d.add(Risky, KindAnnotation, base+"/openWorldHint", old.OpenWorldHint, new.OpenWorldHint)
	}
}

func (d *differ) prompts(old, new []Prompt) {
	d.subject = SubjectPrompt
	unnamed := func(p Prompt) Prompt {
		p.Name = ""
		return p
	}
	for _, c := range members(d, "/prompts", old, new, func(p Prompt) string { return p.Name }, unnamed) {
		a, b := old[c[0]], new[c[1]]
		d.name = a.Name
		base := ptr("/prompts", c[0])
		d.text(Risky, KindTitle, base+"/title", a.Title, b.Title)
		d.text(Risky, KindDescription, base+"/description", a.Description, b.Description)
		arg := func(x Argument) string { return x.Name }
		ac, ar, aa := pairs(keysOf(a.Arguments, arg), keysOf(b.Arguments, arg))
		for _, i := range ar {
			d.add(Breaking, KindArgumentRemoved, ptr(base+"/arguments", i), a.Arguments[i].Name, none)
		}
		for _, j := range aa {
			sev := Compatible
			if b.Arguments[j].Required {
				sev = Breaking
			}
			d.add(sev, KindArgumentAdded, ptr(ptr("/prompts", c[1])+"/arguments", j), none, b.Arguments[j])
		}
		for _, p := range ac {
			x, y := a.Arguments[p[0]], b.Arguments[p[1]]
			at := ptr(base+"/arguments", p[0])
			switch {
			case !x.Required && y.Required:
				d.add(Breaking, KindBecameRequired, at+"/required", false, true)
			case x.Required && !y.Required:
				d.add(Compatible, KindBecameOptional, at+"/required", true, false)
			}
			d.text(Risky, KindTitle, at+"/title", x.Title, y.Title)
			d.text(Risky, KindDescription, at+"/description", x.Description, y.Description)
		}
	}
}

func (d *differ) resources(subject Subject, list string, old, new []Resource) {
	d.subject = subject
	for _, c := range members(d, list, old, new, Resource.key, nil) {
		a, b := old[c[0]], new[c[1]]
		d.name = a.key()
		base := ptr(list, c[0])
		d.text(Risky, KindResourceChanged, base+"/name", a.Name, b.Name)
		d.text(Risky, KindResourceChanged, base+"/mimeType", a.MIMEType, b.MIMEType)
		d.text(Risky, KindTitle, base+"/title", a.Title, b.Title)
		d.text(Risky, KindDescription, base+"/description", a.Description, b.Description)
	}
}
