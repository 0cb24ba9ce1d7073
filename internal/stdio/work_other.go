//go:build !linux

package stdio

// Work cannot be asked here: see work_linux.go.
func (p *Process) Work() (cpu uint64, running, ok bool) { return 0, false, false }

// Worked cannot be asked here: see work_linux.go.
func (p *Process) Worked(cpu *uint64) bool { return false }
