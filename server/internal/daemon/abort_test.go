//go:build unix

package daemon_test

// Issue 21's fault test with real processes: cancelled means never sent,
// through an owner and two forwarders, checked on the fake extension's
// wire.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/server/internal/fakeext"
	"github.com/monkbrowse/monkbrowse/server/internal/mcpserver"
	"github.com/monkbrowse/monkbrowse/server/internal/testwait"
)

// logCancelled is in both of the reading layer's cancel lines (waiting and
// running): every notifications/cancelled of a call it knows logs one.
const logCancelled = "tool call was cancelled"

// burstCall is one call of the burst, owned by the driver goroutine.
type burstCall struct {
	proc, stream int
	cancel       context.CancelFunc
	launched     bool
	cancelled    bool // the test cancelled it
	// beforeSent: cancelled while another call of the same tab was held
	// in the extension and this one had not reached it: it was certainly
	// not sent yet, so it must never be.
	beforeSent bool
	arrived    int
	done       bool
	err        error
	res        *mcp.CallToolResult
}

type burstArrival struct {
	id      int
	release chan struct{}
}

type burstDone struct {
	id  int
	res *mcp.CallToolResult
	err error
}

// TestCancelledNeverSentBurst: bursts of 1,000 same-tab press_key calls
// from three AI apps (the owner's own and two forwarders'), with cancels at
// random moments, five times. The fake extension holds each call it gets
// until the driver releases (or cancels) it, so while one is held every
// other call of the tab is certainly unsent: a call cancelled then (and
// seen cancelled by its process's reading layer) must never reach the
// extension. Every call is delivered at most once, in its app's order,
// every call not cancelled is answered normally, the owner's queues end
// empty and no goroutine of the test's clients is left behind.
func TestCancelledNeverSentBurst(t *testing.T) {
	runs, n := 5, 1000
	if s := os.Getenv("MONKBROWSE_BURST"); s != "" {
		// "RUNSxCALLS" for a quicker look, e.g. 1x200
		fmt.Sscanf(s, "%dx%d", &runs, &n)
	}
	ctx := watchdog(t, 15*time.Minute)
	cl, ps, ext := startShared(ctx, t, 3)
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("MONKBROWSE_BURST_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("seed %d (MONKBROWSE_BURST_SEED repeats a run)", seed)
	// Warm every process's path once, then count this process's
	// goroutines: every call's must be gone after the bursts.
	for _, p := range ps {
		p.mustCall(ctx, t, "browser_press_key", map[string]any{"key": "warm", "tab": 1})
	}
	base := runtime.NumGoroutine()
	readCur := make([]int, len(ps))
	cancelCur := make([]int, len(ps))
	for i, p := range ps {
		readCur[i], cancelCur[i] = p.log.count(), p.log.count()
	}
	for run := range runs {
		rng := rand.New(rand.NewPCG(seed, uint64(run)))
		stats := burst(ctx, t, ps, ext, run, n, rng, readCur, cancelCur)
		t.Logf("run %d: %s", run, stats)
		cl.waitOwnerQueued(ctx, t, 0)
		if t.Failed() {
			return
		}
	}
	waitGoroutines(ctx, t, base)
}

// burst runs one burst of n calls and checks it; it returns a summary.
func burst(ctx context.Context, t *testing.T, ps []*mb, ext *relay, run, n int, rng *rand.Rand, readCur, cancelCur []int) string {
	t.Helper()
	const window = 24 // calls launched and not yet answered, at most
	calls := make([]burstCall, n)
	arrivals := make(chan burstArrival, n)
	dones := make(chan burstDone, n)
	prefix := fmt.Sprintf("r%d-", run)
	ext.setHook(func(hctx context.Context, r fakeext.Request) error {
		if r.Type != protocol.MsgPressKey {
			return nil
		}
		var p struct {
			Key string `json:"key"`
		}
		json.Unmarshal(r.Payload, &p)
		id, err := strconv.Atoi(p.Key[min(len(prefix), len(p.Key)):])
		if len(p.Key) < len(prefix) || p.Key[:len(prefix)] != prefix || err != nil {
			return nil
		}
		a := burstArrival{id: id, release: make(chan struct{})}
		arrivals <- a
		select {
		case <-a.release:
			return nil
		case <-hctx.Done(): // the server's cancel of a running call
			return errors.New("stopped by the server's cancel")
		}
	})
	defer ext.setHook(nil)

	var held *burstArrival
	heldID := -1
	next, answered, inflight := 0, 0, 0
	lastByStream := map[int]int{}
	var nCancelQueued, nCancelRunning, nReleased int

	handle := func(ev any) {
		switch ev := ev.(type) {
		case burstArrival:
			c := &calls[ev.id]
			c.arrived++
			switch {
			case c.arrived > 1:
				t.Errorf("call %d reached the extension %d times", ev.id, c.arrived)
			case c.beforeSent:
				t.Errorf("call %d reached the extension although it was cancelled before it was sent", ev.id)
			}
			if held != nil {
				t.Errorf("call %d reached the extension while call %d still held the tab", ev.id, heldID)
			}
			if last, ok := lastByStream[c.stream]; ok && last > ev.id {
				t.Errorf("call %d reached the extension after call %d of the same app and tab FIFO", ev.id, last)
			}
			lastByStream[c.stream] = ev.id
			held, heldID = &ev, ev.id
		case burstDone:
			c := &calls[ev.id]
			c.done, c.res, c.err = true, ev.res, ev.err
			answered++
			inflight--
		}
	}
	wait := func() {
		select {
		case a := <-arrivals:
			handle(a)
		case d := <-dones:
			handle(d)
		case <-ctx.Done():
			t.Fatalf("watchdog: %d of %d calls answered, %d launched, held %d", answered, n, next, heldID)
		case <-time.After(time.Minute): // a watchdog: nothing happened for a minute
			var stuck []string
			for i := range next {
				if c := &calls[i]; !c.done {
					stuck = append(stuck, fmt.Sprintf("%d(p%d s%d cancelled=%v arrived=%d)", i, c.proc, c.stream, c.cancelled, c.arrived))
				}
			}
			t.Fatalf("stuck: %d of %d calls answered, %d launched, held %d; unanswered: %v", answered, n, next, heldID, stuck)
		}
	}
	drain := func() {
		for {
			select {
			case a := <-arrivals:
				handle(a)
			case d := <-dones:
				handle(d)
			default:
				return
			}
		}
	}
	launch := func() {
		i := next
		next++
		c := &calls[i]
		c.proc = rng.IntN(len(ps))
		kind := rng.IntN(2)
		c.stream = c.proc*2 + kind
		c.launched = true
		inflight++
		// The same tab by the profile's slug or by its id: two streams of
		// the app's reading layer, which cannot tell they are one profile.
		args := map[string]any{"key": prefix + strconv.Itoa(i), "tab": 1, "profile": "work"}
		if kind == 1 {
			args["profile"] = "fake-profile-1"
		}
		cctx, cancel := context.WithCancel(ctx)
		c.cancel = cancel
		p := ps[c.proc]
		go func() {
			req := mcp.CallToolRequest{}
			req.Params.Name = "browser_press_key"
			req.Params.Arguments = args
			res, err := p.c.CallTool(cctx, req)
			dones <- burstDone{i, res, err}
		}()
		// The call is in its process before anything else happens to it:
		// a cancel then certainly follows it on the same pipe.
		_, idx := p.log.waitFor(ctx, t, mcpserver.LogCallRead, readCur[c.proc])
		readCur[c.proc] = idx + 1
	}
	cancelCall := func(i int) {
		c := &calls[i]
		c.cancelled = true
		c.cancel()
		// Synchronise on the process having seen it: its reading layer has
		// cancelled the call's context by the time it logs.
		p := ps[c.proc]
		_, idx := p.log.waitFor(ctx, t, logCancelled, cancelCur[c.proc])
		cancelCur[c.proc] = idx + 1
	}
	live := func() (ids []int) {
		for i := range next {
			c := &calls[i]
			if !c.done && !c.cancelled && c.arrived == 0 {
				ids = append(ids, i)
			}
		}
		return ids
	}

	for answered < n {
		if drain(); answered == n {
			break
		}
		if held == nil {
			// Nothing holds the tab: a call not cancelled is on its way.
			if len(live()) > 0 || next == n || inflight >= window {
				wait()
			} else {
				launch()
			}
			continue
		}
		switch r := rng.IntN(10); {
		case r < 4 && next < n && inflight < window:
			launch()
		case r < 7 && len(live()) > 0:
			ids := live()
			i := ids[rng.IntN(len(ids))]
			calls[i].beforeSent = true
			nCancelQueued++
			cancelCall(i)
		case r < 9:
			close(held.release)
			held, heldID = nil, -1
			nReleased++
		default:
			// Cancelled while running: the extension is told to stop it.
			i := heldID
			held, heldID = nil, -1
			nCancelRunning++
			cancelCall(i)
		}
	}
	for i := range calls {
		c := &calls[i]
		switch {
		case c.cancelled && !errors.Is(c.err, context.Canceled):
			t.Errorf("call %d was cancelled, its client got %v / %v", i, c.res, c.err)
		case !c.cancelled && (c.err != nil || c.res == nil || c.res.IsError):
			t.Errorf("call %d was not cancelled, yet it got %v / %v", i, c.res, c.err)
		case !c.cancelled && c.arrived != 1:
			t.Errorf("call %d was answered but reached the extension %d times", i, c.arrived)
		}
	}
	return fmt.Sprintf("%d calls: %d released, %d cancelled while queued (never sent), %d cancelled while running",
		n, nReleased, nCancelQueued, nCancelRunning)
}

// waitGoroutines waits until this process runs at most base goroutines
// (the calls' clients have all ended). Polled: no event reports a
// goroutine's end.
func waitGoroutines(ctx context.Context, t *testing.T, base int) {
	t.Helper()
	testwait.Poll(ctx, t, 10*time.Millisecond, func() bool { return runtime.NumGoroutine() <= base }, func() string {
		buf := make([]byte, 1<<20)
		return fmt.Sprintf("%d goroutines left, %d before the bursts:\n%s", runtime.NumGoroutine(), base, buf[:runtime.Stack(buf, true)])
	})
}
