package owner

import (
	"fmt"
	"sort"
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
	// paused: the person paused the AI in the whole profile; pausedTabs:
	// in these tabs (by Chrome tab id), as the extension last reported
	// (TabsChanged.Paused, TabInfo.Paused; kept while disconnected).
	paused     bool
	pausedTabs map[int]int // tab id → its number
	// policy is the organisation's policy the extension last reported;
	// left, the tabs (by number) that left the AI's reach for a "never"
	// site, with the extension's sentence (issue 44).
	policy *protocol.SitePolicy
	left   map[int]string
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

// admit assigns a label and slug to a proven auth and reserves them for
// c, which becomes the profile's connection once activate is called. It
// returns the ack to send; a rejection (the profile cap) leaves nothing
// reserved.
func (r *registry) admit(h protocol.Auth, c *conn, version string) protocol.HelloAck {
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
	p.setPauseLocked(r, h.Paused, h.Tabs) // before any call can use the profile
	p.policy = h.Policy
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
		Queued: p.queues.waiting(), Paused: p.paused, Policy: p.policy,
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
