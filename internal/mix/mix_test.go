package mix

import "testing"

// TestSpread pins the finaliser: shards and generated values depend on it
// bit for bit.
func TestSpread(t *testing.T) {
	for _, tt := range []struct{ in, want uint64 }{
		{0, 0},
		{1, 0x5692161d100b05e5},
	} {
		if got := Spread(tt.in); got != tt.want {
			t.Errorf("Spread(%#x) = %#x, want %#x", tt.in, got, tt.want)
		}
	}
}
