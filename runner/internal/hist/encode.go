package hist

import (
	"errors"
	"fmt"
	"math"
)

// Encoded is a histogram as the JSON report keeps it, losslessly: the
// resolution, the exact count, extremes and sum, and the buckets that hold
// values as pairs [index, count] in increasing index order.
type Encoded struct {
	Bits    int         `json:"bits"`
	Count   uint64      `json:"count"`
	Min     int64       `json:"min"`
	Max     int64       `json:"max"`
	Sum     float64     `json:"sum"`
	Buckets [][2]uint64 `json:"buckets"`
}

// Encode is h in its report form.
func (h *H) Encode() Encoded {
	e := Encoded{Bits: int(h.bits), Count: h.n, Min: h.Min(), Max: h.max, Sum: h.sum, Buckets: [][2]uint64{}}
	for i, c := range h.counts {
		if c > 0 {
			e.Buckets = append(e.Buckets, [2]uint64{uint64(i), c})
		}
	}
	return e
}

// maxBuckets bounds a decoded histogram's bucket index: far beyond any
// int64 value's bucket at the highest resolution (63 octaves of 2^11).
const maxBuckets = 64 << 11

// Decode rebuilds a histogram from its report form, refusing one that does
// not add up (a report to merge may have been written to break mcpcheck).
func Decode(e Encoded) (*H, error) {
	if e.Bits < 2 || e.Bits > 12 {
		return nil, fmt.Errorf("histogram resolution %d bits, want 2 to 12", e.Bits)
	}
	h := New(e.Bits)
	var n uint64
	last := -1
	for _, b := range e.Buckets {
		i, c := b[0], b[1]
		if i >= maxBuckets || int(i) <= last {
			return nil, fmt.Errorf("histogram bucket %d out of order or range", i)
		}
		last = int(i)
		if c > math.MaxUint64-n {
			return nil, errors.New("histogram counts overflow")
		}
		n += c
		h.grow(int(i) + 1)
		h.counts[i] = c
	}
	if n != e.Count {
		return nil, fmt.Errorf("histogram buckets hold %d values, count says %d", n, e.Count)
	}
	if e.Min < 0 || e.Max < e.Min || math.IsNaN(e.Sum) || math.IsInf(e.Sum, 0) {
		return nil, errors.New("histogram extremes or sum out of range")
	}
	h.n, h.sum, h.max = n, e.Sum, e.Max
	if n > 0 {
		h.min = e.Min
	}
	return h, nil
}
