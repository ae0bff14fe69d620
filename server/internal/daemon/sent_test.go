//go:build unix

package daemon_test

// Issue 12, sent or not, with real processes: after the owner is killed
// (SIGKILL), a forwarder says "not run" for the calls the owner never sent
// to the extension and "may or may not have run" only for the one it did.

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/server/internal/fakeext"
)

func TestKilledOwnerSentOrNot(t *testing.T) {
	ctx := watchdog(t, 90*time.Second)
	cl, ps, ext := startShared(ctx, t, 2)
	owner, fwd := ps[0], ps[1]

	var mu sync.Mutex
	var reached []string
	held := make(chan struct{}, 1)
	ext.setHook(func(ctx context.Context, r fakeext.Request) error {
		if r.Type != protocol.MsgPressKey {
			return nil
		}
		var p struct {
			Key string `json:"key"`
		}
		json.Unmarshal(r.Payload, &p)
		mu.Lock()
		reached = append(reached, p.Key)
		mu.Unlock()
		if p.Key != "A" {
			return nil
		}
		held <- struct{}{}
		<-ctx.Done() // never answers: the owner dies first
		return ctx.Err()
	})
	type answer struct{ key, text string }
	answers := make(chan answer, 3)
	press := func(key string, args map[string]any) {
		args["key"] = key
		text, _ := fwd.call(ctx, t, "browser_press_key", args)
		answers <- answer{key, text}
	}
	mark := fwd.log.count()
	go press("A", map[string]any{"tab": 1, "profile": "work"})
	<-held
	// B waits behind A in the owner's queue for tab 1 ("tab 1 of work" and
	// "tab 1 of fake-profile-1", the profile's id, are two streams in the
	// forwarder's reading layer, so both reach the owner); the second
	// "tab 1 of work" call D stays in the forwarder, never sent to the
	// owner at all.
	go press("B", map[string]any{"tab": 1, "profile": "fake-profile-1"})
	go press("D", map[string]any{"tab": 1, "profile": "work"})
	cl.waitOwnerQueued(ctx, t, 1)         // B waits in the owner's queue
	fwd.waitInboxWaiting(ctx, t, mark, 1) // D in the forwarder's
	owner.kill9()
	got := map[string]string{}
	for range 3 {
		select {
		case a := <-answers:
			got[a.key] = a.text
		case <-ctx.Done():
			t.Fatalf("answers so far: %v", got)
		}
	}
	t.Logf("answers after the kill: %q", got)
	if !strings.Contains(got["A"], "may or may not have run") {
		t.Errorf("A (reached the extension): %q", got["A"])
	}
	if !strings.Contains(got["B"], "browser_press_key was not run") || !strings.Contains(got["B"], "nothing happened on the page") {
		t.Errorf("B (queued at the owner, never sent): %q", got["B"])
	}
	// D was still in the forwarder: it runs on the next owner (or, if
	// the extension was not back in time, says it was not run).
	if strings.Contains(got["D"], "may") {
		t.Errorf("D (never left the forwarder): %q", got["D"])
	}
	mu.Lock()
	defer mu.Unlock()
	if len(reached) == 0 || reached[0] != "A" || len(reached) > 2 || len(reached) == 2 && reached[1] != "D" {
		t.Errorf("the extension saw %v; want A (and D on the new owner)", reached)
	}
}
