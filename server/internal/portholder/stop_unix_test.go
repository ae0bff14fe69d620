//go:build unix

package portholder

import (
	"os/exec"
	"syscall"
	"testing"

	"github.com/monkbrowse/monkbrowse/server/internal/testwait"
)

// stopChild stops c and returns once the kernel has stopped it, so the
// test never polls its state.
func stopChild(t *testing.T, c *exec.Cmd) {
	t.Helper()
	t.Cleanup(func() { c.Process.Signal(syscall.SIGCONT) })
	testwait.StopProcess(t, c.Process)
}
