package control

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/monkbrowse/monkbrowse/messaging"
	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/server/internal/netguard"
)

// Failed fwd_hello or fwd_auth attempts (no nonce, an older monkbrowse, a
// wrong proof): each is answered
// no sooner than FailedAuthDelay after it arrived, and all connections
// together get at most FailedAuthPerSecond answers a second; the rest wait
// their turn (at most maxFailWait, then the socket is just closed). A
// correct proof is accepted at once, so a forwarder is never slowed down by
// someone else's failures.
const (
	FailedAuthDelay     = 250 * time.Millisecond
	FailedAuthPerSecond = 20
	maxFailWait         = 5 * time.Second
)

func (s *Server) handleHello(c *conn) messaging.Handler {
	return func(ctx context.Context, payload json.RawMessage) (any, error) {
		arrived := time.Now()
		c.hmu.Lock()
		defer c.hmu.Unlock()
		if c.nonceOwner != "" {
			return nil, errors.New("fwd_hello was already said on this connection")
		}
		// The connection stays in the cap of unproven connections until
		// its fwd_auth proof is accepted: saying fwd_hello proves nothing.
		var h struct {
			protocol.FwdHello
			Token string `json:"token"`
		}
		reject := func(reason, detail string) (any, error) {
			s.rejectAuth(ctx, c, arrived, reason, detail)
			return protocol.FwdHelloAck{OK: false, Version: s.cfg.Version, Auth: protocol.AuthScheme, Reason: reason}, nil
		}
		if err := json.Unmarshal(payload, &h); err != nil {
			return reject(fmt.Sprintf("fwd_hello payload is not valid: %v", err), "invalid fwd_hello")
		}
		if h.Nonce == "" && h.Token != "" {
			// A monkbrowse older than the proof (issue 23): it sent the
			// token itself. Never look at it; tell it to update.
			return reject(protocol.UpdateForwarderReason(h.Version, h.PID, s.cfg.Version), "an older monkbrowse sent the control token (update it)")
		}
		if _, err := protocol.DecodeNonce(h.Nonce); err != nil {
			return reject("fwd_hello has no valid nonce: "+err.Error(), "fwd_hello without a valid nonce")
		}
		c.pid, c.version = h.PID, h.Version
		c.nonceForwarder = h.Nonce
		c.nonceOwner = s.newNonce()
		return protocol.FwdHelloAck{
			OK:      true,
			Version: s.cfg.Version,
			Auth:    protocol.AuthScheme,
			Nonce:   c.nonceOwner,
			Proof:   protocol.Proof(s.cfg.Token, protocol.ProofLabelOwner, c.nonceForwarder, c.nonceOwner),
		}, nil
	}
}

func (s *Server) handleAuth(c *conn) messaging.Handler {
	return func(ctx context.Context, payload json.RawMessage) (any, error) {
		arrived := time.Now()
		c.hmu.Lock()
		defer c.hmu.Unlock()
		if c.accepted.Load() {
			return nil, errors.New("fwd_auth was already accepted on this connection")
		}
		if c.nonceOwner == "" {
			return nil, errors.New("say fwd_hello first: fwd_auth proves the nonces exchanged there")
		}
		reject := func(reason string) (any, error) {
			s.rejectAuth(ctx, c, arrived, reason, reason)
			return protocol.FwdAuthAck{OK: false, Reason: reason}, nil
		}
		var a protocol.FwdAuth
		if err := json.Unmarshal(payload, &a); err != nil {
			return reject(fmt.Sprintf("fwd_auth payload is not valid: %v", err))
		}
		if !protocol.CheckProof(s.cfg.Token, protocol.ProofLabelForwarder, c.nonceForwarder, c.nonceOwner, a.Proof) {
			return reject("wrong control token (its proof does not match)")
		}
		s.mu.Lock()
		c.info = protocol.ForwarderInfo{PID: c.pid, Version: c.version, Connected: time.Now().UnixMilli()}
		c.accepted.Store(true)
		s.mu.Unlock()
		c.timer.Stop()
		// Proven: big frames (uploads) may come from now on, and the
		// connection leaves the cap of unproven ones. The limit is raised
		// before the answer leaves, and the forwarder sends calls only
		// after it.
		c.ws.RaiseReadLimit()
		c.release()
		ev := s.log.Info()
		if c.version != s.cfg.Version {
			ev = s.log.Warn().Str("ownerVersion", s.cfg.Version)
		}
		ev.Int("pid", c.pid).Str("version", c.version).Msg("forwarder connected")
		go s.heartbeat(c)
		app := ""
		if s.cfg.App != nil {
			app = s.cfg.App()
		}
		return protocol.FwdAuthAck{OK: true, PID: s.cfg.PID, App: app, CallSent: true}, nil
	}
}

// rejectAuth delays a failed fwd_hello or fwd_auth: it returns
// FailedAuthDelay after the request arrived, and after its turn under the
// global limit, logging through the port's refusal log (a line a second).
// The socket closes right after the answer (or without one when too many
// failures are queued).
func (s *Server) rejectAuth(ctx context.Context, c *conn, arrived time.Time, reason, what string) {
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
	s.refusals.Refused("refused a control-port connection (failed attempts are answered after 250 ms, at most 20 a second; refusals are logged at most once a second)",
		func(e netguard.Fields) { e.Str("reason", what).Int("pid", c.pid) })
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
