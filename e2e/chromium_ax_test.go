package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/monkbrowse/monkbrowse/e2e/harness"
)

// lateInternalsNote is the snapshot's sentence for components whose
// ElementInternals the MAIN-world hooks came too late to see.
const lateInternalsNote = "set through ElementInternals are not shown"

// TestDebuggerReadsChromiumTree: components that set their role and state
// through ElementInternals before the tab was shared (the hooks never saw
// them). With the debugger mode off the snapshot says plainly that such
// roles are not shown; on, it reads Chromium's own tree: the switch and the
// listbox's options with their names and states, each with a ref, and a
// click on the switch's ref reaches the component, whose new state the
// next snapshot shows. Off again, it reads as before.
func TestDebuggerReadsChromiumTree(t *testing.T) {
	p := need(t)
	ctx := testContext(t, 2*testTimeout)
	sctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	s, err := newSuite(sctx, t, p, fixtures(), "chromium-ax")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.close)
	// Loaded, and its components upgraded, before it is shared.
	tab, slot := s.openShared(ctx, t, "/ax-internals.html")

	// ---- off ----
	off := s.snapshot(ctx, t, slot)
	if !strings.Contains(off, lateInternalsNote) {
		t.Errorf("debugger off: no sentence about the components' roles:\n%s", off)
	}
	if _, ok := harness.Find(off, "switch", "Dark mode"); ok {
		t.Errorf("debugger off: the switch's role cannot be known, yet it shows:\n%s", off)
	}
	if l := attachLog(ctx, t, s.browser); len(l) != 0 {
		t.Fatalf("with the mode off the extension attached: %+v", l)
	}

	// ---- on ----
	if err := s.browser.SetUseDebugger(ctx, true); err != nil {
		t.Fatal(err)
	}
	on := s.snapshot(ctx, t, slot)
	if strings.Contains(on, lateInternalsNote) {
		t.Errorf("debugger on: Chromium's tree was read, yet the snapshot says roles are missing:\n%s", on)
	}
	sw, ok := harness.Find(on, "switch", "Dark mode")
	if !ok || sw.Ref == "" || strings.Contains(sw.Raw, "[checked]") {
		t.Fatalf("debugger on: want an unchecked switch \"Dark mode\" with a ref:\n%s", on)
	}
	ref(t, on, "listbox", "Fruit")
	pear, ok := harness.Find(on, "option", "Pear")
	if !ok || !strings.Contains(pear.Raw, "[selected]") {
		t.Errorf("debugger on: want option \"Pear\" [selected]:\n%s", on)
	}
	if apple, ok := harness.Find(on, "option", "Apple"); !ok || strings.Contains(apple.Raw, "[selected]") {
		t.Errorf("debugger on: want option \"Apple\", not selected:\n%s", on)
	}
	s.ok(ctx, t, "browser_click", map[string]any{"tab": slot, "element": "Dark mode switch", "ref": sw.Ref})
	if n := js[int](ctx, t, tab, "window.darkClicks"); n != 1 {
		t.Fatalf("the click on the switch's ref reached it %d times, want 1", n)
	}
	if !js[bool](ctx, t, tab, "document.getElementById('dark').on") {
		t.Fatal("the switch is not on after the click")
	}
	after := s.snapshot(ctx, t, slot)
	if sw2, ok := harness.Find(after, "switch", "Dark mode"); !ok || !strings.Contains(sw2.Raw, "[checked]") || sw2.Ref != sw.Ref {
		t.Errorf("after the click: want switch \"Dark mode\" [checked] [ref=%s]:\n%s", sw.Ref, after)
	}

	// ---- off again: as before ----
	if err := s.browser.SetUseDebugger(ctx, false); err != nil {
		t.Fatal(err)
	}
	again := s.snapshot(ctx, t, slot)
	if !strings.Contains(again, lateInternalsNote) {
		t.Errorf("debugger off again: no sentence about the components' roles:\n%s", again)
	}
	if _, ok := harness.Find(again, "switch", "Dark mode"); ok {
		t.Errorf("debugger off again: Chromium's role still shows:\n%s", again)
	}
}
