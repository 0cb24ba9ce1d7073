package stdio

import (
	"syscall"
	"unsafe"
)

// Unread is how many bytes written to the server's stdin it has not read
// yet (the pipe's FIONREAD, which Linux answers on either end). ok is
// false where that cannot be asked.
func (p *Process) Unread() (n int, ok bool) {
	rc, err := p.Stdin.SyscallConn()
	if err != nil {
		return 0, false
	}
	var count int32
	var errno syscall.Errno
	if err := rc.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCINQ, uintptr(unsafe.Pointer(&count)))
	}); err != nil || errno != 0 {
		return 0, false
	}
	return int(count), true
}
