// Package netguard holds the checks both of monkbrowse's listeners apply
// before anything else: the Host header must name the loopback interface
// (a DNS-rebinding page reaches 127.0.0.1 under its own host name), and
// sockets that have not finished their hello are capped, the oldest closed
// first, so a flood of idle sockets cannot keep a real extension or
// forwarder out.
package netguard

import (
	"container/list"
	"net"
	"strings"
	"sync"
	"time"
)

// DefaultMaxPending is how many sockets per port may be waiting for their
// hello at once.
const DefaultMaxPending = 64

// LoopbackHost reports whether an HTTP Host header names this computer's
// loopback interface: 127.0.0.1, localhost or [::1], with any port (port
// forwards keep working) or none. Anything else — a DNS-rebinding page's
// own host name, a LAN address — is refused by both ports.
func LoopbackHost(host string) bool {
	h := host
	if hh, _, err := net.SplitHostPort(host); err == nil {
		h = hh
	} else if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		h = host[1 : len(host)-1]
	}
	switch strings.ToLower(h) {
	case "127.0.0.1", "localhost", "::1":
		return true
	}
	return false
}

// HostRefusal is the 403 body for a request whose Host is not loopback.
const HostRefusal = "monkbrowse: refused: the Host header must be 127.0.0.1, localhost or [::1] (monkbrowse only serves this computer)"

// Pending caps the sockets of one port that have not finished their hello.
// Adding one beyond the cap closes the oldest pending socket: a socket that
// is about to say hello (a real extension or forwarder says it at once) is
// the newest, so under a flood of idle sockets it still gets through. Safe
// for concurrent use; the zero value is not usable (see NewPending).
type Pending struct {
	max     int
	mu      sync.Mutex
	l       *list.List // of *pendingEntry, oldest first
	evicted uint64
	changed chan struct{} // closed and replaced at every change of Len; nil until Changed is called
}

type pendingEntry struct {
	close func()
	elem  *list.Element
}

// NewPending returns a cap of max sockets (0 or less: DefaultMaxPending).
func NewPending(max int) *Pending {
	if max <= 0 {
		max = DefaultMaxPending
	}
	return &Pending{max: max, l: list.New()}
}

// Add registers a pending socket; closeFn closes it if it is evicted. The
// returned release removes it (call it once the hello is done or the socket
// closed; it is idempotent). Evicted sockets are closed on their own
// goroutine.
func (p *Pending) Add(closeFn func()) (release func()) {
	e := &pendingEntry{close: closeFn}
	var evict []*pendingEntry
	p.mu.Lock()
	for p.l.Len() >= p.max {
		old := p.l.Remove(p.l.Front()).(*pendingEntry)
		old.elem = nil
		evict = append(evict, old)
		p.evicted++
	}
	e.elem = p.l.PushBack(e)
	p.notifyLocked()
	p.mu.Unlock()
	for _, old := range evict {
		go old.close()
	}
	return func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if e.elem != nil {
			p.l.Remove(e.elem)
			e.elem = nil
			p.notifyLocked()
		}
	}
}

// Changed returns a channel closed at the next change of Len (a socket
// added, released or evicted): a caller waiting for a count re-checks it
// each time, with no polling.
func (p *Pending) Changed() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.changed == nil {
		p.changed = make(chan struct{})
	}
	return p.changed
}

// notifyLocked wakes the callers of Changed; p.mu is held. Nothing is
// allocated while no one has asked.
func (p *Pending) notifyLocked() {
	if p.changed != nil {
		close(p.changed)
		p.changed = nil
	}
}

// Len is the number of pending sockets.
func (p *Pending) Len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.l.Len()
}

// Evicted is how many pending sockets were closed to make room.
func (p *Pending) Evicted() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.evicted
}

// Every lets one event through per interval and counts the others, for
// logs that must not flood stderr: Allow returns true at most once per
// interval, with how many events were held back since the last true.
type Every struct {
	Interval time.Duration
	mu       sync.Mutex
	last     time.Time
	held     int
}

// Allow reports whether to log now, and how many events were suppressed
// before this one.
func (e *Every) Allow() (ok bool, suppressed int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	now := time.Now()
	if !e.last.IsZero() && now.Sub(e.last) < e.Interval {
		e.held++
		return false, 0
	}
	e.last = now
	n := e.held
	e.held = 0
	return true, n
}
