//go:build unix

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// A machineSlots is a counting semaphore shared by every test binary of
// this package on the machine: slot k is an exclusive flock on the file
// k in a directory under the system's temp directory. The kernel drops a
// lock when its holder exits, however it exits, so a killed run leaves no
// slot taken.
type machineSlots struct {
	dir string
	n   int
}

// take blocks until one of the n slots is free, takes it, and returns its
// release.
func (s machineSlots) take() func() {
	if err := os.MkdirAll(s.dir, 0o777); err != nil {
		return func() {} // no shared directory: the binary's own bound still holds
	}
	for {
		for k := range s.n {
			f, err := os.OpenFile(filepath.Join(s.dir, fmt.Sprint(k)), os.O_CREATE|os.O_RDWR, 0o666)
			if err != nil {
				return func() {}
			}
			if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
				return func() { f.Close() } // closing the file drops the lock
			}
			f.Close()
		}
		time.Sleep(20 * time.Millisecond)
	}
}
