package owner

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/monkbrowse/monkbrowse/tools"
)

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
