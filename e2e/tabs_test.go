package e2e

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/target"
)

// TestTabTools: browser_list_tabs lists shared tabs with their numbers,
// browser_switch_tab brings one to the front, browser_new_tab opens a shared
// tab, browser_close_tab closes it; each checked in the browser itself.
func TestTabTools(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	b, slotB := s.openShared(ctx, t, "/links2.html")
	// a opens behind b, in b's window, as a person's ctrl-click would.
	a, err := s.browser.NewBackgroundTab(ctx, unique(s.fx.URL("/links.html")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	slotA := s.share(ctx, t, a)
	urlA := js[string](ctx, t, a, "location.href")
	urlB := js[string](ctx, t, b, "location.href")

	list := s.ok(ctx, t, "browser_list_tabs", nil)
	profiles := parseTabs(list)
	p, ok := profiles["main"]
	if !ok || !p.Connected {
		t.Fatalf("browser_list_tabs does not show the connected profile \"main\":\n%s", list)
	}
	for _, want := range []struct {
		url  string
		slot int
	}{{urlA, slotA}, {urlB, slotB}} {
		_, lt, ok := tabByURL(profiles, want.url)
		if !ok {
			t.Errorf("browser_list_tabs lacks %s:\n%s", want.url, list)
		} else if lt.Slot != want.slot {
			t.Errorf("browser_list_tabs numbers %s as %d, the popup as %d", want.url, lt.Slot, want.slot)
		}
	}

	// Switch to a: it comes to the front of its window, b goes behind.
	if v := js[string](ctx, t, a, "document.visibilityState"); v != "hidden" {
		t.Fatalf("harness: the background tab is %s", v)
	}
	idA, err := s.popup.ChromeTabID(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	s.ok(ctx, t, "browser_switch_tab", map[string]any{"tab": slotA})
	waitJS(ctx, t, s.popup.Tab, fmt.Sprintf("chrome.tabs.get(%d).then(t => t.active)", idA))
	if v := js[string](ctx, t, a, "document.visibilityState"); v != "visible" {
		t.Errorf("the switched-to tab is %s", v)
	}
	if v := js[string](ctx, t, b, "document.visibilityState"); v != "hidden" {
		t.Errorf("the tab switched away from is still %s", v)
	}
	// Without `tab`, calls now go to the switched-to tab.
	out := s.ok(ctx, t, "browser_get_text", nil)
	if !strings.Contains(out, "Page one") {
		t.Errorf("after switching to tab %d, a call without `tab` read another page:\n%s", slotA, out)
	}

	// New tab: opened, loaded, shared, numbered.
	newURL := unique(s.fx.URL("/links3.html"))
	out = s.ok(ctx, t, "browser_new_tab", map[string]any{"url": newURL})
	m := regexp.MustCompile(`tab (\d+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("browser_new_tab does not say the new tab's number: %s", out)
	}
	newSlot, _ := strconv.Atoi(m[1])
	nt, err := s.browser.WaitTab(ctx, "the new tab", func(u string) bool { return u == newURL })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nt.Close)
	waitJS(ctx, t, nt, "document.readyState === 'complete' && document.getElementById('where').textContent === 'You are on page three.'")
	newID, err := s.popup.ChromeTabIDByURL(ctx, newURL)
	if err != nil {
		t.Fatal(err)
	}
	shares, err := s.popup.Shares(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if shares[strconv.Itoa(newID)] != newSlot {
		t.Errorf("the extension's shares give the new tab %d slot %d, the tool said %d", newID, shares[strconv.Itoa(newID)], newSlot)
	}
	if _, lt, ok := tabByURL(parseTabs(s.ok(ctx, t, "browser_list_tabs", nil)), newURL); !ok || lt.Slot != newSlot {
		t.Errorf("browser_list_tabs does not list the new tab as %d", newSlot)
	}
	// The popup shows it shared with that number.
	if err := s.popup.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	waitJS(ctx, t, s.popup.Tab, fmt.Sprintf(`(() => { const r = document.querySelector('li[data-tab-id="%d"]'); return !!r && r.querySelector('input.share').checked && r.querySelector('.slot').textContent.trim() === '%d'; })()`, newID, newSlot))

	// Close it: the target goes away and the number is free.
	s.ok(ctx, t, "browser_close_tab", map[string]any{"tab": newSlot})
	deadline := time.Now().Add(10 * time.Second)
	for {
		infos, err := s.browser.Targets(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !hasTarget(infos, nt.TargetID) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the tab is still open after browser_close_tab")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if _, _, ok := tabByURL(parseTabs(s.ok(ctx, t, "browser_list_tabs", nil)), newURL); ok {
		t.Error("browser_list_tabs still lists the closed tab")
	}
	msg := s.fails(ctx, t, "browser_get_text", map[string]any{"tab": newSlot})
	if !strings.Contains(msg, strconv.Itoa(slotA)) {
		t.Logf("the error for a closed tab number does not list the tabs that exist: %s", msg)
	}
}

func hasTarget(infos []*target.Info, id target.ID) bool {
	for _, in := range infos {
		if in.TargetID == id {
			return true
		}
	}
	return false
}
