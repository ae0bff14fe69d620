package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// order is the reading layer's one per-tab ordering (issue 39), for stdio
// (the inbox takes a call's turn as it reads the line) and HTTP (the tool
// handler takes it as mcp-go hands the request over): a call starts once
// every call read before it, in the same scope (this AI app's stdio
// stream, or one HTTP session), that may address the same tab is done.
//
// "May address the same tab" is decided on the arguments as written,
// without the owner's state: the owner resolves an omitted tab (the
// profile's active shared tab) and an omitted profile only when the call
// runs, and it may be in another process. So an omitted tab stands for
// every tab of its profile, and an omitted profile for every profile: a
// call with the tab omitted and one naming the active tab's number run in
// the order they were read, never at once, whichever tab is active then.
// Calls naming two different tabs run in parallel.
//
// The owner's per-tab queue (owner/queue.go) is not an ordering: it keeps
// the calls of different AI apps, which have no order between them, from
// running on one tab at once. Calls of one app reach it one at a time per
// tab, in read order, because of this one.
//
// Each turn waits only for the turns it depends on; a turn that ends
// without running (cancelled while it waited) still waits for those
// before it is done, so the calls behind it keep their order.
type order struct {
	mu   sync.Mutex
	live []*turn // turns not done, in the order they were added
	// waiting counts the turns added and not yet started or abandoned;
	// changed is closed and replaced when it changes (tests wait on it).
	waiting int
	changed chan struct{}
}

// turnKey is what the order compares: scope, then the profile and tab as
// the arguments wrote them ("" for omitted).
type turnKey struct {
	scope   string
	profile string
	tab     string
}

func newOrder() *order { return &order{changed: make(chan struct{})} }

// conflicts reports whether two calls may address the same tab.
func (a turnKey) conflicts(b turnKey) bool {
	if a.scope != b.scope {
		return false
	}
	// A profile may be named by a prefix of its slug: "wo" and "work"
	// may be one profile.
	if a.profile != "" && b.profile != "" && !strings.HasPrefix(a.profile, b.profile) && !strings.HasPrefix(b.profile, a.profile) {
		return false
	}
	return a.tab == "" || b.tab == "" || a.tab == b.tab
}

// Turn states.
const (
	turnWaiting   int32 = iota
	turnStarted         // its waiter runs the call
	turnAbandoned       // its waiter left; done when its turn comes
)

// turn is one call's place in the order.
type turn struct {
	o       *order
	key     turnKey
	pending int     // turns before it not done yet (under o.mu)
	next    []*turn // turns waiting for this one (under o.mu)
	queued  bool    // it had to wait when it was added
	// start, if set (addThen), is called when the turn comes, in place of
	// a waiter: the turn counts as started, and start's call finishes it.
	start func(*turn)
	ready chan struct{}
	state atomic.Int32
	done  sync.Once
}

// add takes a turn for key, after every live turn it conflicts with. The
// caller must call wait, then finish once the call is over (or at once
// when wait said no).
func (o *order) add(key turnKey) *turn { return o.addThen(key, nil) }

// addThen is add for a caller that waits without a goroutine: start is
// called (from addThen itself, or from the finish of the turn before) when
// the turn comes; what it starts must finish the turn, whether the call
// runs or not. The stdio inbox uses it, so that a thousand calls queued on
// one tab hold no goroutine until their turn.
func (o *order) addThen(key turnKey, start func(*turn)) *turn {
	t := &turn{o: o, key: key, ready: make(chan struct{}), start: start}
	o.mu.Lock()
	// Walking back, the first live turn with the same key stands for every
	// turn before it (it waits for them all): with a deep queue on one tab
	// each turn waits for one other.
	for i := len(o.live) - 1; i >= 0; i-- {
		p := o.live[i]
		if !p.key.conflicts(key) {
			continue
		}
		p.next = append(p.next, t)
		t.pending++
		if p.key == key {
			break
		}
	}
	o.live = append(o.live, t)
	o.waiting++
	o.signal()
	t.queued = t.pending > 0
	if !t.queued {
		close(t.ready)
		if start != nil {
			o.waiting--
		}
	}
	o.mu.Unlock()
	if !t.queued && start != nil {
		start(t)
	}
	return t
}

// signal wakes Changed's waiters. Call with mu held.
func (o *order) signal() {
	close(o.changed)
	o.changed = make(chan struct{})
}

// Waiting is the number of calls waiting for their turn, and a channel
// closed at its next change.
func (o *order) Waiting() (int, <-chan struct{}) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.waiting, o.changed
}

// wait blocks until it is t's turn (true) or ctx ends first (false: t is
// abandoned, the call must not run, and it is done by itself once the
// turns before it are). A turn that comes as ctx ends counts as not come.
func (t *turn) wait(ctx context.Context) bool {
	select {
	case <-t.ready:
		if ctx.Err() == nil && t.state.CompareAndSwap(turnWaiting, turnStarted) {
			t.o.left()
			return true
		}
	case <-ctx.Done():
	}
	if t.state.CompareAndSwap(turnWaiting, turnAbandoned) {
		t.o.left()
		select {
		case <-t.ready:
			t.finish()
		default:
			// finish runs when the turn comes (the finish before it).
		}
	}
	return false
}

// left counts a turn that stopped waiting.
func (o *order) left() {
	o.mu.Lock()
	o.waiting--
	o.signal()
	o.mu.Unlock()
}

// finish ends t: the turns waiting for it go on. Safe to call twice.
func (t *turn) finish() {
	t.done.Do(func() {
		o := t.o
		var abandoned, started []*turn
		o.mu.Lock()
		for i, l := range o.live {
			if l != t {
				continue
			}
			if i == 0 {
				// The usual case (turns end in order): no copy.
				o.live[0] = nil
				o.live = o.live[1:]
			} else {
				o.live = slices.Delete(o.live, i, i+1)
			}
			break
		}
		for _, n := range t.next {
			n.pending--
			if n.pending == 0 {
				close(n.ready)
				switch {
				case n.start != nil:
					o.waiting--
					started = append(started, n)
				case n.state.Load() == turnAbandoned:
					abandoned = append(abandoned, n)
				}
			}
		}
		t.next = nil
		if len(started) > 0 {
			o.signal()
		}
		o.mu.Unlock()
		for _, n := range started {
			n.start(n)
		}
		// Abandoned turns whose turn has come are done at once (outside
		// the lock: finishing one may free others).
		for _, n := range abandoned {
			n.finish()
		}
	})
}

// callArgs is a tools/call's arguments as read once: the raw JSON, kept
// for the tool, and the fields that place the call in the order.
type callArgs struct {
	raw     json.RawMessage
	profile any
	tab     any
	text    any
	bad     bool // not a JSON object: the dispatcher explains
}

func (a *callArgs) UnmarshalJSON(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	a.raw = append(json.RawMessage(nil), b...)
	var f struct {
		Profile any `json:"profile"`
		Tab     any `json:"tab"`
		Text    any `json:"text"`
	}
	if string(b) == "null" {
		return nil
	}
	if json.Unmarshal(b, &f) != nil {
		a.bad = true
		return nil
	}
	a.profile, a.tab, a.text = f.Profile, f.Tab, f.Text
	return nil
}

// keyOf is the turn a call of tool name with args takes in scope, or
// false when it takes none: tools that take no tab's turn (listing tabs,
// opening one, a time-only wait) run at once.
func keyOf(scope, name string, a *callArgs) (turnKey, bool) {
	switch name {
	case "browser_list_tabs", "browser_new_tab":
		return turnKey{}, false
	}
	if a.bad {
		return turnKey{}, false // the dispatcher explains bad arguments at once
	}
	if name == "browser_wait" && (a.text == nil || a.text == "") {
		return turnKey{}, false
	}
	k := turnKey{scope: scope}
	if p, ok := a.profile.(string); ok {
		k.profile = strings.ToLower(strings.TrimSpace(p))
	} else if a.profile != nil {
		k.profile = fmt.Sprint(a.profile)
	}
	if a.tab != nil {
		k.tab = fmt.Sprint(a.tab)
	}
	return k, true
}
