package e2e

import (
	"strings"
	"testing"
)

// TestNavigation: browser_navigate, browser_click on a link, browser_go_back,
// browser_go_forward and browser_reload land where they should, and each
// returns only once the new page is there (read back through CDP).
func TestNavigation(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/links.html")

	page2 := s.fx.URL("/links2.html")
	out := s.ok(ctx, t, "browser_navigate", map[string]any{"url": page2, "tab": slot})
	if !strings.Contains(out, "Page two") {
		t.Errorf("browser_navigate's result has no fresh snapshot of page two:\n%s", out)
	}
	// The call returned: the tab must already be on page two, loaded.
	if loc := js[string](ctx, t, tab, "location.href"); loc != page2 {
		t.Fatalf("after browser_navigate the tab is at %s, want %s", loc, page2)
	}
	if st := js[string](ctx, t, tab, "document.readyState + ' ' + document.getElementById('where').textContent"); st != "complete You are on page two." {
		t.Errorf("after browser_navigate the page reads %q", st)
	}

	// A link clicked by ref navigates like a person's click.
	link := ref(t, out, "link", "Go to page three")
	s.ok(ctx, t, "browser_click", map[string]any{"element": "Go to page three link", "ref": link, "tab": slot})
	page3 := s.fx.URL("/links3.html")
	waitJS(ctx, t, tab, "location.href === "+jsString(page3)+" && document.readyState === 'complete'")

	out = s.ok(ctx, t, "browser_go_back", map[string]any{"tab": slot})
	if loc := js[string](ctx, t, tab, "location.href"); loc != page2 {
		t.Fatalf("after browser_go_back the tab is at %s, want %s", loc, page2)
	}
	if !strings.Contains(out, "Page two") {
		t.Errorf("browser_go_back's result does not show page two:\n%s", out)
	}

	out = s.ok(ctx, t, "browser_go_forward", map[string]any{"tab": slot})
	if loc := js[string](ctx, t, tab, "location.href"); loc != page3 {
		t.Fatalf("after browser_go_forward the tab is at %s, want %s", loc, page3)
	}
	if !strings.Contains(out, "Page three") {
		t.Errorf("browser_go_forward's result does not show page three:\n%s", out)
	}

	// Reload: state kept only in the old document disappears.
	js[bool](ctx, t, tab, "(window.__beforeReload = true, document.getElementById('counter').textContent = '41', true)")
	before := js[float64](ctx, t, tab, "performance.timeOrigin")
	s.ok(ctx, t, "browser_reload", map[string]any{"tab": slot})
	after := js[float64](ctx, t, tab, "performance.timeOrigin")
	if after == before {
		t.Fatalf("browser_reload returned but the document is the same one (timeOrigin %v)", before)
	}
	if st := js[string](ctx, t, tab, "String(window.__beforeReload) + ' ' + document.getElementById('counter').textContent + ' ' + document.readyState"); st != "undefined 0 complete" {
		t.Errorf("after browser_reload the page reads %q, want a fresh, loaded document", st)
	}
	if loc := js[string](ctx, t, tab, "location.href"); loc != page3 {
		t.Errorf("after browser_reload the tab is at %s, want %s", loc, page3)
	}
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
