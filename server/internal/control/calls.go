package control

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/monkbrowse/monkbrowse/messaging"
	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/tools"
)

// callSentWait bounds the wait for a forwarder's answer to call_sent.
const callSentWait = 2 * time.Second

// Debug log lines of the call_sent exchange (tests wait for them).
const (
	// LogCallSentCancelled: the forwarder answered call_sent with
	// code cancelled; the call was not sent.
	LogCallSentCancelled = "call_sent answered cancelled: the call is not sent"
	// LogCallSentUnanswered: call_sent got no answer in time (or failed);
	// the call was not sent.
	LogCallSentUnanswered = "call_sent not answered: the call is not sent"
)

func (s *Server) handleCallTool(c *conn) messaging.Handler {
	return func(ctx context.Context, payload json.RawMessage) (any, error) {
		if !c.accepted.Load() {
			return nil, errors.New("call_tool refused: this connection has not been accepted yet; prove the control token with fwd_hello and fwd_auth first")
		}
		var ct protocol.CallTool
		if err := json.Unmarshal(payload, &ct); err != nil {
			return nil, fmt.Errorf("call_tool payload is not valid: %v", err)
		}
		if ct.Name == "" {
			return nil, errors.New("call_tool payload has no tool name")
		}
		if !s.beginCall() {
			return nil, refusedLeaving()
		}
		defer s.endCall()
		// Each forwarder is its own AI app: snapshot diffs after actions are
		// computed against what that app was shown, never another app's view.
		// Its grants are the ones it sent (its own flags and the upload its
		// process read under its roots), never this process's: a call
		// without any (an older forwarder) is allowed nothing.
		s.mu.Lock()
		pid := c.info.PID
		if ct.App == "" {
			// An older forwarder does not name its app: the person sees
			// its process.
			ct.App = protocol.AppDisplayName("", c.info.PID)
		}
		s.mu.Unlock()
		ctx = tools.WithClient(ctx, fmt.Sprintf("forwarder pid %d", pid))
		if ref := ct.Ref; ref != "" {
			// Sent or not (issue 12): tell the forwarder before the call's
			// first request leaves for the extension, and wait for its
			// answer, so that after this process dies the forwarder knows
			// a call it never heard about did not reach the browser.
			// Cancelled means never sent (issue 21): this is the control
			// server's one place where an abort is honoured. The call goes
			// only on the forwarder's {}; its "cancelled", or no answer
			// within callSentWait, means it is not sent at all.
			name := ct.Name
			ctx = tools.WithSent(ctx, func(ctx context.Context) error {
				sctx, cancel := messaging.WithRequestTimeout(ctx, protocol.MsgCallSent, callSentWait)
				defer cancel()
				_, err := c.peer.Request(sctx, protocol.MsgCallSent, protocol.CallSent{Ref: ref})
				if err == nil {
					return nil
				}
				var re *messaging.RemoteError
				if errors.As(err, &re) && re.Code == protocol.CodeCancelled {
					s.log.Debug().Str("tool", name).Msg(LogCallSentCancelled)
					return fmt.Errorf("%s was not run: %s; nothing had been sent to the browser, so nothing happened on the page.", name, protocol.ClientCancelled.Reason)
				}
				s.log.Debug().Err(err).Str("tool", name).Msg(LogCallSentUnanswered)
				return fmt.Errorf("%s was not run: the monkbrowse process of the AI app that made this call (pid %d) did not confirm within %s that the call was still wanted (%v), "+
					"so it was not sent to the browser and nothing happened on the page. Call it again.", name, pid, callSentWait, err)
			})
		}
		res, err := s.cfg.Caller.CallTool(ctx, ct)
		if errors.Is(err, ErrLeaving) {
			return nil, refusedLeaving()
		}
		if err != nil {
			res = protocol.CallToolResult{Content: []protocol.ContentItem{{Type: "text", Text: err.Error()}}, IsError: true}
		}
		if res.Content == nil {
			res.Content = []protocol.ContentItem{}
		}
		return res, nil
	}
}

func (s *Server) beginCall() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopping {
		return false
	}
	s.inflight++
	s.calls.Add(1)
	return true
}

func (s *Server) endCall() {
	s.mu.Lock()
	s.inflight--
	s.mu.Unlock()
	s.calls.Done()
}
