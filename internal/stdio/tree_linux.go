package stdio

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// prSetChildSubreaper is prctl's PR_SET_CHILD_SUBREAPER (linux/prctl.h).
const prSetChildSubreaper = 36

var subreaper sync.Once

// becomeSubreaper makes mcpcheck the reaper of its orphaned descendants,
// so a server's grandchild whose parent has exited stays in reach (see the
// package doc). It is process-wide and set once, before the first server
// starts.
func becomeSubreaper() {
	subreaper.Do(func() {
		syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
	})
}

// procEntry is what /proc/PID/stat says of one process.
type procEntry struct {
	ppid, pgid int
	start      uint64 // start time since boot, in clock ticks: with the pid, an identity
	zombie     bool
	// runnable: running or waiting for a CPU (R), or in uninterruptible
	// I/O (D); cpu is the time it has used, user and system, in ticks.
	runnable bool
	cpu      uint64
}

// tree is what mcpcheck knows of one server's processes.
type tree struct {
	mu    sync.Mutex
	known map[int]uint64 // pid → start time of members seen so far
}

// members returns the server's tree as it is now: the server while it has
// not been reaped, every process in its process group (re-parented to
// mcpcheck once the server is gone), the members seen by an earlier scan
// (same pid and start time), and every descendant of those.
func (t *tree) members(p *Process) map[int]procEntry {
	self := os.Getpid()
	leader := p.Pid()
	alive := !p.Exited(0)
	t.mu.Lock()
	defer t.mu.Unlock()
	cands := make([]int, 0, len(t.known)+1)
	if alive {
		cands = append(cands, leader)
	}
	for pid := range t.known {
		cands = append(cands, pid)
	}
	in := descendants(cands, func(pid int, e procEntry) bool {
		switch {
		case pid == leader && alive:
		case e.pgid == leader && (alive || e.ppid == self):
		case t.known[pid] == e.start && t.known[pid] != 0:
		default:
			return false
		}
		return true
	})
	if t.known == nil {
		t.known = map[int]uint64{}
	}
	for pid, e := range in {
		t.known[pid] = e.start
	}
	return in
}

// scan records the tree while the server is alive.
func (t *tree) scan(p *Process) { t.members(p) }

// signal sends sig to every live member, and to the server's process group
// while the server lives (its pid cannot be reused before it is reaped).
func (t *tree) signal(p *Process, sig syscall.Signal) {
	if !p.Exited(0) {
		syscall.Kill(-p.Pid(), sig)
	}
	for pid, e := range t.members(p) {
		if !e.zombie {
			syscall.Kill(pid, sig)
		}
	}
}

// descendants returns the processes root accepts, and every descendant of
// those, mcpcheck itself excepted. The candidates for root are cands and
// mcpcheck's children; where the kernel lists a process's children
// (/proc/PID/task/TID/children) only those are read, otherwise all of
// /proc.
func descendants(cands []int, root func(pid int, e procEntry) bool) map[int]procEntry {
	self := os.Getpid()
	if kids, ok := childrenOf(self); ok {
		if in, ok := walkChildren(append(cands, kids...), root); ok {
			return in
		}
	}
	procs := readProcs()
	in := map[int]procEntry{}
	children := map[int][]int{}
	for pid, e := range procs {
		children[e.ppid] = append(children[e.ppid], pid)
		if pid != self && root(pid, e) {
			in[pid] = e
		}
	}
	queue := make([]int, 0, len(in))
	for pid := range in {
		queue = append(queue, pid)
	}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		for _, c := range children[pid] {
			if _, ok := in[c]; !ok && c != self {
				in[c] = procs[c]
				queue = append(queue, c)
			}
		}
	}
	return in
}

// walkChildren is descendants by the kernel's children lists: false when
// it has none.
func walkChildren(cands []int, root func(pid int, e procEntry) bool) (map[int]procEntry, bool) {
	self := os.Getpid()
	buf := make([]byte, 1024)
	in := map[int]procEntry{}
	var queue []int
	for _, pid := range cands {
		if _, seen := in[pid]; seen || pid == self {
			continue
		}
		if e, ok := readStat(pid, buf); ok && root(pid, e) {
			in[pid] = e
			queue = append(queue, pid)
		}
	}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		kids, ok := childrenOf(pid)
		if !ok {
			return nil, false
		}
		for _, c := range kids {
			if _, seen := in[c]; seen || c == self {
				continue
			}
			if e, ok := readStat(c, buf); ok {
				in[c] = e
				queue = append(queue, c)
			}
		}
	}
	return in, true
}

// childrenOf lists the children of pid's threads; false when the kernel
// does not list children (built without CONFIG_PROC_CHILDREN). A process
// that is gone has none.
func childrenOf(pid int) ([]int, bool) {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	d, err := os.Open(dir)
	if err != nil {
		return nil, true
	}
	tasks, _ := d.Readdirnames(-1)
	d.Close()
	var out []int
	for _, tid := range tasks {
		b, err := os.ReadFile(dir + "/" + tid + "/children")
		if errors.Is(err, fs.ErrNotExist) {
			if _, serr := os.Stat(dir + "/" + tid); serr == nil {
				return nil, false // the thread is there, its list is not
			}
			continue // the thread ended
		}
		for _, f := range bytes.Fields(b) {
			if n, err := strconv.Atoi(string(f)); err == nil {
				out = append(out, n)
			}
		}
	}
	return out, true
}

// sweep kills what is left of the tree once the server has gone and reaps
// the members re-parented to mcpcheck, until none is left (bounded).
func (t *tree) sweep(p *Process) {
	leader := p.Pid()
	kill(func() map[int]procEntry {
		m := t.members(p)
		delete(m, leader) // os/exec reaps the server itself
		return m
	})
}

// sweepOrphans kills and reaps every process re-parented to mcpcheck that
// carries TreeEnv, and its descendants. It runs when no server of this
// mcpcheck is alive (live.mu held), so each is left by a server that is
// gone: a daemon whose parent exited before the tree was scanned.
func sweepOrphans() {
	self := os.Getpid()
	// Killed, they are zombies whose environment is gone: they are still
	// known by pid and start time, to be reaped.
	known := map[int]uint64{}
	kill(func() map[int]procEntry {
		cands := make([]int, 0, len(known))
		for pid := range known {
			cands = append(cands, pid)
		}
		m := descendants(cands, func(pid int, e procEntry) bool {
			return (e.ppid == self && hasMark(pid)) || (known[pid] == e.start && e.start != 0)
		})
		for pid, e := range m {
			known[pid] = e.start
		}
		return m
	})
}

// kill sends SIGKILL to what members returns, and reaps those that are
// mcpcheck's children, until members returns none (bounded).
func kill(members func() map[int]procEntry) {
	self := os.Getpid()
	for deadline := time.Now().Add(killWait); ; time.Sleep(5 * time.Millisecond) {
		left := 0
		for pid, e := range members() {
			left++
			if !e.zombie {
				syscall.Kill(pid, syscall.SIGKILL)
			} else if e.ppid == self {
				var ws syscall.WaitStatus
				syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
			}
		}
		if left == 0 || time.Now().After(deadline) {
			return
		}
	}
}

// hasMark reports whether process pid carries TreeEnv in its environment.
func hasMark(pid int) bool {
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	kv := []byte(TreeEnv + "=" + treeMark + "\x00")
	return bytes.HasPrefix(env, kv) || bytes.Contains(env, append([]byte{0}, kv...))
}

// readProcs reads every process's stat line.
func readProcs() map[int]procEntry {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	out := make(map[int]procEntry, len(names))
	buf := make([]byte, 1024)
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		if e, ok := readStat(pid, buf); ok {
			out[pid] = e
		}
	}
	return out
}

// readStat parses /proc/PID/stat: the fields after the command name (which
// may hold spaces and parentheses) are state, ppid, pgrp, ... and, 20th,
// starttime.
func readStat(pid int, buf []byte) (procEntry, bool) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procEntry{}, false
	}
	n, _ := f.Read(buf)
	f.Close()
	data := buf[:n]
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return procEntry{}, false
	}
	fields := bytes.Fields(data[i+1:])
	if len(fields) < 20 {
		return procEntry{}, false
	}
	ppid, _ := strconv.Atoi(string(fields[1]))
	pgid, _ := strconv.Atoi(string(fields[2]))
	start, _ := strconv.ParseUint(string(fields[19]), 10, 64)
	utime, _ := strconv.ParseUint(string(fields[11]), 10, 64)
	stime, _ := strconv.ParseUint(string(fields[12]), 10, 64)
	state := fields[0][0]
	return procEntry{ppid: ppid, pgid: pgid, start: start, zombie: state == 'Z' || state == 'X',
		runnable: state == 'R' || state == 'D', cpu: utime + stime}, true
}
