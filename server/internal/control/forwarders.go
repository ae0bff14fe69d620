package control

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/monkbrowse/monkbrowse/messaging"
	"github.com/monkbrowse/monkbrowse/protocol"
)

func (s *Server) handleStatus(c *conn) messaging.Handler {
	return func(ctx context.Context, payload json.RawMessage) (any, error) {
		if !c.accepted.Load() {
			return nil, errors.New("status refused: this connection has not been accepted yet; prove the control token with fwd_hello and fwd_auth first")
		}
		st := protocol.StatusResult{
			OwnerPID:    s.cfg.PID,
			Version:     s.cfg.Version,
			OwnerSince:  s.since.UnixMilli(),
			ControlPort: s.cfg.ControlPort,
			Forwarders:  []protocol.ForwarderInfo{},
			Profiles:    []protocol.ProfileStatus{},
		}
		st.Forwarders = append(st.Forwarders, s.forwarders(c)...)
		if s.cfg.ExtensionPort != nil {
			st.ExtensionPort = s.cfg.ExtensionPort()
		}
		if s.cfg.Profiles != nil {
			if p := s.cfg.Profiles(); p != nil {
				st.Profiles = p
			}
		}
		return st, nil
	}
}

// Forwarders lists the accepted forwarder connections, oldest first.
func (s *Server) Forwarders() []protocol.ForwarderInfo { return s.forwarders(nil) }

// forwarders lists the accepted connections but except.
func (s *Server) forwarders(except *conn) []protocol.ForwarderInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []protocol.ForwarderInfo
	for c := range s.conns {
		if c != except && c.accepted.Load() {
			out = append(out, c.info)
		}
	}
	sortForwarders(out)
	return out
}

func sortForwarders(fs []protocol.ForwarderInfo) {
	for i := 1; i < len(fs); i++ {
		for j := i; j > 0 && (fs[j].Connected < fs[j-1].Connected || fs[j].Connected == fs[j-1].Connected && fs[j].PID < fs[j-1].PID); j-- {
			fs[j], fs[j-1] = fs[j-1], fs[j]
		}
	}
}
