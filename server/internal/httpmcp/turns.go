package httpmcp

import (
	"context"
	"sync"
)

// turns keeps tool calls for one tab in the order their requests were
// read, as the stdio inbox does (mcpserver/inbox.go): a call starts when
// the one before it on its key is done. A call whose context ends while it
// waits never starts, and the calls behind it still wait for the one
// before it, so two calls of one tab never run at once.
type turns struct {
	mu      sync.Mutex
	last    map[string]chan struct{}      // the newest turn of each key, closed when done
	waiting map[string]context.CancelFunc // waiting calls by session and JSON-RPC id
	changed chan struct{}                 // closed and replaced when waiting changes
	// waits, if set, is called when a call has to wait for its turn.
	waits func()
}

// Changed returns a channel closed at the next change of the waiting calls
// (tests wait on it instead of sleeping).
func (t *turns) Changed() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.changed
}

// Waiting is the number of calls waiting for their turn.
func (t *turns) Waiting() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.waiting)
}

// signal wakes Changed's waiters. Call with mu held.
func (t *turns) signal() {
	close(t.changed)
	t.changed = make(chan struct{})
}

func newTurns() *turns {
	return &turns{last: map[string]chan struct{}{}, waiting: map[string]context.CancelFunc{}, changed: make(chan struct{})}
}

var closedTurn = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// wait blocks until it is the call's turn on key (ok) or ctx ends (not
// ok). With ok, done must be called when the call is over. cancel ends
// ctx; cancel(id) calls it while the call waits.
func (t *turns) wait(ctx context.Context, key, id string, cancel context.CancelFunc) (done func(), ok bool) {
	mine := make(chan struct{})
	t.mu.Lock()
	prev := t.last[key]
	if prev == nil {
		prev = closedTurn
	}
	t.last[key] = mine
	t.waiting[id] = cancel
	t.signal()
	t.mu.Unlock()
	release := func() {
		t.mu.Lock()
		if t.last[key] == mine {
			delete(t.last, key)
		}
		t.mu.Unlock()
		close(mine)
	}
	forget := func() {
		t.mu.Lock()
		delete(t.waiting, id)
		t.signal()
		t.mu.Unlock()
	}
	if t.waits != nil {
		select {
		case <-prev:
		default:
			t.waits()
		}
	}
	select {
	case <-prev:
		forget()
		if ctx.Err() != nil {
			release()
			return nil, false
		}
		return release, true
	case <-ctx.Done():
		forget()
		// The calls behind this one still wait for the one before it.
		go func() {
			<-prev
			release()
		}()
		return nil, false
	}
}

// cancel drops the waiting call id, if it still waits.
func (t *turns) cancel(id string) {
	t.mu.Lock()
	c := t.waiting[id]
	t.mu.Unlock()
	if c != nil {
		c()
	}
}
