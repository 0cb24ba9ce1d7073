package score_test

import (
	"fmt"

	"github.com/mcpcheck/mcpcheck/runner/internal/score"
)

func ExampleOutliers() {
	latencyMs := map[string]float64{"echo": 3, "get_sum": 4, "search": 5, "export": 900}
	for name, why := range score.Outliers(latencyMs, 5000, 3, 500, 3) {
		fmt.Println(name+":", why)
	}
	// Output: export: 900 is 200.0× the median 4.5 of 4 samples (more than 3×, and at least 500 above it)
}
