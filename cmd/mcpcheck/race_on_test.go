//go:build race

package main

// raceEnabled: the race detector multiplies memory use, so the RSS bound
// of the hostile tests does not apply.
const raceEnabled = true
