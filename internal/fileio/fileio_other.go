//go:build !unix

package fileio

// openNonblock is 0 where O_NONBLOCK is not an open flag; the Stat before
// opening refuses a named pipe there.
const openNonblock = 0
