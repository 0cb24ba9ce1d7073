package report

import (
	"fmt"
	"strings"
)

// exchangeLines are a step's request and answer as the human reports show
// them (-v, -vv, the HTML report): the method, then the parameters and the
// answer as indented JSON. The runner made them safe and cut them where
// it kept them (runner.Exchange).
func exchangeLines(ex *Exchange) []string {
	if ex == nil {
		return nil
	}
	out := []string{"request: " + ex.Method}
	json := func(s string) {
		for _, l := range strings.Split(s, "\n") {
			out = append(out, "  "+l)
		}
	}
	if ex.Omitted != "" {
		return append(out, "  (not kept: "+ex.Omitted+")")
	}
	json(ex.Params)
	switch {
	case ex.NotSent:
		out = append(out, "answer: none, the request was not sent")
	case ex.Error != nil:
		msg := ""
		if ex.Error.Message != "" {
			msg = ": " + ex.Error.Message
		}
		out = append(out, fmt.Sprintf("answer: error %d%s", ex.Error.Code, msg))
	case ex.Result != "":
		out = append(out, "answer: result")
		json(ex.Result)
	default:
		out = append(out, "answer: none came")
	}
	return out
}

// exchange writes a step's exchange under it, when the report shows them.
func (t *textWriter) exchange(st *StepResult) {
	if !t.opts.Exchanges {
		return
	}
	for _, l := range exchangeLines(st.Exchange) {
		t.printf("       %s\n", t.paint(dim, l))
	}
}
