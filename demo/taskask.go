package demo

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"time"
)

// With Options.Tasks and Options.Ask, over stdio, a task asks the client
// something while it works: taskAskAfter into its work the tasks layer
// sends the client a ping request (id "demo-task-ask-N") and drops the
// client's answer before it reaches the SDK. A client sees a server
// request that came while only the task was going on (its polls, between
// them): the runner's attribution of server requests during task polling
// is tested with it (issue 19, item 16).

// taskAskAfter is how far into a task's work it asks the client.
const taskAskAfter = taskWork / 2

// taskAskPrefix starts the ids of the tasks layer's own requests.
const taskAskPrefix = "demo-task-ask-"

// taskAsker sends a task's request to the client on out.
type taskAsker struct {
	out *lockedWriter
	seq atomic.Int64
}

// ask sends the client a ping after taskAskAfter, unless the task stops
// first.
func (a *taskAsker) ask(stop <-chan struct{}) {
	if a == nil {
		return
	}
	t := time.NewTimer(taskAskAfter)
	defer t.Stop()
	select {
	case <-stop:
		return
	case <-t.C:
	}
	a.out.writeLines([][]byte{fmt.Appendf(nil, `{"jsonrpc":"2.0","id":"%s%d","method":"ping"}`, taskAskPrefix, a.seq.Add(1))})
}

// answersAsk reports whether line is the client's answer to one of the
// tasks layer's own requests (which the SDK must not see).
func answersAsk(line []byte) bool {
	if !bytes.Contains(line, []byte(taskAskPrefix)) {
		return false
	}
	var m struct {
		ID     string          `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	return json.Unmarshal(line, &m) == nil && m.Method == "" && bytes.HasPrefix([]byte(m.ID), []byte(taskAskPrefix)) && (m.Result != nil || m.Error != nil)
}
