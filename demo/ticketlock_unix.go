//go:build unix

package demo

import (
	"errors"
	"os"
	"syscall"
)

// openLockFile opens (creating it if need be) the lock file at path.
func openLockFile(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
}

// tryFileLock tries, without blocking, to take an exclusive flock(2) on f.
// It reports false while another open file description, in this process
// or another, holds it, and an error if the file cannot be locked at all.
func tryFileLock(f *os.File) (bool, error) {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, syscall.EWOULDBLOCK):
		return false, nil
	default:
		return false, err
	}
}

func unlockFile(f *os.File) {
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
}
