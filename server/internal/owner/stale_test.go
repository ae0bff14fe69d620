package owner

import (
	"context"
	"strings"
	"testing"

	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/server/internal/fakeext"
	"github.com/monkbrowse/monkbrowse/tools"
)

// reuseTabs: tab 1 shared (Chrome id 101), two tabs the person may share
// next.
func reuseTabs() []fakeext.Tab {
	return []fakeext.Tab{
		{ID: 101, WindowID: 1, Shared: true, Slot: 1, Active: true, URL: "https://one.example/"},
		{ID: 102, WindowID: 1, URL: "https://two.example/"},
		{ID: 103, WindowID: 1, URL: "https://three.example/"},
	}
}

// TestSlotReusedRightAway: the person closes the tab shared as tab 1 and
// shares another tab, which gets number 1, and the AI calls tab 1 before
// the extension's (debounced) tabs_changed arrived. The server's cache
// still maps 1 to the closed tab; the extension refuses that tab, and the
// call must reach the tab that holds number 1 now, for reads and for
// actions alike (the refusal came before anything was done). The AI never
// sees Chrome's tab ids.
func TestSlotReusedRightAway(t *testing.T) {
	o := startOwner(t, Config{})
	e := connect(t, o, fakeext.Options{Secret: testPairing, Label: "Work", Tabs: reuseTabs()})
	mustOK(t, call(t, o.Caller(), "browser_get_text", map[string]any{"tab": 1}))

	// A read.
	e.RemoveTab(101)
	e.SetShared(102, true)
	if tab, _ := e.Tab(102); tab.Slot != 1 {
		t.Fatalf("the fake gave the re-shared tab number %d, want 1", tab.Slot)
	}
	got := mustOK(t, call(t, o.Caller(), "browser_get_text", map[string]any{"tab": 1}))
	if !strings.Contains(got, "Welcome to https://two.example/") {
		t.Fatalf("tab 1 was re-shared on another tab, but the call did not read it: %s", got)
	}
	if n := e.Count(protocol.MsgListTabs); n != 1 {
		t.Errorf("list_tabs sent %d times, want 1 (one refresh after the refusal)", n)
	}

	// An action.
	e.RemoveTab(102)
	e.SetShared(103, true)
	got = mustOK(t, call(t, o.Caller(), "browser_click", map[string]any{"tab": 1, "ref": "e3", "element": "Go button"}))
	if !strings.Contains(got, "in tab 1 of profile \"work\"") {
		t.Errorf("the result does not name tab 1: %s", got)
	}
	if clicks := e.Page(103).Clicks; len(clicks) != 1 || clicks[0] != "e3" {
		t.Errorf("the tab that holds number 1 now saw clicks %v, want exactly [e3]", clicks)
	}
	refused, done := 0, 0
	for _, r := range e.Requests() {
		if r.Type != protocol.MsgClick {
			continue
		}
		switch r.TabID {
		case 102:
			refused++
		case 103:
			done++
		default:
			t.Errorf("a click was sent to tab id %d", r.TabID)
		}
	}
	if refused != 1 || done != 1 {
		t.Errorf("clicks: %d to the closed tab, %d to the new one; want one each", refused, done)
	}
	// The refresh updated the cache: the next call goes straight there.
	before := e.Count(protocol.MsgListTabs)
	mustOK(t, call(t, o.Caller(), "browser_snapshot", map[string]any{"tab": 1}))
	if n := e.Count(protocol.MsgListTabs); n != before {
		t.Errorf("a call after the refresh asked list_tabs again")
	}
}

// TestSlotClosedSpeaksInTabNumbers: the tab behind a number was closed and
// nothing took the number. The call fails once, after one refresh, in the
// words the AI knows (tab number, profile, the shared tabs left), never
// with Chrome's tab id, and the action is not sent anywhere else.
func TestSlotClosedSpeaksInTabNumbers(t *testing.T) {
	o := startOwner(t, Config{})
	e := connect(t, o, fakeext.Options{Secret: testPairing, Label: "Work", Tabs: []fakeext.Tab{
		{ID: 472490157, WindowID: 1, Shared: true, Slot: 1, Active: true, URL: "https://one.example/"},
		{ID: 472490158, WindowID: 1, Shared: true, Slot: 2, URL: "https://two.example/"},
	}})
	e.RemoveTab(472490157)
	msg := mustErr(t, call(t, o.Caller(), "browser_click", map[string]any{"tab": 1, "ref": "e3", "element": "Go button"}),
		`Tab 1 of profile "work" is no longer shared`, "Nothing was done", "2 (Page https://two.example/")
	if strings.Contains(msg, "472490157") {
		t.Errorf("the message shows Chrome's tab id: %s", msg)
	}
	if n := e.Count(protocol.MsgClick); n != 1 {
		t.Errorf("%d clicks sent, want 1 (the refused one)", n)
	}
	if n := e.Count(protocol.MsgListTabs); n != 1 {
		t.Errorf("list_tabs sent %d times, want 1", n)
	}
	if clicks := e.Page(472490158).Clicks; len(clicks) != 0 {
		t.Errorf("tab 2 was clicked: %v", clicks)
	}

	// The last shared tab goes too: the answer says there is none.
	e.RemoveTab(472490158)
	msg = mustErr(t, call(t, o.Caller(), "browser_snapshot", map[string]any{"tab": 2}),
		`Tab 2 of profile "work" is no longer shared`, "has no shared tabs now")
	if strings.Contains(msg, "472490158") {
		t.Errorf("the message shows Chrome's tab id: %s", msg)
	}
}

// A refusal of a later request in the same call (the snapshot after an
// action) is not a reason to repeat the action.
func TestSlotGoneAfterActionNotRepeated(t *testing.T) {
	o := startOwner(t, Config{})
	e := connect(t, o, fakeext.Options{Secret: testPairing, Label: "Work", Tabs: reuseTabs()})
	e.SetHook(func(_ context.Context, r fakeext.Request) error {
		if r.Type == protocol.MsgSnapshot && r.TabID == 101 {
			// The person closed the tab right after the click and
			// shared another one.
			e.RemoveTab(101)
			e.SetShared(102, true)
		}
		return nil
	})
	got := mustOK(t, call(t, o.Caller(), "browser_click", map[string]any{"tab": 1, "ref": "e3", "element": "Go button"}))
	if !strings.Contains(got, "the fresh snapshot failed") || !strings.Contains(got, "Tab 1 of profile \"work\" is no longer shared") {
		t.Errorf("result: %s", got)
	}
	if n := e.Count(protocol.MsgClick); n != 1 {
		t.Errorf("%d clicks sent, want 1", n)
	}
}

// TestTabGoneIsDecidedByCode: the owner treats a refusal as "tab gone" by
// its code alone: the extension's sentence without the code is passed on to
// the AI, and any sentence with the code counts.
func TestTabGoneIsDecidedByCode(t *testing.T) {
	for code, want := range map[string]bool{
		protocol.CodeTabGone:      true,
		protocol.CodeNotShared:    true,
		"":                        false,
		protocol.CodeOwnerLeaving: false,
		"stale_ref":               false,
	} {
		if got := tabGoneCode(code); got != want {
			t.Errorf("tabGoneCode(%q) = %v, want %v", code, got, want)
		}
	}
}

func TestErrorsSpeakSlots(t *testing.T) {
	tg := tools.Target{Slug: "work", TabID: 472490157, Slot: 1}
	for in, want := range map[string]string{
		"tab 472490157 cannot be automated: this is a Chrome page": `tab 1 of profile "work" cannot be automated: this is a Chrome page`,
		"the page in tab 472490157 did not answer":                 `the page in tab 1 of profile "work" did not answer`,
		"Tab 472490157 crashed":                                    `Tab 1 of profile "work" crashed`,
		"tab 4724901570 is another tab":                            "tab 4724901570 is another tab",
		"ref e3 is not on the page any more":                       "ref e3 is not on the page any more",
	} {
		if got := speakSlots(in, tg); got != want {
			t.Errorf("speakSlots(%q) = %q, want %q", in, got, want)
		}
	}
}
