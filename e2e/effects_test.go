package e2e

import (
	"regexp"
	"strings"
	"testing"
)

// TestClickHiddenTwin clicks a screen-reader copy of a list item (the
// markup of rc-select, Ant Design's Select): the answer is an error that
// says nothing was clicked and names the visible item with its ref; the
// retry on that ref selects it, read back in the page's own state. A copy
// with no visible twin is clicked and reported as having had no effect.
func TestClickHiddenTwin(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/hidden-twin.html")
	snap := s.snapshot(ctx, t, slot)

	copyRef := ref(t, snap, "option", "Banana")
	msg := s.fails(ctx, t, "browser_click", map[string]any{"element": "Banana option", "ref": copyRef, "tab": slot})
	if !strings.Contains(msg, "not visible") || !strings.Contains(msg, "nothing was clicked") {
		t.Errorf("the refusal does not say the option is invisible and was not clicked: %s", msg)
	}
	t.Logf("refusal: %s", msg)
	m := regexp.MustCompile(`\[ref=(e\d+)\]: click that ref instead`).FindStringSubmatch(msg)
	if m == nil {
		t.Fatalf("the refusal names no visible twin's ref: %s", msg)
	}
	if v := js[any](ctx, t, tab, "window.__state.selected"); v != nil {
		t.Fatalf("the refused click selected %v", v)
	}
	s.ok(ctx, t, "browser_click", map[string]any{"element": "Banana", "ref": m[1], "tab": slot})
	if v := js[string](ctx, t, tab, "String(window.__state.selected)"); v != "banana" {
		t.Errorf("after clicking the named twin the page selected %q, want banana", v)
	}

	// A copy with no visible twin: clicked, and reported as having done nothing.
	durian := ref(t, snap, "option", "Durian")
	msg = s.fails(ctx, t, "browser_click", map[string]any{"element": "Durian option", "ref": durian, "tab": slot})
	if !strings.Contains(msg, "no effect") || !strings.Contains(msg, "not visible") {
		t.Errorf("the click on an invisible option with no effect is not reported as such: %s", msg)
	}
	if v := js[string](ctx, t, tab, "String(window.__state.selected)"); v != "banana" {
		t.Errorf("the selection changed to %q", v)
	}
}
