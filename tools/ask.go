package tools

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// browser_ask_user (issue 29, DESIGN §7.2): the AI hands the tab to the
// person. The extension shows the message in its popup only, with Done and
// Decline (the tab shows a neutral notice: issue 40), and keeps the ask
// in its session storage; the server only waits in slices. One call waits
// at most AskSlice (below the call budget), then answers with a waitId; a
// call with that waitId waits one more slice, until the person answers or
// protocol.AskMaxWait has passed since the ask began. Only the wait goes
// outside the tab's turn: other calls to the tab are not held up while the
// person works in it.

// DefaultAskSlice is the longest one browser_ask_user call waits for the
// person: below CallBudget, with room for the snapshot that follows an
// answer (DECISIONS.md).
const DefaultAskSlice = 50 * time.Second

// askReserve is what a slice leaves of the call's budget for the answer's
// snapshot and the way back.
const askReserve = 4 * time.Second

// maxAskMessage bounds the message shown to the person.
const maxAskMessage = 500

// askEntry is one ask the AI may keep waiting for.
type askEntry struct {
	id      string
	slug    string
	slot    int
	tabID   int
	target  string // the Target's String(), for messages
	created time.Time
}

// askStore keeps the asks by waitId (the extension's ask id) until they
// are answered, end, or are older than protocol.AskMaxWait.
type askStore struct {
	mu    sync.Mutex
	items map[string]askEntry
}

func (s *askStore) put(e askEntry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.items == nil {
		s.items = make(map[string]askEntry)
	}
	for id, old := range s.items {
		if time.Since(old.created) > protocol.AskMaxWait+time.Minute {
			delete(s.items, id)
		}
	}
	s.items[e.id] = e
}

func (s *askStore) get(id string) (askEntry, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.items[id]
	return e, ok
}

func (s *askStore) forget(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.items, id)
}

func (d dispatch) askUser(ctx context.Context, a protocol.AskUserArgs) (protocol.CallToolResult, error) {
	if a.WaitID != "" {
		if strings.TrimSpace(a.Message) != "" {
			return protocol.CallToolResult{}, errors.New("browser_ask_user takes either `message` (ask the person something new) or `waitId` (keep waiting for an earlier ask), not both. Call it again with one of them.")
		}
		e, ok := d.asks.get(a.WaitID)
		if !ok {
			return protocol.CallToolResult{}, fmt.Errorf("There is no ask waiting with waitId %q: it was answered and reported already, it ended, or monkbrowse restarted. Call browser_ask_user with a `message` to ask the person again.", clip(a.WaitID, maxEcho))
		}
		return d.askWait(ctx, e)
	}
	msg := strings.TrimSpace(a.Message)
	if msg == "" {
		return protocol.CallToolResult{}, errors.New("browser_ask_user needs `message`: what the person should do in the tab (\"Please sign in, then press Done\"), or `waitId` from an earlier answer to keep waiting. Call it again with one of them.")
	}
	if n := utf8.RuneCountInString(msg); n > maxAskMessage {
		return protocol.CallToolResult{}, fmt.Errorf("browser_ask_user's `message` has %d characters; the banner shows at most %d. Say it shorter and call again.", n, maxAskMessage)
	}
	var res protocol.AskResult
	var target Target
	id := newAskID()
	err := d.b.WithTab(ctx, a.Profile, a.Tab, func(ctx context.Context, t Target, s Session) error {
		target = t
		return s.Request(ctx, protocol.MsgAskUser, protocol.AskUserRequest{TabID: t.TabID, Message: msg, AskID: id}, &res)
	})
	if err != nil {
		if ctx.Err() != nil && target.Slug != "" {
			// Cancelled while the request was out: the extension may have
			// shown it, its answer lost to the cancel.
			d.endAsk(ctx, askEntry{id: id, slug: target.Slug})
		}
		return protocol.CallToolResult{}, err
	}
	if res.AskID == "" {
		return protocol.CallToolResult{}, errors.New("the extension showed no request to the person (it answered without an ask id); update the monkbrowse extension, then call browser_ask_user again.")
	}
	e := askEntry{id: res.AskID, slug: target.Slug, slot: target.Slot, tabID: target.TabID, target: target.String(), created: time.Now()}
	if res.Created > 0 {
		e.created = time.UnixMilli(res.Created)
	}
	d.asks.put(e)
	return d.askWait(ctx, e)
}

// newAskID is the server's name for a new ask: 12 random lowercase hex
// digits, the extension's own form (not guessable by a page).
func newAskID() string {
	var b [6]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

// askSlice is how long this call may wait: AskSlice, shortened to what the
// call's budget leaves after askReserve, and to what is left of the ask's
// AskMaxWait.
func (d dispatch) askSlice(ctx context.Context, e askEntry) time.Duration {
	s := d.opts.AskSlice
	if dl, ok := ctx.Deadline(); ok {
		s = min(s, time.Until(dl)-askReserve)
	}
	s = min(s, protocol.AskMaxWait-time.Since(e.created))
	return max(s, 0)
}

func (d dispatch) askWait(ctx context.Context, e askEntry) (protocol.CallToolResult, error) {
	start := time.Now()
	slice := d.askSlice(ctx, e)
	var res protocol.AskResult
	err := d.b.WithProfile(ctx, e.slug, func(ctx context.Context, _ Target, s Session) error {
		return s.Request(ctx, protocol.MsgAskWait, protocol.AskWaitRequest{AskID: e.id, WaitMs: int(slice / time.Millisecond)}, &res)
	})
	if err != nil {
		// Stop and cancellation end the ask in the extension; anything
		// else (a reconnecting extension) leaves it for the next call.
		if ctx.Err() != nil || errors.As(err, new(*PausedError)) {
			d.asks.forget(e.id)
		}
		if ctx.Err() != nil {
			d.endAsk(ctx, e)
		}
		return protocol.CallToolResult{}, err
	}
	switch res.State {
	case protocol.AskPending:
		total := time.Since(e.created).Round(time.Second)
		return TextResult(fmt.Sprintf("The person has not answered yet (waited %s in this call, %s since you asked; the request is shown in %s and in the monkbrowse popup). "+
			"Call browser_ask_user with waitId %q to keep waiting (up to %s in all); do not act in the tab meanwhile.",
			time.Since(start).Round(time.Second), total, e.target, e.id, protocol.AskMaxWait)), nil
	case protocol.AskDone, protocol.AskDeclined:
		d.asks.forget(e.id)
		return d.askAnswered(ctx, e, res)
	case protocol.AskExpired:
		d.asks.forget(e.id)
		return TextResult(fmt.Sprintf("The person did not answer within %s, so the request was taken down from %s. Ask them in the chat, or call browser_ask_user again.", protocol.AskMaxWait, e.target)), nil
	default:
		d.asks.forget(e.id)
		why := strings.TrimSpace(res.Why)
		if why == "" {
			why = "it was taken down"
		}
		return TextResult(fmt.Sprintf("The request in %s ended without an answer: %s. Ask the person in the chat what to do.", e.target, clip(why, 200))), nil
	}
}

// endAsk tells the extension that nothing waits for ask e any more: the
// call that waited for it was stopped (its app cancelled it). The
// extension's abort of the wait ends the ask as well, but the stop can
// reach it before the wait does (between browser_ask_user and ask_wait,
// or while the wait is being set up), after the wait answered pending, or
// while browser_ask_user itself was out (its answer, the ask's id, lost to
// the cancel: the server named the ask for this);
// then only this takes the notice down before protocol.AskMaxWait. Sent
// after the stop, so on a context without its cancel, bounded by
// protocol.AskEndTimeout; an ask that ended already is left alone, and a
// failure (an older extension, a closed connection) changes nothing for the
// stopped call. Stop and an unshare end the tab's asks in the extension
// whatever waits for them, so they need none.
func (d dispatch) endAsk(ctx context.Context, e askEntry) {
	if ae := protocol.Aborted(ctx); ae != nil && (ae.Code == protocol.CodeUnshared || ae.Code == protocol.CodePaused) {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), protocol.AskEndTimeout)
	defer cancel()
	err := d.b.WithProfile(ctx, e.slug, func(ctx context.Context, _ Target, s Session) error {
		req := protocol.AskEndRequest{AskID: e.id, Why: "the AI app cancelled the call that waited for it"}
		var res protocol.AskEndResult
		if q, ok := s.(QuietSession); ok {
			return q.Quiet(ctx, protocol.MsgAskEnd, req, &res)
		}
		return s.Request(ctx, protocol.MsgAskEnd, req, &res)
	})
	if err != nil {
		d.opts.Logger.Debug("ending an ask whose call was stopped failed", "askId", e.id, "err", err)
	}
}

// askAnswered reports the answer with what changed in the page meanwhile:
// the changes since the app's last snapshot of the tab (the diff of every
// action; secret fields are masked in the snapshot itself).
func (d dispatch) askAnswered(ctx context.Context, e askEntry, res protocol.AskResult) (protocol.CallToolResult, error) {
	where := "in the page"
	if res.AnsweredIn == "popup" {
		where = "in the monkbrowse popup"
	}
	after := ""
	if res.Created > 0 {
		after = fmt.Sprintf(" after %s", time.Since(time.UnixMilli(res.Created)).Round(time.Second))
	}
	var head string
	if res.State == protocol.AskDone {
		head = fmt.Sprintf("The person pressed Done (%s)%s: they say the step is done in %s. Check the page below before going on.", where, after, e.target)
	} else {
		head = fmt.Sprintf("The person pressed Decline (%s)%s in %s: do not do this step; ask them in the chat what they want instead.", where, after, e.target)
	}
	var out string
	err := d.b.WithTab(ctx, e.slug, e.slot, func(ctx context.Context, t Target, s Session) error {
		if t.TabID != e.tabID {
			out = head + "\n\nThe tab's number now names another tab, so no snapshot follows: call browser_list_tabs."
			return nil
		}
		var snap protocol.SnapshotResult
		if err := s.Request(ctx, protocol.MsgSnapshot, protocol.TabRequest{TabID: t.TabID}, &snap); err != nil {
			why, quote := failureParts(err)
			out = withPage(head+"\n\nThe snapshot of the page failed"+why+" Call browser_snapshot to see it.", quote)
			return nil
		}
		cleanSnapshot(&snap)
		budget := DefaultMaxTokens - EstimateTokens(head) - 1
		out = head + "\n\n" + d.formatAfterAction(t, snap, formatDialogs(snap.Dialogs), budget, "")
		return nil
	})
	if err != nil {
		// The answer stands; only the picture of the page is missing.
		why, quote := failureParts(err)
		out = withPage(head+"\n\nThe page could not be read"+why+" Call browser_snapshot to see it.", quote)
	}
	return TextResult(out), nil
}
