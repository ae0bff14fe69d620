//go:build unix

package daemon_test

// Issue 12, diagnosis, with real processes: what really holds the control
// port is said in the first call's message and by `monkbrowse doctor` — a
// program that accepts connections and never answers, or a monkbrowse owner
// that is suspended (SIGSTOP, what Ctrl-Z does).

import (
	"context"
	"fmt"
	"github.com/monkbrowse/monkbrowse/server/internal/testwait"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func (cl *cluster) doctor(ctx context.Context) string {
	cmd := exec.CommandContext(ctx, cl.bin, "doctor", "--port", strconv.Itoa(cl.port), "--control-port", strconv.Itoa(cl.ctl))
	cmd.Env = append(os.Environ(), "HOME="+cl.home)
	out, _ := cmd.CombinedOutput() // exit 1: doctor has advice
	return string(out)
}

// TestForeignProgramOnControlPortIsNamed: the control port is held by a
// program (this test process) that accepts connections and never answers.
// The first call says which process holds it, not that monkbrowse is
// "switching to another process"; doctor names it too.
func TestForeignProgramOnControlPortIsNamed(t *testing.T) {
	ctx := watchdog(t, 90*time.Second)
	cl := newCluster(t)
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(cl.ctl))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		var held []net.Conn // accepted, never answered
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	p := cl.start(ctx, "p0")
	start := time.Now()
	text, isErr := p.call(ctx, t, "browser_snapshot", nil)
	want := fmt.Sprintf("held by process %d (", os.Getpid())
	if !isErr || !strings.Contains(text, want) || !strings.Contains(text, "which is not a monkbrowse owner") || strings.Contains(text, "switching to another process") {
		t.Fatalf("first call (%s): isError=%v %q; want it to contain %q", time.Since(start).Round(time.Millisecond), isErr, text, want)
	}
	t.Logf("first call answered after %s: %s", time.Since(start).Round(time.Millisecond), text)
	if out := cl.doctor(ctx); !strings.Contains(out, fmt.Sprintf("control port %d is held by process %d, ", cl.ctl, os.Getpid())) {
		t.Errorf("doctor does not name the control port's holder:\n%s", out)
	}
}

// TestAppStartedWhileOwnerHungSaysSuspended: an AI app started while the
// owner is SIGSTOPped says the owner (its pid) is not responding — is it
// suspended? — rather than blaming a program that is not a monkbrowse
// owner; doctor says the same; after SIGCONT the new app forwards to it.
func TestAppStartedWhileOwnerHungSaysSuspended(t *testing.T) {
	ctx := watchdog(t, 120*time.Second)
	cl, ps, _ := startShared(ctx, t, 1)
	owner := ps[0]
	pid := owner.cmd.Process.Pid
	resumed := false
	t.Cleanup(func() {
		if !resumed {
			owner.cmd.Process.Signal(syscall.SIGCONT)
		}
	})
	// Returns once the kernel has stopped it: a call sent before would
	// still be answered.
	testwait.StopProcess(t, owner.cmd.Process)
	late := cl.start(ctx, "late")
	start := time.Now()
	text, isErr := late.call(ctx, t, "browser_snapshot", map[string]any{"tab": 1})
	if !isErr || !strings.Contains(text, fmt.Sprintf("(pid %d", pid)) || !strings.Contains(text, "is not responding — is it suspended") ||
		strings.Contains(text, "not a monkbrowse owner") {
		t.Fatalf("call while the owner is stopped: isError=%v %q", isErr, text)
	}
	t.Logf("answered after %s: %s", time.Since(start).Round(time.Millisecond), text)
	if out := cl.doctor(ctx); !strings.Contains(out, fmt.Sprintf("owner (pid %d) is not responding — it is suspended", pid)) {
		t.Errorf("doctor does not say the owner is suspended:\n%s", out)
	}

	if err := owner.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	resumed = true
	// Polled: only the resumed process's answers tell it is back.
	testwait.Poll(ctx, t, 200*time.Millisecond, func() bool {
		text, isErr = late.call(ctx, t, "browser_snapshot", map[string]any{"tab": 1})
		return !isErr
	}, func() string { return fmt.Sprintf("calls did not go through after SIGCONT: %q", text) })
	late.log.waitFor(ctx, t, logForwarder, 0)
}
