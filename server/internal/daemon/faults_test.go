//go:build unix

package daemon_test

// Fault tests of issue 12 with real processes: cancellation direct and
// forwarded.

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/server/internal/fakeext"
	"github.com/monkbrowse/monkbrowse/server/internal/testwait"
)

// cancelRecorder is a fake-extension hook: press_key "A" runs until the
// server cancels it (or 20 s); every press_key is recorded in arrival order,
// with "A-end" when A returns.
type cancelRecorder struct {
	mu        sync.Mutex
	events    []string
	aCanceled bool
	aStarted  chan struct{}
}

func newCancelRecorder() *cancelRecorder { return &cancelRecorder{aStarted: make(chan struct{}, 1)} }

func (r *cancelRecorder) hook(ctx context.Context, req fakeext.Request) error {
	if req.Type != protocol.MsgPressKey {
		return nil
	}
	var p struct {
		Key string `json:"key"`
	}
	json.Unmarshal(req.Payload, &p)
	r.mu.Lock()
	r.events = append(r.events, p.Key)
	r.mu.Unlock()
	if p.Key != "A" {
		return nil
	}
	r.aStarted <- struct{}{}
	select {
	case <-ctx.Done():
	case <-time.After(20 * time.Second):
	}
	r.mu.Lock()
	r.aCanceled = ctx.Err() != nil
	r.events = append(r.events, "A-end")
	r.mu.Unlock()
	return fmt.Errorf("stopped")
}

func (r *cancelRecorder) snapshot() ([]string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events), r.aCanceled
}

// TestCancellationDirectAndForwarded pins issue 12's cancellation findings:
// after notifications/cancelled, queued calls are never sent, the running
// one is told to stop in the extension, and the next call reaches the page
// only after the cancelled one has ended — for the owner's own app and
// through a forwarder.
func TestCancellationDirectAndForwarded(t *testing.T) {
	ctx := watchdog(t, 120*time.Second)
	_, ps, ext := startShared(ctx, t, 2)
	for _, p := range ps {
		t.Run(p.name, func(t *testing.T) {
			rec := newCancelRecorder()
			ext.setHook(rec.hook)
			press := func(cctx context.Context, key string) error {
				req := mcp.CallToolRequest{}
				req.Params.Name = "browser_press_key"
				req.Params.Arguments = map[string]any{"key": key, "tab": 1}
				res, err := p.c.CallTool(cctx, req)
				if err == nil && res.IsError {
					return fmt.Errorf("tool error: %v", res.Content)
				}
				return err
			}
			mark := p.log.count()
			ctxA, cancelA := context.WithCancel(ctx)
			go press(ctxA, "A")
			select {
			case <-rec.aStarted:
			case <-ctx.Done():
				t.Fatal("A never reached the extension")
			}
			// B and C queue behind A (in the app's reading layer: one
			// call of a tab's FIFO at a time); both are cancelled before
			// their turn.
			var queued []context.CancelFunc
			for _, k := range []string{"B", "C"} {
				cctx, cancel := context.WithCancel(ctx)
				queued = append(queued, cancel)
				go press(cctx, k)
			}
			mark = p.waitInboxWaiting(ctx, t, mark, 2)
			for _, cancel := range queued {
				cancel()
			}
			mark = p.waitInboxCancelled(ctx, t, mark, 2)
			dDone := make(chan error, 1)
			go func() { dDone <- press(ctx, "D") }()
			p.waitInboxWaiting(ctx, t, mark, 1) // D is queued behind A
			cancelA()
			select {
			case err := <-dDone:
				if err != nil {
					t.Fatalf("D: %v", err)
				}
			case <-ctx.Done():
				t.Fatal("D never answered")
			}
			events, aCanceled := rec.snapshot()
			if !aCanceled {
				t.Fatalf("the extension was not told to stop A (events %v)", events)
			}
			if !slices.Equal(events, []string{"A", "A-end", "D"}) {
				t.Fatalf("the extension saw %v, want [A A-end D]: cancelled calls are never sent and D waits for A to end", events)
			}
		})
	}
}

// TestHungOwnerNamedThenContinues pins issue 12's hung owner: with the
// owner SIGSTOPped (what Ctrl-Z does to a terminal app's child), a
// forwarder's call is answered within seconds with a message naming the
// owner's pid and app, and once the owner is SIGCONTed calls go through
// again on the same connection (no takeover is possible: the stopped owner
// still holds both ports).
func TestHungOwnerNamedThenContinues(t *testing.T) {
	ctx := watchdog(t, 120*time.Second)
	_, ps, _ := startShared(ctx, t, 2)
	owner, fwd := ps[0], ps[1]
	fwd.mustCall(ctx, t, "browser_snapshot", map[string]any{"tab": 1})

	resumed := false
	t.Cleanup(func() {
		if !resumed {
			owner.cmd.Process.Signal(syscall.SIGCONT)
		}
	})
	// Returns once the kernel has stopped it: a call sent before would
	// still be answered.
	testwait.StopProcess(t, owner.cmd.Process)
	start := time.Now()
	text, isErr := fwd.call(ctx, t, "browser_snapshot", map[string]any{"tab": 1})
	took := time.Since(start)
	want := fmt.Sprintf("(pid %d, started by process-test) is not responding", owner.cmd.Process.Pid)
	if !isErr || !strings.Contains(text, want) {
		t.Fatalf("call during the hang: isError=%v %q; want it to contain %q", isErr, text, want)
	}
	if took > 10*time.Second {
		t.Fatalf("the hung owner was noticed after %s; want ~3 s", took)
	}
	t.Logf("hung owner reported after %s", took.Round(time.Millisecond))
	// A new call while hung is answered at once, without being sent.
	start = time.Now()
	text, isErr = fwd.call(ctx, t, "browser_get_text", map[string]any{"tab": 1})
	if !isErr || !strings.Contains(text, "was not sent") || time.Since(start) > 2*time.Second {
		t.Fatalf("second call during the hang (%s): %v %q", time.Since(start), isErr, text)
	}

	if err := owner.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	resumed = true
	// Polled: only the resumed owner's answers tell it is back.
	testwait.Poll(ctx, t, 200*time.Millisecond, func() bool {
		text, isErr = fwd.call(ctx, t, "browser_snapshot", map[string]any{"tab": 1})
		if isErr && !strings.Contains(text, "not responding") {
			t.Fatalf("after SIGCONT: %q", text)
		}
		return !isErr
	}, func() string { return fmt.Sprintf("calls did not go through after SIGCONT: %q", text) })
	t.Logf("calls go through again %s after SIGCONT", time.Since(start).Round(time.Millisecond))
}
