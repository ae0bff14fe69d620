package e2e

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/monkbrowse/monkbrowse/e2e/harness"
)

// TestSharingThroughPopup: a tab is invisible to the AI until the person
// flips its Share toggle in the real popup; it then gets the lowest free
// number; after unsharing, calls naming that number are refused.
func TestSharingThroughPopup(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab := s.openTab(ctx, t, "/links2.html")
	url := js[string](ctx, t, tab, "location.href")

	before := parseTabs(s.ok(ctx, t, "browser_list_tabs", nil))
	if _, _, ok := tabByURL(before, url); ok {
		t.Fatalf("an unshared tab is listed: %s", url)
	}
	used := map[int]bool{}
	maxSlot := 0
	for _, p := range before {
		for _, lt := range p.Tabs {
			used[lt.Slot] = true
			maxSlot = max(maxSlot, lt.Slot)
		}
	}
	lowest := 1
	for used[lowest] {
		lowest++
	}
	// No number reaches the unshared tab.
	msg := s.fails(ctx, t, "browser_get_text", map[string]any{"tab": maxSlot + 1})
	if strings.Contains(msg, "You are on page two") {
		t.Fatalf("an unshared tab's text came back: %s", msg)
	}

	// The person shares it in the popup.
	id, err := s.popup.ChromeTabID(ctx, tab)
	if err != nil {
		t.Fatal(err)
	}
	slot, err := s.popup.Share(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if slot != lowest {
		t.Errorf("the newly shared tab got number %d, want the lowest free number %d", slot, lowest)
	}
	after := parseTabs(s.ok(ctx, t, "browser_list_tabs", nil))
	_, lt, ok := tabByURL(after, url)
	if !ok {
		t.Fatalf("the shared tab is not listed by browser_list_tabs")
	}
	if lt.Slot != slot {
		t.Errorf("browser_list_tabs numbers the tab %d, the popup %d", lt.Slot, slot)
	}
	if out := s.ok(ctx, t, "browser_get_text", map[string]any{"tab": slot}); !strings.Contains(out, "You are on page two") {
		t.Errorf("the shared tab's text: %s", out)
	}
	// The popup shows the connection and this profile's identity.
	if err := s.popup.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	waitJS(ctx, t, s.popup.Tab, "document.querySelector('#status').textContent.toLowerCase().includes('connected')")
	waitJS(ctx, t, s.popup.Tab, "document.querySelector('#identity').textContent.includes('main')")

	// Unshare: gone from the list, and a call naming its number is refused.
	if err := s.popup.Unshare(ctx, id); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := tabByURL(parseTabs(s.ok(ctx, t, "browser_list_tabs", nil)), url); ok {
		t.Error("the unshared tab is still listed")
	}
	js[bool](ctx, t, tab, "(document.getElementById('where').dataset.mark = 'untouched', true)")
	res := s.call(ctx, t, "browser_navigate", map[string]any{"url": s.fx.URL("/links3.html"), "tab": slot})
	if !res.IsError {
		t.Errorf("navigating an unshared tab by its old number %d succeeded: %s", slot, res.Text)
	}
	if loc := js[string](ctx, t, tab, "location.href"); loc != url {
		t.Errorf("the unshared tab was navigated to %s", loc)
	}
	if !strings.Contains(res.Text, fmt.Sprint(slot)) && !strings.Contains(strings.ToLower(res.Text), "shared") {
		t.Errorf("the refusal does not explain itself: %s", res.Text)
	}
}

// TestSlotReusedRightAway: tab 1 is closed and, at once, another tab is
// shared and gets number 1 again. A call for tab 1 must reach the new tab,
// not the closed one (the server's cache of the profile's tabs may lag the
// extension by its tabs_changed debounce).
func TestSlotReusedRightAway(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	old, slot := s.openShared(ctx, t, "/links.html")
	s.ok(ctx, t, "browser_get_text", map[string]any{"tab": slot})
	fresh := s.openTab(ctx, t, "/links2.html")
	freshID, err := s.popup.ChromeTabID(ctx, fresh)
	if err != nil {
		t.Fatal(err)
	}
	oldID, err := s.popup.ChromeTabID(ctx, old)
	if err != nil {
		t.Fatal(err)
	}
	old.Close() // the person closes the tab
	// The extension frees the number when it sees the tab go; the server's
	// cache may still lag (the tabs_changed debounce). Sharing before the
	// extension saw it would give another number and pin nothing.
	waitUnshared(ctx, t, s.popup, oldID)
	got, err := s.popup.Share(ctx, freshID)
	if err != nil {
		t.Fatal(err)
	}
	if got != slot {
		t.Fatalf("the new tab got number %d, not the freed %d (the lowest free number: tests do not run in parallel)", got, slot)
	}
	res := s.call(ctx, t, "browser_get_text", map[string]any{"tab": slot})
	if res.IsError || !strings.Contains(res.Text, "You are on page two") {
		t.Errorf("tab %d was re-shared on another tab, but the call did not reach it: %s", slot, harness.Clip(res.Text, 300))
	}
}

// waitUnshared waits until the extension's shares no longer hold the Chrome
// tab id (closed or unshared).
func waitUnshared(ctx context.Context, t *testing.T, p *harness.Popup, chromeTabID int) {
	t.Helper()
	key := strconv.Itoa(chromeTabID)
	for {
		shares, err := p.Shares(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := shares[key]; !ok {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the extension still shares closed tab %d: %v", chromeTabID, shares)
		case <-time.After(20 * time.Millisecond): // the next reading
		}
	}
}
