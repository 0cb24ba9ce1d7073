//go:build !linux

package stdio

// Unread cannot be asked here: see unread_linux.go.
func (p *Process) Unread() (n int, ok bool) { return 0, false }
