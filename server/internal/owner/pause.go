package owner

import (
	"context"
	"fmt"
	"maps"
	"time"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// The person's Stop (issue 28, DESIGN §7.1): the extension reports the
// pause of its whole profile and of each tab in tabs_changed (and in its
// auth); the owner then answers every call there with code paused without
// sending it, and ends the calls in flight there, time-only waits included.

// setPause records the pause c's profile reports and returns what it newly
// pauses: the whole profile, and the tabs paused now that were not.
func (r *registry) setPause(c *conn, paused bool, tabs []protocol.TabInfo) (profileNow bool, tabsNow map[int]int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := c.prof
	if p == nil || (p.conn != c && p.pending != c) {
		return false, nil
	}
	return p.setPauseLocked(r, paused, tabs)
}

// setPauseLocked is setPause under r.mu.
func (p *profile) setPauseLocked(r *registry, paused bool, tabs []protocol.TabInfo) (profileNow bool, tabsNow map[int]int) {
	next := map[int]int{}
	for _, t := range tabs {
		if t.Paused && t.TabID != 0 {
			next[t.TabID] = t.Slot
		}
	}
	tabsNow = map[int]int{}
	for id, slot := range next {
		if _, was := p.pausedTabs[id]; !was {
			tabsNow[id] = slot
		}
	}
	profileNow = paused && !p.paused
	if paused != p.paused || !maps.Equal(next, p.pausedTabs) {
		r.notifyLocked()
	}
	p.paused, p.pausedTabs = paused, next
	return profileNow, tabsNow
}

// pauseOf is why a call on profileID's tab tabID (0: the profile only) may
// not be sent now, or nil: the person paused the AI in the profile or in
// that tab.
func (r *registry) pauseOf(profileID string, tabID int) *protocol.AbortError {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.profiles[profileID]
	switch {
	case p == nil:
		return nil
	case p.paused:
		return pausedAbort("in this browser profile")
	}
	if slot, ok := p.pausedTabs[tabID]; ok && tabID != 0 {
		return pausedAbort(fmt.Sprintf("in tab %d", slot))
	}
	return nil
}

// LogPausedAborted is logged (debug) when the person's Stop ended calls in
// flight (queued ones never sent).
const LogPausedAborted = "the person paused the AI: calls in flight there were stopped"

// pausedNow is what c's profile has paused now: the whole profile, and the
// tabs paused on their own.
func (r *registry) pausedNow(c *conn) (bool, map[int]int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return c.prof.paused, maps.Clone(c.prof.pausedTabs)
}

// applyAuthPause stops the calls in flight on whatever c's profile is
// paused in as it connects (admit took the auth's pause before the profile
// could be used): calls that waited for it to come back are never sent.
func (o *Owner) applyAuthPause(c *conn) {
	whole, tabs := o.reg.pausedNow(c)
	o.abortPaused(c, whole, tabs)
}

// applyPause takes the pause c's profile reports: the calls in flight on
// what is newly paused are stopped (DESIGN §5.5; queued ones are never
// sent), and later calls there are refused as they are placed (gate.place).
func (o *Owner) applyPause(c *conn, paused bool, tabs []protocol.TabInfo) {
	whole, tabsNow := o.reg.setPause(c, paused, tabs)
	o.abortPaused(c, whole, tabsNow)
}

// abortPaused stops the calls in flight on c's profile (whole) or on tabs
// because the person paused the AI there.
func (o *Owner) abortPaused(c *conn, whole bool, tabs map[int]int) {
	id := c.prof.id
	if whole {
		n := o.gate.abort(func(r *callRec) bool { return r.profileID == id }, pausedAbort("in this browser profile"))
		o.log.Debug().Str("profile", c.slug).Int("calls", n).Msg(LogPausedAborted)
	}
	for tabID, slot := range tabs {
		n := o.gate.abort(func(r *callRec) bool { return r.profileID == id && r.tabID == tabID }, pausedAbort(fmt.Sprintf("in tab %d", slot)))
		o.log.Debug().Str("profile", c.slug).Int("tab", slot).Int("calls", n).Msg(LogPausedAborted)
	}
}

// refusedNoticeWait bounds the write of one MsgRefused: the refused call's
// answer waits for it (a stuck socket must not hold the answer).
const refusedNoticeWait = time.Second

// LogRefusedTold is logged (debug) when the extension was told of a call
// the pause stopped before it was sent.
const LogRefusedTold = "told the extension of a call refused while paused"

// tellRefused tells profileID's extension of a call the person's pause
// stopped before anything was sent (protocol.MsgRefused), so its activity
// log records the attempt; the extension never saw it otherwise. Best
// effort: a profile that is not connected now is not told.
func (o *Owner) tellRefused(ctx context.Context, profileID string, tabID int, call protocol.CallTool) {
	c := o.reg.connOf(profileID)
	if c == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), refusedNoticeWait)
	defer cancel()
	if err := c.peer.Notify(ctx, protocol.MsgRefused, protocol.Refused{Tool: call.Name, TabID: tabID, App: call.App}); err != nil {
		o.log.Debug().Err(err).Str("profile", c.slug).Msg("could not tell the extension of a call refused while paused")
		return
	}
	o.log.Debug().Str("profile", c.slug).Str("tool", call.Name).Int("tabId", tabID).Msg(LogRefusedTold)
}

// connOf is profileID's live connection, or nil.
func (r *registry) connOf(profileID string) *conn {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p := r.profiles[profileID]; p != nil {
		return p.conn
	}
	return nil
}
