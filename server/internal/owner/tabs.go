package owner

import (
	"slices"
	"sort"

	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/tools"
)

// setTabs replaces the tab cache of c's profile, if c is still its
// connection, and returns the tabs that were shared and are not any more
// (the person switched Share off, or closed them).
func (r *registry) setTabs(c *conn, tabs []protocol.TabInfo) (gone []protocol.TabInfo) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := c.prof
	if p == nil || (p.conn != c && p.pending != c) {
		return nil
	}
	next := sharedTabs(tabs)
	for _, old := range p.tabs {
		if !slices.ContainsFunc(next, func(t protocol.TabInfo) bool { return t.TabID == old.TabID }) {
			gone = append(gone, old)
		}
	}
	p.tabs = next
	r.notifyLocked()
	return gone
}

// updateTabs edits the tab cache of c's profile with fn.
func (r *registry) updateTabs(c *conn, fn func([]protocol.TabInfo) []protocol.TabInfo) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := c.prof
	if p == nil || p.conn != c {
		return
	}
	p.tabs = sharedTabs(fn(append([]protocol.TabInfo(nil), p.tabs...)))
	r.notifyLocked()
}

// sharedTabs keeps the tabs that have a number, ordered by it. Only shared
// tabs have one; anything else is never addressable.
func sharedTabs(tabs []protocol.TabInfo) []protocol.TabInfo {
	out := make([]protocol.TabInfo, 0, len(tabs))
	for _, t := range tabs {
		if t.Slot > 0 && t.TabID != 0 {
			out = append(out, t)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Slot < out[j].Slot })
	return out
}

// tabsOf returns the cached shared tabs of c's profile.
func (r *registry) tabsOf(c *conn) []protocol.TabInfo {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]protocol.TabInfo(nil), c.prof.tabs...)
}

// targetOf describes c's profile.
func (r *registry) targetOf(c *conn) tools.Target {
	r.mu.Lock()
	defer r.mu.Unlock()
	return tools.Target{ProfileID: c.prof.id, Slug: c.prof.slug, Label: c.prof.label}
}
