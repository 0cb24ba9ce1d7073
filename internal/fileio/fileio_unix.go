//go:build unix

package fileio

import "syscall"

// openNonblock opens a named pipe without waiting for its other end; a
// regular file ignores it.
const openNonblock = syscall.O_NONBLOCK
