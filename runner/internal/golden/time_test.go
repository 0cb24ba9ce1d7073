package golden

import "testing"

// TestTimeSanitizer: clock times in 24- and 12-hour form become <time>,
// the AM/PM marker included; words and other numbers stay.
func TestTimeSanitizer(t *testing.T) {
	on := map[string]bool{"time": true}
	for in, want := range map[string]string{
		"created at 12:03:04 AM":      "created at <time>",
		"created at 12:03:04AM today": "created at <time> today",
		"at 9:15 p.m. sharp":          "at <time> sharp",
		"at 9:15 pm":                  "at <time>",
		"at 23:59:58.250 UTC":         "at <time> UTC",
		"at 7:05 PM, then 19:06:07":   "at <time>, then <time>",
		"ratio 3:10 amber":            "ratio 3:10 amber",
		"score 12:03 and more":        "score 12:03 and more",
	} {
		if got := sanitizeValue(in, on); got != want {
			t.Errorf("%q → %q, want %q", in, got, want)
		}
	}
}
