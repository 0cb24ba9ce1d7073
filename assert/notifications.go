package assert

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/internal/jsonx"
)

// Notifications demands notifications the server sent while the step was
// in flight (expect.notifications): for each entry, the notifications with
// its method whose params include its params are counted, and the count
// must be the one it asks for (at least one unless it says otherwise).
type Notifications struct{ Want []config.NotificationExpect }

func buildNotifications(e *config.Expect) Checker {
	if len(e.Notifications) == 0 {
		return nil
	}
	return &Notifications{Want: e.Notifications}
}

// Kind implements [Checker].
func (c *Notifications) Kind() KindName { return KindNotifications }

// atLeastOne is the count a notification expectation asks for by default.
var atLeastOne = &config.Matcher{Op: config.MatchGTE, Bound: "1"}

// Check implements [Checker]. It runs whatever the outcome: a server may
// notify before it fails or times out.
func (c *Notifications) Check(r *Result) []Failure {
	var out []Failure
	for _, w := range c.Want {
		withMethod, matched := 0, 0
		for _, n := range r.Notifications {
			if n.Method != w.Method {
				continue
			}
			withMethod++
			if w.Params == nil {
				matched++
				continue
			}
			d := differ{subset: true}
			if d.matches(w.Params.V, n.Params, n.Params != nil) {
				matched++
			}
		}
		var count any = atLeastOne
		if w.Count != nil {
			count = w.Count.V
		}
		if countHolds(count, matched) {
			continue
		}
		msg := fmt.Sprintf("%s: expected %s, got %d", w.Method, countText(count), matched)
		if w.Params != nil {
			msg = fmt.Sprintf("%s: expected %s with matching params, got %d (of %d with this method)", w.Method, countText(count), matched, withMethod)
		}
		out = append(out, Failure{Kind: c.Kind(), Message: msg, Expected: count, HasExpected: true, Actual: json.Number(strconv.Itoa(matched)), HasActual: true})
	}
	return out
}

// countHolds reports whether n satisfies count, a json.Number or a
// *config.Matcher.
func countHolds(count any, n int) bool {
	d := differ{}
	return d.matches(count, json.Number(strconv.Itoa(n)), true)
}

// countText words a count for a message: "at least 1", "exactly 2",
// "none", or the matcher.
func countText(count any) string {
	switch c := count.(type) {
	case *config.Matcher:
		switch c.Op {
		case config.MatchGTE:
			return "at least " + string(c.Bound)
		case config.MatchGT:
			return "more than " + string(c.Bound)
		case config.MatchLTE:
			return "at most " + string(c.Bound)
		case config.MatchLT:
			return "fewer than " + string(c.Bound)
		}
		return "a count matching " + c.String()
	case json.Number:
		if jsonx.Equal(string(c), "0") {
			return "none"
		}
		return "exactly " + string(c)
	}
	return fmt.Sprint(count)
}
