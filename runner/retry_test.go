package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpcheck/mcpcheck/demo"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// TestRetriesInFlight retries scenarios four at a time against one demo
// server whose flaky tool fails every odd-numbered call: which scenario
// draws which call is chance, so the test checks what holds whatever the
// draw. Each scenario ends passed (after at most its one retry, flaky) or
// failed with one attempt; the calls made are the scenarios plus their
// attempts; and the run's hooks hear of each step and each scenario once,
// final, as the report has them.
func TestRetriesInFlight(t *testing.T) {
	count := filepath.Join(t.TempDir(), "count")
	srv := demo.NewServer(demo.Options{FlakyFile: count})
	var b strings.Builder
	b.WriteString("name: in flight\ncommand: [unused]\nallowTools: [flaky]\nconcurrency: 4\nretries: 1\nscenarios:\n")
	const n = 12
	for i := range n {
		fmt.Fprintf(&b, "  - {name: s%d, steps: [{id: call, tool: flaky}]}\n", i)
	}
	var mu sync.Mutex
	steps, scenarios := map[int]int{}, map[int]int{}
	final := map[int]report.Status{}
	opts := Options{
		Dial: func(ctx context.Context) (mcp.Transport, error) {
			ct, st := mcp.NewInMemoryTransports()
			if _, err := srv.Connect(ctx, st, nil); err != nil {
				return nil, err
			}
			return ct, nil
		},
		OnStep: func(i, j int, st report.StepResult) {
			mu.Lock()
			defer mu.Unlock()
			steps[i]++
			final[i] = st.Status
		},
		OnScenario: func(i int, sc report.ScenarioResult) {
			mu.Lock()
			defer mu.Unlock()
			scenarios[i]++
		},
	}
	rep, err := Run(context.Background(), parse(t, b.String()), opts)
	if err != nil {
		t.Fatal(err)
	}
	attempts, flaky := 0, 0
	for i, sc := range rep.Scenarios {
		attempts += len(sc.Attempts)
		switch {
		case sc.Status == report.StatusPassed && len(sc.Attempts) <= 1:
			if sc.Flaky != (len(sc.Attempts) == 1) {
				t.Errorf("%s: flaky %v with %d attempts", sc.Name, sc.Flaky, len(sc.Attempts))
			}
			if sc.Flaky {
				flaky++
			}
		case sc.Status == report.StatusFailed && len(sc.Attempts) == 1 && !sc.Flaky:
		default:
			t.Errorf("%s: %s, flaky %v, %d attempts", sc.Name, sc.Status, sc.Flaky, len(sc.Attempts))
		}
		if steps[i] != 1 || scenarios[i] != 1 || final[i] != sc.Steps[0].Status {
			t.Errorf("%s: the hooks heard of its step %d times (last %s) and of it %d times; the report says %s", sc.Name, steps[i], final[i], scenarios[i], sc.Steps[0].Status)
		}
	}
	data, _ := os.ReadFile(count)
	if calls, _ := strconv.Atoi(strings.TrimSpace(string(data))); calls != n+attempts {
		t.Errorf("%d calls made, want %d scenarios + %d retries", calls, n, attempts)
	}
	if rep.Summary.Flaky != flaky || attempts == 0 {
		t.Errorf("summary.flaky %d, %d flaky scenarios, %d retries", rep.Summary.Flaky, flaky, attempts)
	}
}
