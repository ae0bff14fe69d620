package owner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"github.com/monkbrowse/monkbrowse/messaging"
	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/tools"
)

// conn is one accepted extension socket.
type conn struct {
	o      *Owner
	peer   *messaging.Peer
	prof   *profile // set by registry.admit, never changed after
	slug   string   // the slug assigned with this connection's ack
	remote string
	secret string // the pairing secret this connection proved
}

// errShuttingDown fails calls made while the owner stops.
var errShuttingDown = errors.New("monkbrowse is shutting down (the AI app closed it or another monkbrowse took over); call the tool again in a moment")

// disconnectedError is what a call gets when its turn came while its
// profile was disconnected and the profile did not come back within wait
// (issue 12: a brief reconnect is waited for, not failed at once).
func (c *conn) disconnectedError(wait time.Duration) error {
	waited := ""
	if wait > 0 {
		waited = fmt.Sprintf(" monkbrowse waited %s for it to reconnect.", wait)
	}
	return fmt.Errorf("Browser profile %q disconnected before this call's turn came (Chrome closed, the extension reloaded, or the computer slept). Nothing was sent to the page.%s Call browser_list_tabs to see when it is back, then try again.", c.slug, waited)
}

// session sends wire requests to one connection.
type session struct {
	c *conn
	t tools.Target
	// sent counts the requests of this session: a tab refusal of the
	// first one means the call did nothing at all and may be repeated on
	// another tab.
	sent atomic.Int32
}

var _ tools.Session = (*session)(nil)

// Request implements tools.Session: the message's timeout, one more try
// for retryable reads after a timeout (never for actions), errors worded for
// the AI, and the tab cache kept current from answers that describe tabs.
//
// The message's timeout is a child of ctx, whose deadline is the call's
// budget (tools.CallBudget): whichever ends first ends the request, the
// timeout with a *messaging.RequestTimeoutError, the budget with
// tools.ErrCallBudget (which the dispatcher words for the AI).
func (s *session) Request(ctx context.Context, typ string, payload, out any) error {
	timeout := s.c.o.timeoutFor(typ)
	if err := s.depart(ctx); err != nil {
		return err
	}
	s.sent.Add(1)
	markSent(ctx, s.c.o.gate)
	wire := withApp(payload, tools.AppOf(ctx))
	raw, err := s.send(ctx, typ, wire, timeout)
	var te *messaging.RequestTimeoutError
	retried := false
	if errors.As(err, &te) && protocol.IsRetryable(typ) && ctx.Err() == nil && timeLeft(ctx) >= min(timeout, minRetry) {
		retried = true
		s.c.o.log.Debug().Str("type", typ).Str("profile", s.c.slug).Msg("retrying a timed-out read once")
		raw, err = s.send(ctx, typ, wire, timeout)
	}
	if err != nil {
		return s.explain(ctx, typ, retried, err)
	}
	s.learn(typ, payload, raw)
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			return fmt.Errorf("The browser's answer to %s could not be read (%v). The monkbrowse extension and server may not match: update both to the same version.", typ, err)
		}
	}
	return nil
}

var _ tools.QuietSession = (*session)(nil)

// Quiet implements tools.QuietSession: one request that changes nothing in
// the page (the person's edits, issue 29), sent unless the call was
// aborted, without call_sent and without counting as the call's first
// request (a refusal of it says nothing about whether the call did
// anything). Its errors are not worded for the AI: the dispatcher drops them.
func (s *session) Quiet(ctx context.Context, typ string, payload, out any) error {
	if ae := protocol.Aborted(ctx); ae != nil {
		return ae
	}
	raw, err := s.send(ctx, typ, withApp(payload, tools.AppOf(ctx)), s.c.o.timeoutFor(typ))
	if err != nil {
		return err
	}
	if out != nil {
		return json.Unmarshal(raw, out)
	}
	return nil
}

// depart is the extension-call path's one place where an abort is honoured
// (DESIGN §5.5): a request leaves for the extension only if the call was not
// aborted (cancelled, paused, unshared, the owner leaving) and, for a
// forwarded call's first request, its forwarder confirmed it still wants it
// (call_sent: cancelled means never sent, and so does no answer). After
// this, an abort reaches the extension as the wire cancel of the request
// in flight.
func (s *session) depart(ctx context.Context) error {
	if ae := protocol.Aborted(ctx); ae != nil {
		return &abortedError{cause: ae, where: s.t.String(), sent: s.sent.Load() > 0}
	}
	// A forwarded call's forwarder hears that the call leaves for the
	// browser before it does (call_sent), so after this process's death it
	// knows which calls never reached the extension.
	if err := tools.MarkSent(ctx); err != nil {
		if ae := protocol.Aborted(ctx); ae != nil {
			return &abortedError{cause: ae, where: s.t.String()}
		}
		return err
	}
	// The forwarder may have let the call go just as its client cancelled:
	// the cancel arrived after the call was sent, as far as it is
	// concerned, but nothing has left yet, so nothing is sent.
	if ae := protocol.Aborted(ctx); ae != nil {
		return &abortedError{cause: ae, where: s.t.String(), sent: s.sent.Load() > 0}
	}
	return nil
}

// send is one wire request with its timeout. Settled: a cancelled call
// keeps its tab until the extension has answered the cancel (or the
// request's deadline passed), so the next call never reaches a page the
// cancelled one is still working on.
func (s *session) send(ctx context.Context, typ string, payload any, timeout time.Duration) (json.RawMessage, error) {
	ctx, cancel := messaging.WithRequestTimeout(ctx, typ, timeout)
	defer cancel()
	return s.c.peer.RequestSettled(ctx, typ, payload)
}

// withApp adds the calling AI app's name to a request's payload
// (protocol.RequestAppField), for the extension's activity log, popup and
// tab groups. The payload is encoded once, after the app's member, in the
// wire's encoding (no HTML escaping, as messaging writes frames), and the
// bytes go to the peer as they are. A payload that is not a JSON object is
// sent unchanged.
func withApp(payload any, app string) any {
	if app == "" {
		return payload
	}
	var buf bytes.Buffer
	buf.WriteString(`{"` + protocol.RequestAppField + `":`)
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(app) != nil {
		return payload
	}
	buf.Truncate(buf.Len() - 1) // Encode's newline
	at := buf.Len()
	if enc.Encode(payload) != nil {
		return payload
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})
	if len(b) < at+2 || b[at] != '{' {
		return payload
	}
	if b[at+1] == '}' { // an empty object: {"app":…}
		return json.RawMessage(append(b[:at], '}'))
	}
	b[at] = ','
	return json.RawMessage(b)
}

// minRetry is the least time worth a retry of a timed-out read.
const minRetry = 3 * time.Second

// timeLeft is how long ctx has before its deadline (the call's budget).
func timeLeft(ctx context.Context) time.Duration {
	dl, ok := ctx.Deadline()
	if !ok {
		return math.MaxInt64
	}
	return time.Until(dl)
}

func (s *session) explain(ctx context.Context, typ string, retried bool, err error) error {
	var te *messaging.RequestTimeoutError
	var re *messaging.RemoteError
	switch {
	case errors.As(err, &te):
		twice := ""
		if retried {
			twice = " (asked twice)"
		}
		if protocol.IsRetryable(typ) {
			return fmt.Errorf("The browser did not answer %s within %s%s in %s. The page may be busy (a heavy script, a dialog, a slow load). Try again in a moment, or call browser_list_tabs to check the tab is still there.",
				typ, te.Timeout, twice, s.t.String())
		}
		return fmt.Errorf("The browser did not answer %s within %s in %s. It was not retried because it acts on the page and may still happen: take a browser_snapshot to see the page's state before trying again.",
			typ, te.Timeout, s.t.String())
	case errors.As(err, &re):
		if s.t.TabID > 0 && tabGoneCode(re.Code) {
			return &tabGoneError{t: s.t, first: s.sent.Load() == 1}
		}
		if re.Code == protocol.CodePaused {
			// The person pressed Stop in the popup: the extension's
			// sentence is monkbrowse's own (no page content in it).
			return &tools.PausedError{Message: re.Message}
		}
		// The extension's own words may quote the page (an element's
		// name, what a script threw): the dispatcher shows them after
		// the page-content note.
		return &tools.BrowserError{Message: speakSlots(re.Message, s.t)}
	case errors.Is(err, messaging.ErrClosed):
		if s.c.o.stopping() {
			return fmt.Errorf("%s was interrupted: %w.", typ, errShuttingDown)
		}
		return fmt.Errorf("Browser profile %q disconnected while %s was running (Chrome closed, the extension reloaded, or the computer slept), so it is unknown whether it happened. When the profile is back (browser_list_tabs), take a browser_snapshot to check before trying again.",
			s.c.slug, typ)
	case ctx.Err() != nil:
		if ae := protocol.Aborted(ctx); ae != nil {
			return &abortedError{cause: ae, where: s.t.String(), sent: true}
		}
		return fmt.Errorf("%s was cancelled: %w", typ, ctx.Err())
	}
	return fmt.Errorf("Sending %s to the browser failed: %v. Try again; if it keeps failing, reload the monkbrowse extension.", typ, err)
}

// learn keeps the tab cache current from answers that describe tabs; the
// extension's tabs_changed follows anyway, but a call right after must not
// depend on the notify's timing.
func (s *session) learn(typ string, payload any, raw json.RawMessage) {
	reg := s.c.o.reg
	switch typ {
	case protocol.MsgListTabs:
		var res protocol.ListTabsResult
		if json.Unmarshal(raw, &res) == nil {
			reg.updateTabs(s.c, func([]protocol.TabInfo) []protocol.TabInfo { return res.Tabs })
			reg.learnLeft(s.c, res.Left)
		}
	case protocol.MsgNewTab:
		var res protocol.NewTabResult
		req, _ := payload.(protocol.NewTabRequest)
		if json.Unmarshal(raw, &res) == nil && res.TabID != 0 && res.Slot > 0 {
			reg.updateTabs(s.c, func(tabs []protocol.TabInfo) []protocol.TabInfo {
				for _, t := range tabs {
					if t.TabID == res.TabID {
						return tabs
					}
				}
				return append(tabs, protocol.TabInfo{TabID: res.TabID, Slot: res.Slot, URL: req.URL})
			})
		}
	case protocol.MsgCloseTab:
		req, _ := payload.(protocol.CloseTabRequest)
		reg.updateTabs(s.c, func(tabs []protocol.TabInfo) []protocol.TabInfo {
			out := tabs[:0]
			for _, t := range tabs {
				if t.TabID != req.TabID {
					out = append(out, t)
				}
			}
			return out
		})
	case protocol.MsgSwitchTab:
		var res protocol.SwitchTabResult
		if json.Unmarshal(raw, &res) == nil && res.ActiveTabID != 0 {
			reg.updateTabs(s.c, func(tabs []protocol.TabInfo) []protocol.TabInfo {
				win := 0
				for _, t := range tabs {
					if t.TabID == res.ActiveTabID {
						win = t.WindowID
					}
				}
				for i := range tabs {
					if tabs[i].TabID == res.ActiveTabID {
						tabs[i].Active = true
					} else if tabs[i].WindowID == win {
						tabs[i].Active = false
					}
				}
				return tabs
			})
		}
	}
}
