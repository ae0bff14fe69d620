//go:build !unix

package portholder

import (
	"os/exec"
	"testing"
)

func stopChild(t *testing.T, _ *exec.Cmd) { t.Skip("no SIGSTOP here") }
