package fakeext

import (
	"context"
	"slices"
	"sort"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// Tab is one browser tab as the fake holds it. Only Shared tabs have a Slot
// and are reported to the server.
type Tab struct {
	ID       int
	WindowID int
	Shared   bool
	Slot     int
	Active   bool
	URL      string
	Title    string
	// Paused: the person paused the AI in this tab (TabInfo.Paused).
	Paused bool
	// Page is the tab's content; nil means Options.PageFor(URL).
	Page *Page
	// History is the tab's session history and HistIdx the current entry;
	// empty means just URL.
	History []string
	HistIdx int
}

func (e *Ext) initTab(t *Tab) {
	if t.Title == "" && t.URL != "" {
		t.Title = e.opts.TitleFor(t.URL)
	}
	if t.Page == nil {
		p := e.opts.PageFor(t.URL)
		t.Page = &p
	}
	if len(t.History) == 0 {
		t.History = []string{t.URL}
		t.HistIdx = 0
	}
}

// Tab returns a copy of the tab with id.
func (e *Ext) Tab(id int) (Tab, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, t := range e.tabs {
		if t.ID == id {
			return copyTab(t), true
		}
	}
	return Tab{}, false
}

// Tabs returns copies of every tab.
func (e *Ext) Tabs() []Tab {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]Tab, len(e.tabs))
	for i, t := range e.tabs {
		out[i] = copyTab(t)
	}
	return out
}

func copyTab(t *Tab) Tab {
	c := *t
	p := t.Page.clone()
	c.Page = &p
	c.History = append([]string(nil), t.History...)
	return c
}

// Page returns a copy of tab id's page (zero Page when there is no such tab).
func (e *Ext) Page(id int) Page {
	t, ok := e.Tab(id)
	if !ok {
		return Page{}
	}
	return *t.Page
}

// SetText sets the extra visible text of tab id's page.
func (e *Ext) SetText(id int, text string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if t := e.tabLocked(id); t != nil {
		t.Page.Text = text
	}
}

// ShareTab shares (giving it the lowest free slot) or unshares tab id and
// tells the server with tabs_changed.
func (e *Ext) ShareTab(ctx context.Context, id int, shared bool) error {
	e.mu.Lock()
	if t := e.tabLocked(id); t != nil && t.Shared != shared {
		t.Shared = shared
		t.Slot = 0
		if shared {
			t.Slot = e.freeSlotLocked()
		}
	}
	e.mu.Unlock()
	return e.SendTabsChanged(ctx)
}

// SetShared shares or unshares tab id like ShareTab but without telling
// the server, so that the server's cache is stale until it asks list_tabs.
func (e *Ext) SetShared(id int, shared bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if t := e.tabLocked(id); t != nil && t.Shared != shared {
		t.Shared = shared
		t.Slot = 0
		if shared {
			t.Slot = e.freeSlotLocked()
		}
	}
}

// RemoveTab closes tab id as the person would, without telling the server
// (the real extension's tabs_changed comes ~200 ms later, debounced): the
// server's cache still names the tab until it asks list_tabs or is told
// with SendTabsChanged. Its slot is free for the next ShareTab/SetShared.
func (e *Ext) RemoveTab(id int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for i, t := range e.tabs {
		if t.ID == id {
			e.tabs = append(e.tabs[:i:i], e.tabs[i+1:]...)
			return
		}
	}
}

// SendTabsChanged notifies the server of the current shared tabs.
func (e *Ext) SendTabsChanged(ctx context.Context) error {
	e.mu.Lock()
	tabs := e.sharedLocked()
	paused := e.paused
	e.mu.Unlock()
	return e.peer.Notify(ctx, protocol.MsgTabsChanged, protocol.TabsChanged{Tabs: tabs, Paused: paused})
}

// SetPaused is the person's Stop (paused) or Resume in the popup, for the
// whole profile or, given tab ids, for those tabs only (the others are
// resumed), told to the server with tabs_changed at once as the real
// extension does. The fake itself refuses nothing: what reaches it was sent.
func (e *Ext) SetPaused(ctx context.Context, paused bool, tabIDs ...int) error {
	e.mu.Lock()
	if len(tabIDs) == 0 {
		e.paused = paused
	}
	for _, t := range e.tabs {
		if len(tabIDs) > 0 {
			t.Paused = paused && slices.Contains(tabIDs, t.ID)
		}
	}
	e.mu.Unlock()
	return e.SendTabsChanged(ctx)
}

func (e *Ext) sharedLocked() []protocol.TabInfo {
	out := []protocol.TabInfo{}
	for _, t := range e.tabs {
		if t.Shared {
			out = append(out, protocol.TabInfo{TabID: t.ID, Slot: t.Slot, URL: t.URL, Title: t.Title, Active: t.Active, WindowID: t.WindowID, Paused: t.Paused})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Slot < out[j].Slot })
	return out
}

func (e *Ext) freeSlotLocked() int {
	used := map[int]bool{}
	for _, t := range e.tabs {
		if t.Shared {
			used[t.Slot] = true
		}
	}
	for n := 1; ; n++ {
		if !used[n] {
			return n
		}
	}
}

func (e *Ext) tabLocked(id int) *Tab {
	for _, t := range e.tabs {
		if t.ID == id {
			return t
		}
	}
	return nil
}
