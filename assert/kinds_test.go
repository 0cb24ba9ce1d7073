package assert

import (
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/internal/jsonx/jsonxtest"
)

// TestExpectations checks the expectation kinds text, textJSON, result,
// structuredSchema and notifications, passing and failing; the messages
// are in testdata/expectations.golden.
func TestExpectations(t *testing.T) {
	text := func(s string) Result {
		return Result{Outcome: config.OutcomeOK, HasResult: true, Text: s, HasContent: s != ""}
	}
	whole := func(js string) Result {
		return Result{Outcome: config.OutcomeOK, HasResult: true, Whole: jsonxtest.Value(t, js)}
	}
	notified := func(outcome config.Outcome, ns ...string) Result {
		r := Result{Outcome: outcome, HasResult: outcome == config.OutcomeOK}
		for _, n := range ns {
			method, params, _ := strings.Cut(n, " ")
			var p any
			if params != "" {
				p = jsonxtest.Value(t, params)
			}
			r.Notifications = append(r.Notifications, Notification{Method: method, Params: p})
		}
		return r
	}
	const household = "Household: 2 tasks\n- task-1 Collect the library books\n- task-2 Water the plants"
	rows := []check{
		// text
		{"text: a string is the whole text", `{text: "Household: 2 tasks"}`, text("Household: 2 tasks")},
		{"text: differs", `{text: "Household: 3 tasks"}`, text("Household: 2 tasks")},
		{"text: cut short", `{text: {equals: "Household: 2 tasks"}}`, text("Household")},
		{"text: goes on", `{text: {equals: "Household"}}`, text("Household: 2 tasks")},
		{"text: contains", `{text: {contains: [task-1, "Water the plants"]}}`, text(household)},
		{"text: contains, one string", `{text: {contains: "task-3"}}`, text(household)},
		{"text: contains, some missing", `{text: {contains: [task-1, task-3, task-4]}}`, text(household)},
		{"text: notContains", `{text: {notContains: [error, task-2]}}`, text(household)},
		{"text: matches", `{text: {matches: "(?m)^- task-2 "}}`, text(household)},
		{"text: matches, anchored whole", `{text: {matches: "^Household: [0-9]+ tasks$"}}`, text(household)},
		{"text: all checks together", `{text: {equals: "ok", contains: ok, notContains: fail, matches: "^o"}}`, text("ok")},
		{"text: empty answer", `{text: {contains: x}}`, text("")},
		{"text of a tool error", `{isError: true, text: {contains: "not found"}}`, Result{Outcome: config.OutcomeToolError, HasResult: true, IsError: true, Text: "task-9 not found"}},
		// textJSON
		{"textJSON: equals", `{textJSON: {equals: {tasks: 2, ok: true}}}`, text(`{"ok": true, "tasks": 2}`)},
		{"textJSON: numbers exact", `{textJSON: {equals: {n: 9007199254740992}}}`, text(`{"n": 9007199254740993}`)},
		{"textJSON: includes with matchers", `{textJSON: {includes: {id: {$match: "^task-"}, done: {$type: boolean}}}}`, text(`{"id": "task-1", "done": "no", "text": "x"}`)},
		{"textJSON: paths", `{textJSON: {paths: {"tasks.#": 2, "tasks.1.id": task-2}}}`, text(`{"tasks": [{"id": "task-1"}, {"id": "task-3"}]}`)},
		{"textJSON: whitespace around the value", `{textJSON: {equals: [1, 2]}}`, text("\n  [1, 2]\n")},
		{"textJSON: not JSON", `{textJSON: {equals: {}}}`, text("Household: 2 tasks")},
		{"textJSON: broken on line 3", `{textJSON: {equals: {}}}`, text("{\n  \"a\": 1,\n  \"b\" 2\n}")},
		{"textJSON: cut short", `{textJSON: {equals: {}}}`, text(`{"a": [1, 2`)},
		{"textJSON: two values", `{textJSON: {equals: {}}}`, text("{}\n{}")},
		{"textJSON: empty", `{textJSON: {equals: {}}}`, text("  ")},
		// result
		{"result: equals", `{result: {equals: {content: [{type: text, text: hi}], isError: false}}}`, whole(`{"content":[{"type":"text","text":"hi"}],"isError":false}`)},
		{"result: equals differs", `{result: {equals: {content: [{type: text, text: hi}], isError: false}}}`, whole(`{"content":[{"type":"text","text":"ho"}],"isError":false,"_meta":{}}`)},
		{"result: includes with matchers", `{result: {includes: {contents: {$len: {$gte: 1}}, nextCursor: {$absent: true}}}}`, whole(`{"contents":[],"nextCursor":"x"}`)},
		{"result: paths", `{result: {paths: {"messages.#": 2, "messages.0.role": user, "messages.1.role": {$oneOf: [user, assistant]}}}}`, whole(`{"messages":[{"role":"user"},{"role":"system"}]}`)},
		{"result: paths on the raw bytes", `{result: {paths: {"completion.values.#": {$gte: 1}}}}`, Result{Outcome: config.OutcomeOK, HasResult: true, Whole: map[string]any{}, WholeRaw: []byte(`{"completion":{"values":["monday"]}}`)}},
		{"result: schema", `{result: {schema: {type: object, required: [tools], properties: {tools: {type: array, items: {required: [name, inputSchema]}}}}}}`,
			whole(`{"tools":[{"name":"a","inputSchema":{}}]}`)},
		{"result: schema broken", `{result: {schema: {type: object, required: [tools, nextCursor], properties: {tools: {type: array, minItems: 2, items: {required: [name], properties: {name: {pattern: "^[a-z_]+$"}}}}}}}}`,
			whole(`{"tools":[{"name":"Get-Household"},{"title":"x"}]}`)},
		{"result of an await step", `{result: {includes: {method: notifications/resources/updated, params: {uri: {$match: "^household://"}}}}}`,
			whole(`{"method":"notifications/resources/updated","params":{"uri":"file:///tasks"}}`)},
		// structuredSchema
		{"structuredSchema: valid", `{structuredSchema: {type: object, properties: {revision: {type: integer, minimum: 0}}, required: [revision]}}`, structured(t, `{"revision": 3}`)},
		{"structuredSchema: broken rules name no value", `{structuredSchema: {type: object, additionalProperties: false, properties: {revision: {type: integer, minimum: 0}, state: {enum: [open, done]}, owner: {type: string, format: email}, tag: {const: x}}, required: [revision, id]}}`,
			structured(t, `{"revision": -1, "state": "lost", "owner": "not-an-address", "tag": "y", "secret": 1}`)},
		{"structuredSchema: a type", `{structuredSchema: {type: array, items: {type: [string, "null"]}, maxItems: 2}}`, structured(t, `[1, "a", null]`)},
		{"structuredSchema: draft-07 by $schema", `{structuredSchema: {$schema: "http://json-schema.org/draft-07/schema#", type: object, properties: {a: {exclusiveMinimum: 5}}}}`, structured(t, `{"a": 5}`)},
		{"structuredSchema: local $ref", `{structuredSchema: {$defs: {id: {type: string, minLength: 3}}, properties: {id: {$ref: "#/$defs/id"}}}}`, structured(t, `{"id": "ab"}`)},
		{"structuredSchema: no structuredContent", `{structuredSchema: {type: object}}`, Result{Outcome: config.OutcomeOK, HasResult: true}},
		{"structuredSchema: false", `{structuredSchema: false}`, structured(t, `{}`)},
		// notifications
		{"notifications: at least one by default", `{notifications: [{method: notifications/progress}]}`, notified(config.OutcomeOK, `notifications/progress {"progress":1}`)},
		{"notifications: none arrived", `{notifications: [{method: notifications/progress}]}`, notified(config.OutcomeOK, `notifications/message {"level":"info"}`)},
		{"notifications: exact count", `{notifications: [{method: notifications/progress, count: 3}, {method: notifications/message, count: 0}]}`,
			notified(config.OutcomeOK, `notifications/progress {"progress":1}`, `notifications/progress {"progress":2}`, `notifications/message {"level":"info"}`)},
		{"notifications: count matcher", `{notifications: [{method: notifications/progress, count: {$lte: 1}}, {method: notifications/message, count: {$gt: 0}}]}`,
			notified(config.OutcomeOK, `notifications/progress {"progress":1}`, `notifications/progress {"progress":2}`)},
		{"notifications: params with matchers", `{notifications: [{method: notifications/progress, params: {progress: {$gte: 2}, total: 3}, count: 2}]}`,
			notified(config.OutcomeOK, `notifications/progress {"progress":1,"total":3}`, `notifications/progress {"progress":2,"total":3}`, `notifications/progress {"progress":3,"total":3,"message":"done"}`)},
		{"notifications: params that none has", `{notifications: [{method: notifications/message, params: {level: error}}]}`,
			notified(config.OutcomeOK, `notifications/message {"level":"info","data":"x"}`, `notifications/progress {"progress":1}`)},
		{"notifications: without params", `{notifications: [{method: notifications/tools/list_changed, params: {$absent: true}}]}`,
			notified(config.OutcomeOK, `notifications/tools/list_changed`)},
		{"notifications: judged whatever the outcome", `{outcome: timeout, notifications: [{method: notifications/progress, count: {$gte: 2}}]}`,
			notified(config.OutcomeTimeout, `notifications/progress {"progress":1}`)},
	}
	runGolden(t, "expectations", rows)
}

// TestTextMessagesShowNoText: text failures quote the fixture's strings,
// never the answer.
func TestTextMessagesShowNoText(t *testing.T) {
	const secret = "s3cr3t-text-4711"
	e := expectOf(t, `{text: {equals: "x", contains: y, matches: "^z"}, textJSON: {equals: 1}, result: {schema: {type: object, properties: {a: {const: 1, pattern: "^q"}}}}}`)
	r := &Result{Outcome: config.OutcomeOK, HasResult: true, Text: "{" + secret, Whole: map[string]any{"a": secret}}
	n := 0
	for _, c := range Build(e) {
		for _, f := range c.Check(r) {
			n++
			if strings.Contains(f.Message, secret) {
				t.Errorf("%s: message shows the answer: %s", f.Kind, f.Message)
			}
		}
	}
	if n < 5 {
		t.Errorf("got %d failures, want at least 5", n)
	}
}
