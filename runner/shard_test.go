package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// shardsOf lists suite (no generate block: --list connects to nothing) as
// shard k of n for every k and returns, per scenario name, the shards that
// run it and the steps each shard got.
func shardsOf(t *testing.T, suite *config.Suite, n int) (map[string][]int, []int) {
	t.Helper()
	owners := map[string][]int{}
	load := make([]int, n+1)
	for k := 1; k <= n; k++ {
		rep, err := List(context.Background(), suite, Options{Select: &Selection{Shard: &report.Shard{Index: k, Total: n}}})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Connections != 0 {
			t.Fatalf("listing a shard opened %d connections", rep.Connections)
		}
		if rep.Shard == nil || *rep.Shard != (report.Shard{Index: k, Total: n}) {
			t.Fatalf("report of shard %d/%d says %v", k, n, rep.Shard)
		}
		for _, sc := range rep.Scenarios {
			if sc.NotSelected == "" {
				owners[sc.Name] = append(owners[sc.Name], k)
				load[k] += len(sc.Steps)
			} else if sc.NotSelected != report.ExcludedShard {
				t.Fatalf("%s: %s", sc.Name, sc.NotSelected)
			}
		}
	}
	return owners, load
}

// Every scenario runs in exactly one shard, the shards are balanced by
// steps, and adding a scenario (anywhere: the assignment ignores
// position) moves no other.
func TestShardAssignment(t *testing.T) {
	data, err := os.ReadFile("../examples/faults.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	load := func(text string) *config.Suite {
		path := filepath.Join(dir, "faults.yaml") // the same file name: the same assignment
		os.WriteFile(path, []byte(text), 0o644)
		s, err := config.Load(path, config.LoadOptions{Environ: []string{}})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	suite := load(string(data))
	steps := 0
	for _, sc := range suite.Scenarios {
		steps += len(sc.Steps)
	}
	grown := load(strings.Replace(string(data), "scenarios:\n", "scenarios:\n  - name: A newcomer at the top\n    steps:\n      - {id: ping, tool: ping}\n", 1))
	for n := 1; n <= 5; n++ {
		owners, loads := shardsOf(t, suite, n)
		for _, sc := range suite.Scenarios {
			if len(owners[sc.Name]) != 1 {
				t.Errorf("%d shards: %q runs in shards %v", n, sc.Name, owners[sc.Name])
			}
		}
		capacity := int(float64(steps)*loadSlack/float64(n) + 0.999)
		for k := 1; k <= n; k++ {
			if loads[k] > capacity {
				t.Errorf("%d shards: shard %d has %d of %d steps, more than %d", n, k, loads[k], steps, capacity)
			}
		}
		after, _ := shardsOf(t, grown, n)
		moved := 0
		for name, k := range owners {
			if fmt.Sprint(after[name]) != fmt.Sprint(k) {
				moved++
				t.Logf("%d shards: %q moved from %v to %v", n, name, k, after[name])
			}
		}
		if moved > 0 {
			t.Errorf("%d shards: adding one scenario moved %d others", n, moved)
		}
		t.Logf("%d shards: steps per shard %v (of %d)", n, loads[1:], steps)
	}
}

func TestParseShard(t *testing.T) {
	for _, bad := range []string{"0/3", "4/3", "1/0", "1", "a/b", "1/2/3", "-1/2", "1/3x"} {
		if _, err := report.ParseShard(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if s, err := report.ParseShard("2/3"); err != nil || s != (report.Shard{Index: 2, Total: 3}) {
		t.Errorf("2/3: %v %v", s, err)
	}
}
