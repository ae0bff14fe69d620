package control

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
	"time"

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
		st.HTTP = s.httpEndpoints(ctx, c)
		return st, nil
	}
}

// httpStatusWait bounds a forwarder's answer to http_status: a status is
// for a person waiting at `monkbrowse doctor`.
const httpStatusWait = time.Second

// httpEndpoints lists the MCP endpoints over HTTP of this process and of
// the accepted forwarders but asker (asked at once; one that does not
// answer within httpStatusWait, or is older than http_status, is left out).
func (s *Server) httpEndpoints(ctx context.Context, asker *conn) []protocol.HTTPStatus {
	var out []protocol.HTTPStatus
	if s.cfg.HTTP != nil {
		if h := s.cfg.HTTP(); h != nil && h.URL != "" {
			out = append(out, *h)
		}
	}
	s.mu.Lock()
	var peers []*messaging.Peer
	for c := range s.conns {
		if c != asker && c.accepted.Load() {
			peers = append(peers, c.peer)
		}
	}
	s.mu.Unlock()
	answers := make(chan *protocol.HTTPStatus, len(peers))
	for _, p := range peers {
		go func() {
			rctx, cancel := messaging.WithRequestTimeout(ctx, protocol.MsgHTTPStatus, httpStatusWait)
			defer cancel()
			var h protocol.HTTPStatus
			raw, err := p.Request(rctx, protocol.MsgHTTPStatus, struct{}{})
			if err != nil || json.Unmarshal(raw, &h) != nil || h.URL == "" {
				answers <- nil
				return
			}
			answers <- &h
		}()
	}
	for range peers {
		if h := <-answers; h != nil {
			out = append(out, *h)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].URL < out[j].URL })
	return out
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
