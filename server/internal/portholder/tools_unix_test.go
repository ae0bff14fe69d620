//go:build unix

package portholder

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// standIn writes an executable shell script named name into dir.
func standIn(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestLsofByAbsolutePathNotPATH: lsof and ps are taken from the fixed
// folders only; a PATH entry holding other ones is never used. lsof is
// asked with -b.
func TestLsofByAbsolutePathNotPATH(t *testing.T) {
	sys, onPath := t.TempDir(), t.TempDir()
	calls := filepath.Join(t.TempDir(), "calls")
	standIn(t, sys, "lsof", `echo "lsof $*" >> "`+calls+`"; printf 'p4242\ncnc\n'`)
	standIn(t, sys, "ps", `echo "ps $*" >> "`+calls+`"; case "$2" in stat=,ppid=) echo "T+ 77";; *) echo /usr/bin/zsh;; esac`)
	standIn(t, onPath, "lsof", `printf 'p1\ncimpostor\n'`)
	t.Setenv("PATH", onPath)
	h, err := findWithLsof(context.Background(), []string{filepath.Join(sys, "none"), sys}, 9219)
	if err != nil || h.PID != 4242 || h.Command != "nc" || !h.Stopped || h.Parent != "zsh" {
		t.Fatalf("findWithLsof = %+v, %v", h, err)
	}
	b, _ := os.ReadFile(calls)
	if first := strings.SplitN(string(b), "\n", 2)[0]; !strings.HasPrefix(first, "lsof -b ") {
		t.Errorf("lsof was run as %q, want -b first", first)
	}
	if _, err := toolPath([]string{sys}, "nonesuch"); err == nil {
		t.Error("a missing tool was found")
	}
	if _, err := findWithLsof(context.Background(), []string{t.TempDir()}, 9219); !errors.Is(err, ErrUnknown) {
		t.Errorf("no lsof in the folders (only on PATH): %v, want ErrUnknown", err)
	}
}

// TestHungLsofIsKilledAtTheDeadline: an lsof that never answers is killed
// when the look-up's context ends, and the holder is unknown. The stand-in
// says it has started through a FIFO; the test then ends the context (the
// 2 s of find are this context's deadline).
func TestHungLsofIsKilledAtTheDeadline(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "started")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO here:", err)
	}
	standIn(t, dir, "lsof", `echo started > "`+fifo+`"; exec sleep 600`)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		b, _ := os.ReadFile(fifo) // returns once the stand-in has written and closed it
		if len(b) > 0 {
			cancel()
		}
	}()
	done := make(chan error, 1)
	go func() {
		_, err := findWithLsof(ctx, []string{dir}, 9219)
		done <- err
	}()
	if err := <-done; !errors.Is(err, ErrUnknown) {
		t.Fatalf("hung lsof: %v, want ErrUnknown", err)
	}
	if ctx.Err() == nil {
		t.Fatal("findWithLsof returned before the context ended")
	}
}
