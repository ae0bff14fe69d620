package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/monkbrowse/monkbrowse/e2e/harness"
)

// TestSnapshotShadowDOM: open shadow roots (nested too) appear in the
// snapshot, and acting on a shadow element by ref works.
func TestSnapshotShadowDOM(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/shadow.html")
	snap := s.snapshot(ctx, t, slot)
	btn := ref(t, snap, "button", "Shadow action")
	if !strings.Contains(snap, "Inside the shadow root") {
		t.Errorf("the shadow root's text is missing from the snapshot")
	}
	if _, ok := harness.Find(snap, "link", "Nested shadow link"); !ok {
		t.Errorf("a link inside a nested shadow root is missing:\n%s", snap)
	}
	s.ok(ctx, t, "browser_click", map[string]any{"element": "Shadow action", "ref": btn, "tab": slot})
	waitJS(ctx, t, tab, "document.getElementById('shadow-clicks').textContent === '1'")
	q, ok := harness.FindName(snap, "Shadow search")
	if !ok {
		t.Fatalf("the shadow search field is missing:\n%s", snap)
	}
	s.ok(ctx, t, "browser_type", map[string]any{"element": "Shadow search", "ref": q.Ref, "text": "inside", "tab": slot})
	waitJS(ctx, t, tab, "document.getElementById('shadow-query').textContent === 'inside'")
}

// TestSnapshotFrames: a same-origin iframe's content is in the snapshot and
// can be acted on; a cross-origin iframe is marked as such and its content is
// not read.
func TestSnapshotFrames(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/frames.html")
	waitJS(ctx, t, tab, "document.getElementById('same').contentDocument?.readyState === 'complete'")
	if _, err := harness.WaitEval[string](ctx, tab, "document.readyState", func(v string) bool { return v == "complete" }); err != nil {
		t.Fatal(err)
	}
	snap := s.snapshot(ctx, t, slot)
	if !strings.Contains(snap, "Inner frame text (same)") {
		t.Errorf("the same-origin iframe's text is missing:\n%s", snap)
	}
	if strings.Contains(snap, "Inner frame text (cross)") {
		t.Errorf("the cross-origin iframe's content leaked into the snapshot:\n%s", snap)
	}
	marked := false
	for _, l := range strings.Split(snap, "\n") {
		low := strings.ToLower(l)
		if strings.Contains(low, "cross-origin") || strings.Contains(low, "cross origin") {
			marked = true
		}
	}
	if !marked {
		t.Errorf("the cross-origin iframe is not marked as cross-origin:\n%s", snap)
	}
	inner := ref(t, snap, "button", "Inner button")
	s.ok(ctx, t, "browser_click", map[string]any{"element": "Inner button (same-origin frame)", "ref": inner, "tab": slot})
	waitJS(ctx, t, tab, "document.getElementById('same').contentDocument.getElementById('inner-clicks').textContent === '1'")
	// The cross-origin frame was not touched.
	if n, err := harness.EvalInFrame[string](ctx, tab, "who=cross", "document.getElementById('inner-clicks').textContent"); err != nil {
		t.Logf("could not read the cross-origin frame through CDP: %v", err)
	} else if n != "0" {
		t.Errorf("the cross-origin frame's button was clicked too (%s)", n)
	}
}

// TestSnapshotRefs: an unchanged element keeps its ref across snapshots and
// DOM changes elsewhere; a ref of an element that is gone is refused with
// advice to re-snapshot, never used on something else.
func TestSnapshotRefs(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/links3.html")
	first := s.snapshot(ctx, t, slot)
	inc := ref(t, first, "button", "Increment")
	head := ref(t, first, "heading", "Page three")

	// Change the DOM around the button (a new element before it).
	js[bool](ctx, t, tab, "(document.body.insertBefore(Object.assign(document.createElement('button'), {textContent: 'Inserted'}), document.body.firstChild), true)")
	second := s.snapshot(ctx, t, slot)
	if r := ref(t, second, "button", "Increment"); r != inc {
		t.Errorf("the unchanged Increment button's ref changed from %s to %s", inc, r)
	}
	if r := ref(t, second, "heading", "Page three"); r != head {
		t.Errorf("the unchanged heading's ref changed from %s to %s", head, r)
	}
	if r := ref(t, second, "button", "Inserted"); r == inc || r == head {
		t.Errorf("a new element reuses an old ref %s", r)
	}
	s.ok(ctx, t, "browser_click", map[string]any{"element": "Increment", "ref": inc, "tab": slot})
	waitJS(ctx, t, tab, "document.getElementById('counter').textContent === '1'")

	// Remove the button: its ref is stale.
	js[bool](ctx, t, tab, "(document.getElementById('inc').remove(), true)")
	msg := s.fails(ctx, t, "browser_click", map[string]any{"element": "Increment", "ref": inc, "tab": slot})
	if !strings.Contains(strings.ToLower(msg), "snapshot") {
		t.Errorf("the stale-ref error does not say to take a new snapshot: %s", msg)
	}
	// A ref from a previous document is stale as well.
	s.ok(ctx, t, "browser_navigate", map[string]any{"url": s.fx.URL("/links2.html"), "tab": slot})
	msg = s.fails(ctx, t, "browser_click", map[string]any{"element": "Page three heading", "ref": head, "tab": slot})
	if !strings.Contains(strings.ToLower(msg), "snapshot") {
		t.Errorf("a ref from the previous page is not refused with advice to re-snapshot: %s", msg)
	}
	if loc := js[string](ctx, t, tab, "location.pathname"); loc != "/links2.html" {
		t.Errorf("the stale click moved the tab to %s", loc)
	}
}

// TestSnapshotLargePage: a page with thousands of elements snapshots in one
// round trip within a few seconds and lists all of its controls.
func TestSnapshotLargePage(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/large.html")
	if n := js[int](ctx, t, tab, "Number(document.body.dataset.count)"); n < 2000 {
		t.Fatalf("the large fixture has only %d elements", n)
	}
	start := time.Now()
	snap := s.snapshot(ctx, t, slot)
	took := time.Since(start)
	t.Logf("snapshot of the large page: %d bytes in %s", len(snap), took.Round(time.Millisecond))
	if took > 10*time.Second {
		t.Errorf("the snapshot of the large page took %s", took)
	}
	for _, name := range []string{"Pick 1", "Pick 250", "Pick 500"} {
		if _, ok := harness.Find(snap, "button", name); !ok {
			t.Errorf("the snapshot lacks button %q", name)
		}
	}
	if !strings.Contains(snap, "End of the large page") {
		t.Error("the snapshot lacks the page's last paragraph")
	}
	// Acting on an element deep in the large page works.
	out := s.ok(ctx, t, "browser_click", map[string]any{"element": "Open row 500", "ref": ref(t, snap, "link", "Open row 500"), "tab": slot})
	_ = out
	waitJS(ctx, t, tab, "location.hash === '#row-500'")
}
