package config

import "fmt"

// A generate setting that the switches make moot is kept, and named in a
// warning: the fixture is not wrong, but its author believes something is
// checked that is not (fuzzCases with fuzz off). Each setting is tied to
// the check it tunes, here and nowhere else.

// settingNeeds maps a generate setting to the check it tunes.
var settingNeeds = map[string]string{
	"fuzzCases":           "fuzz",
	"slowThresholdMs":     "probes",
	"bloatThresholdChars": "probes",
	"priceModel":          "probes",
}

// scoreNeeds maps a score of failUnder to the check that computes it.
var scoreNeeds = map[ScoreName]string{
	ScoreCrashResilience:   "fuzz",
	ScoreSchemaEnforcement: "fuzz",
	ScoreResponseFidelity:  "fidelity",
	ScoreLatency:           "probes",
	ScoreResponseSize:      "probes",
	ScoreConcurrency:       "concurrency",
	ScoreLifecycle:         "lifecycle",
	ScoreProtocol:          "protocol",
}

// checkOn reports whether g runs the check named as in settingNeeds.
func checkOn(g *Generate, check string) bool {
	switch check {
	case "fuzz":
		return g.Fuzz
	case "fidelity":
		return g.Fidelity
	case "probes":
		return g.Probes
	case "concurrency":
		return g.Concurrency > 0
	case "lifecycle":
		return g.Lifecycle || len(g.LifecycleGroups) > 0
	case "protocol":
		return g.Protocol
	}
	return true
}

// warnNoEffect adds to s.Warnings each setting written in the fixture's
// generate block (gen) whose check is off, at the setting's place.
func warnNoEffect(s *Suite, gen *node) {
	g := s.Generate
	if g == nil || gen == nil {
		return
	}
	for _, f := range gen.fieldsOrNil() {
		if check, ok := settingNeeds[f.key]; ok && !checkOn(g, check) {
			s.Warnings = append(s.Warnings, fmt.Sprintf("%s: generate.%s has no effect: %s is off (turn it on with %s: true)",
				f.keyPos.in(s.File), f.key, check, check))
		}
	}
	for _, f := range gen.value("failUnder").fieldsOrNil() {
		if check, ok := scoreNeeds[ScoreName(f.key)]; ok && !checkOn(g, check) {
			hint := "turn it on with " + check + ": true"
			if check == "concurrency" {
				hint = "set concurrency: N"
			}
			s.Warnings = append(s.Warnings, fmt.Sprintf("%s: generate.failUnder.%s has no effect: %s is off, so nothing computes the score (%s)",
				f.keyPos.in(s.File), f.key, check, hint))
		}
	}
}
