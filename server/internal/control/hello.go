package control

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/monkbrowse/monkbrowse/messaging"
	"github.com/monkbrowse/monkbrowse/protocol"
)

// Failed fwd_hello attempts (a wrong or missing token): each is answered
// no sooner than FailedAuthDelay after it arrived, and all connections
// together get at most FailedAuthPerSecond answers a second; the rest wait
// their turn (at most maxFailWait, then the socket is just closed). A
// correct token is accepted at once, so a forwarder is never slowed down by
// someone else's failures.
const (
	FailedAuthDelay     = 250 * time.Millisecond
	FailedAuthPerSecond = 20
	maxFailWait         = 5 * time.Second
)

func (s *Server) handleHello(c *conn) messaging.Handler {
	return func(ctx context.Context, payload json.RawMessage) (any, error) {
		if c.accepted.Load() {
			return nil, errors.New("fwd_hello was already accepted on this connection")
		}
		// It has spoken: it leaves the cap of silent connections (what it
		// holds from now on is bounded by the answer's delay).
		c.release()
		arrived := time.Now()
		var h protocol.FwdHello
		if err := json.Unmarshal(payload, &h); err != nil {
			return s.rejectAuth(ctx, c, arrived, fmt.Sprintf("fwd_hello payload is not valid: %v", err))
		}
		if h.Token == "" {
			return s.rejectAuth(ctx, c, arrived, "missing control token")
		}
		if subtle.ConstantTimeCompare([]byte(h.Token), []byte(s.cfg.Token)) != 1 {
			return s.rejectAuth(ctx, c, arrived, "wrong control token")
		}
		s.mu.Lock()
		c.info = protocol.ForwarderInfo{PID: h.PID, Version: h.Version, Connected: time.Now().UnixMilli()}
		c.accepted.Store(true)
		s.mu.Unlock()
		c.timer.Stop()
		c.release()
		ev := s.log.Info()
		if h.Version != s.cfg.Version {
			ev = s.log.Warn().Str("ownerVersion", s.cfg.Version)
		}
		ev.Int("pid", h.PID).Str("version", h.Version).Msg("forwarder connected")
		go s.heartbeat(c)
		app := ""
		if s.cfg.App != nil {
			app = s.cfg.App()
		}
		return protocol.FwdHelloAck{OK: true, Version: s.cfg.Version, PID: s.cfg.PID, App: app, CallSent: true}, nil
	}
}

// rejectAuth answers a failed fwd_hello after FailedAuthDelay and its turn
// under the global limit, logging at most one line a second. The socket
// closes right after the answer.
func (s *Server) rejectAuth(ctx context.Context, c *conn, arrived time.Time, reason string) (any, error) {
	n := s.refused.Add(1)
	s.failMu.Lock()
	now := time.Now()
	at := arrived.Add(FailedAuthDelay)
	if slot := s.failNext; slot.After(at) {
		at = slot
	}
	wait := at.Sub(now)
	if wait <= maxFailWait {
		s.failNext = at.Add(time.Second / FailedAuthPerSecond)
	}
	s.failMu.Unlock()
	if ok, held := s.failLog.Allow(); ok {
		s.log.Warn().Str("reason", reason).Int("alsoRefused", held).Int64("refusedSinceStart", n).
			Msg("refused a control-port connection (failed attempts are answered after 250 ms, at most 20 a second, and logged at most once a second)")
	}
	if wait > maxFailWait {
		// Too many failures queued: no answer, just a closed socket after
		// the delay.
		wait = time.Until(arrived.Add(FailedAuthDelay))
		c.sock.dropResponse.Store(true)
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
	c.sock.closeAfterResponse.Store(true)
	return protocol.FwdHelloAck{OK: false, Version: s.cfg.Version, Reason: reason}, nil
}

// rejectingSocket closes the connection right after the next response is
// written once closeAfterResponse is set: that is how a refused fwd_hello
// gets its answer and then loses its socket.
type rejectingSocket struct {
	messaging.PeerSocket
	closeAfterResponse atomic.Bool
	dropResponse       atomic.Bool // close instead of writing the next response
}

var responsePrefix = []byte(`{"k":"res"`)

func (r *rejectingSocket) Send(ctx context.Context, frame []byte) error {
	if r.dropResponse.Load() && bytes.HasPrefix(frame, responsePrefix) {
		return r.PeerSocket.Close()
	}
	err := r.PeerSocket.Send(ctx, frame)
	if r.closeAfterResponse.Load() && bytes.HasPrefix(frame, responsePrefix) {
		r.PeerSocket.Close()
	}
	return err
}
