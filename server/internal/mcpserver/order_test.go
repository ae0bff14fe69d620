package mcpserver

import (
	"context"
	"testing"
)

// TestTurnKeysConflict: which calls may address the same tab, as the
// reading layer sees their arguments.
func TestTurnKeysConflict(t *testing.T) {
	k := func(scope, profile, tab string) turnKey { return turnKey{scope, profile, tab} }
	for _, c := range []struct {
		a, b turnKey
		want bool
	}{
		{k("", "", ""), k("", "", ""), true},
		{k("", "", ""), k("", "", "1"), true},           // tab omitted: the active tab, maybe 1
		{k("", "", "1"), k("", "", "2"), false},         // two numbered tabs
		{k("", "", "1"), k("", "work", "1"), true},      // profile omitted: maybe work
		{k("", "work", "1"), k("", "home", "1"), false}, // two profiles
		{k("", "wo", "1"), k("", "work", "1"), true},    // a prefix of the slug
		{k("", "work", ""), k("", "home", "2"), false},
		{k("s1", "", ""), k("s2", "", "1"), false}, // two HTTP sessions: two apps
	} {
		if got := c.a.conflicts(c.b); got != c.want || c.b.conflicts(c.a) != c.want {
			t.Errorf("%+v vs %+v: %v, want %v both ways", c.a, c.b, got, c.want)
		}
	}
}

// ready reports whether t's turn has come.
func ready(t *turn) bool {
	select {
	case <-t.ready:
		return true
	default:
		return false
	}
}

// TestAbandonedTurnKeepsTheOrder: a call that leaves while it waits never
// runs, and the calls behind it still wait for the ones before it. An
// omitted-tab call A runs; B (tab 1) and C (tab 1) wait; B is cancelled:
// C still waits for A, and goes when A ends.
func TestAbandonedTurnKeepsTheOrder(t *testing.T) {
	o := newOrder()
	a := o.add(turnKey{tab: ""})
	if !a.wait(context.Background()) {
		t.Fatal("the first turn did not come at once")
	}
	b := o.add(turnKey{tab: "1"})
	c := o.add(turnKey{tab: "1"})
	if !b.queued || !c.queued {
		t.Fatal("B and C must wait behind A")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if b.wait(ctx) {
		t.Fatal("a cancelled wait returned its turn")
	}
	if n, _ := o.Waiting(); n != 1 {
		t.Fatalf("%d waiting after B left, want 1 (C)", n)
	}
	if ready(c) {
		t.Fatal("C's turn came while A still ran")
	}
	a.finish()
	if !ready(c) || !c.wait(context.Background()) {
		t.Fatal("C's turn did not come when A ended")
	}
	c.finish()
	if len(o.live) != 0 {
		t.Fatalf("%d turns left live", len(o.live))
	}
	d := o.add(turnKey{tab: "1"})
	if d.queued {
		t.Fatal("a turn after everything ended had to wait")
	}
}
