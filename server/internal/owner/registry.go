package owner

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/tools"
)

// profile is the record of one Chrome profile. It outlives its connections:
// a disconnect keeps the label and slug reserved so that the profile gets
// them back when it reconnects (DESIGN §5.2).
type profile struct {
	id         string
	label      string
	slug       string
	chromeName string
	tabs       []protocol.TabInfo // shared tabs by slot, last known
	conn       *conn              // the live, acknowledged connection, or nil
	pending    *conn              // admitted but its ack not yet sent
	lastActed  uint64             // registry.actSeq when last acted on; 0 never
	lastSeen   time.Time          // when it last disconnected
	// queues are the profile's tab queues. They belong to the profile, not
	// to one connection, so a call waiting for its turn keeps its place
	// while the extension reconnects (issue 12, brief reconnects).
	queues queues
}

// registry holds every known profile. All fields are guarded by mu.
type registry struct {
	mu            sync.Mutex
	profiles      map[string]*profile // by profile id
	max           int
	everConnected bool
	actSeq        uint64
	labelSeq      int
	changed       chan struct{} // closed and replaced on every change
}

func newRegistry(max int) *registry {
	return &registry{profiles: map[string]*profile{}, max: max, changed: make(chan struct{})}
}

// notifyLocked wakes everyone waiting for a change.
func (r *registry) notifyLocked() {
	close(r.changed)
	r.changed = make(chan struct{})
}

// changes returns a channel closed at the next change.
func (r *registry) changes() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.changed
}

var generatedLabel = regexp.MustCompile(`^chrome-[0-9]+$`)

// admit assigns a label and slug to an accepted hello and reserves them for
// c, which becomes the profile's connection once activate is called. It
// returns the ack to send; a rejection (the profile cap) leaves nothing
// reserved.
func (r *registry) admit(h protocol.Hello, c *conn, version string) protocol.HelloAck {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.profiles[h.ProfileID]
	if p == nil {
		live := 0
		for _, q := range r.profiles {
			if q.conn != nil || q.pending != nil {
				live++
			}
		}
		if live >= r.max {
			return protocol.RejectAck(version, fmt.Sprintf(
				"too many browser profiles: this monkbrowse server already has %d connected, its limit. "+
					"Disconnect the monkbrowse extension in a profile you do not need, or restart the server with a higher --max-profiles.", live))
		}
		if len(r.profiles) >= r.max {
			r.evictLocked()
		}
		p = &profile{id: h.ProfileID}
		r.profiles[h.ProfileID] = p
	}

	label := h.Label
	switch {
	case label != "":
	case p.label != "":
		label = p.label
	case h.Slug != "" && generatedLabel.MatchString(h.Slug) && r.slugFreeLocked(h.Slug, p.id) && r.labelFreeLocked(h.Slug, p.id):
		label = h.Slug // a server restart: give the generated name back
	default:
		label = r.generateLabelLocked(p.id)
	}

	var slug string
	switch {
	case h.Slug != "" && r.slugFreeLocked(h.Slug, p.id):
		slug = h.Slug
	case p.slug != "" && p.label == label:
		slug = p.slug
	default:
		base := protocol.Slugify(label)
		if base == "" {
			base = "chrome"
		}
		slug = r.uniqueSlugLocked(base, p.id)
	}
	p.label, p.slug, p.chromeName = label, slug, h.ChromeProfileName
	p.tabs = sharedTabs(h.Tabs)
	p.pending = c
	c.prof = p
	c.slug = slug
	return protocol.AcceptAck(version, label, slug)
}

// activate makes c its profile's connection, now that its ack is on the
// wire. It returns the connection c replaces, if any, for the caller to close.
func (r *registry) activate(c *conn) (old *conn, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := c.prof
	if p.pending != c {
		return nil, false // closed (or replaced) before its ack went out
	}
	p.pending = nil
	old, p.conn = p.conn, c
	r.everConnected = true
	r.notifyLocked()
	return old, true
}

// drop forgets c as its profile's connection, keeping the record.
func (r *registry) drop(c *conn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := c.prof
	if p == nil {
		return
	}
	changed := false
	if p.pending == c {
		p.pending = nil
		changed = true
	}
	if p.conn == c {
		p.conn = nil
		p.lastSeen = time.Now()
		changed = true
	}
	if changed {
		r.notifyLocked()
	}
}

// setTabs replaces the tab cache of c's profile, if c is still its
// connection.
func (r *registry) setTabs(c *conn, tabs []protocol.TabInfo) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := c.prof
	if p == nil || (p.conn != c && p.pending != c) {
		return
	}
	p.tabs = sharedTabs(tabs)
	r.notifyLocked()
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

func (r *registry) evictLocked() {
	var oldest *profile
	for _, p := range r.profiles {
		if p.conn == nil && p.pending == nil && (oldest == nil || p.lastSeen.Before(oldest.lastSeen)) {
			oldest = p
		}
	}
	if oldest != nil {
		delete(r.profiles, oldest.id)
	}
}

func (r *registry) slugFreeLocked(slug, self string) bool {
	for _, p := range r.profiles {
		if p.id != self && p.slug == slug {
			return false
		}
	}
	return true
}

func (r *registry) labelFreeLocked(label, self string) bool {
	for _, p := range r.profiles {
		if p.id != self && strings.EqualFold(p.label, label) {
			return false
		}
	}
	return true
}

func (r *registry) uniqueSlugLocked(base, self string) string {
	if r.slugFreeLocked(base, self) {
		return base
	}
	for n := 2; ; n++ {
		suffix := "-" + strconv.Itoa(n)
		b := base
		if len(b)+len(suffix) > protocol.MaxSlugLen {
			b = strings.TrimRight(b[:protocol.MaxSlugLen-len(suffix)], "-")
		}
		if s := b + suffix; r.slugFreeLocked(s, self) {
			return s
		}
	}
}

func (r *registry) generateLabelLocked(self string) string {
	for {
		r.labelSeq++
		l := "chrome-" + strconv.Itoa(r.labelSeq)
		if r.labelFreeLocked(l, self) && r.slugFreeLocked(l, self) {
			return l
		}
	}
}

// list returns every profile, ordered by slug.
func (r *registry) list() []tools.ProfileInfo {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]tools.ProfileInfo, 0, len(r.profiles))
	for _, p := range r.profiles {
		out = append(out, p.infoLocked())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Slug < out[j].Slug })
	return out
}

func (p *profile) infoLocked() tools.ProfileInfo {
	return tools.ProfileInfo{
		ID: p.id, Label: p.label, Slug: p.slug, ChromeProfileName: p.chromeName,
		Connected: p.conn != nil, Tabs: append([]protocol.TabInfo(nil), p.tabs...),
	}
}

// resolveError is a resolution failure worded for the AI. wait marks the
// failures that a reconnect could cure.
type resolveError struct {
	msg  string
	wait bool
}

func (e *resolveError) Error() string { return e.msg }

// lookupLocked finds the profile ref names (DESIGN §5.6). It returns the
// profile, which may be disconnected, or an error.
func (r *registry) lookupLocked(ref string) (*profile, *resolveError) {
	if len(r.profiles) == 0 {
		return nil, &resolveError{msg: "no-extension"}
	}
	ref = strings.ToLower(strings.TrimSpace(ref))
	if ref == "" {
		var live []*profile
		for _, p := range r.profiles {
			if p.conn != nil {
				live = append(live, p)
			}
		}
		switch len(live) {
		case 0:
			return nil, &resolveError{wait: true, msg: "No browser profile is connected right now. Known profiles: " + r.describeLocked() +
				". Make sure Chrome is open with the monkbrowse extension on; browser_list_tabs shows what is connected."}
		case 1:
			return live[0], nil
		}
		var best *profile
		for _, p := range live {
			if p.lastActed > 0 && (best == nil || p.lastActed > best.lastActed) {
				best = p
			}
		}
		if best != nil {
			return best, nil
		}
		return nil, &resolveError{msg: "Several browser profiles are connected, so say which one with `profile`: " + r.describeLocked() +
			". Use a slug (or a unique prefix of it); browser_list_tabs shows each profile's tabs."}
	}
	for _, p := range r.profiles {
		if p.slug == ref || strings.ToLower(p.id) == ref {
			return p, nil
		}
	}
	var matches []*profile
	for _, p := range r.profiles {
		if strings.HasPrefix(p.slug, ref) {
			matches = append(matches, p)
		}
	}
	switch len(matches) {
	case 1:
		return matches[0], nil
	case 0:
		return nil, &resolveError{msg: fmt.Sprintf("There is no browser profile %q. Known profiles: %s. Pass one of these slugs as `profile` (a unique prefix works too), or omit it.", ref, r.describeLocked())}
	}
	names := make([]string, len(matches))
	for i, p := range matches {
		names[i] = strconv.Quote(p.slug)
	}
	sort.Strings(names)
	return nil, &resolveError{msg: fmt.Sprintf("profile %q matches several profiles (%s). Pass more of the slug.", ref, strings.Join(names, ", "))}
}

// describeLocked lists the known profiles for messages.
func (r *registry) describeLocked() string {
	ps := make([]*profile, 0, len(r.profiles))
	for _, p := range r.profiles {
		ps = append(ps, p)
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].slug < ps[j].slug })
	parts := make([]string, len(ps))
	for i, p := range ps {
		state := "connected"
		if p.conn == nil {
			state = "not connected"
		}
		parts[i] = fmt.Sprintf("%q (%s, %s, %d shared tabs)", p.slug, p.label, state, len(p.tabs))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// resolve finds the connected profile ref names, waiting for it (or, with
// ref empty, for any profile) to connect when it is known but disconnected,
// until wait has passed since it disconnected: a hand-over or an extension
// reload takes a moment. It marks
// the profile as the one acted on last.
func (r *registry) resolve(ctx context.Context, stop <-chan struct{}, ref string, wait time.Duration, setup func() string) (tools.Target, *conn, error) {
	var none tools.Target
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	var expired <-chan time.Time
	for {
		r.mu.Lock()
		p, rerr := r.lookupLocked(ref)
		if rerr == nil && p.conn != nil {
			r.actSeq++
			p.lastActed = r.actSeq
			c := p.conn
			t := tools.Target{ProfileID: p.id, Slug: p.slug, Label: p.label}
			r.mu.Unlock()
			return t, c, nil
		}
		if rerr != nil && rerr.msg == "no-extension" {
			r.mu.Unlock()
			return none, nil, &resolveError{msg: setup()}
		}
		if rerr == nil {
			ago := "a moment"
			if !p.lastSeen.IsZero() {
				ago = time.Since(p.lastSeen).Round(time.Second).String()
			}
			rerr = &resolveError{wait: true, msg: fmt.Sprintf(
				"Browser profile %q (%s) is not connected: its extension went away %s ago. Make sure Chrome is open with that profile and the monkbrowse extension is on, then try again; browser_list_tabs shows what is connected.",
				p.slug, p.label, ago)}
		}
		ch := r.changed
		var gone time.Time // when the profile (any, for ref "") was last seen
		if p != nil {
			gone = p.lastSeen
		} else {
			for _, q := range r.profiles {
				if q.lastSeen.After(gone) {
					gone = q.lastSeen
				}
			}
		}
		r.mu.Unlock()
		if !rerr.wait || wait <= 0 {
			return none, nil, rerr
		}
		if timer == nil {
			// The window is counted from the disconnect, so calls one after
			// another (each tab's FIFO in the reading layer) do not wait one
			// window each: once it has passed they fail at once.
			left := wait
			if !gone.IsZero() {
				left = time.Until(gone.Add(wait))
			}
			if left <= 0 {
				return none, nil, &resolveError{msg: rerr.msg + fmt.Sprintf(" (monkbrowse waited %s for it to reconnect.)", wait)}
			}
			timer = time.NewTimer(left)
			expired = timer.C
		}
		select {
		case <-ch:
		case <-expired:
			return none, nil, &resolveError{msg: rerr.msg + fmt.Sprintf(" (monkbrowse waited %s for it to reconnect.)", wait)}
		case <-ctx.Done():
			return none, nil, ctx.Err()
		case <-stop:
			return none, nil, errShuttingDown
		}
	}
}

// reconnected returns the live connection of old's profile once it is not
// old: at once when the profile has already reconnected, else waiting until
// wait has passed since the profile disconnected (so that calls queued
// behind each other all give up together when it does not come back).
func (r *registry) reconnected(ctx context.Context, stop <-chan struct{}, old *conn, wait time.Duration) (*conn, error) {
	p := old.prof
	var deadline time.Time
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		r.mu.Lock()
		cur := p.conn
		if cur != nil && cur != old && cur.peer.Err() == nil {
			r.actSeq++
			p.lastActed = r.actSeq
			r.mu.Unlock()
			return cur, nil
		}
		if deadline.IsZero() {
			deadline = time.Now().Add(wait)
			if cur == nil && !p.lastSeen.IsZero() {
				deadline = p.lastSeen.Add(wait)
			}
		}
		ch := r.changed
		r.mu.Unlock()
		left := time.Until(deadline)
		if wait <= 0 || left <= 0 {
			return nil, old.disconnectedError(max(wait, 0))
		}
		if timer == nil {
			timer = time.NewTimer(left)
		} else {
			timer.Reset(left)
		}
		select {
		case <-ch:
		case <-timer.C:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-stop:
			return nil, errShuttingDown
		}
	}
}

// current returns c's profile's live connection, or c when it has none.
func (r *registry) current(c *conn) *conn {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c.prof.conn != nil {
		return c.prof.conn
	}
	return c
}

// closeQueues fails every call waiting for a turn on any profile, and every
// later one, with err (the owner is shutting down).
func (r *registry) closeQueues(err error) {
	r.mu.Lock()
	ps := make([]*profile, 0, len(r.profiles))
	for _, p := range r.profiles {
		ps = append(ps, p)
	}
	r.mu.Unlock()
	for _, p := range ps {
		p.queues.closeAll(err)
	}
}

// tabsOf returns the cached shared tabs of c's profile.
func (r *registry) tabsOf(c *conn) []protocol.TabInfo {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]protocol.TabInfo(nil), c.prof.tabs...)
}

// live returns the acknowledged connections.
func (r *registry) live() []*conn {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*conn
	for _, p := range r.profiles {
		if p.conn != nil {
			out = append(out, p.conn)
		}
	}
	return out
}

// targetOf describes c's profile.
func (r *registry) targetOf(c *conn) tools.Target {
	r.mu.Lock()
	defer r.mu.Unlock()
	return tools.Target{ProfileID: c.prof.id, Slug: c.prof.slug, Label: c.prof.label}
}
