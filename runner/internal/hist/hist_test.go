package hist

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestQuantileWithinResolution: every quantile read from the histogram is
// within one bucket width (1/128 of the value at 8 bits) of the exact one,
// and never below it.
func TestQuantileWithinResolution(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	h := New(8)
	var vals []int64
	for range 100000 {
		v := int64(rng.ExpFloat64() * 20000) // a latency-like tail, in µs
		vals = append(vals, v)
		h.Record(v)
	}
	slices.Sort(vals)
	for _, q := range []float64{0.5, 0.9, 0.95, 0.99, 0.999, 1} {
		exact := vals[int(float64(len(vals))*q+0.999999)-1]
		got := h.Quantile(q)
		if got < exact || float64(got-exact) > float64(exact)/128+1 {
			t.Errorf("q%.3f = %d, exact %d", q, got, exact)
		}
	}
	if h.Max() != vals[len(vals)-1] || h.Min() != vals[0] || h.Count() != uint64(len(vals)) {
		t.Errorf("min/max/count %d/%d/%d", h.Min(), h.Max(), h.Count())
	}
}

// TestBucketsCoverEveryValue: the buckets are contiguous, each value falls
// inside its bucket's bounds, and small values are exact.
func TestBucketsCoverEveryValue(t *testing.T) {
	h := New(8)
	prevHi := int64(-1)
	for i := 0; i < 40*128; i++ {
		lo, hi := h.bounds(i)
		if int64(lo) != prevHi+1 || hi < lo {
			t.Fatalf("bucket %d = [%d, %d] after %d", i, lo, hi, prevHi)
		}
		prevHi = int64(hi)
		if h.index(lo) != i || h.index(hi) != i {
			t.Fatalf("bucket %d: index(%d)=%d index(%d)=%d", i, lo, h.index(lo), hi, h.index(hi))
		}
	}
	for v := uint64(0); v < 256; v++ {
		if lo, hi := h.bounds(h.index(v)); lo != v || hi != v {
			t.Fatalf("value %d not exact: [%d,%d]", v, lo, hi)
		}
	}
}

// TestMergeIsExact: two halves merged are the whole, bucket for bucket,
// and survive the report encoding.
func TestMergeIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	whole, a, b := New(8), New(8), New(8)
	for i := range 50000 {
		v := rng.Int64N(5_000_000)
		whole.Record(v)
		if i%3 == 0 {
			a.Record(v)
		} else {
			b.Record(v)
		}
	}
	ea, _ := json.Marshal(a.Encode())
	eb, _ := json.Marshal(b.Encode())
	var da, db Encoded
	json.Unmarshal(ea, &da)
	json.Unmarshal(eb, &db)
	ha, err := Decode(da)
	if err != nil {
		t.Fatal(err)
	}
	hb, err := Decode(db)
	if err != nil {
		t.Fatal(err)
	}
	if err := ha.Merge(hb); err != nil {
		t.Fatal(err)
	}
	w, m := whole.Encode(), ha.Encode()
	w.Sum, m.Sum = 0, 0 // float addition order
	wj, _ := json.Marshal(w)
	mj, _ := json.Marshal(m)
	if string(wj) != string(mj) {
		t.Errorf("merged differs from whole")
	}
	if New(7).Merge(whole) != ErrResolution {
		t.Error("merged histograms of different resolutions")
	}
}

// TestDecodeRefusesBadInput: a histogram that does not add up is refused,
// and a huge index is not an allocation.
func TestDecodeRefusesBadInput(t *testing.T) {
	for name, e := range map[string]Encoded{
		"count":      {Bits: 8, Count: 3, Buckets: [][2]uint64{{1, 1}}},
		"order":      {Bits: 8, Count: 2, Max: 9, Buckets: [][2]uint64{{5, 1}, {2, 1}}},
		"huge index": {Bits: 8, Count: 1, Max: 1, Buckets: [][2]uint64{{1 << 40, 1}}},
		"bits":       {Bits: 40},
		"overflow":   {Bits: 8, Count: 0, Buckets: [][2]uint64{{1, 1 << 63}, {2, 1 << 63}}},
	} {
		if _, err := Decode(e); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
