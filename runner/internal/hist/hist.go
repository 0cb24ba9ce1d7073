// Package hist is the latency histogram of load runs: log-linear buckets in
// the manner of an HDR histogram, so that memory is bounded whatever the
// number of calls (a histogram per step, never a result per call), merging
// two histograms is exact (counts add), and a quantile is read to within
// the bucket's relative width.
//
// Values are non-negative integers (microseconds in load runs). Below
// 2^Bits every value has a bucket of its own; above, each power of two is
// cut into 2^(Bits-1) buckets, so a bucket is at most 1/2^(Bits-1) of its
// values wide: 0.8 % at the load run's Bits = 8. A histogram's resolution is
// part of it: only histograms of the same Bits merge.
package hist

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
)

// H is a histogram. The zero value is not usable: use New.
type H struct {
	bits   uint8
	counts []uint64 // by bucket index; grown as values need
	n      uint64
	min    int64
	max    int64
	sum    float64
}

// New returns an empty histogram of resolution b (2 to 12 bits).
func New(b int) *H {
	if b < 2 || b > 12 {
		panic(fmt.Sprintf("hist: resolution %d bits out of 2..12", b))
	}
	return &H{bits: uint8(b), min: math.MaxInt64}
}

// Bits is the histogram's resolution.
func (h *H) Bits() int { return int(h.bits) }

// index is v's bucket.
func (h *H) index(v uint64) int {
	s := bits.Len64(v) - int(h.bits)
	if s <= 0 {
		return int(v)
	}
	half := 1 << (h.bits - 1)
	return s*half + int(v>>uint(s))
}

// bounds are the lowest and highest value of bucket i.
func (h *H) bounds(i int) (lo, hi uint64) {
	whole := 1 << h.bits
	if i < whole {
		return uint64(i), uint64(i)
	}
	half := whole / 2
	s := i/half - 1
	m := uint64(i - s*half)
	lo = m << uint(s)
	return lo, lo + (1 << uint(s)) - 1
}

// Record counts one value; a negative one counts as 0.
func (h *H) Record(v int64) {
	if v < 0 {
		v = 0
	}
	i := h.index(uint64(v))
	if i >= len(h.counts) {
		h.grow(i + 1)
	}
	h.counts[i]++
	h.n++
	h.sum += float64(v)
	if v < h.min {
		h.min = v
	}
	if v > h.max {
		h.max = v
	}
}

func (h *H) grow(n int) {
	if n <= cap(h.counts) {
		h.counts = h.counts[:n]
		return
	}
	c := make([]uint64, n, max(n, 2*cap(h.counts)))
	copy(c, h.counts)
	h.counts = c
}

// Count is how many values were recorded.
func (h *H) Count() uint64 { return h.n }

// Min and Max are the exact extremes (0 when empty).
func (h *H) Min() int64 {
	if h.n == 0 {
		return 0
	}
	return h.min
}

// Max is the largest value recorded (0 when empty).
func (h *H) Max() int64 { return h.max }

// Mean is the exact mean of the values (0 when empty).
func (h *H) Mean() float64 {
	if h.n == 0 {
		return 0
	}
	return h.sum / float64(h.n)
}

// Quantile is the value at quantile q (0 < q <= 1): the highest value of
// the bucket that holds the ceil(q·n)-th smallest value, never more than
// the exact maximum. An empty histogram answers 0.
func (h *H) Quantile(q float64) int64 {
	if h.n == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(h.n)))
	rank = max(rank, 1)
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			_, hi := h.bounds(i)
			return min(int64(hi), h.max)
		}
	}
	return h.max
}

// ErrResolution is a merge of histograms of different resolutions.
var ErrResolution = errors.New("histograms of different resolutions")

// Merge adds o's counts to h: the result is the histogram of both runs'
// values, exactly.
func (h *H) Merge(o *H) error {
	if o.bits != h.bits {
		return ErrResolution
	}
	if o.n == 0 {
		return nil
	}
	if len(o.counts) > len(h.counts) {
		h.grow(len(o.counts))
	}
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.n += o.n
	h.sum += o.sum
	h.min = min(h.min, o.min)
	h.max = max(h.max, o.max)
	return nil
}

// Reset empties h, keeping its memory.
func (h *H) Reset() {
	clear(h.counts)
	h.counts = h.counts[:0]
	h.n, h.sum, h.min, h.max = 0, 0, math.MaxInt64, 0
}
