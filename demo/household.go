package demo

import (
	"errors"
	"fmt"
	"sync"
)

// maxProposals bounds what one session may store, so that a client cannot
// grow the server's memory without limit. Idempotency keys and tasks need no
// bound of their own: a key is stored, and a task added, only by a successful
// commit, and every successful commit consumes a distinct proposal. The
// lengths of the strings stored are bounded by the tools' input schemas.
const maxProposals = 1000

// Errors for the states in which commit_task and propose_task refuse to act.
// They reach the client as tool errors (isError: true) carrying the message.
var (
	errProposalLimit    = errors.New("proposal limit reached")
	errUnknownProposal  = errors.New("unknown proposal")
	errAlreadyCommitted = errors.New("proposal already committed")
	errStaleProposal    = errors.New("stale proposal")
	errRevisionConflict = errors.New("revision conflict")
)

// A task is one entry of the household task list.
type task struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// A proposal is a task that has been proposed but maybe not yet committed.
type proposal struct {
	text      string
	revision  int64 // the household revision the proposal was made at
	committed bool
}

// household is the state of one MCP session: a revisioned task list, the
// proposals made against it, and the results of successful commits by
// idempotency key. The zero value is not usable; call newHousehold.
type household struct {
	mu        sync.Mutex
	revision  int64
	tasks     []task
	proposals map[string]*proposal // by proposal id
	commits   map[string]int64     // idempotency key → revision the commit produced

	// announced is the revision that the session's subscribers to
	// household://tasks were last told about, or that was current when
	// they subscribed (see takeUpdate).
	announced int64
}

func newHousehold() *household {
	return &household{
		tasks:     []task{},
		proposals: make(map[string]*proposal),
		commits:   make(map[string]int64),
	}
}

// snapshot returns the current revision and a copy of the task list.
func (h *household) snapshot() (revision int64, tasks []task) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.revision, append([]task{}, h.tasks...)
}

// task returns the committed task with the given id.
func (h *household) task(id string) (task, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, t := range h.tasks {
		if t.ID == id {
			return t, true
		}
	}
	return task{}, false
}

// announce records that the session's subscribers know the current
// revision, as they do when they subscribe.
func (h *household) announce() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.announced = h.revision
}

// takeUpdate reports whether the task list has changed since the
// subscribers were last told, and records that they now are.
func (h *household) takeUpdate() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.revision == h.announced {
		return false
	}
	h.announced = h.revision
	return true
}

// propose records a proposal for a task with the given text, made at the
// current revision. The task list and revision do not change.
func (h *household) propose(text string) (id string, revision int64, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.proposals) >= maxProposals {
		return "", 0, fmt.Errorf("%w: a session may make at most %d proposals; start a new session", errProposalLimit, maxProposals)
	}
	id = fmt.Sprintf("proposal-%d", len(h.proposals)+1)
	h.proposals[id] = &proposal{text: text, revision: h.revision}
	return id, h.revision, nil
}

// commit applies a proposal, at most once per idempotency key.
//
// A key already used by a successful commit returns that commit's revision
// with replayed true, whatever the other arguments are. Otherwise the
// proposal must exist, be uncommitted and have been made at the current
// revision, and expectedRevision must equal the current revision; then its
// task is appended and the revision advances by one. A refused commit does
// not consume the key, so the client may retry it with corrected arguments.
func (h *household) commit(proposalID string, expectedRevision int64, key string) (revision int64, replayed bool, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if rev, ok := h.commits[key]; ok {
		return rev, true, nil
	}
	p, ok := h.proposals[proposalID]
	switch {
	case !ok:
		return 0, false, fmt.Errorf("%w %q: call propose_task first and pass the proposalId it returns", errUnknownProposal, proposalID)
	case p.committed:
		return 0, false, fmt.Errorf("%w: %q was committed under another idempotency key", errAlreadyCommitted, proposalID)
	case p.revision != h.revision:
		return 0, false, fmt.Errorf("%w: %q was made at revision %d but the household is now at revision %d; propose the task again", errStaleProposal, proposalID, p.revision, h.revision)
	case expectedRevision != h.revision:
		return 0, false, fmt.Errorf("%w: expectedRevision is %d but the household is at revision %d", errRevisionConflict, expectedRevision, h.revision)
	}
	p.committed = true
	h.revision++
	h.tasks = append(h.tasks, task{ID: fmt.Sprintf("task-%d", len(h.tasks)+1), Text: p.text})
	h.commits[key] = h.revision
	return h.revision, false, nil
}

// plural is "1 task", "2 tasks", ..., for the sentences of plan_chores and
// tidy_household.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
