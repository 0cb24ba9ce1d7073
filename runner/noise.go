package runner

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// Stdout noise: a stdio server that writes lines that are not JSON-RPC on
// its stdout (a banner such as "Starting … server...", a log line) breaks
// a MUST of the stdio transport. Clients skip such lines, and so does the
// runner's connection (stdio.Noise says which lines); the run goes on,
// and the report keeps the first lines and their count, which analysis
// turns into one failed finding naming what the server wrote. Before, the
// first such line ended the session and the server was reported as having
// exited during initialize.

// noiseKeep is how many noise lines the report quotes, and noiseLine how
// many bytes of each.
const (
	noiseKeep = 3
	noiseLine = 200
)

// noiseLog collects noise lines from every process of a run (a relaunch,
// a probe's server): the first few, and the count.
type noiseLog struct {
	mu    sync.Mutex
	lines []string
	count int
}

// add keeps line (the first noiseKeep of them, each cut to noiseLine
// bytes); a nil log keeps nothing.
func (l *noiseLog) add(line []byte) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.count++
	// A relaunched server prints its banner again: distinct lines only.
	if s := string(line[:min(len(line), 4*noiseLine)]); len(l.lines) < noiseKeep && !slices.Contains(l.lines, s) {
		l.lines = append(l.lines, s)
	}
}

// report is the log for the report, its lines through clean; nil when the
// servers wrote no noise.
func (l *noiseLog) report(clean func(string, int) string) *report.StdoutNoise {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.count == 0 {
		return nil
	}
	out := &report.StdoutNoise{Count: l.count}
	for _, s := range l.lines {
		out.Lines = append(out.Lines, clean(strings.TrimSpace(s), noiseLine))
	}
	return out
}

// noiseFinding is the finding a report's stdout noise makes: failed, since
// the transport's MUST is broken, and counted against no score.
func noiseFinding(n *report.StdoutNoise, version string) report.Finding {
	quoted := make([]string, len(n.Lines))
	for i, s := range n.Lines {
		quoted[i] = strconv.Quote(s)
	}
	if version == "" {
		version = config.DefaultProtocolVersion
	}
	ref := "MCP " + version + " basic/transports (stdio): the server MUST NOT write anything to its stdout that is not a valid MCP message"
	msg := fmt.Sprintf("the server wrote non-JSON-RPC to stdout: %s (%d line(s) in all); skipped, as clients do, and the run went on (%s)",
		strings.Join(quoted, ", "), n.Count, ref)
	return report.Finding{Origin: config.OriginProtocol, Kind: report.FindingStdoutNoise, Status: report.StatusFailed, Message: msg,
		Expected: "only JSON-RPC messages on stdout", Got: fmt.Sprintf("%d line(s) that are not JSON-RPC", n.Count), Reference: ref}
}
