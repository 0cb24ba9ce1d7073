package jsonx

import "testing"

func TestEqual(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"1", "1", true},
		{"1", "1.0", true},
		{"1", "1e0", true},
		{"100", "1E2", true},
		{"0.1", "0.10", true},
		{"-0", "0", true},
		{"9007199254740993", "9007199254740992", false},
		{"9007199254740993", "9007199254740993.0", true},
		{"123456789012345678901234567890", "123456789012345678901234567891", false},
		{"1e400", "1e400", true},
		{"1e400", "1e401", false},
		{"1e999999999", "1e999999998", false},
		{"0.1", "0.2", false},
		{"2", "-2", false},
	}
	for _, tt := range tests {
		if got := Equal(tt.a, tt.b); got != tt.want {
			t.Errorf("Equal(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestCompare(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"1", "2", -1},
		{"2", "1", 1},
		{"1", "1.0", 0},
		{"-1", "1", -1},
		{"-2", "-1", -1},
		{"0", "-0", 0},
		{"0", "0.0001", -1},
		{"-0.0001", "0", -1},
		{"9007199254740993", "9007199254740992", 1},
		{"9007199254740993", "9007199254740993.0", 0},
		{"0.12", "0.123", -1},
		{"0.13", "0.123", 1},
		{"1e400", "1e399", 1},
		{"-1e400", "-1e399", -1},
		{"1e999999999", "1e999999998", 1},
		{"123e-2", "1.23", 0},
		{"99", "100", -1},
	}
	for _, tt := range tests {
		got, ok := Compare(tt.a, tt.b)
		if !ok || got != tt.want {
			t.Errorf("Compare(%s, %s) = %d, %v; want %d", tt.a, tt.b, got, ok, tt.want)
		}
	}
	if _, ok := Compare("x", "1"); ok {
		t.Errorf("Compare accepted a non-number")
	}
}

func TestInt64(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"5", 5, true},
		{"-5", -5, true},
		{"5.0", 5, true},
		{"1e3", 1000, true},
		{"1.5e1", 15, true},
		{"-0", 0, true},
		{"9223372036854775807", 9223372036854775807, true},
		{"9.223372036854775807e18", 9223372036854775807, true},
		{"9223372036854775808", 0, false},
		{"1e999999999", 0, false},
		{"1.5", 0, false},
		{"x", 0, false},
	}
	for _, tt := range tests {
		got, ok := Int64(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Int64(%s) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
