package tools

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// askStopBrowser is one tab whose ask_wait stops its call the way the
// test says (the app's cancel, Stop, an unshare) and answers as the wire
// does then: the call's error, whatever the extension did. It records each
// ask_end with whether its context was still live when sent.
type askStopBrowser struct {
	stop   func() // cancels the call's context
	stopAt string // the request the stop comes during (ask_wait when "")
	asked  []protocol.AskUserRequest

	mu   sync.Mutex
	ends []protocol.AskEndRequest
	live []bool
}

func (b *askStopBrowser) Profiles(context.Context, bool) ([]ProfileInfo, error) { return nil, nil }

func (b *askStopBrowser) WithTab(ctx context.Context, _ string, _ int, fn func(context.Context, Target, Session) error) error {
	return fn(ctx, Target{Slug: "work", Label: "Work", TabID: 7, Slot: 1}, b)
}

func (b *askStopBrowser) WithProfile(ctx context.Context, _ string, fn func(context.Context, Target, Session) error) error {
	return fn(ctx, Target{Slug: "work", Label: "Work"}, b)
}

func (b *askStopBrowser) Request(ctx context.Context, typ string, payload, out any) error {
	switch typ {
	case protocol.MsgAskUser:
		b.asked = append(b.asked, payload.(protocol.AskUserRequest))
		if b.stopAt == protocol.MsgAskUser {
			// The extension showed the ask; its answer (the ask's id)
			// crosses the cancel and is lost.
			b.stop()
			<-ctx.Done()
			return context.Cause(ctx)
		}
		*out.(*protocol.AskResult) = protocol.AskResult{TabID: 7, AskID: "k3v9", State: protocol.AskPending, Created: time.Now().UnixMilli()}
	case protocol.MsgAskWait:
		// The stop reaches the server while the wait is out; the
		// extension's own answer (pending, its slice was over) is lost
		// to the cancelled request.
		b.stop()
		<-ctx.Done()
		return context.Cause(ctx)
	case protocol.MsgAskEnd:
		b.mu.Lock()
		b.ends = append(b.ends, payload.(protocol.AskEndRequest))
		b.live = append(b.live, ctx.Err() == nil)
		b.mu.Unlock()
		*out.(*protocol.AskEndResult) = protocol.AskEndResult{Ended: true}
	}
	return nil
}

// TestAskUserStoppedEndsTheAsk: when the app cancels a browser_ask_user
// call while it waits, the server tells the extension to end the ask
// (ask_end, on a context the cancel does not end), whatever the extension
// answered the wait: otherwise the person would see the notice for a
// request nobody waits for, until AskMaxWait. The waitId is used up.
// Stop and an unshare end the tab's asks in the extension by themselves,
// so nothing is sent for them.
func TestAskUserStoppedEndsTheAsk(t *testing.T) {
	for _, c := range []struct {
		name  string
		cause error
		want  string // the why sent; "" for no ask_end
	}{
		{"the app cancels", context.Canceled, "the AI app cancelled the call that waited for it"},
		{"the app cancels (its cause)", protocol.ClientCancelled, "the AI app cancelled the call that waited for it"},
		{"Stop", protocol.Abort(protocol.CodePaused, "the person paused the AI"), ""},
		{"unshare", protocol.Abort(protocol.CodeUnshared, "the person stopped sharing tab 1"), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			b := &askStopBrowser{stop: func() { cancel(c.cause) }}
			d := NewDispatcher(b, nil)
			res, _ := d.CallTool(WithClient(ctx, "app"), protocol.CallTool{Name: "browser_ask_user", Args: []byte(`{"message":"Please approve the login on your phone."}`)})
			if !res.IsError {
				t.Fatalf("a stopped ask answered as if it waited: %+v", res)
			}
			if c.want == "" {
				if len(b.ends) != 0 {
					t.Fatalf("ask_end sent for an ask Stop or the unshare ended: %+v", b.ends)
				}
				return
			}
			if len(b.ends) != 1 || b.ends[0].AskID != "k3v9" || b.ends[0].Why != c.want {
				t.Fatalf("ask_end sent %+v, want one for k3v9 saying %q", b.ends, c.want)
			}
			if !b.live[0] {
				t.Error("ask_end was sent on the stopped call's context: it never leaves")
			}
			r := call(t, d, context.Background(), "browser_ask_user", map[string]any{"waitId": "k3v9"})
			if !r.IsError || !strings.Contains(r.Content[0].Text, "no ask waiting") {
				t.Errorf("the stopped ask's waitId still waits: %+v", r)
			}
		})
	}
}

// TestAskUserCancelledWhileShownEndsTheAsk: the app's cancel can cross
// the extension's answer to browser_ask_user (the notice is up; the ask's
// id is lost with the answer). The server named the ask in its request,
// so it ends that ask.
func TestAskUserCancelledWhileShownEndsTheAsk(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b := &askStopBrowser{stop: cancel, stopAt: protocol.MsgAskUser}
	d := NewDispatcher(b, nil)
	res, _ := d.CallTool(WithClient(ctx, "app"), protocol.CallTool{Name: "browser_ask_user", Args: []byte(`{"message":"Please approve the login on your phone."}`)})
	if !res.IsError {
		t.Fatalf("a cancelled ask answered: %+v", res)
	}
	if len(b.asked) != 1 || len(b.asked[0].AskID) != 12 || strings.Trim(b.asked[0].AskID, "0123456789abcdef") != "" {
		t.Fatalf("browser_ask_user did not name its ask (12 hex digits): %+v", b.asked)
	}
	if len(b.ends) != 1 || b.ends[0].AskID != b.asked[0].AskID || !b.live[0] {
		t.Fatalf("ask_end %+v (live %v), want one for %q on a live context", b.ends, b.live, b.asked[0].AskID)
	}
	// Two asks get two names.
	b2 := &askStopBrowser{stop: func() {}}
	d = NewDispatcher(b2, nil)
	for range 2 {
		c, cc := context.WithCancel(context.Background())
		b2.stop = cc
		_, _ = d.CallTool(WithClient(c, "app"), protocol.CallTool{Name: "browser_ask_user", Args: []byte(`{"message":"x"}`)})
		cc()
	}
	if len(b2.asked) != 2 || b2.asked[0].AskID == b2.asked[1].AskID {
		t.Errorf("asks named %+v", b2.asked)
	}
}
