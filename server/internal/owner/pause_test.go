package owner

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/server/internal/fakeext"
)

// callAsync runs a tool call in the background, without a deadline of its
// own (the test's end cancels it), so that a call that is not answered
// fails the test at recv's watchdog; its result arrives on the channel.
func callAsync(t *testing.T, o *Owner, name string, args any) <-chan protocol.CallToolResult {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan protocol.CallToolResult, 1)
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	go func() {
		defer close(done)
		res, err := o.Caller().CallTool(ctx, protocol.CallTool{Name: name, Args: raw})
		if err != nil {
			res = protocol.ErrorResult(err.Error())
		}
		ch <- res
	}()
	return ch
}

// waitPlaced waits until n calls in flight are placed on profile id.
func waitPlaced(t *testing.T, o *Owner, profileID string, n int) {
	t.Helper()
	waitCalls(t, o, fmt.Sprintf("%d calls placed on profile %s", n, profileID), func() bool {
		o.gate.mu.Lock()
		defer o.gate.mu.Unlock()
		got := 0
		for r := range o.gate.calls {
			if r.profileID == profileID {
				got++
			}
		}
		return got == n
	})
}

// TestPauseStopsQueuedWaitsAndNewCalls (issue 28): the person's Stop,
// told by the extension in tabs_changed, answers a call queued behind a
// running one without sending it and ends a time-only browser_wait (which
// never reaches the extension); while paused, new calls are refused
// unsent and browser_list_tabs says so; Resume lets calls through again.
func TestPauseStopsQueuedWaitsAndNewCalls(t *testing.T) {
	o := startOwner(t, Config{})
	e := connect(t, o, fakeext.Options{Secret: testPairing, Tabs: twoTabs()})
	arrived, release := holdAll(e, protocol.MsgPressKey)
	defer release()
	running := callAsync(t, o, "browser_press_key", map[string]any{"key": "a", "tab": 1})
	recv(t, arrived)
	queued := callAsync(t, o, "browser_press_key", map[string]any{"key": "b", "tab": 1})
	waitQueued(t, o, 101, 1)
	waited := callAsync(t, o, "browser_wait", map[string]any{"time": 40})
	waitPlaced(t, o, e.ProfileID(), 3)

	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	if err := e.SetPaused(ctx, true); err != nil {
		t.Fatal(err)
	}
	mustErr(t, recv(t, queued), "Not run", "the person paused the AI in this browser profile", "nothing had been sent")
	mustErr(t, recv(t, waited), "browser_wait was stopped", "the person paused the AI in this browser profile")
	release()
	recv(t, running)
	if n := e.Count(protocol.MsgPressKey); n != 1 {
		t.Fatalf("%d press_key requests reached the extension, want only the running one", n)
	}

	// New calls while paused: refused before anything is sent, on any tab.
	mustErr(t, call(t, o.Caller(), "browser_press_key", map[string]any{"key": "c", "tab": 2}), "Not run", "paused the AI", "nothing had been sent")
	mustErr(t, call(t, o.Caller(), "browser_new_tab", map[string]any{"url": "https://new.example/"}), "paused the AI")
	mustErr(t, call(t, o.Caller(), "browser_wait", map[string]any{"time": 40}), "browser_wait was stopped", "paused the AI")
	if n := e.Count(protocol.MsgPressKey) + e.Count(protocol.MsgNewTab); n != 1 {
		t.Fatalf("calls made while paused reached the extension (%d requests)", n)
	}
	if got := mustOK(t, call(t, o.Caller(), "browser_list_tabs", map[string]any{})); !strings.Contains(got, "The person paused the AI in this profile") {
		t.Errorf("browser_list_tabs does not say the profile is paused:\n%s", got)
	}

	// Resume.
	if err := e.SetPaused(ctx, false); err != nil {
		t.Fatal(err)
	}
	waitFor(t, o, "the resume", func() bool { return !o.Profiles()[0].Paused })
	mustOK(t, call(t, o.Caller(), "browser_press_key", map[string]any{"key": "d", "tab": 2}))
	if n := e.Count(protocol.MsgPressKey); n != 2 {
		t.Fatalf("after Resume %d press_key requests reached the extension, want 2", n)
	}
}

// TestPauseOneTab: a tab paused on its own refuses calls to it (queued and
// new, never sent) while the other tabs go on; a running call there is
// stopped too.
func TestPauseOneTab(t *testing.T) {
	o := startOwner(t, Config{})
	e := connect(t, o, fakeext.Options{Secret: testPairing, Tabs: twoTabs()})
	arrived, release := holdAll(e, protocol.MsgPressKey)
	defer release()
	running := callAsync(t, o, "browser_press_key", map[string]any{"key": "a", "tab": 2})
	recv(t, arrived)
	queued := callAsync(t, o, "browser_press_key", map[string]any{"key": "b", "tab": 2})
	waitQueued(t, o, 102, 1)

	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	if err := e.SetPaused(ctx, true, 102); err != nil {
		t.Fatal(err)
	}
	mustErr(t, recv(t, queued), "Not run", "the person paused the AI in tab 2", "nothing had been sent")
	mustErr(t, recv(t, running), "Stopped", "the person paused the AI in tab 2")
	release()
	mustErr(t, call(t, o.Caller(), "browser_press_key", map[string]any{"key": "c", "tab": 2}), "Not run", "paused the AI in tab 2")
	mustOK(t, call(t, o.Caller(), "browser_press_key", map[string]any{"key": "d", "tab": 1}))
	if n := countTab(e, protocol.MsgPressKey, 102); n != 1 {
		t.Fatalf("%d press_key requests reached the paused tab 2, want only the one running before Stop", n)
	}
	if got := mustOK(t, call(t, o.Caller(), "browser_list_tabs", map[string]any{})); !strings.Contains(got, "tab 2 (paused by the person)") {
		t.Errorf("browser_list_tabs does not say tab 2 is paused:\n%s", got)
	}
	if err := e.SetPaused(ctx, false, 102); err != nil {
		t.Fatal(err)
	}
	waitFor(t, o, "tab 2 resumed", func() bool { return o.reg.pauseOf(e.ProfileID(), 102) == nil })
	mustOK(t, call(t, o.Caller(), "browser_press_key", map[string]any{"key": "e", "tab": 2}))
}

// TestPausedAtConnect: an extension that connects paused (its auth says
// so) gets no call sent.
func TestPausedAtConnect(t *testing.T) {
	o := startOwner(t, Config{})
	e := connect(t, o, fakeext.Options{Secret: testPairing, Paused: true})
	mustErr(t, call(t, o.Caller(), "browser_press_key", map[string]any{"key": "a"}), "Not run", "paused the AI")
	if n := e.Count(protocol.MsgPressKey); n != 0 {
		t.Fatalf("%d requests reached a profile that connected paused", n)
	}
}

func countTab(e *fakeext.Ext, typ string, tabID int) int {
	n := 0
	for _, r := range e.Requests() {
		if r.Type == typ && r.TabID == tabID {
			n++
		}
	}
	return n
}

// TestReconnectedPausedSendsNothing: a call waiting for its profile to come
// back is refused unsent when the profile comes back paused (the person
// pressed Stop while the extension was away).
func TestReconnectedPausedSendsNothing(t *testing.T) {
	o := startOwner(t, Config{ReconnectWait: watchdog})
	e := connect(t, o, fakeext.Options{Secret: testPairing, ProfileID: "ID-P"})
	_ = e.Close()
	waitFor(t, o, "the disconnect", func() bool { return !o.Profiles()[0].Connected })
	pressed := callAsync(t, o, "browser_press_key", map[string]any{"key": "a"})
	back := connect(t, o, fakeext.Options{Secret: testPairing, ProfileID: "ID-P", Paused: true})
	mustErr(t, recv(t, pressed), "Not run", "paused the AI", "nothing had been sent")
	if n := back.Count(protocol.MsgPressKey) + e.Count(protocol.MsgPressKey); n != 0 {
		t.Fatalf("%d requests reached the profile that came back paused", n)
	}
}

// TestRefusedWhilePausedTold (issue 28): the extension hears of every call
// the pause stopped before it was sent (protocol.MsgRefused: a call queued
// when the person pressed Stop, new calls while paused, with their tool,
// tab and app), so its activity log records them; the running call, which
// the extension saw and logs itself, is not told again, nor is anything
// after Resume.
func TestRefusedWhilePausedTold(t *testing.T) {
	o := startOwner(t, Config{})
	e := connect(t, o, fakeext.Options{Secret: testPairing, Tabs: twoTabs()})
	arrived, release := holdAll(e, protocol.MsgPressKey)
	defer release()
	running := callAsync(t, o, "browser_press_key", map[string]any{"key": "a", "tab": 1})
	recv(t, arrived)
	queued := callAsync(t, o, "browser_press_key", map[string]any{"key": "b", "tab": 1})
	waitQueued(t, o, 101, 1)
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	if err := e.SetPaused(ctx, true); err != nil {
		t.Fatal(err)
	}
	mustErr(t, recv(t, queued), "nothing had been sent")
	mustErr(t, recv(t, running), "paused the AI")
	release()
	clicked, err := o.Caller().CallTool(ctx, protocol.CallTool{Name: "browser_click", Args: json.RawMessage(`{"element":"Save","ref":"e1","tab":2}`), App: "Cursor"})
	if err != nil {
		t.Fatal(err)
	}
	mustErr(t, clicked, "nothing had been sent")
	mustErr(t, call(t, o.Caller(), "browser_new_tab", map[string]any{"url": "https://new.example/"}), "paused the AI")
	want := []protocol.Refused{
		{Tool: "browser_press_key", TabID: 101},
		{Tool: "browser_click", TabID: 102, App: "Cursor"},
		{Tool: "browser_new_tab"},
	}
	got, err := e.WaitRefused(ctx, len(want))
	if err != nil || len(got) != len(want) {
		t.Fatalf("refused notifies %+v, want %+v", got, want)
	}
	for i, w := range want {
		if got[i] != w {
			t.Errorf("refused notify %d: %+v, want %+v", i, got[i], w)
		}
	}
	if err := e.SetPaused(ctx, false); err != nil {
		t.Fatal(err)
	}
	waitFor(t, o, "the resume", func() bool { return !o.Profiles()[0].Paused })
	mustOK(t, call(t, o.Caller(), "browser_press_key", map[string]any{"key": "c", "tab": 2}))
	if n := len(e.Refused()); n != len(want) {
		t.Errorf("%d refused notifies after Resume, want %d", n, len(want))
	}
}
