package daemon_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/monkbrowse/monkbrowse/forwarder"
	"github.com/monkbrowse/monkbrowse/server/internal/mcpserver"
	"github.com/monkbrowse/monkbrowse/server/internal/testwait"
)

// Helpers that wait for a queue's state, observed, where a test's premise
// needs it ("B waits behind A") instead of sleeping for it.

// waitOwnerQueued waits until the owner's status (on the control port)
// counts n calls waiting behind running ones, over all profiles and tabs.
func (cl *cluster) waitOwnerQueued(ctx context.Context, t *testing.T, n int) {
	t.Helper()
	c, err := forwarder.Dial(ctx, &forwarder.Options{Port: cl.ctl, Home: cl.home})
	if err != nil {
		t.Fatalf("status connection to the owner: %v", err)
	}
	defer c.Close()
	// Polled: the owner is another process, and its status is what it
	// tells of its queues.
	got := 0
	testwait.Poll(ctx, t, 5*time.Millisecond, func() bool {
		st, err := c.Status(ctx)
		if err != nil {
			t.Fatalf("the owner's status: %v", err)
		}
		got = 0
		for _, p := range st.Profiles {
			got += p.Queued
		}
		return got == n
	}, func() string {
		return fmt.Sprintf("watchdog: the owner's tab queues hold %d waiting calls, never %d", got, n)
	})
}

// waitLines waits for n more lines containing s in p's log at index from or
// later, and returns the index after the last one.
func (p *mb) waitLines(ctx context.Context, t *testing.T, s string, from, n int) int {
	t.Helper()
	for range n {
		_, i := p.log.waitFor(ctx, t, s, from)
		from = i + 1
	}
	return from
}

// waitInboxWaiting waits until p's reading layer (its MCP inbox) has put n
// more calls, from its log at index from, behind a running call of their
// tab's FIFO. It returns the index after the last.
func (p *mb) waitInboxWaiting(ctx context.Context, t *testing.T, from, n int) int {
	t.Helper()
	return p.waitLines(ctx, t, mcpserver.LogCallWaits, from, n)
}

// waitInboxCancelled waits until n more calls waiting in p's reading layer
// were cancelled (never to run), from its log at index from.
func (p *mb) waitInboxCancelled(ctx context.Context, t *testing.T, from, n int) int {
	t.Helper()
	return p.waitLines(ctx, t, mcpserver.LogWaitingCallCancelled, from, n)
}
