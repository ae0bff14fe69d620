package owner

import (
	"fmt"
	"sync"
	"testing"

	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/server/internal/fakeext"
)

// TestProfilesCountQueuedCalls: a profile's Queued (what the control port's
// status reports) counts the calls waiting behind a running one, and drops
// to 0 once they have run.
func TestProfilesCountQueuedCalls(t *testing.T) {
	o := startOwner(t, Config{})
	e := connect(t, o, fakeext.Options{Secret: testPairing, Tabs: twoTabs()})
	arrived, release := holdAll(e, protocol.MsgPressKey)
	queued := func() int {
		n := 0
		for _, p := range o.Profiles() {
			n += p.Queued
		}
		return n
	}
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			call(t, o.Caller(), "browser_press_key", map[string]any{"key": fmt.Sprintf("k%d", i), "tab": 1})
		}()
		if i == 0 {
			recv(t, arrived)
		} else {
			waitQueued(t, o, 101, i)
		}
		if got := queued(); got != i {
			t.Fatalf("%d calls wait behind the running one, Profiles says %d", i, got)
		}
	}
	release()
	wg.Wait()
	if got := queued(); got != 0 {
		t.Fatalf("every call ran, Profiles still says %d queued", got)
	}
}
