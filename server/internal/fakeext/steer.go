package fakeext

import (
	"context"
	"encoding/json"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// Request is one request the fake received.
type Request struct {
	Seq     int // arrival order, from 1
	Type    string
	TabID   int // the tabId the server sent; 0 when omitted
	Payload json.RawMessage
}

// Hook sees every request before the fake answers it. A non-nil error
// fails the request (ok:false with its message). It may block to hold the
// answer; ctx ends when the connection closes.
type Hook func(ctx context.Context, r Request) error

// SetHook installs h (nil removes it).
func (e *Ext) SetHook(h Hook) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.hook = h
}

// FailNext makes the next request of typ fail with msg.
func (e *Ext) FailNext(typ, msg string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.failNext[typ] = msg
}

// DisconnectOn makes the fake close its socket, without answering, when a
// request of typ arrives: a disconnect in the middle of that call.
func (e *Ext) DisconnectOn(typ string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.dropOn[typ] = true
}

// SetIgnorePings makes the fake drop (true) or answer (false) the server's
// pings.
func (e *Ext) SetIgnorePings(ignore bool) { e.sock.mute.Store(ignore) }

// Pings returns how many pings arrived from the server so far, answered or not.
func (e *Ext) Pings() int { return int(e.sock.pings.Load()) }

// Requests returns every request received so far, in arrival order.
func (e *Ext) Requests() []Request {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Request(nil), e.reqs...)
}

// Refused returns every refused notify (protocol.MsgRefused) the server
// sent so far, in arrival order.
func (e *Ext) Refused() []protocol.Refused {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]protocol.Refused(nil), e.refused...)
}

// WaitRefused waits until at least n refused notifies arrived (or ctx
// ends) and returns them all.
func (e *Ext) WaitRefused(ctx context.Context, n int) ([]protocol.Refused, error) {
	for {
		e.mu.Lock()
		if len(e.refused) >= n {
			got := append([]protocol.Refused(nil), e.refused...)
			e.mu.Unlock()
			return got, nil
		}
		if e.refusedMore == nil {
			e.refusedMore = make(chan struct{})
		}
		more := e.refusedMore
		e.mu.Unlock()
		select {
		case <-more:
		case <-ctx.Done():
			return e.Refused(), ctx.Err()
		}
	}
}

// Count returns how many requests of typ arrived ("" counts all).
func (e *Ext) Count(typ string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, r := range e.reqs {
		if typ == "" || r.Type == typ {
			n++
		}
	}
	return n
}

// Order returns the types of the requests sent for tabID, in arrival order.
func (e *Ext) Order(tabID int) []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, r := range e.reqs {
		if r.TabID == tabID {
			out = append(out, r.Type)
		}
	}
	return out
}
