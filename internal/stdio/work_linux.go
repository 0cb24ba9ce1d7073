package stdio

// Work is what the server's tree is doing now: cpu is the time its live
// members have used (user and system, in clock ticks), running whether any
// of them is on a CPU, waiting for one, or in disk I/O. ok is false where
// that cannot be asked.
//
// It tells a server that is slow from one that is silent: on a loaded
// machine a process that has read a request may wait many seconds for a
// CPU to answer it, and is then runnable, or has used CPU since the last
// look; a server that ignores the request, or waits on something that
// will not come, sleeps and uses none.
func (p *Process) Work() (cpu uint64, running, ok bool) {
	for _, e := range p.tree.members(p) {
		if e.zombie {
			continue
		}
		cpu += e.cpu
		running = running || e.runnable
		ok = true
	}
	return cpu, running, ok
}

// Worked says whether the server has worked since the last look (*cpu,
// updated): running or waiting for a CPU now, or CPU used since. False
// where that cannot be asked.
func (p *Process) Worked(cpu *uint64) bool {
	now, running, ok := p.Work()
	if !ok {
		return false
	}
	worked := running || now > *cpu
	*cpu = now
	return worked
}
