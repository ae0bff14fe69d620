package owner

import (
	"context"
	"sync"
)

// tabQueue serialises the calls to one tab: FIFO, one at a time. It holds no
// goroutine at all: each caller runs its own turn, and release hands the
// turn straight to the oldest waiter. An idle queue is removed from its
// profile's map, so a profile holds queues only for tabs with calls in
// flight.
type tabQueue struct {
	busy    bool
	waiters []chan error // each buffered (1): a grant (nil) or a failure
}

// queues is a profile's set of tab queues: they outlive its connection, so
// a waiting call keeps its place while the extension reconnects. The zero
// value is ready.
type queues struct {
	mu     sync.Mutex
	byTab  map[int]*tabQueue
	closed error // set by closeAll: every later acquire fails with it
}

// acquire waits for tabID's turn. It returns a release func that must be
// called exactly once (further calls do nothing), or an error: ctx's, or the
// error closeAll was given (the owner is shutting down). waiting, if not
// nil, is called once the call has to wait behind another (not under the
// queue's lock).
func (qs *queues) acquire(ctx context.Context, tabID int, waiting ...func()) (func(), error) {
	if err := ctx.Err(); err != nil {
		return nil, err // a cancelled call never takes a turn
	}
	qs.mu.Lock()
	if qs.closed != nil {
		err := qs.closed
		qs.mu.Unlock()
		return nil, err
	}
	if qs.byTab == nil {
		qs.byTab = map[int]*tabQueue{}
	}
	q := qs.byTab[tabID]
	if q == nil {
		q = &tabQueue{}
		qs.byTab[tabID] = q
	}
	if !q.busy {
		q.busy = true
		qs.mu.Unlock()
		return qs.releaser(tabID, q), nil
	}
	ch := make(chan error, 1)
	q.waiters = append(q.waiters, ch)
	qs.mu.Unlock()
	for _, w := range waiting {
		w()
	}

	select {
	case err := <-ch:
		if err != nil {
			return nil, err
		}
		return qs.releaser(tabID, q), nil
	case <-ctx.Done():
		qs.mu.Lock()
		for i, w := range q.waiters {
			if w == ch {
				q.waiters = append(q.waiters[:i:i], q.waiters[i+1:]...)
				qs.mu.Unlock()
				return nil, ctx.Err()
			}
		}
		qs.mu.Unlock()
		// Granted (or failed) while ctx ended: a granted turn must be
		// passed on, or the queue would be stuck.
		if err := <-ch; err == nil {
			qs.releaser(tabID, q)()
		}
		return nil, ctx.Err()
	}
}

func (qs *queues) releaser(tabID int, q *tabQueue) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			qs.mu.Lock()
			defer qs.mu.Unlock()
			if len(q.waiters) > 0 {
				next := q.waiters[0]
				q.waiters = q.waiters[1:]
				next <- nil // busy stays true: the turn moves on
				return
			}
			q.busy = false
			if qs.byTab[tabID] == q {
				delete(qs.byTab, tabID)
			}
		})
	}
}

// closeAll fails every waiting call with err and every later acquire too.
// Calls that hold a turn finish on their own (their requests fail as the
// connection is gone) and release normally.
func (qs *queues) closeAll(err error) {
	qs.mu.Lock()
	defer qs.mu.Unlock()
	if qs.closed != nil {
		return
	}
	qs.closed = err
	for _, q := range qs.byTab {
		for _, w := range q.waiters {
			w <- err
		}
		q.waiters = nil
	}
}

// waiting counts the calls waiting for their turn, on all tabs.
func (qs *queues) waiting() int {
	qs.mu.Lock()
	defer qs.mu.Unlock()
	n := 0
	for _, q := range qs.byTab {
		n += len(q.waiters)
	}
	return n
}

// pending reports how many tabs have a call running or waiting (for tests).
func (qs *queues) pending() int {
	qs.mu.Lock()
	defer qs.mu.Unlock()
	return len(qs.byTab)
}
