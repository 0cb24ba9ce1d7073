package runner

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"path/filepath"
	"slices"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/internal/mix"
)

// Shard is one part of a suite split over several runs (--shard K/N), for
// a CI job matrix; mcpcheck merge puts the parts' reports back together.
type Shard struct {
	// Index is K, counting from 1; Total is N.
	Index int `json:"index"`
	Total int `json:"total"`
}

// String renders the shard as K/N.
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Total) }

// ParseShard reads K/N, 1 <= K <= N.
func ParseShard(v string) (Shard, error) {
	var s Shard
	var rest string
	if n, _ := fmt.Sscanf(v, "%d/%d%s", &s.Index, &s.Total, &rest); n != 2 || s.Total < 1 || s.Index < 1 || s.Index > s.Total {
		return Shard{}, fmt.Errorf("want K/N with 1 <= K <= N, such as 2/3, got %q", v)
	}
	return s, nil
}

// loadSlack is how far above an even share of the steps a shard may be
// filled before a scenario goes to its next preferred shard.
const loadSlack = 1.25

// shardScenarios leaves out, from index from on, the selected scenarios
// that another shard runs.
//
// The assignment is stable: each scenario prefers the shards in an order
// drawn from a hash of the suite file's name and its own key (rendezvous
// hashing), never from its position, so adding or removing a scenario
// leaves the others where they were. A scenario written in the fixture is
// keyed by its name; generated scenarios by the tool (or resource, prompt)
// their first step calls, so every check of one tool, and the analysis of
// that tool, stays in one shard. Shards are balanced by step count: a
// scenario goes to the first shard of its order that stays within
// loadSlack times an even share of the steps (only then can adding a
// scenario move another one).
func (r *runState) shardScenarios(from int) {
	sh := r.opts.Select.shard()
	if sh == nil {
		return
	}
	type unit struct {
		key    string
		hash   uint64
		weight int
		scens  []*scenario
	}
	var units []*unit
	byKey := map[string]*unit{}
	total := 0
	for _, sc := range r.plan[from:] {
		if sc.excluded != "" || len(sc.steps) == 0 {
			continue
		}
		key := "scenario\x00" + sc.name
		if sc.steps[0].origin != config.OriginFixture {
			key = "call\x00" + sc.steps[0].call.name
		}
		u := byKey[key]
		if u == nil {
			u = &unit{key: key, hash: r.shardHash(key, 0)}
			byKey[key] = u
			units = append(units, u)
		}
		u.scens = append(u.scens, sc)
		u.weight += len(sc.steps)
		total += len(sc.steps)
	}
	capacity := 0
	for _, u := range units {
		capacity = max(capacity, u.weight)
	}
	capacity = max(capacity, int(float64(total)*loadSlack/float64(sh.Total)+0.999))
	// Units are placed heaviest first, ties by hash: an order that does
	// not depend on where a scenario is written.
	slices.SortFunc(units, func(a, b *unit) int {
		return cmp.Or(cmp.Compare(b.weight, a.weight), cmp.Compare(a.hash, b.hash), cmp.Compare(a.key, b.key))
	})
	load := make([]int, sh.Total+1)
	for _, u := range units {
		prefs := make([]int, sh.Total)
		for k := range prefs {
			prefs[k] = k + 1
		}
		score := func(k int) uint64 { return r.shardHash(u.key, k) }
		slices.SortFunc(prefs, func(a, b int) int { return cmp.Or(cmp.Compare(score(b), score(a)), cmp.Compare(a, b)) })
		to := prefs[0]
		for _, k := range prefs {
			if load[k]+u.weight <= capacity {
				to = k
				break
			}
		}
		load[to] += u.weight
		if to != sh.Index {
			for _, sc := range u.scens {
				sc.excluded = ExcludedShard
			}
		}
	}
}

// shardHash hashes the suite file's name, a scenario's key and a shard
// number (0: the key alone).
func (r *runState) shardHash(key string, shard int) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%s\x00%d", filepath.Base(r.suite.File), key, shard)
	return mix.Spread(h.Sum64())
}
