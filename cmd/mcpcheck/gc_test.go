package main

import "testing"

func TestGCPercent(t *testing.T) {
	tests := []struct {
		live uint64
		want int
	}{
		{0, 425},        // tiny heaps: bounded by the scaled minimum heap
		{2 << 20, 450},  // goal max(2×5.5, 4×4.5) = 18 MB
		{8 << 20, 200},  // goal 24 MB
		{16 << 20, 100}, // the default already gives a 16 MB budget
		{1 << 30, 100},  // never below the default
	}
	for _, tt := range tests {
		if got := gcPercent(tt.live); got != tt.want {
			t.Errorf("gcPercent(%d MB) = %d, want %d", tt.live>>20, got, tt.want)
		}
	}
}
