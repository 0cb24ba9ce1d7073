//go:build !linux

package stdio

import "syscall"

// becomeSubreaper does nothing: only Linux lets a process adopt its
// orphaned descendants.
func becomeSubreaper() {}

// tree is the server's process group: a descendant that left it survives
// the server (see the package doc).
type tree struct{}

func (t *tree) scan(*Process) {}

func (t *tree) signal(p *Process, sig syscall.Signal) {
	// A negative pid signals the whole process group.
	syscall.Kill(-p.Pid(), sig)
}

func (t *tree) sweep(p *Process) { t.signal(p, syscall.SIGKILL) }

// sweepOrphans does nothing: without a subreaper no orphan comes back.
func sweepOrphans() {}
