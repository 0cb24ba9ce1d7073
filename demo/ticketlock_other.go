//go:build !unix

package demo

import (
	"errors"
	"os"
)

// openLockFile reports that ticket_counter uses no file lock on this
// platform: its in-process lock is taken alone.
func openLockFile(string) (*os.File, error) {
	return nil, errors.New("no file locks on this platform")
}

func tryFileLock(*os.File) (bool, error) { return false, errors.New("no file locks on this platform") }

func unlockFile(*os.File) {}
