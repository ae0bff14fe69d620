package e2e

import (
	"strings"
	"testing"
)

// TestActionAnswersAfterThePagesOwnWork: an action's answer waits for what
// the page itself started in reaction to it — a fetch (150 ms), an
// XMLHttpRequest (120 ms), a short timer (40 ms) — and shows its effect,
// though each lands well after the old fixed quiet windows had ended
// (extension/lib/page/pagework.ts, settle.ts).
func TestActionAnswersAfterThePagesOwnWork(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/settle.html")
	snap := s.snapshot(ctx, t, slot)

	out := s.ok(ctx, t, "browser_type", map[string]any{"element": "Search", "ref": ref(t, snap, "searchbox", "Search"), "text": "teapots", "tab": slot})
	if !strings.Contains(out, "results for teapots") {
		t.Errorf("browser_type answered before the page's fetch landed (page now: %q):\n%s",
			js[string](ctx, t, tab, "document.getElementById('results').textContent"), out)
	}
	out = s.ok(ctx, t, "browser_click", map[string]any{"element": "Load orders", "ref": ref(t, snap, "button", "Load orders"), "tab": slot})
	if !strings.Contains(out, "3 orders loaded") {
		t.Errorf("browser_click answered before the page's XMLHttpRequest landed:\n%s", out)
	}
	out = s.ok(ctx, t, "browser_click", map[string]any{"element": "Show tip", "ref": ref(t, snap, "button", "Show tip"), "tab": slot})
	if !strings.Contains(out, "tip: press Enter") {
		t.Errorf("browser_click answered before the page's 40 ms timer ran:\n%s", out)
	}
}
