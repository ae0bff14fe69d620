package daemon

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/monkbrowse/monkbrowse/forwarder"
	"github.com/monkbrowse/monkbrowse/protocol"
)

// lostOwner is a forwarder backend whose owner dies during every call: it
// answers as forwarder.Client does for a call in flight on a lost owner.
type lostOwner struct {
	calls   atomic.Int32
	arrived chan struct{} // one send per call (buffered)
}

func newLostOwner() *lostOwner { return &lostOwner{arrived: make(chan struct{}, 4)} }

func (l *lostOwner) CallTool(_ context.Context, call protocol.CallTool) (protocol.CallToolResult, error) {
	l.calls.Add(1)
	select {
	case l.arrived <- struct{}{}:
	default: // more calls than the buffer: the test's count reports them
	}
	return protocol.CallToolResult{}, &forwarder.InterruptedError{Tool: call.Name}
}

// TestReadOnlyCallRepeatedAfterOwnerLost: the router's half of the
// take-over after a kill. A read interrupted by the lost owner waits for the
// next backend and runs there once; an action (or evaluate, which may act)
// is never repeated; a read interrupted twice is not sent a third time.
func TestReadOnlyCallRepeatedAfterOwnerLost(t *testing.T) {
	ctx := watchdog(t, 20*time.Second)
	for _, tc := range []struct {
		tool   string
		repeat bool
	}{
		{"browser_snapshot", true},
		{"browser_get_text", true},
		{"browser_screenshot", true},
		{"browser_get_console_logs", true},
		{"browser_list_tabs", true},
		{"browser_wait", true},
		{"browser_evaluate", false},
		{"browser_click", false},
		{"browser_navigate", false},
		{"browser_close_tab", false},
	} {
		r := newRouter(10 * time.Second)
		old := newLostOwner()
		oldB := r.set(old)
		next := &fakeOwner{name: "next", started: make(chan string, 4), release: make(chan struct{}), down: make(chan struct{})}
		got := make(chan protocol.CallToolResult, 1)
		go func() {
			res, err := r.CallTool(ctx, protocol.CallTool{Name: tc.tool, Args: json.RawMessage(`{}`)})
			if err != nil {
				t.Errorf("%s: %v", tc.tool, err)
			}
			got <- res
		}()
		if tc.repeat {
			// The call waits for the next owner; the forwarder notices the
			// loss and the next owner takes over.
			waitArrived(t, ctx, old)
			r.unset(oldB)
			r.set(next)
		}
		res := <-got
		text := res.Content[0].Text
		switch {
		case tc.repeat && (res.IsError || text != "next ran "+tc.tool):
			t.Errorf("%s: %q, want it run again on the next owner", tc.tool, text)
		case !tc.repeat && (!res.IsError || !strings.Contains(text, "may or may not have run")):
			t.Errorf("%s: %q, want the may-or-may-not error", tc.tool, text)
		}
		if n := old.calls.Load(); n != 1 {
			t.Errorf("%s: sent %d times to the lost owner", tc.tool, n)
		}
		if !tc.repeat && next.calls.Load() != 0 {
			t.Errorf("%s was repeated", tc.tool)
		}
	}

	// Interrupted on the next owner too: not sent a third time.
	r := newRouter(10 * time.Second)
	a, b := newLostOwner(), newLostOwner()
	ab := r.set(a)
	got := make(chan protocol.CallToolResult, 1)
	go func() {
		res, _ := r.CallTool(ctx, protocol.CallTool{Name: "browser_snapshot", Args: json.RawMessage(`{}`)})
		got <- res
	}()
	waitArrived(t, ctx, a)
	r.unset(ab)
	r.set(b)
	res := <-got
	if !res.IsError || !strings.Contains(res.Content[0].Text, "may or may not have run") {
		t.Errorf("twice interrupted: %q", res.Content[0].Text)
	}
	if a.calls.Load() != 1 || b.calls.Load() != 1 {
		t.Errorf("sent %d + %d times, want once to each owner", a.calls.Load(), b.calls.Load())
	}
}

// waitArrived waits for a call to reach l.
func waitArrived(t *testing.T, ctx context.Context, l *lostOwner) {
	t.Helper()
	select {
	case <-l.arrived:
	case <-ctx.Done():
		t.Fatalf("watchdog: %d calls, want 1", l.calls.Load())
	}
}
