package netguard

import (
	"bytes"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

func TestLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{
		"127.0.0.1:9222": true, "127.0.0.1": true, "localhost:1": true, "LOCALHOST": true, "[::1]:9222": true, "[::1]": true,
		"evil.example:9222": false, "localhost.evil.example": false, "127.0.0.2:9222": false, "0.0.0.0:9222": false,
		"192.168.1.5:9222": false, "": false, "localhost.:9222": false, "[::2]:1": false,
	} {
		if got := LoopbackHost(host); got != want {
			t.Errorf("LoopbackHost(%q) = %v, want %v", host, got, want)
		}
	}
}

func TestPendingEvictsOldest(t *testing.T) {
	p := NewPending(2)
	var closed [3]atomic.Bool
	evicted := make(chan int, 3) // an evicted socket is closed on its own goroutine
	closer := func(i int) func() { return func() { closed[i].Store(true); evicted <- i } }
	r0 := p.Add(closer(0))
	r1 := p.Add(closer(1))
	changed := p.Changed()
	r2 := p.Add(closer(2))
	select {
	case <-changed: // Add reports the change before it returns
	default:
		t.Fatal("Changed was not closed by Add")
	}
	select {
	case i := <-evicted:
		if i != 0 {
			t.Fatalf("socket %d was evicted, want the oldest (0)", i)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("watchdog: the oldest socket was never closed")
	}
	if closed[1].Load() || closed[2].Load() || p.Len() != 2 || p.Evicted() != 1 {
		t.Fatalf("closed %v %v %v len %d", closed[0].Load(), closed[1].Load(), closed[2].Load(), p.Len())
	}
	r0() // released after eviction: nothing happens
	r1()
	r1()
	changed = p.Changed()
	r2()
	if p.Len() != 0 {
		t.Fatalf("len %d", p.Len())
	}
	select {
	case <-changed:
	default:
		t.Fatal("Changed was not closed by a release")
	}
	select {
	case i := <-evicted:
		t.Fatalf("socket %d was closed too", i)
	default:
	}
}

func TestEvery(t *testing.T) {
	e := Every{Interval: time.Hour}
	if ok, _ := e.Allow(); !ok {
		t.Fatal("first")
	}
	for range 5 {
		if ok, _ := e.Allow(); ok {
			t.Fatal("within the interval")
		}
	}
	e.last = time.Now().Add(-2 * time.Hour)
	if ok, n := e.Allow(); !ok || n != 5 {
		t.Fatalf("%v %d", ok, n)
	}
}

// TestPeerRefusal: another user's peer is refused, ours, root's and an
// unattributable one are not (the proof judges those).
func TestPeerRefusal(t *testing.T) {
	const self = 1000
	table := map[string]int{"127.0.0.1:40001": 1001, "127.0.0.1:40002": 1000, "127.0.0.1:40003": 0}
	lookup := func(remote, local string) (int, bool) {
		if local != "127.0.0.1:9219" {
			t.Errorf("lookup got local %q", local)
		}
		uid, ok := table[remote]
		return uid, ok
	}
	for remote, refused := range map[string]bool{"127.0.0.1:40001": true, "127.0.0.1:40002": false, "127.0.0.1:40003": false, "127.0.0.1:40004": false} {
		msg, _ := PeerRefusal(lookup, self, remote, "127.0.0.1:9219")
		if (msg != "") != refused {
			t.Errorf("%s: refusal %q, want refused %v", remote, msg, refused)
		}
		if refused && !strings.Contains(msg, "another user") {
			t.Errorf("refusal does not say why: %q", msg)
		}
	}
	if msg, _ := PeerRefusal(nil, self, "127.0.0.1:40001", ""); msg != "" {
		t.Errorf("nil lookup refused: %q", msg)
	}
}

// TestRefusalsLogOneLineASecond: 2,000 refusals in a burst write one line
// (the clock does not move a second during the burst on any machine this
// runs on; if it did, two).
func TestRefusalsLogOneLineASecond(t *testing.T) {
	var buf bytes.Buffer
	r := NewRefusals(zerolog.New(&buf))
	start := time.Now()
	for range 2000 {
		r.Refused("refused", func(e Fields) { e.Str("why", "test") })
	}
	lines := strings.Count(buf.String(), "\n")
	if max := 1 + int(time.Since(start)/time.Second); lines < 1 || lines > max {
		t.Fatalf("%d lines for 2,000 refusals, want 1..%d:\n%s", lines, max, buf.String())
	}
	if r.Total() != 2000 {
		t.Fatalf("Total = %d", r.Total())
	}
}
