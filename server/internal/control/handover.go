package control

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync"

	"github.com/monkbrowse/monkbrowse/messaging"
	"github.com/monkbrowse/monkbrowse/protocol"
)

// ErrLeaving may be returned (wrapped) by the Caller for a call it refused
// without running because the owner is handing over; the forwarder is then
// told the call was not run, and repeats it against the next owner.
var ErrLeaving = errors.New("control: owner leaving")

// StopCalls makes the server refuse every new call_tool with
// protocol.CodeOwnerLeaving (the forwarder repeats it against the next
// owner). Calls already running go on.
func (s *Server) StopCalls() {
	s.mu.Lock()
	s.stopping = true
	s.mu.Unlock()
}

// WaitCalls waits until the call_tool requests running when StopCalls was
// called have been answered, or ctx ends. It reports how many were still
// running then.
func (s *Server) WaitCalls(ctx context.Context) int {
	done := make(chan struct{})
	go func() {
		s.calls.Wait()
		close(done)
	}()
	select {
	case <-done:
		return 0
	case <-ctx.Done():
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.inflight
	}
}

// Leave hands over: it stops new calls, closes the listener (releasing the
// control port), tells every forwarder owner_leaving, waits for each to
// hang up (until ctx ends) and closes their connections. Call it after the extension port is released, so that the
// forwarder that wins the control port can bind the extension port at once.
// ctx bounds the notifications.
func (s *Server) Leave(ctx context.Context) {
	s.StopCalls()
	s.mu.Lock()
	s.closed = true
	conns := slices.Collect(maps.Keys(s.conns))
	s.mu.Unlock()
	// Close releases the port; hijacked WebSocket connections stay open.
	s.hs.Close()
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if c.accepted.Load() {
				// The forwarder hangs up when it has read owner_leaving;
				// closing first could drop the notification before its
				// handler ran.
				if err := c.peer.Notify(ctx, protocol.MsgOwnerLeaving, protocol.OwnerLeaving{}); err != nil {
					s.log.Debug().Err(err).Int("pid", c.info.PID).Msg("owner_leaving not delivered")
				} else {
					select {
					case <-c.peer.Done():
					case <-ctx.Done():
					}
				}
			}
			c.timer.Stop()
			c.peer.Close()
		}()
	}
	wg.Wait()
}

// refusedLeaving is the call_tool refusal of an owner releasing its ports:
// the forwarder recognises it by its code and repeats the call against the
// next owner (the owner promises it did not run it).
func refusedLeaving() error {
	return messaging.WithCode(protocol.CodeOwnerLeaving, errors.New("monkbrowse owner is handing over to another process; the call was not run"))
}
