package harness

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// The process registry: every browser and server the harness starts, so that
// a watchdog can kill them all when a run hangs.
var (
	procMu sync.Mutex
	procs  = map[int]string{}
)

func registerProcess(pid int, what string) {
	procMu.Lock()
	procs[pid] = what
	procMu.Unlock()
}

func unregisterProcess(pid int) {
	procMu.Lock()
	delete(procs, pid)
	procMu.Unlock()
}

// KillAll sends SIGKILL to every process the harness started and has not
// seen exit, and says which on w.
func KillAll(w io.Writer) {
	procMu.Lock()
	defer procMu.Unlock()
	for pid, what := range procs {
		fmt.Fprintf(w, "watchdog: killing %s (pid %d)\n", what, pid)
		_ = syscall.Kill(pid, syscall.SIGKILL)
		delete(procs, pid)
	}
}

// Watchdog fails a whole run that takes longer than it should: when the timer
// fires it prints why, every goroutine's stack and the processes it kills,
// then exits with status 2. Stop it when the run ends.
type Watchdog struct {
	timer *time.Timer
	once  sync.Once
}

// StartWatchdog arms a watchdog that fires after d. extra, when not nil, is
// called first to print more context (e.g. server logs).
func StartWatchdog(d time.Duration, extra func(w io.Writer)) *Watchdog {
	w := &Watchdog{}
	w.timer = time.AfterFunc(d, func() {
		out := os.Stderr
		fmt.Fprintf(out, "\nwatchdog: the end-to-end run did not finish within %s; dumping goroutines and failing\n", d)
		if extra != nil {
			extra(out)
		}
		buf := make([]byte, 8<<20)
		n := runtime.Stack(buf, true)
		out.Write(buf[:n])
		KillAll(out)
		fmt.Fprintln(out, "FAIL: watchdog timeout")
		os.Exit(2)
	})
	return w
}

// Stop disarms the watchdog.
func (w *Watchdog) Stop() {
	w.once.Do(func() { w.timer.Stop() })
}
