//go:build !unix

package testwait

import (
	"os"
	"testing"
)

// StopProcess skips the test: there is no SIGSTOP here.
func StopProcess(t testing.TB, _ *os.Process) { t.Skip("no SIGSTOP here") }
