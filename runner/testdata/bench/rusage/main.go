// Command rusage runs a command and reports what it cost: wall time, the
// CPU of the command (with everything it reaped), its own CPU when a nested
// rusage reported the server's, and the command's own peak RSS.
//
//	rusage [-o FILE] [-label L] [-hwm] -- PROGRAM ARGS...
//
// It prints one line (appended to FILE, or to stderr):
//
//	label=L wall_s=… cpu_s=… self_cpu_s=… hwm_kb=… maxrss_kb=… exit=…
//
// cpu_s is the user+system time wait4 returns for PROGRAM, which includes
// the children PROGRAM waited for (a stdio server). With -hwm, hwm_kb is
// PROGRAM's own peak RSS: VmHWM in /proc/PID/status, a high-water mark, read
// every 20ms until PROGRAM exits (so only growth in its last 20ms can be
// missed); without -hwm it is 0 and nothing polls. maxrss_kb from wait4 is the largest of PROGRAM and its reaped children,
// so it shows the server when the server is bigger. self_cpu_s is this
// wrapper's own CPU, to subtract when rusage wraps a server inside a
// fixture: PROGRAM's own CPU = outer cpu_s − inner cpu_s − inner self_cpu_s.
//
// Standard input, output and error are passed through unchanged (the child
// gets the very same descriptors), so it can sit in a stdio command line.
// It lives under testdata so that `go build ./...` and `go test ./...` skip
// it; build it with `go build ./runner/testdata/bench/rusage`.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
	"time"
)

func main() {
	out := flag.String("o", "", "append the report line to this file instead of stderr")
	label := flag.String("label", "", "label of the report line")
	poll := flag.Bool("hwm", false, "poll the program's own peak RSS")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: rusage [-o FILE] [-label L] [-hwm] -- PROGRAM ARGS...")
		os.Exit(2)
	}
	cmd := exec.Command(flag.Arg(0), flag.Args()[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	// Signals meant for the program (a runner's SIGTERM to the group) reach
	// it directly; the wrapper just outlives it.
	signal.Ignore(syscall.SIGTERM, syscall.SIGINT, syscall.SIGPIPE)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "rusage:", err)
		os.Exit(2)
	}
	hwm := make(chan int64, 1)
	stop := make(chan struct{})
	go func() {
		var peak int64
		if !*poll {
			<-stop
			hwm <- 0
			return
		}
		status := "/proc/" + strconv.Itoa(cmd.Process.Pid) + "/status"
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			if kb := vmHWM(status); kb > peak {
				peak = kb
			}
			select {
			case <-stop:
				hwm <- peak
				return
			case <-t.C:
			}
		}
	}()
	err := cmd.Wait()
	wall := time.Since(start)
	close(stop)
	peak := <-hwm
	code := cmd.ProcessState.ExitCode()
	if err != nil && code < 0 {
		code = 128
	}
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	var self syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	line := fmt.Sprintf("label=%s wall_s=%.4f cpu_s=%.4f self_cpu_s=%.4f hwm_kb=%d maxrss_kb=%d exit=%d\n",
		*label, wall.Seconds(), cpu(ru), cpu(&self), peak, ru.Maxrss, code)
	if *out == "" {
		os.Stderr.WriteString(line)
	} else if f, err := os.OpenFile(*out, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
		f.WriteString(line)
		f.Close()
	}
	os.Exit(code)
}

func cpu(r *syscall.Rusage) float64 {
	if r == nil {
		return 0
	}
	return float64(r.Utime.Nano()+r.Stime.Nano()) / 1e9
}

// vmHWM reads the peak resident set size (kB) from a /proc status file; 0
// once the process is gone or a zombie.
func vmHWM(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if v, ok := bytes.CutPrefix(sc.Bytes(), []byte("VmHWM:")); ok {
			n, _ := strconv.ParseInt(string(bytes.TrimSuffix(bytes.TrimSpace(v), []byte(" kB"))), 10, 64)
			return n
		}
	}
	return 0
}
