package daemon_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/monkbrowse/monkbrowse/server/internal/fakeext"
)

// TestReadOnlyCallSurvivesOwnerKill: calls in flight at an owner that is
// killed (before its forwarder noticed). A tool that never changes anything
// (browser_snapshot) is run once more on the new owner, after the extension
// reconnected to it, and answers normally; browser_evaluate, which may act,
// fails saying it may or may not have run, and is not repeated.
func TestReadOnlyCallSurvivesOwnerKill(t *testing.T) {
	ctx := watchdog(t, 90*time.Second)
	_, ps, ext := startShared(ctx, t, 2)
	owner, fwd := ps[0], ps[1]
	conns := ext.connections()

	// The first connection holds both calls (on two tabs, so that neither
	// waits for the other's turn) until the owner dies.
	first := ext.current()
	var wg sync.WaitGroup
	wg.Add(2)
	held := map[string]*sync.Once{"browser_snapshot": {}, "browser_evaluate": {}}
	ext.setHook(func(ctx context.Context, r fakeext.Request) error {
		if once, ok := held[r.Type]; ok && ext.current() == first {
			once.Do(wg.Done)
			<-ctx.Done() // never answers: the owner dies first
			return ctx.Err()
		}
		return nil
	})
	type answer struct {
		text  string
		isErr bool
	}
	snap, eval := make(chan answer, 1), make(chan answer, 1)
	go func() {
		text, isErr := fwd.call(ctx, t, "browser_snapshot", map[string]any{"tab": 1})
		snap <- answer{text, isErr}
	}()
	go func() {
		text, isErr := fwd.call(ctx, t, "browser_evaluate", map[string]any{"tab": 2, "expression": "document.title"})
		eval <- answer{text, isErr}
	}()
	wg.Wait()
	ext.setHook(nil)
	owner.kill9()

	ev := <-eval
	if !ev.isErr || !strings.Contains(ev.text, "may or may not have run") {
		t.Errorf("browser_evaluate in flight at a killed owner: %q (error %v), want it to say it may or may not have run", ev.text, ev.isErr)
	}
	sn := <-snap
	if sn.isErr || !strings.Contains(sn.text, "Snapshot of tab 1") {
		t.Fatalf("browser_snapshot in flight at a killed owner was not run again on the new owner: %q", sn.text)
	}
	ext.waitConnections(ctx, t, conns+1)
	now := ext.current()
	if now == first {
		t.Fatal("the snapshot was answered but the extension did not reconnect")
	}
	if n := now.Count("browser_snapshot"); n != 1 {
		t.Errorf("the new owner sent %d snapshots, want 1 (the repeated read)", n)
	}
	if n := now.Count("browser_evaluate"); n != 0 {
		t.Errorf("browser_evaluate was repeated on the new owner (%d times)", n)
	}
}
