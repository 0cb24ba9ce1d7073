package runner

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/internal/fileio"
	"github.com/mcpcheck/mcpcheck/internal/safetext"
	cfile "github.com/mcpcheck/mcpcheck/runner/internal/contract"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// failsAt reports whether severity s fails a run with failOn.
func failsAt(s report.Severity, failOn config.FailOn) bool {
	if failOn == config.FailOnNone {
		return false
	}
	if failOn == "" {
		failOn = config.DefaultFailOn
	}
	return s.Rank() >= report.Severity(failOn).Rank()
}

// drift converts the contract package's findings, redacted and bounded.
func drift(fs []cfile.Finding, failOn config.FailOn, clean func(string, int) string) ([]report.Drift, *report.DriftSummary) {
	if failOn == "" {
		failOn = config.DefaultFailOn
	}
	sum := &report.DriftSummary{FailOn: failOn}
	out := make([]report.Drift, 0, len(fs))
	for _, f := range fs {
		out = append(out, report.Drift{
			Severity: f.Severity, Kind: f.Kind, Subject: f.Subject,
			Name: clean(f.Name, 300), Path: clean(f.Path, 1000),
			Failing: failsAt(f.Severity, failOn),
			Old:     clean(f.Old, 2000), New: clean(f.New, 2000),
		})
		switch f.Severity {
		case report.SeverityBreaking:
			sum.Breaking++
		case report.SeverityRisky:
			sum.Risky++
		case report.SeverityCompatible:
			sum.Compatible++
		default:
			sum.Info++
		}
	}
	return out, sum
}

// readContract reads the suite's contract file before anything starts: a
// file that is missing (without --update) or not a contract is the
// caller's input error.
func readContract(path string, update bool) (*cfile.Contract, error) {
	data, err := fileio.ReadJSONFile(path)
	if errors.Is(err, fs.ErrNotExist) && update {
		return nil, nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("contract %s does not exist; write it with mcpcheck snapshot, or run with --update", path)
	}
	if err != nil {
		return nil, fmt.Errorf("contract: %w", err)
	}
	c, err := cfile.Read(data)
	if err != nil {
		return nil, fmt.Errorf("contract %s: %w", path, err)
	}
	return c, nil
}

// liveContract is the contract of the session and what it listed,
// redacted.
func (r *runState) liveContract(sess *session, found *discovered) (*cfile.Contract, error) {
	in := cfile.Input{
		ProtocolVersion:   r.rep.ProtocolVersion,
		Tools:             found.raw["tools"],
		Resources:         found.raw["resources"],
		ResourceTemplates: found.raw["resourceTemplates"],
		Prompts:           found.raw["prompts"],
	}
	if ir := sess.init; ir != nil {
		in.Instructions = ir.Instructions
		in.ServerInfo, _ = json.Marshal(ir.ServerInfo)
		in.Capabilities, _ = json.Marshal(ir.Capabilities)
	}
	if raw := sess.rawCapabilities(); raw != nil {
		// As sent: the SDK's type drops what it does not know (tasks).
		in.Capabilities = raw
	}
	return cfile.Build(in, r.red.String)
}

// checkContract builds the live contract when the run needs it: for a
// snapshot ([Snapshot]), and to compare with the suite's contract file,
// listing the drift in the report; with Options.Update the file is
// rewritten instead of failing.
func (r *runState) checkContract(sess *session, found *discovered) error {
	if r.purpose != modeSnapshot && (r.suite.Contract == "" || r.purpose == modeList || r.purpose == modeDiscover) {
		return nil
	}
	live, err := r.liveContract(sess, found)
	if err != nil {
		return fmt.Errorf("building the contract: %w", err)
	}
	data, err := live.Encode()
	if err != nil {
		return fmt.Errorf("building the contract: %w", err)
	}
	if r.purpose == modeSnapshot {
		r.rep.Contract = data
		return nil
	}
	var findings []cfile.Finding
	if r.old != nil {
		findings = cfile.Diff(r.old, live)
	}
	r.rep.Drift, r.rep.Summary.Drift = drift(findings, r.suite.FailOn, r.clean)
	if r.opts.Update && (r.old == nil || len(findings) > 0) {
		// Replaced whole (internal/fileio): a failed write keeps the
		// previous contract and fails the run, naming the file.
		if err := fileio.WriteFile(r.suite.Contract, data, 0o644); err != nil {
			return fmt.Errorf("updating the contract: %w", err)
		}
		r.rep.Summary.Drift.Updated = true
		for i := range r.rep.Drift {
			r.rep.Drift[i].Failing = false
		}
		r.rep.Notes = append(r.rep.Notes, fmt.Sprintf("contract %s written from the live server (--update)", r.suite.Contract))
	}
	return nil
}

// DiffContracts compares two contract files (calling nothing) and returns
// a report whose only content is their drift, failing as a run with
// failOn would. Files that are not contracts are an error (exit 2).
func DiffContracts(oldName string, oldData []byte, newName string, newData []byte, failOn config.FailOn) (*report.Report, error) {
	old, err := cfile.Read(oldData)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", oldName, err)
	}
	nw, err := cfile.Read(newData)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", newName, err)
	}
	rep := &report.Report{
		SchemaVersion:   report.SchemaVersion,
		Suite:           fmt.Sprintf("contract drift from %s to %s", oldName, newName),
		Target:          report.Target{Transport: report.TargetNone},
		ProtocolVersion: nw.ProtocolVersion,
		Server:          &report.ServerInfo{Name: nw.Server.Name, Version: nw.Server.Version},
		ToolsDiscovered: []string{},
		Scenarios:       []report.ScenarioResult{},
	}
	for _, t := range nw.Tools {
		rep.ToolsDiscovered = append(rep.ToolsDiscovered, safetext.Clean(t.Name, 200))
	}
	rep.Drift, rep.Summary.Drift = drift(cfile.Diff(old, nw), failOn, safetext.Clean)
	rep.Tally()
	// The edge: contract files may come from a hostile server.
	(*redactor)(nil).report(rep)
	return rep, nil
}
