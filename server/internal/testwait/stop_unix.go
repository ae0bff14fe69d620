//go:build unix

package testwait

import (
	"errors"
	"os"
	"syscall"
	"testing"
)

// StopProcess stops p, a child of this process, with SIGSTOP (what Ctrl-Z
// does) and returns once the kernel has stopped it: a signal is delivered
// asynchronously, and wait4 with WUNTRACED reports the stop to the parent
// (the event) without reaping the child. Send SIGCONT to resume it.
func StopProcess(t testing.TB, p *os.Process) {
	t.Helper()
	if err := p.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	for {
		var ws syscall.WaitStatus
		_, err := syscall.Wait4(p.Pid, &ws, syscall.WUNTRACED, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			t.Fatalf("waiting for process %d to stop: %v", p.Pid, err)
		}
		if !ws.Stopped() {
			t.Fatalf("process %d did not stop: wait status %v", p.Pid, ws)
		}
		return
	}
}
