package e2e

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestEvaluateNeedsConsent: in a fresh Chrome profile browser_evaluate is
// refused with a message naming the switch the person must turn on; after
// the person switches on "Let the AI run JavaScript in shared tabs" on the
// real options page, it runs. The popup shows the switch too.
func TestEvaluateNeedsConsent(t *testing.T) {
	p := need(t)
	ctx := testContext(t, 2*testTimeout)
	sctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	s, err := newSuite(sctx, t, p, fixtures(), "consent")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.close)

	tab, slot := s.openShared(ctx, t, "/form.html")
	msg := s.fails(ctx, t, "browser_evaluate", map[string]any{"expression": "(window.ranByAI = 'yes', document.title)", "tab": slot})
	for _, want := range []string{"Let the AI run JavaScript in shared tabs", "For this Chrome profile", "browser_snapshot"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the refusal does not say %q:\n%s", want, msg)
		}
	}
	if v := js[bool](ctx, t, tab, "'ranByAI' in window"); v {
		t.Error("the refused expression ran in the page anyway")
	}
	waitJS(ctx, t, s.popup.Tab, "document.querySelector('#allow-evaluate') && document.querySelector('#allow-evaluate').checked === false")

	if err := s.browser.SetAllowJavaScript(ctx, true); err != nil {
		t.Fatal(err)
	}
	out := s.ok(ctx, t, "browser_evaluate", map[string]any{"expression": "(window.ranByAI = 'yes', document.title)", "tab": slot})
	want := js[string](ctx, t, tab, "document.title")
	if !strings.Contains(out, want) {
		t.Errorf("evaluate after the switch gave %q, want the title %q", out, want)
	}
	if v := js[string](ctx, t, tab, "window.ranByAI"); v != "yes" {
		t.Errorf("the page sees ranByAI=%q after evaluate", v)
	}
	// The popup follows the switch.
	waitJS(ctx, t, s.popup.Tab, "document.querySelector('#allow-evaluate').checked === true")
}
