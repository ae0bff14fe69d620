//go:build unix

package daemon_test

// Issue 12, brief reconnects, with real processes: calls waiting for their
// turn on a tab keep their place while the extension reconnects, and fail
// together with a clear message once the reconnect window has passed.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/server/internal/fakeext"
)

// keyRecorder is a fake-extension hook: press_key "hold" runs until its
// connection closes; every other key is recorded (across reconnects).
type keyRecorder struct {
	mu      sync.Mutex
	keys    map[string]int
	holding chan struct{}
}

func newKeyRecorder() *keyRecorder {
	return &keyRecorder{keys: map[string]int{}, holding: make(chan struct{}, 1)}
}

func (r *keyRecorder) hook(ctx context.Context, req fakeext.Request) error {
	if req.Type != protocol.MsgPressKey {
		return nil
	}
	var p struct {
		Key string `json:"key"`
	}
	json.Unmarshal(req.Payload, &p)
	if p.Key == "hold" {
		r.holding <- struct{}{}
		<-ctx.Done() // the socket is cut under it
		return errors.New("cut")
	}
	r.mu.Lock()
	r.keys[p.Key]++
	r.mu.Unlock()
	return nil
}

func (r *keyRecorder) seen() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]int, len(r.keys))
	for k, v := range r.keys {
		out[k] = v
	}
	return out
}

type keyResult struct {
	key   string
	text  string
	isErr bool
	took  time.Duration
}

// cutWithQueued holds tab 1 with a running press_key from p's AI app,
// queues n more behind it from the AI apps of ps (in turn), cuts the
// extension's socket and returns the answers. Each app's reading layer
// sends one call per tab at a time, and "tab 1 of work" and "tab 1 of
// fake-profile-1" (the profile's id, which the reading layer cannot tell
// is work's: issue 39's order relates omitted and named tabs and profiles,
// not ids and slugs) are two streams there, so the owner's queue for the
// tab holds a waiting call of each stream of each app when the socket is
// cut.
func cutWithQueued(ctx context.Context, t *testing.T, cl *cluster, p *mb, ps []*mb, ext *relay, rec *keyRecorder, n int, reconnectAfter time.Duration) (holdText string, results []keyResult) {
	t.Helper()
	ext.setHook(rec.hook)
	ext.delay.Store(int64(reconnectAfter))
	marks := make([]int, len(ps))
	for i, q := range ps {
		marks[i] = q.log.count()
	}
	held := make(chan string, 1)
	go func() {
		text, _ := p.call(ctx, t, "browser_press_key", map[string]any{"key": "hold", "tab": 1, "profile": "work"})
		held <- text
	}()
	select {
	case <-rec.holding:
	case <-ctx.Done():
		t.Fatal("the holding call never reached the extension")
	}
	// The first call of each app's FIFO goes on to the owner's queue, except
	// in the FIFO the held call is running in: the rest wait in the apps'
	// reading layers.
	fifos := map[[2]int]int{} // app, by id or not: calls
	for i := range n {
		fifos[[2]int{i % len(ps), i / len(ps) % 2}]++
	}
	atOwner := len(fifos)
	waiting := make([]int, len(ps))
	for f, calls := range fifos {
		if ps[f[0]] == p && f[1] == 0 {
			atOwner--
			waiting[f[0]] += calls
		} else {
			waiting[f[0]] += calls - 1
		}
	}
	out := make(chan keyResult, n)
	for i := range n {
		go func() {
			k := fmt.Sprintf("k%d", i)
			args := map[string]any{"key": k, "tab": 1, "profile": "work"}
			if i/len(ps)%2 == 1 {
				args["profile"] = "fake-profile-1"
			}
			start := time.Now()
			text, isErr := ps[i%len(ps)].call(ctx, t, "browser_press_key", args)
			out <- keyResult{k, text, isErr, time.Since(start)}
		}()
	}
	// All n requests are queued behind the held call, in the owner's queue
	// and the reading layers, before the cut.
	cl.waitOwnerQueued(ctx, t, atOwner)
	for i, q := range ps {
		q.waitInboxWaiting(ctx, t, marks[i], waiting[i])
	}
	before := ext.connections()
	ext.current().Close()
	for range n {
		select {
		case r := <-out:
			results = append(results, r)
		case <-ctx.Done():
			t.Fatalf("only %d of %d queued calls answered", len(results), n)
		}
	}
	if reconnectAfter < time.Minute {
		ext.waitConnections(ctx, t, before+1)
	}
	return <-held, results
}

// TestBriefReconnectRunsQueuedCalls: socket cut with 20 calls waiting (from
// the owner's own AI app and a forwarder's), reconnect 1 s later: all 20 run
// once, none fails; the call that was running when the socket was cut is
// reported as possibly run. The running call comes from each app in turn.
func TestBriefReconnectRunsQueuedCalls(t *testing.T) {
	ctx := watchdog(t, 120*time.Second)
	cl, ps, ext := startShared(ctx, t, 2)
	for _, p := range ps {
		t.Run(p.name, func(t *testing.T) {
			rec := newKeyRecorder()
			hold, results := cutWithQueued(ctx, t, cl, p, ps, ext, rec, 20, time.Second)
			if !strings.Contains(hold, "disconnected while browser_press_key was running") {
				t.Errorf("the running call: %q", hold)
			}
			seen := rec.seen()
			for _, r := range results {
				if r.isErr {
					t.Errorf("%s failed after %s: %s", r.key, r.took.Round(time.Millisecond), r.text)
				}
				if seen[r.key] != 1 {
					t.Errorf("%s reached the extension %d times, want once", r.key, seen[r.key])
				}
			}
		})
	}
}

// TestNoReconnectFailsQueuedCallsAfterTheWindow: socket cut with 20 calls
// waiting and no reconnect: they fail together once the reconnect window
// (5 s, counted from the cut) has passed; none reaches the page.
func TestNoReconnectFailsQueuedCallsAfterTheWindow(t *testing.T) {
	ctx := watchdog(t, 120*time.Second)
	cl, ps, ext := startShared(ctx, t, 2)
	fwd := ps[1]
	rec := newKeyRecorder()
	start := time.Now()
	_, results := cutWithQueued(ctx, t, cl, fwd, ps, ext, rec, 20, 10*time.Minute)
	took := time.Since(start)
	for _, r := range results {
		// A call already in the owner's tab queue says it lost its turn;
		// one still in the reading layer's FIFO says the profile is not
		// connected. Both waited for the window, counted from the cut.
		if !r.isErr || !strings.Contains(r.text, "waited 5s for it to reconnect") || !strings.Contains(r.text, `"work"`) {
			t.Errorf("%s: isError=%v %q", r.key, r.isErr, r.text)
		}
	}
	if n := len(rec.seen()); n != 0 {
		t.Errorf("%d queued calls reached the page", n)
	}
	// All 20 give up with the window, not one window after another.
	if took > 20*time.Second {
		t.Errorf("the 20 calls took %s to fail; want about the 5 s window", took)
	}
	t.Logf("20 queued calls failed %s after the cut", took.Round(time.Millisecond))
}
