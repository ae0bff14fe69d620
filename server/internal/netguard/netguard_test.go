package netguard

import (
	"sync/atomic"
	"testing"
	"time"
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
	r0 := p.Add(func() { closed[0].Store(true) })
	r1 := p.Add(func() { closed[1].Store(true) })
	r2 := p.Add(func() { closed[2].Store(true) })
	deadline := time.Now().Add(5 * time.Second)
	for !closed[0].Load() && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if !closed[0].Load() || closed[1].Load() || closed[2].Load() || p.Len() != 2 || p.Evicted() != 1 {
		t.Fatalf("closed %v %v %v len %d", closed[0].Load(), closed[1].Load(), closed[2].Load(), p.Len())
	}
	r0() // released after eviction: nothing happens
	r1()
	r1()
	r2()
	if p.Len() != 0 {
		t.Fatalf("len %d", p.Len())
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
