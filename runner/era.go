package runner

import (
	"encoding/json"
	"fmt"

	"github.com/tidwall/gjson"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/runner/internal/probe"
)

// The 2026-07-28 era in the runner: its protocol probes are planned here
// (probe.Era judges them), a fixture step whose method the revision
// removed is refused before it is sent, and a run that asked for the
// revision but negotiated an older version says so.

// eraProbes plans the probes of 2026-07-28: the read-only tools with
// valid arguments are the candidates for a tool that asks for input.
func (c *generator) eraProbes(t probe.Target, readOnly, allowed []tool) []probe.Probe {
	var cands []probe.Candidate
	for _, tl := range readOnly {
		if len(cands) == probe.MaxCandidates {
			break
		}
		args, notes := c.values.Valid(tl.Name, c.input(tl.Name))
		if len(notes) > 0 || args == nil {
			continue
		}
		if a, err := json.Marshal(args); err == nil {
			cands = append(cands, probe.Candidate{Name: tl.Name, Args: a})
		}
	}
	return probe.Era(t, Version, c.probeTool(readOnly, allowed), cands)
}

// eraFallback is the report's note when a run asked for 2026-07-28 and the
// server negotiated an older version: a server of the older era (the
// TypeScript SDK stops at 2025-11-25; go-sdk serves 2026-07-28 over HTTP
// only without sessions) is not failed for it, and the report says what
// was checked instead.
func eraFallback(requested, negotiated string) string {
	if requested != config.ProtocolVersion2026 || negotiated == "" || negotiated == config.ProtocolVersion2026 {
		return ""
	}
	return "asked for protocol " + requested + "; the server does not serve it here and negotiated " + negotiated +
		", so the run checked " + negotiated + " (not a failure: the server speaks the older era)"
}

// notInEra is a fixture step whose method 2026-07-28 removed: it is not
// sent. (A subscribe step is carried by subscriptions/listen instead, as
// go-sdk does: the revision replaced the method, not the need.)
func notInEra(method string) error {
	return errBadParams{fmt.Errorf("%s is not in %s (the revision removed it); limit the step with protocols: [2025-11-25]", method, config.ProtocolVersion2026)}
}

// inputRequired reports whether a call's result is 2026-07-28's
// input-required result: one round of a multi-round-trip request, which
// the SDK answers from the client block and retries with a new id. The
// step's result is the last round's.
func inputRequired(raw json.RawMessage) bool {
	return len(raw) > 0 && gjson.GetBytes(raw, "resultType").String() == "input_required"
}
