package owner

import (
	"context"
	"sync"

	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/tools"
)

// gate is the owner's Caller: it counts in-flight calls so that Shutdown can
// drain them, refuses calls once closed, and cancels the stragglers.
type gate struct {
	next protocol.Caller

	mu       sync.Mutex
	closed   bool
	inflight int
	idle     chan struct{} // closed when inflight drops to 0; nil when none is waited for
	// hard is cancelled by cancelAll: every call still running is
	// cancelled with it.
	hard       context.Context
	cancelHard context.CancelFunc
}

func newGate(next protocol.Caller) *gate {
	hard, cancel := context.WithCancel(context.Background())
	return &gate{next: next, hard: hard, cancelHard: cancel}
}

func (g *gate) CallTool(ctx context.Context, call protocol.CallTool) (protocol.CallToolResult, error) {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return protocol.ErrorResult(errShuttingDown.Error()), nil
	}
	g.inflight++
	g.mu.Unlock()
	defer g.done()

	// A forwarded call has no deadline of its own: give it the budget
	// here (a direct one already has it from the MCP reading layer).
	ctx, cancelBudget := context.WithTimeoutCause(ctx, tools.CallBudget, tools.ErrCallBudget)
	defer cancelBudget()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(g.hard, cancel)
	defer stop()
	return g.next.CallTool(ctx, call)
}

func (g *gate) done() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.inflight--
	if g.inflight == 0 && g.idle != nil {
		close(g.idle)
		g.idle = nil
	}
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

func (g *gate) cancelAll() { g.cancelHard() }
