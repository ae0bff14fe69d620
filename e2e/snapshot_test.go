package e2e

import (
	"fmt"
	"regexp"
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
// can be acted on with top-page refs; a cross-origin iframe's content is read
// too (issue 26), under its own line with refs that name its frame, and each
// click lands in its own frame only.
func TestSnapshotFrames(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/frames.html")
	waitJS(ctx, t, tab, "document.getElementById('same').contentDocument?.readyState === 'complete'")
	if _, err := harness.WaitEval[bool](ctx, tab, "document.readyState === 'complete'", func(v bool) bool { return v }); err != nil {
		t.Fatal(err)
	}
	snap := s.snapshot(ctx, t, slot)
	if !strings.Contains(snap, "Inner frame text (same)") {
		t.Errorf("the same-origin iframe's text is missing:\n%s", snap)
	}
	cross, inside := under(t, snap, "Cross origin frame")
	if cross.Has("cross-origin") || len(inside) == 0 || !strings.Contains(inside[0].Value+inside[0].Name, "Inner frame text (cross)") {
		t.Errorf("the cross-origin iframe's content is not under its line:\n%s", snap)
	}
	_, same := under(t, snap, "Same origin frame")
	inner, ok := findIn(same, "button", "Inner button")
	if !ok || strings.HasPrefix(inner.Ref, "f") {
		t.Fatalf("the same-origin frame's button is not there with a top-page ref:\n%s", snap)
	}
	s.ok(ctx, t, "browser_click", map[string]any{"element": "Inner button (same-origin frame)", "ref": inner.Ref, "tab": slot})
	waitJS(ctx, t, tab, "document.getElementById('same').contentDocument.getElementById('inner-clicks').textContent === '1'")
	// The cross-origin frame was not touched by that click.
	if n, err := harness.EvalInFrame[string](ctx, tab, "who=cross", "document.getElementById('inner-clicks').textContent"); err != nil {
		t.Fatalf("could not read the cross-origin frame through CDP: %v", err)
	} else if n != "0" {
		t.Errorf("the cross-origin frame's button was clicked too (%s)", n)
	}
	crossBtn, ok := findIn(inside, "button", "Inner button")
	if !ok || !strings.HasPrefix(crossBtn.Ref, "f") {
		t.Fatalf("the cross-origin frame's button has no frame ref:\n%s", snap)
	}
	s.ok(ctx, t, "browser_click", map[string]any{"element": "Inner button (cross-origin frame)", "ref": crossBtn.Ref, "tab": slot})
	if n, err := harness.EvalInFrame[string](ctx, tab, "who=cross", "document.getElementById('inner-clicks').textContent"); err != nil || n != "1" {
		t.Errorf("the cross-origin frame's button: clicks %q, %v", n, err)
	}
	if n := js[string](ctx, t, tab, "document.getElementById('same').contentDocument.getElementById('inner-clicks').textContent"); n != "1" {
		t.Errorf("the same-origin frame's button was clicked by the cross-origin frame's ref (%s)", n)
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
// round trip within a few seconds; the answer stays within the token budget
// and acting on an element deep in the page (reached by find) works.
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
	t.Logf("snapshot of the large page: %d bytes (~%d tokens) in %s", len(snap), estimateTokens(snap), took.Round(time.Millisecond))
	if took > 10*time.Second {
		t.Errorf("the snapshot of the large page took %s", took)
	}
	if n := estimateTokens(snap); n > defaultMaxTokens {
		t.Errorf("the snapshot is ~%d tokens, over the default budget %d", n, defaultMaxTokens)
	}
	for _, want := range []string{`heading "Large table"`, "End of the large page", "Left out:", "more rows like the above"} {
		if !strings.Contains(snap, want) {
			t.Errorf("the budgeted snapshot lacks %q:\n%s", want, harness.Clip(snap, 3000))
		}
	}
	found := s.ok(ctx, t, "browser_find", map[string]any{"query": `role:link "Open row 500"`, "tab": slot})
	s.ok(ctx, t, "browser_click", map[string]any{"element": "Open row 500", "ref": ref(t, found, "link", "Open row 500"), "tab": slot})
	waitJS(ctx, t, tab, "location.hash === '#row-500'")
}

// defaultMaxTokens is tools.DefaultMaxTokens (the e2e module does not
// import the tools module).
const defaultMaxTokens = 10_000

// estimateTokens is tools.EstimateTokens: the larger of bytes/4 and the
// number of non-ASCII characters.
func estimateTokens(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x80 {
			n++
		}
	}
	return max((len(s)+3)/4, n)
}

var cursorRe = regexp.MustCompile(`cursor="(c\d+\.\d+)"`)

// TestSnapshotBudgetPaging: on the 3,500-element page and a generated
// ~20,000-element page, no answer is over the budget (navigation, snapshot,
// every cursor part), every link and button of the page is reached through
// the cursor with one ref each, refs are the same across parts, across
// snapshots and in a ref-scoped snapshot, and an element from a late part
// can be acted on.
func TestSnapshotBudgetPaging(t *testing.T) {
	s := shared(t)
	for _, rows := range []int{500, 2900} {
		t.Run(fmt.Sprintf("rows=%d", rows), func(t *testing.T) {
			ctx := testContext(t, 4*testTimeout)
			tab, slot := s.openShared(ctx, t, "/links.html")
			url := s.fx.URL(fmt.Sprintf("/large.html?rows=%d", rows))
			nav := s.ok(ctx, t, "browser_navigate", map[string]any{"url": url, "tab": slot})
			if n := estimateTokens(nav); n > 2_000+200 || !strings.Contains(nav, "call browser_snapshot") {
				t.Errorf("navigate answered ~%d tokens (navigation budget 2,000) or without the hint:\n%s", n, harness.Clip(nav, 1500))
			}
			elems := js[int](ctx, t, tab, "Number(document.body.dataset.count)")
			t.Logf("%d elements", elems)

			start := time.Now()
			page := s.snapshot(ctx, t, slot)
			t.Logf("budgeted snapshot: ~%d tokens in %s", estimateTokens(page), time.Since(start).Round(time.Millisecond))
			lineOf := map[string]string{} // ref → its line, as first seen
			byName := map[string]string{} // "link Open row 7" → ref
			parts := 0
			for {
				parts++
				if n := estimateTokens(page); n > defaultMaxTokens {
					t.Fatalf("part %d is ~%d tokens, over %d", parts, n, defaultMaxTokens)
				}
				for _, l := range harness.ParseSnapshot(page) {
					if l.Ref == "" {
						continue
					}
					raw := strings.TrimSpace(l.Raw)
					if prev, ok := lineOf[l.Ref]; ok && prev != raw {
						t.Fatalf("ref %s changed between parts: %q then %q", l.Ref, prev, raw)
					}
					lineOf[l.Ref] = raw
					if l.Role == "link" || l.Role == "button" {
						key := l.Role + " " + l.Name
						if r, ok := byName[key]; ok && r != l.Ref {
							t.Fatalf("%s has two refs, %s and %s", key, r, l.Ref)
						}
						byName[key] = l.Ref
					}
				}
				m := cursorRe.FindStringSubmatch(page)
				if m == nil {
					break
				}
				if parts > 400 {
					t.Fatal("the cursor does not come to an end")
				}
				page = s.ok(ctx, t, "browser_snapshot", map[string]any{"cursor": m[1], "tab": slot})
			}
			if !strings.Contains(page, "That was the last part") && parts > 1 {
				t.Errorf("the last part does not say it is the last:\n%s", harness.Clip(page, 800))
			}
			t.Logf("%d parts, %d refs", parts, len(lineOf))
			for i := 1; i <= rows; i++ {
				for _, key := range []string{fmt.Sprintf("link Open row %d", i), fmt.Sprintf("button Pick %d", i)} {
					if byName[key] == "" {
						t.Fatalf("%q was not reached through the cursor", key)
					}
				}
			}
			// The same refs in a fresh snapshot and in a ref-scoped one.
			again := s.snapshot(ctx, t, slot)
			for _, l := range harness.ParseSnapshot(again) {
				if l.Ref != "" && lineOf[l.Ref] != "" && lineOf[l.Ref] != strings.TrimSpace(l.Raw) {
					t.Errorf("ref %s is %q now, %q before", l.Ref, strings.TrimSpace(l.Raw), lineOf[l.Ref])
				}
			}
			last := fmt.Sprintf("Pick %d", rows)
			found := s.ok(ctx, t, "browser_find", map[string]any{"query": fmt.Sprintf("role:button %q", last), "tab": slot})
			if r := ref(t, found, "button", last); r != byName["button "+last] {
				t.Errorf("find gave %s for %s, the cursor %s", r, last, byName["button "+last])
			}
			var rowLine harness.SnapshotLine
			for _, l := range harness.ParseSnapshot(found) {
				if l.Role == "row" {
					rowLine = l
				}
			}
			if rowLine.Ref == "" {
				t.Fatalf("find did not show the row above the button:\n%s", found)
			}
			part := s.ok(ctx, t, "browser_snapshot", map[string]any{"ref": rowLine.Ref, "tab": slot})
			if r := ref(t, part, "button", last); r != byName["button "+last] || estimateTokens(part) > defaultMaxTokens {
				t.Errorf("the row's snapshot gives %s for %s (cursor: %s)", r, last, byName["button "+last])
			}
			// An element from the last part can be acted on.
			link := fmt.Sprintf("Open row %d", rows)
			s.ok(ctx, t, "browser_click", map[string]any{"element": link, "ref": byName["link "+link], "tab": slot})
			waitJS(ctx, t, tab, fmt.Sprintf("location.hash === '#row-%d'", rows))
		})
	}
}
