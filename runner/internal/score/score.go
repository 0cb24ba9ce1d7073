// Package score holds the arithmetic behind generated checks' verdicts: the
// outlier rule of the latency and size probes, medians, token estimates and
// their prices, and the letter grade of a score.
package score

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Outliers applies a two-signal rule to one measurement per tool (latency
// in ms, response size in characters, ...) and returns the flagged names
// with a human reason:
//
//   - absolute: the sample is above absolute (absolute <= 0 disables it);
//   - relative: the sample is above ratio × the median of all samples AND
//     at least margin above that median, checked only when there are at
//     least minSamples samples (ratio <= 0 disables it). The ratio alone
//     flags noise on a fast server (2.7 ms against a 0.9 ms median is 3×),
//     and on a loaded machine a 336 ms call against a 40 ms median; the
//     margin asks for a difference a user would notice as well.
//
// NaN samples are ignored. mcpcheck's settings are absolute 5000 ms,
// ratio 3, margin 500 ms, 3 samples for latency, and absolute 20000,
// ratio 3, margin 1000 characters, 3 samples for response size
// (mcp-fuzz's rule, with its floor of 100 ms or 1000 characters made a
// margin above the median).
func Outliers(samples map[string]float64, absolute, ratio, margin float64, minSamples int) map[string]string {
	out := map[string]string{}
	var vals []float64
	for _, v := range samples {
		if !math.IsNaN(v) {
			vals = append(vals, v)
		}
	}
	med := Median(vals)
	relative := ratio > 0 && len(vals) >= max(minSamples, 1)
	for _, name := range slices.Sorted(maps.Keys(samples)) {
		v := samples[name]
		switch {
		case math.IsNaN(v):
		case absolute > 0 && v > absolute:
			out[name] = fmt.Sprintf("%s is above the absolute threshold %s", fmtNum(v), fmtNum(absolute))
		case relative && v > ratio*med && v-med >= margin:
			times := "∞"
			if med > 0 {
				times = strconv.FormatFloat(v/med, 'f', 1, 64)
			}
			out[name] = fmt.Sprintf("%s is %s× the median %s of %d samples (more than %s×, and at least %s above it)",
				fmtNum(v), times, fmtNum(med), len(vals), fmtNum(ratio), fmtNum(margin))
		}
	}
	return out
}

func fmtNum(v float64) string {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	s := strconv.FormatFloat(v, 'f', 2, 64)
	return strings.TrimRight(strings.TrimRight(s, "0"), ".")
}

// Median returns the median of xs (the mean of the middle two for an even
// count), ignoring NaN; 0 when nothing is left. xs is not modified.
func Median(xs []float64) float64 {
	s := make([]float64, 0, len(xs))
	for _, x := range xs {
		if !math.IsNaN(x) {
			s = append(s, x)
		}
	}
	if len(s) == 0 {
		return 0
	}
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return s[n/2-1]/2 + s[n/2]/2
}

// EstimateTokens estimates tokens from characters by the ~4 characters per
// token rule of thumb for English text (rounded up); not a tokenizer.
// Negative counts give 0.
func EstimateTokens(chars int) int {
	if chars <= 0 {
		return 0
	}
	n := chars / 4
	if chars%4 != 0 {
		n++
	}
	return n
}

// PricesAsOf is the date the price list is stated for.
const PricesAsOf = "2026-09-21"

// prices are Anthropic first-party list *input* prices in US dollars per
// million tokens: a tool's response becomes input for whichever model
// reads it next. No caching, batch or volume discounts; no Bedrock, Vertex
// AI or Foundry rates. claude-sonnet-5's figure is implied by mcp-fuzz's
// README worked example (~5,412 tokens ≈ $0.0108), stated for PricesAsOf;
// the others are Anthropic's published list prices as last known, not
// re-checked on that date (mcpcheck has no network). An unknown model is
// refused, never priced like another.
var prices = map[string]float64{
	"claude-sonnet-5":   2.00,
	"claude-opus-4-5":   5.00,
	"claude-sonnet-4-5": 3.00,
	"claude-haiku-4-5":  1.00,
	"claude-opus-4-1":   15.00,
}

// PricePerMTok returns a model's list input price per million tokens.
// Unknown names (compared after trimming and lower-casing) return false:
// never a guess or another model's price.
func PricePerMTok(model string) (float64, bool) {
	p, ok := prices[strings.ToLower(strings.TrimSpace(model))]
	return p, ok
}

// Grade maps a percentage to a letter: A from 90, B from 80, C from 70,
// D from 60, F below (and for NaN).
func Grade(percent float64) string {
	switch {
	case percent >= 90:
		return "A"
	case percent >= 80:
		return "B"
	case percent >= 70:
		return "C"
	case percent >= 60:
		return "D"
	}
	return "F"
}
