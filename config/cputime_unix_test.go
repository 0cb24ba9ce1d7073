//go:build unix

package config

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time this process has used so far (user and system).
// A test that bounds how long work takes measures this, not the wall
// clock: on a loaded machine the wall clock also counts the time other
// processes had the CPU.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
