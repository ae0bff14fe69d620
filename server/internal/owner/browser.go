package owner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/tools"
)

// browser is the owner's tools.Browser: resolution over the registry, the
// per-tab queues, and sessions with timeouts and retry.
type browser struct{ o *Owner }

var (
	_ tools.Browser = browser{}
	_ tools.Placer  = browser{}
)

func (b browser) Profiles(ctx context.Context, refresh bool) ([]tools.ProfileInfo, error) {
	if refresh {
		// list_tabs is a profile-wide read: it takes no tab's turn.
		var wg sync.WaitGroup
		for _, c := range b.o.reg.live() {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s := &session{c: c, t: b.o.reg.targetOf(c)}
				if err := s.Request(ctx, protocol.MsgListTabs, protocol.ListTabsRequest{}, nil); err != nil {
					b.o.log.Debug().Err(err).Str("profile", c.slug).Msg("list_tabs refresh failed; using the cached tabs")
				}
			}()
		}
		wg.Wait()
	}
	return b.o.reg.list(), nil
}

func (b browser) WithProfile(ctx context.Context, ref string, fn func(context.Context, tools.Target, tools.Session) error) error {
	t, c, err := b.o.reg.resolve(ctx, b.o.stop, ref, b.o.cfg.ReconnectWait, b.o.setupHelp)
	if err != nil {
		return err
	}
	b.o.gate.place(ctx, t.ProfileID, 0, true)
	return fn(ctx, t, &session{c: c, t: t})
}

// Place implements tools.Placer: ctx's call is tied to the profile ref
// names if the registry can tell it now (connected or not), without
// waiting or marking it acted on.
func (b browser) Place(ctx context.Context, ref string) {
	b.o.reg.mu.Lock()
	p, err := b.o.reg.lookupLocked(ref)
	var id, slug string
	if err == nil {
		id, slug = p.id, p.slug
	}
	b.o.reg.mu.Unlock()
	if err == nil {
		b.o.gate.place(ctx, id, 0, true)
		b.o.log.Debug().Str("profile", slug).Msg(LogWaitPlaced)
	}
}

// Debug log lines of the queues (the e2e suite waits for them to know a
// call is where it means it to be).
const (
	LogCallQueued = "a call waits for its tab's turn behind a running call"
	LogWaitPlaced = "a time-only browser_wait is tied to its profile: Stop there ends it"
)

func (b browser) WithTab(ctx context.Context, ref string, slot int, fn func(context.Context, tools.Target, tools.Session) error) error {
	t, c, err := b.o.reg.resolve(ctx, b.o.stop, ref, b.o.cfg.ReconnectWait, b.o.setupHelp)
	if err != nil {
		return err
	}
	tab, err := b.pickTab(ctx, c, t, slot)
	if err != nil {
		return err
	}
	t.TabID, t.Slot = tab.TabID, tab.Slot
	err = b.onTab(ctx, c, t, fn)
	var gone *tabGoneError
	if !errors.As(err, &gone) || !gone.first {
		return err
	}
	// The extension refused the tab before doing anything: the cached
	// tabs were stale (the tab was closed or unshared, and its number may
	// already belong to another tab; tabs_changed is on its way). Ask once
	// and repeat the call on the tab that holds the number now. Safe even
	// for actions: nothing was done.
	c = b.o.reg.current(c) // the profile may have reconnected meanwhile
	var fresh protocol.ListTabsResult
	s := &session{c: c, t: tools.Target{ProfileID: t.ProfileID, Slug: t.Slug, Label: t.Label}}
	if lerr := s.Request(ctx, protocol.MsgListTabs, protocol.ListTabsRequest{}, &fresh); lerr != nil {
		return gone
	}
	tabs := sharedTabs(fresh.Tabs)
	next, ok := chooseTab(tabs, slot)
	if !ok {
		if why := b.o.reg.leftReach(c, slot); why != "" {
			return leftReachError(why, tabs)
		}
		return staleTabError(gone.t, slot, tabs)
	}
	if next.TabID == gone.t.TabID {
		// Listed as shared yet refused: do not loop; say what happened.
		return gone
	}
	b.o.log.Debug().Str("profile", t.Slug).Int("slot", slot).Int("staleTabId", gone.t.TabID).Int("tabId", next.TabID).
		Msg("the cached tab was gone; repeating the call on the tab that holds the number now")
	t.TabID, t.Slot = next.TabID, next.Slot
	return b.onTab(ctx, c, t, fn)
}

// onTab runs fn during t's tab's turn. The queue is the profile's, so a
// call keeps its place while the extension reconnects: when its turn comes
// and the connection it was resolved on has closed, it waits for the
// profile to come back (up to ReconnectWait after the disconnect) and runs
// on the new connection; nothing was sent before, so nothing is repeated.
func (b browser) onTab(ctx context.Context, c *conn, t tools.Target, fn func(context.Context, tools.Target, tools.Session) error) error {
	b.o.gate.place(ctx, t.ProfileID, t.TabID, false)
	release, err := c.prof.queues.acquire(ctx, t.TabID, func() {
		b.o.log.Debug().Str("profile", t.Slug).Int("tab", t.Slot).Msg(LogCallQueued)
		b.o.gate.stepped()
	})
	if err != nil {
		if ae := protocol.Aborted(ctx); ae != nil {
			return &abortedError{cause: ae, where: t.String()}
		}
		if errors.Is(context.Cause(ctx), tools.ErrCallBudget) {
			return fmt.Errorf("This call waited for its turn on %s until monkbrowse's %s limit per call ran out (earlier calls to the tab were slow); nothing was sent to the page. Take a browser_snapshot to see the tab's state, then try again.", t.String(), tools.CallBudget)
		}
		if ctx.Err() != nil {
			return fmt.Errorf("the call was cancelled while it waited for its turn on %s: %w", t.String(), err)
		}
		return err
	}
	defer release()
	b.o.gate.place(ctx, t.ProfileID, t.TabID, true)
	if ctx.Err() != nil {
		// Cancelled as its turn came: nothing is sent.
		if ae := protocol.Aborted(ctx); ae != nil {
			return &abortedError{cause: ae, where: t.String()}
		}
		return fmt.Errorf("the call was cancelled before its turn on %s; nothing was sent: %w", t.String(), ctx.Err())
	}
	if c.peer.Err() != nil {
		// The connection closed while this call waited (or before it
		// was resolved): wait for the profile's reconnect, holding the
		// turn so the calls behind keep their order.
		nc, err := b.o.reg.reconnected(ctx, b.o.stop, c, b.o.cfg.ReconnectWait)
		if err != nil {
			if errors.Is(context.Cause(ctx), tools.ErrCallBudget) {
				return fmt.Errorf("This call waited for %s to reconnect until monkbrowse's %s limit per call ran out; nothing was sent to the page. Call browser_list_tabs to see when it is back, then try again.", t.String(), tools.CallBudget)
			}
			if ctx.Err() != nil {
				return fmt.Errorf("the call was cancelled while %s was reconnecting; nothing was sent: %w", t.String(), ctx.Err())
			}
			return err
		}
		b.o.log.Debug().Str("profile", t.Slug).Int("tabId", t.TabID).Msg("the profile reconnected while this call waited for its turn; running it on the new connection")
		c = nc
	}
	return fn(ctx, t, &session{c: c, t: t})
}

// staleTabError answers a call whose tab turned out to be gone when the
// fresh list has no tab for it: slot's number is free now (or, for an
// omitted tab, no shared tab is clearly the one to use).
func staleTabError(was tools.Target, slot int, tabs []protocol.TabInfo) error {
	lead := fmt.Sprintf("%s is no longer shared with monkbrowse: the tab was closed, or the person switched Share off for it. Nothing was done.", tools.Capitalize(was.String()))
	if len(tabs) == 0 {
		return fmt.Errorf("%s Profile %q has no shared tabs now. Ask the person to click the monkbrowse icon in that Chrome profile and switch Share on for the tab you should use, or open a new (automatically shared) tab with browser_new_tab.", lead, was.Slug)
	}
	if slot > 0 {
		return fmt.Errorf("%s Its shared tabs now: %s. Pass one of these numbers as `tab`.", lead, listTabs(tabs))
	}
	return fmt.Errorf("%s Profile %q has %d shared tabs and none is clearly the active one, so pass `tab`: %s.", lead, was.Slug, len(tabs), listTabs(tabs))
}

// pickTab finds the shared tab slot names (0: the active shared tab, else
// the only one), asking the extension for its tabs once before failing.
func (b browser) pickTab(ctx context.Context, c *conn, t tools.Target, slot int) (protocol.TabInfo, error) {
	tabs := b.o.reg.tabsOf(c)
	if tab, ok := chooseTab(tabs, slot); ok {
		return tab, nil
	}
	s := &session{c: c, t: t}
	if err := s.Request(ctx, protocol.MsgListTabs, protocol.ListTabsRequest{}, nil); err != nil {
		return protocol.TabInfo{}, err
	}
	tabs = b.o.reg.tabsOf(c)
	if tab, ok := chooseTab(tabs, slot); ok {
		return tab, nil
	}
	if why := b.o.reg.leftReach(c, slot); why != "" {
		return protocol.TabInfo{}, leftReachError(why, tabs)
	}
	return protocol.TabInfo{}, tabError(t.Slug, slot, tabs)
}

func chooseTab(tabs []protocol.TabInfo, slot int) (protocol.TabInfo, bool) {
	if slot > 0 {
		for _, t := range tabs {
			if t.Slot == slot {
				return t, true
			}
		}
		return protocol.TabInfo{}, false
	}
	var active []protocol.TabInfo
	for _, t := range tabs {
		if t.Active {
			active = append(active, t)
		}
	}
	switch {
	case len(active) == 1:
		return active[0], true
	case len(tabs) == 1:
		return tabs[0], true
	}
	return protocol.TabInfo{}, false
}

func tabError(slug string, slot int, tabs []protocol.TabInfo) error {
	if len(tabs) == 0 {
		return fmt.Errorf("Profile %q has no shared tabs, so monkbrowse may not touch any of its tabs. Ask the person to click the monkbrowse icon in that Chrome profile and switch Share on for the tab you should use, or open a new (automatically shared) tab with browser_new_tab.", slug)
	}
	if slot > 0 {
		return fmt.Errorf("Profile %q has no shared tab %d. Its shared tabs: %s. Pass one of these numbers as `tab`; a tab the person has not shared cannot be used (they can share it from the monkbrowse icon).", slug, slot, listTabs(tabs))
	}
	return fmt.Errorf("Profile %q has %d shared tabs and none is clearly the active one, so pass `tab`: %s.", slug, len(tabs), listTabs(tabs))
}

// listTabs describes shared tabs by number, title and URL.
func listTabs(tabs []protocol.TabInfo) string {
	list := make([]string, len(tabs))
	for i, t := range tabs {
		title := t.Title
		if title == "" {
			title = "(no title)"
		}
		list[i] = fmt.Sprintf("%d (%s — %s)", t.Slot, title, t.URL)
	}
	return strings.Join(list, "; ")
}
