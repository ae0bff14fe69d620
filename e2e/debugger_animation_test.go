package e2e

import (
	"context"
	"testing"
	"time"
)

// TestDebuggerClickWaitsForOpeningMenu: with the debugger mode on, a click is
// real input at the element's place. An option of a menu still opening (its
// surface growing for 900 ms, as Material Web's md-select's does) has no
// place yet, so the click's checks refused it ("would land on <div>"); a
// person waits for the menu to open, and so does the click now
// (lib/page/at-rest.ts). The option is clicked with the ref from the
// answer that opened the menu, at once, as an AI does.
func TestDebuggerClickWaitsForOpeningMenu(t *testing.T) {
	p := need(t)
	ctx := testContext(t, 2*testTimeout)
	sctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	s, err := newSuite(sctx, t, p, fixtures(), "animated-menu")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.close)
	if err := s.browser.SetUseDebugger(ctx, true); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, path, win string }{
		{"top page", "/animated-menu.html", "window"},
		// The same menu in a same-origin frame (its refs are the top page's).
		{"frame", "/animated-menu-framed.html", "document.getElementById('menu-frame').contentWindow"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tab, slot := s.openShared(ctx, t, c.path)
			if c.name == "frame" {
				waitJS(ctx, t, tab, c.win+".document.readyState === 'complete'")
			}
			snap := s.snapshot(ctx, t, slot)
			opened := s.ok(ctx, t, "browser_click", map[string]any{"tab": slot, "element": "Plan", "ref": ref(t, snap, "button", "Plan")})
			s.ok(ctx, t, "browser_click", map[string]any{"tab": slot, "element": "Team", "ref": ref(t, opened, "option", "Team")})
			if got := js[string](ctx, t, tab, c.win+".__chosen"); got != "Team" {
				t.Fatalf("the page chose %q, want Team", got)
			}
			if !js[bool](ctx, t, tab, c.win+".__trusted") {
				t.Fatal("the option's click was not real input (isTrusted false)")
			}
		})
	}
}
