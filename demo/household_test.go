package demo

import (
	"errors"
	"fmt"
	"testing"
)

// TestProposalLimit checks the bound on per-session state: after
// maxProposals proposals the next one is refused and nothing more is stored.
func TestProposalLimit(t *testing.T) {
	h := newHousehold()
	for i := 1; i <= maxProposals; i++ {
		id, _, err := h.propose("t")
		if err != nil {
			t.Fatalf("proposal %d: %v", i, err)
		}
		if want := fmt.Sprintf("proposal-%d", i); id != want {
			t.Fatalf("proposal %d has id %q, want %q", i, id, want)
		}
	}
	if _, _, err := h.propose("one too many"); !errors.Is(err, errProposalLimit) {
		t.Fatalf("proposal %d: err = %v, want errProposalLimit", maxProposals+1, err)
	}
	if len(h.proposals) != maxProposals {
		t.Errorf("%d proposals stored, want %d", len(h.proposals), maxProposals)
	}
	// Commits still work on the proposals already made.
	if rev, replayed, err := h.commit("proposal-1", 0, "k"); err != nil || rev != 1 || replayed {
		t.Errorf("commit = %d, %v, %v; want 1, false, nil", rev, replayed, err)
	}
}

// TestProposalLimitIsToolError checks that the limit reaches an MCP client
// as a tool error, not a protocol error.
func TestProposalLimitIsToolError(t *testing.T) {
	ctx := testContext(t)
	cs := connectInMemory(t, ctx, NewServer(Options{}), "2025-11-25")
	for i := 0; i < maxProposals; i++ {
		res := call(t, ctx, cs, "propose_task", args("text", "t"))
		if res.IsError {
			t.Fatalf("proposal %d: %s", i+1, resultText(res))
		}
	}
	mustToolError(t, ctx, cs, "propose_task", args("text", "one too many"))
}

func TestCommitErrors(t *testing.T) {
	h := newHousehold()
	h.propose("a") // proposal-1 at revision 0
	h.propose("b") // proposal-2 at revision 0
	if _, _, err := h.commit("proposal-1", 0, "k1"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		id   string
		rev  int64
		key  string
		want error
	}{
		{"proposal-9", 1, "x", errUnknownProposal},
		{"proposal-1", 1, "x", errAlreadyCommitted},
		{"proposal-2", 1, "x", errStaleProposal},
	} {
		if _, _, err := h.commit(tc.id, tc.rev, tc.key); !errors.Is(err, tc.want) {
			t.Errorf("commit(%s, %d, %s) = %v, want %v", tc.id, tc.rev, tc.key, err, tc.want)
		}
	}
	h.propose("c") // proposal-3 at revision 1
	if _, _, err := h.commit("proposal-3", 0, "x"); !errors.Is(err, errRevisionConflict) {
		t.Errorf("commit with expectedRevision 0 = %v, want errRevisionConflict", err)
	}
	if rev, tasks := h.snapshot(); rev != 1 || len(tasks) != 1 {
		t.Errorf("after refused commits: revision %d, %d tasks; want 1, 1", rev, len(tasks))
	}
}
