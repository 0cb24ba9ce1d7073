//go:build linux

package main

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestTTYLoad: on a terminal the load shows a live line (calls, calls/s,
// percentiles, elapsed) while it runs and erases it for good before the
// summary, as the run's status line is.
func TestTTYLoad(t *testing.T) {
	terminalEnv(t)
	p := openPTY(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	code, _, errs := ttyRun(t, ctx, p, false, "load", "--config", "../../examples/load.yaml", "--duration", "2500ms", "--vus", "2")
	if code != exitPass {
		t.Fatalf("exit %d: %s\n%s", code, errs, p.output())
	}
	for deadline := time.Now().Add(2 * time.Minute); !strings.Contains(p.output(), "read/about: p99<1s"); {
		if time.Now().After(deadline) {
			t.Fatalf("the terminal never got the thresholds:\n%q", p.output())
		}
		time.Sleep(10 * time.Millisecond)
	}
	p.slave.Close()
	<-p.done
	raw := p.output()
	if !strings.Contains(raw, "\rload 1s of 2.5s: ") || !strings.Contains(raw, "calls/s, p50 ") {
		t.Errorf("no live line was drawn:\n%q", raw)
	}
	shown := screen(raw)
	if strings.Contains(shown, "calls/s, p50") {
		t.Errorf("the live line was left on the screen:\n%s", shown)
	}
	if !strings.Contains(shown, "PASS\x1b[0m Household under load (load)") || !strings.Contains(shown, "met    \x1b[0m  errors<1%: 0 %") {
		t.Errorf("the summary:\n%s", shown)
	}
}
