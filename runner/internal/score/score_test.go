package score

import (
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpcheck/mcpcheck/config"
)

func TestOutliers(t *testing.T) {
	tests := []struct {
		name    string
		samples map[string]float64
		minN    int
		want    []string // flagged names
		reason  string   // substring of the first flagged reason
	}{
		{"absolute", map[string]float64{"slow": 6000, "ok": 10}, 3, []string{"slow"}, "above the absolute threshold 5000"},
		{"too few for relative", map[string]float64{"a": 1000, "b": 10}, 3, nil, ""},
		{"relative", map[string]float64{"a": 10, "b": 12, "c": 11, "d": 900}, 3, []string{"d"}, "the median 11.5"},
		{"margin suppresses noise", map[string]float64{"echo": 2.7, "a": 0.9, "b": 0.8, "c": 1}, 3, nil, ""},
		// Issue 19: three tools at ~336 ms on a loaded machine, against a
		// median of 40: 8× the median, but not 500 ms above it.
		{"margin suppresses load", map[string]float64{"a": 40, "b": 38, "c": 42, "d": 336, "e": 335, "f": 337, "g": 41, "h": 39, "i": 40}, 3, nil, ""},
		{"exactly ratio is not more", map[string]float64{"a": 300, "b": 300, "c": 900}, 3, nil, ""},
		{"above ratio and margin", map[string]float64{"a": 250, "b": 250, "c": 751}, 3, []string{"c"}, "3.0× the median 250"},
		{"exactly the margin", map[string]float64{"a": 100, "b": 100, "c": 600}, 3, []string{"c"}, "at least 500 above it"},
		{"below the margin", map[string]float64{"a": 100, "b": 100, "c": 599}, 3, nil, ""},
		{"NaN ignored", map[string]float64{"a": math.NaN(), "b": 6000}, 1, []string{"b"}, "absolute"},
		{"empty", map[string]float64{}, 3, nil, ""},
		{"zero median", map[string]float64{"a": 0, "b": 0, "c": 550}, 3, []string{"c"}, "∞×"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Outliers(tt.samples, 5000, 3, 500, tt.minN)
			var names []string
			for n := range got {
				names = append(names, n)
			}
			slices.Sort(names)
			if diff := cmp.Diff(tt.want, names); diff != "" {
				t.Errorf("flagged (-want +got):\n%s", diff)
			}
			if len(tt.want) > 0 && !strings.Contains(got[tt.want[0]], tt.reason) {
				t.Errorf("reason %q lacks %q", got[tt.want[0]], tt.reason)
			}
		})
	}
	if got := Outliers(map[string]float64{"a": 9e9, "b": 1, "c": 1, "d": 1}, 0, 0, 0, 3); len(got) != 0 {
		t.Errorf("disabled signals flagged %v", got)
	}
}

func TestMedian(t *testing.T) {
	tests := []struct {
		in   []float64
		want float64
	}{
		{nil, 0}, {[]float64{5}, 5}, {[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{math.NaN(), 1, 3}, 2}, {[]float64{math.NaN()}, 0}, {[]float64{math.MaxFloat64, math.MaxFloat64}, math.MaxFloat64},
	}
	for _, tt := range tests {
		in := slices.Clone(tt.in)
		if got := Median(in); got != tt.want {
			t.Errorf("Median(%v) = %v, want %v", tt.in, got, tt.want)
		}
		if len(in) > 0 && !slices.EqualFunc(in, tt.in, func(a, b float64) bool { return a == b || (a != a && b != b) }) {
			t.Errorf("Median modified its input")
		}
	}
}

func TestEstimateTokens(t *testing.T) {
	for chars, want := range map[int]int{-5: 0, 0: 0, 1: 1, 4: 1, 5: 2, 20000: 5000, 21648: 5412, math.MaxInt: math.MaxInt/4 + 1} {
		if got := EstimateTokens(chars); got != want {
			t.Errorf("EstimateTokens(%d) = %d, want %d", chars, got, want)
		}
	}
}

func TestPrices(t *testing.T) {
	// The fixture schema's priceModel enum is what config accepts: every
	// model it names has a price, and no price is for a model it refuses.
	models := slices.Sorted(maps.Keys(prices))
	if len(models) < 3 || !slices.Equal(models, slices.Sorted(slices.Values(config.PriceModels()))) {
		t.Fatalf("prices for %v, schema enum %v", models, config.PriceModels())
	}
	for _, m := range models {
		p, ok := PricePerMTok(m)
		if !ok || p <= 0 {
			t.Errorf("PricePerMTok(%q) = %v, %v", m, p, ok)
		}
	}
	// The seed's worked example: ~5,412 tokens at claude-sonnet-5's list
	// input price is ~$0.0108.
	p, ok := PricePerMTok("  Claude-Sonnet-5 ")
	if !ok || math.Abs(5412*p/1e6-0.0108) > 0.00005 {
		t.Errorf("claude-sonnet-5 = %v, %v; does not reproduce $0.0108 for 5,412 tokens", p, ok)
	}
	for _, m := range []string{"", "gpt-4o", "claude", "claude-sonnet-9"} {
		if _, ok := PricePerMTok(m); ok {
			t.Errorf("PricePerMTok(%q) guessed a price", m)
		}
	}
}

func TestGrade(t *testing.T) {
	for p, want := range map[float64]string{100: "A", 90: "A", 89.99: "B", 80: "B", 79.9: "C", 70: "C", 69: "D", 60: "D", 59.99: "F", 0: "F", -1: "F", math.NaN(): "F", 37.85: "F", 120: "A"} {
		if got := Grade(p); got != want {
			t.Errorf("Grade(%v) = %q, want %q", p, got, want)
		}
	}
}
