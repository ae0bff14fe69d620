package owner

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/tools"
)

// browser is the owner's tools.Browser: resolution over the registry, the
// per-tab queues, and sessions with timeouts and retry.
type browser struct{ o *Owner }

var _ tools.Browser = browser{}

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
	return fn(ctx, t, &session{c: c, t: t})
}

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
	release, err := c.queues.acquire(ctx, tab.TabID)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("the call was cancelled while it waited for its turn on %s: %w", whereTarget(t), err)
		}
		return err
	}
	defer release()
	select {
	case <-c.peer.Done():
		// The connection closed while this call waited: the turn was
		// handed on before the queue heard of it. Send nothing.
		return c.disconnectedError()
	default:
	}
	return fn(ctx, t, &session{c: c, t: t})
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
	list := make([]string, len(tabs))
	for i, t := range tabs {
		title := t.Title
		if title == "" {
			title = "(no title)"
		}
		list[i] = fmt.Sprintf("%d (%s — %s)", t.Slot, title, t.URL)
	}
	if slot > 0 {
		return fmt.Errorf("Profile %q has no shared tab %d. Its shared tabs: %s. Pass one of these numbers as `tab`; a tab the person has not shared cannot be used (they can share it from the monkbrowse icon).", slug, slot, strings.Join(list, "; "))
	}
	return fmt.Errorf("Profile %q has %d shared tabs and none is clearly the active one, so pass `tab`: %s.", slug, len(tabs), strings.Join(list, "; "))
}
