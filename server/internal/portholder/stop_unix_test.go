//go:build unix

package portholder

import (
	"os/exec"
	"syscall"
	"testing"
)

func stopChild(t *testing.T, c *exec.Cmd) {
	if err := c.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Process.Signal(syscall.SIGCONT) })
}
