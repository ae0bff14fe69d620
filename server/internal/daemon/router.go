package daemon

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/monkbrowse/monkbrowse/forwarder"
	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/server/internal/control"
)

// router sends calls to the current backend. Its zero value is not usable;
// see newRouter. All methods are safe for concurrent use.
//
// States: a backend is set (calls go to it); no backend and no failure
// (the role is changing: calls wait up to patience for a backend); no backend
// and a failure (calls fail at once with its message, e.g. a foreign
// program on the control port); closed (the process is leaving: calls are
// refused with control.ErrLeaving, which the MCP-facing wrapper turns into
// a tool error and the control server into "not run, try the next owner").
type router struct {
	patience time.Duration
	log      zerolog.Logger

	mu      sync.Mutex
	cur     *backend
	failure error
	noted   error // the last reason no backend could be set, while retrying
	closed  bool
	changed chan struct{} // closed and replaced on every state change

	waitHook atomic.Pointer[func()] // tests: a call refused (not run) waits for the next backend
}

func newRouter(wait time.Duration) *router {
	return &router{patience: wait, log: zerolog.Nop(), changed: make(chan struct{})}
}

// bump wakes every waiter; r.mu must be held.
func (r *router) bump() {
	close(r.changed)
	r.changed = make(chan struct{})
}

// backend wraps a Caller so that backends are compared by identity (the
// Caller's dynamic type need not be comparable).
type backend struct{ protocol.Caller }

// set makes c the backend and returns its handle for unset.
func (r *router) set(c protocol.Caller) *backend {
	b := &backend{c}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return b
	}
	r.cur, r.failure, r.noted = b, nil, nil
	r.bump()
	return b
}

// unset drops c if it is the current backend: calls wait for the next one.
func (r *router) unset(c *backend) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cur == c {
		r.cur = nil
		r.bump()
	}
}

// note records why no backend could be set yet, while the election keeps
// trying: a call that runs out of patience says it.
func (r *router) note(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.noted = err
}

// fail makes calls fail at once with err until a backend is set.
func (r *router) fail(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cur, r.failure = nil, err
	r.bump()
}

// wait makes calls wait for a backend again (clearing any failure).
func (r *router) wait() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cur, r.failure = nil, nil
	r.bump()
}

func (r *router) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.closed {
		r.closed, r.cur = true, nil
		r.bump()
	}
}

//lint:ignore ST1008 one snapshot of the router, read under one lock; failure is state here, not this call's error
func (r *router) state() (cur *backend, failure error, closed bool, changed <-chan struct{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cur, r.failure, r.closed, r.changed
}

// CallTool runs the call on the current backend, waiting for one while the
// role changes. It returns control.ErrLeaving when the process is leaving.
func (r *router) CallTool(ctx context.Context, call protocol.CallTool) (protocol.CallToolResult, error) {
	name := call.Name
	deadline := time.NewTimer(r.patience)
	defer deadline.Stop()
	var notRun *backend // the backend that refused or lost the call
	repeated := false   // a read interrupted by a lost owner was sent again
	for {
		cur, failure, closed, changed := r.state()
		switch {
		case closed:
			return protocol.CallToolResult{}, control.ErrLeaving
		case cur != nil && cur != notRun:
			res, err := cur.CallTool(ctx, call)
			var interrupted *forwarder.InterruptedError
			switch {
			case errors.Is(err, forwarder.ErrNotSent):
				// The owner certainly did not run it (it is handing over
				// or already gone): wait for the next backend and run it
				// there.
				notRun = cur
				continue
			case errors.As(err, &interrupted):
				// The owner went away while the call was in flight (killed,
				// crashed): it may or may not have run. A tool that never
				// changes anything runs once more on the next owner, which
				// waits for the extension to reconnect; anything else is
				// never repeated on a guess.
				if repeated || !readOnly(name) {
					return protocol.ErrorResult(interrupted.Error()), nil
				}
				r.log.Info().Str("tool", name).Msg("the owner went away during a call that changes nothing; running it again on the next owner")
				repeated, notRun = true, cur
				deadline.Reset(r.patience)
				continue
			}
			return res, err
		case cur == nil && failure != nil:
			return protocol.ErrorResult(failure.Error()), nil
		}
		if hook := r.waitHook.Load(); hook != nil && notRun != nil {
			(*hook)()
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return protocol.CallToolResult{}, ctx.Err()
		case <-deadline.C:
			r.mu.Lock()
			noted := r.noted
			r.mu.Unlock()
			if noted != nil {
				return protocol.ErrorResult(fmt.Sprintf("%s was not run. %v", name, noted)), nil
			}
			return protocol.ErrorResult(fmt.Sprintf("%s was not run: monkbrowse is switching to another process that owns the browser connection, "+
				"and none took over within %s. Try again in a moment.", name, r.patience)), nil
		}
	}
}

// readOnly reports whether the tool never changes anything, so running it
// twice is harmless (protocol.Tool.ReadOnly: snapshot, get_text,
// screenshot, console logs, wait, list_tabs; not evaluate, which may act).
func readOnly(name string) bool {
	t, ok := protocol.LookupTool(name)
	return ok && t.ReadOnly
}

// mcpCaller is the router as the MCP endpoint sees it: a process that is
// leaving answers tool errors rather than Go errors.
type mcpCaller struct{ r *router }

func (m mcpCaller) CallTool(ctx context.Context, call protocol.CallTool) (protocol.CallToolResult, error) {
	res, err := m.r.CallTool(ctx, call)
	if errors.Is(err, control.ErrLeaving) {
		return protocol.ErrorResult(call.Name + " was not run: this monkbrowse process is shutting down."), nil
	}
	return res, err
}
