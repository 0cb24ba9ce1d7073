package stdio

import (
	"io"
	"os"
	"testing"
	"time"
)

// TestWork: a server that computes is working at every look (running or
// waiting for a CPU, however loaded the machine), also when the work is
// its child's (npx starts the real server as its child); one blocked on
// its stdin is, once it has started, not working (not runnable, no CPU
// used between two looks). The looks never depend on the machine's speed:
// a spinner is runnable at every look, and a sleeper is given a minute to
// have started.
func TestWork(t *testing.T) {
	for _, c := range []struct {
		name    string
		script  string
		working bool
	}{
		{"spins", "while :; do :; done", true},
		{"child-spins", "sh -c 'while :; do :; done' & wait", true},
		{"sleeps", "read line", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := Start([]string{"sh", "-c", c.script}, "", os.Environ(), io.Discard, time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			look := func(last *uint64) bool {
				cpu, running, ok := p.Work()
				if !ok {
					t.Fatal("Work: not ok on Linux")
				}
				worked := running || cpu > *last
				*last = cpu
				return worked
			}
			var cpu uint64
			look(&cpu)
			if c.working {
				time.Sleep(200 * time.Millisecond) // the child has been started
				look(&cpu)
				for range 10 {
					time.Sleep(100 * time.Millisecond)
					if !look(&cpu) {
						t.Fatal("a spinning server was not working at a look")
					}
				}
				return
			}
			for deadline := time.Now().Add(time.Minute); look(&cpu); time.Sleep(100 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("a server blocked on its stdin was still working after a minute")
				}
			}
		})
	}
}
