package owner

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/tools"
)

// gate is the owner's Caller: it counts in-flight calls so that Shutdown can
// drain them, refuses calls once closed, and holds every call's abort: each
// call's context is cancelled with a cause (a *protocol.AbortError) by
// whatever stops it — the owner leaving (cancelAll), the person pausing
// the AI (Owner.Pause, Owner.PauseApp), the person unsharing the call's tab
// (abortTab). The queue and the extension-call path honour it (DESIGN §5.5).
type gate struct {
	next protocol.Caller

	mu       sync.Mutex
	closed   bool
	inflight int
	idle     chan struct{} // closed when inflight drops to 0; nil when none is waited for
	calls    map[*callRec]struct{}
	// leaving is set by cancelAll: calls starting after it are aborted
	// at once.
	leaving bool
	// paused says why a call placed on a profile's tab (0: the profile
	// only) may not be sent now (the person's Stop), or nil; nil: never.
	paused func(profileID string, tabID int) *protocol.AbortError
	// refused hears of a call the person's pause stopped before it sent
	// anything to the extension (tabID 0: the profile only); nil: no one.
	refused func(ctx context.Context, profileID string, tabID int, call protocol.CallTool)
	// stepHook, for tests, is called after a call is placed (place) or
	// starts waiting behind another for its tab's turn (browser.onTab):
	// a test waiting for such a state re-checks it then. nil: nothing.
	stepHook atomic.Pointer[func()]
}

// callRec is one call in flight, under gate.mu: its abort, and the profile
// and tab it was resolved to (set by the browser once known).
type callRec struct {
	client    string
	abort     context.CancelCauseFunc
	profileID string
	tabID     int
	running   bool // holds its tab's turn (or needs none)
	sent      bool // a request of it left for the extension (session.depart)
}

type callRecKey struct{}

func newGate(next protocol.Caller) *gate {
	return &gate{next: next, calls: map[*callRec]struct{}{}}
}

func (g *gate) CallTool(ctx context.Context, call protocol.CallTool) (protocol.CallToolResult, error) {
	// A forwarded call has no deadline of its own: give it the budget
	// here (a direct one already has it from the MCP reading layer).
	ctx, cancelBudget := context.WithTimeoutCause(ctx, tools.CallBudget, tools.ErrCallBudget)
	defer cancelBudget()
	ctx, abort := context.WithCancelCause(ctx)
	defer abort(nil)
	rec := &callRec{client: tools.ClientOf(ctx), abort: abort}

	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return protocol.ErrorResult(errShuttingDown.Error()), nil
	}
	g.inflight++
	g.calls[rec] = struct{}{}
	if g.leaving {
		abort(abortLeaving)
	}
	g.mu.Unlock()
	defer g.done(rec)
	res, err := g.next.CallTool(context.WithValue(ctx, callRecKey{}, rec), call)
	g.tellRefused(ctx, rec, call)
	return res, err
}

// tellRefused tells g.refused of rec's call if the person's pause stopped
// it before anything was sent: the extension never saw it, so only this
// tells its activity log (a call that was sent is logged there).
func (g *gate) tellRefused(ctx context.Context, rec *callRec, call protocol.CallTool) {
	var ae *protocol.AbortError
	if g.refused == nil || !errors.As(context.Cause(ctx), &ae) || ae.Code != protocol.CodePaused {
		return
	}
	g.mu.Lock()
	profileID, tabID, sent := rec.profileID, rec.tabID, rec.sent
	g.mu.Unlock()
	if profileID == "" || sent {
		return
	}
	g.refused(ctx, profileID, tabID, call)
}

// markSent records that ctx's call sent a request to the extension.
func markSent(ctx context.Context, g *gate) {
	if rec, ok := ctx.Value(callRecKey{}).(*callRec); ok {
		g.mu.Lock()
		rec.sent = true
		g.mu.Unlock()
	}
}

func (g *gate) done(rec *callRec) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.calls, rec)
	g.inflight--
	if g.inflight == 0 && g.idle != nil {
		close(g.idle)
		g.idle = nil
	}
}

// place records the profile and tab ctx's call was resolved to (tabID 0:
// the profile only) and whether it runs (false: it waits for its tab's
// turn), so that an abort by profile or tab finds it; a call placed where
// the person paused the AI is aborted at once, so it is never sent.
func (g *gate) place(ctx context.Context, profileID string, tabID int, running bool) {
	rec, ok := ctx.Value(callRecKey{}).(*callRec)
	if !ok {
		return
	}
	g.mu.Lock()
	rec.profileID, rec.tabID, rec.running = profileID, tabID, running
	g.mu.Unlock()
	g.stepped()
	// Checked after the call is placed: a Stop reported meanwhile finds it
	// placed (Owner.applyPause), one reported before is seen here.
	if g.paused != nil {
		if cause := g.paused(profileID, tabID); cause != nil {
			rec.abort(cause)
		}
	}
}

// stepped calls the test hook, if any.
func (g *gate) stepped() {
	if h := g.stepHook.Load(); h != nil {
		(*h)()
	}
}

// abortQueued aborts the calls waiting for the turn of profileID's tab
// tabID: the person unshared it (or closed it), so they are never sent.
// A running call there is stopped by the extension itself.
func (g *gate) abortQueued(profileID string, tabID int, cause *protocol.AbortError) int {
	return g.abort(func(r *callRec) bool {
		return r.profileID == profileID && r.tabID == tabID && !r.running
	}, cause)
}

// abort cancels, with cause, every call in flight that match selects, and
// counts them.
func (g *gate) abort(match func(*callRec) bool, cause *protocol.AbortError) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for rec := range g.calls {
		if match(rec) {
			rec.abort(cause)
			n++
		}
	}
	return n
}

func (g *gate) close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
}

// wait returns when no call is in flight or ctx ends.
func (g *gate) wait(ctx context.Context) {
	g.mu.Lock()
	if g.inflight == 0 {
		g.mu.Unlock()
		return
	}
	if g.idle == nil {
		g.idle = make(chan struct{})
	}
	idle := g.idle
	g.mu.Unlock()
	select {
	case <-idle:
	case <-ctx.Done():
	}
}

// abortedError answers a call stopped by an abort (DESIGN §5.5): why, and
// whether anything had been sent for it.
type abortedError struct {
	cause *protocol.AbortError
	where string // the call's target, "tab 2 of profile \"work\""
	sent  bool
}

func (e *abortedError) Error() string {
	if !e.sent {
		return fmt.Sprintf("Not run: %s; nothing had been sent to %s, so nothing happened on the page.", e.cause.Reason, e.where)
	}
	return fmt.Sprintf("Stopped: %s while this call was running in %s; what it had done until then stays done. Take a browser_snapshot to see the page's state.", e.cause.Reason, e.where)
}

// Unwrap returns the *protocol.AbortError: errors.As finds its code.
func (e *abortedError) Unwrap() error { return e.cause }

// abortLeaving stops the calls still running when the owner's drain time
// is over.
var abortLeaving = protocol.Abort(protocol.CodeOwnerLeaving, errShuttingDown.Error())

func (g *gate) cancelAll() {
	g.mu.Lock()
	g.leaving = true
	g.mu.Unlock()
	g.abort(func(*callRec) bool { return true }, abortLeaving)
}

// pausedAbort is the cause of calls stopped because the person paused the AI.
func pausedAbort(who string) *protocol.AbortError {
	return protocol.Abort(protocol.CodePaused, fmt.Sprintf("the person paused the AI %s; wait until they resume it, and do not repeat the call on your own", who))
}

// unsharedAbort is the cause of calls stopped because the person stopped
// sharing their tab.
func unsharedAbort(t string) *protocol.AbortError {
	return protocol.Abort(protocol.CodeUnshared, "the person stopped sharing "+t)
}
