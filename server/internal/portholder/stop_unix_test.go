//go:build unix

package portholder

import (
	"errors"
	"os/exec"
	"syscall"
	"testing"
)

// stopChild stops c with SIGSTOP and returns once the kernel has stopped
// it: wait4 with WUNTRACED reports the stop to the parent (the event),
// without reaping the child, so the test never polls its state.
func stopChild(t *testing.T, c *exec.Cmd) {
	t.Helper()
	if err := c.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Process.Signal(syscall.SIGCONT) })
	for {
		var ws syscall.WaitStatus
		_, err := syscall.Wait4(c.Process.Pid, &ws, syscall.WUNTRACED, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			t.Fatalf("waiting for the child to stop: %v", err)
		}
		if !ws.Stopped() {
			t.Fatalf("the child did not stop: wait status %v", ws)
		}
		return
	}
}
