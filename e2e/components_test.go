package e2e

import (
	"regexp"
	"strings"
	"testing"

	"github.com/monkbrowse/monkbrowse/e2e/harness"
)

// The apps of issue 41, acted on by ref in real Chromium with the
// debugger off: a design system's ElementInternals options and checkbox, a
// canvas's fallback button, an editor's list items, and a list the page
// reorders itself.

// TestComponentsInternalsByRef: options and a checkbox whose role and state
// live in ElementInternals have refs; clicking one changes the app's model,
// and the answer shows the new state (an internals state change is a change).
func TestComponentsInternalsByRef(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := openComponents(ctx, t, s)
	snap := s.snapshot(ctx, t, slot)
	express := ref(t, snap, "option", "Express")
	out := s.ok(ctx, t, "browser_click", map[string]any{"element": "Express", "ref": express, "tab": slot})
	waitJS(ctx, t, tab, "window.dsChosen === 'Express'")
	if !regexp.MustCompile(`option "Express" \[selected\] \[ref=` + express + `\]`).MatchString(out) {
		t.Errorf("the click's answer does not show Express selected:\n%s", out)
	}
	gift := ref(t, snap, "checkbox", "Gift wrap")
	out = s.ok(ctx, t, "browser_click", map[string]any{"element": "Gift wrap", "ref": gift, "tab": slot})
	if !regexp.MustCompile(`checkbox "Gift wrap" \[checked\]( \[active\])? \[ref=` + gift + `\]`).MatchString(out) {
		t.Errorf("the click's answer does not show the checkbox checked:\n%s", out)
	}
	if strings.Contains(out, "unchanged") {
		t.Errorf("a state change read as unchanged:\n%s", out)
	}
}

// TestComponentsSharedAfterLoad: a page whose components were defined
// before the tab was shared cannot have its ElementInternals read; the
// snapshot says so in one line instead of passing their options off as text.
func TestComponentsSharedAfterLoad(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab := s.openTab(ctx, t, "/fidelity-components.html?now=1")
	waitJS(ctx, t, tab, "window.componentsDefined === true")
	slot := s.share(ctx, t, tab)
	snap := s.snapshot(ctx, t, slot)
	if !strings.Contains(snap, "set through ElementInternals are not shown (they were set before monkbrowse reached the page, as when it loaded before it was shared: reloading it shows them)") {
		t.Errorf("no line saying the internals could not be read:\n%s", snap)
	}
	// The attribute-made options are there as always.
	if _, ok := harness.Find(snap, "option", "Small"); !ok {
		t.Errorf("the slotted option is missing:\n%s", snap)
	}
}

// TestCanvasFallbackByRef: a canvas's fallback table and button are in the
// snapshot with refs, and the button's ref reaches the app.
func TestCanvasFallbackByRef(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/fidelity-components.html?now=1")
	snap := s.snapshot(ctx, t, slot)
	if l, ok := harness.Find(snap, "cell", "North"); !ok || l.Ref == "" {
		t.Errorf("the canvas's fallback cell has no line with a ref:\n%s", snap)
	}
	sort := ref(t, snap, "button", "Sort by Q1")
	s.ok(ctx, t, "browser_click", map[string]any{"element": "Sort by Q1", "ref": sort, "tab": slot})
	waitJS(ctx, t, tab, "window.sorted === 1")
	// A change in the fallback content is a change.
	js[bool](ctx, t, tab, "(document.getElementById('north-q1').textContent = '1500', true)")
	after := s.ok(ctx, t, "browser_snapshot", map[string]any{"tab": slot})
	if l, ok := harness.Find(after, "cell", "1500"); !ok || l.Ref == "" {
		t.Errorf("the canvas fallback's new value is not shown:\n%s", after)
	}
}

// TestEditorBlocksByRef: an editor's list items have refs; a click on one
// puts the caret there, and browser_type on one types at that caret,
// leaving the other blocks as they were.
func TestEditorBlocksByRef(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/fidelity-components.html?now=1")
	snap := s.snapshot(ctx, t, slot)
	m := regexp.MustCompile(`- listitem \[ref=(e\d+)\]: Eggs`).FindStringSubmatch(snap)
	if m == nil {
		t.Fatalf("the editor's list item has no ref:\n%s", snap)
	}
	eggs := m[1]
	s.ok(ctx, t, "browser_click", map[string]any{"element": "Eggs", "ref": eggs, "tab": slot})
	waitJS(ctx, t, tab, "(() => { const s = getSelection(); const li = document.querySelectorAll('#notes li')[1]; return s.isCollapsed && li.contains(s.anchorNode) && document.activeElement.id === 'notes'; })()")
	s.ok(ctx, t, "browser_type", map[string]any{"element": "Eggs", "ref": eggs, "text": " and ham", "tab": slot})
	waitJS(ctx, t, tab, "[...document.querySelectorAll('#notes li')].map(li => li.textContent).join('|') === 'Milk|Eggs and ham|Bread'")
	if got := js[string](ctx, t, tab, "document.querySelector('#notes p').textContent + '|' + document.querySelector('#notes h2').textContent"); got != "First paragraph|Plan" {
		t.Errorf("typing into one block changed others: %q", got)
	}
}

// TestPageReorderIsAChange: a list the page reorders itself (the same
// nodes, moved) is never answered "unchanged": not by the action that made
// the app reorder it, not by the snapshot after the app reordered it alone.
func TestPageReorderIsAChange(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/reorder.html")
	snap := s.snapshot(ctx, t, slot)
	order := func(text string) string {
		var names []string
		for _, m := range regexp.MustCompile(`listitem \[ref=e\d+\]: (\w+)`).FindAllStringSubmatch(text, -1) {
			names = append(names, m[1])
		}
		return strings.Join(names, ",")
	}
	if got := order(snap); got != "Alpha,Bravo,Charlie,Delta" {
		t.Fatalf("order before: %q\n%s", got, snap)
	}
	move := ref(t, snap, "button", "Move last to top")
	out := s.ok(ctx, t, "browser_click", map[string]any{"element": "Move last to top", "ref": move, "tab": slot})
	waitJS(ctx, t, tab, "document.querySelector('#queue li').textContent === 'Delta'")
	if strings.Contains(out, "unchanged") || !strings.HasPrefix(order(out), "Delta,Alpha") {
		t.Errorf("the click's answer does not show Delta moved to the top:\n%s", out)
	}
	// The app reorders the list by itself.
	if got := js[string](ctx, t, tab, "reverseQueue()"); got != "Charlie,Bravo,Alpha,Delta" {
		t.Fatalf("the page's reorder: %q", got)
	}
	after := s.ok(ctx, t, "browser_snapshot", map[string]any{"tab": slot})
	if strings.Contains(after, "Unchanged") || order(after) != "Charlie,Bravo,Alpha,Delta" {
		t.Errorf("the snapshot after the page reordered its list does not show the new order:\n%s", after)
	}
}

// TestHostileRoleNeverInSnapshot (issue 40): a page's role attribute is a
// role only through a token of the ARIA role set; line feeds, no-break
// spaces and backtick runs in it never reach the snapshot, in real Chromium.
func TestHostileRoleNeverInSnapshot(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/hostile-role.html")
	waitJS(ctx, t, tab, "window.rolesSet === true")
	snap := s.snapshot(ctx, t, slot)
	body := snap[strings.Index(snap, "```yaml")+len("```yaml"):]
	body = body[:strings.LastIndex(body, "```")]
	for _, bad := range []string{"Play video", "approved", "```", "\u00a0"} {
		if strings.Contains(body, bad) {
			t.Errorf("the page's role string reached the snapshot (%q):\n%s", bad, snap)
		}
	}
	for _, want := range []string{`- button "Delete account" [ref=`, `- generic [ref=`, `- link "Home" [ref=`, `- tab "Settings" [ref=`} {
		if !strings.Contains(body, want) {
			t.Errorf("missing %q (the implicit role, or the valid token):\n%s", want, snap)
		}
	}
}

// TestIframeEditorBlocksByRef: a rich-text editor in a same-origin iframe
// (TinyMCE's and CKEditor 4's build) shows its paragraphs with refs, and
// browser_type on one types at the end of that paragraph only.
func TestIframeEditorBlocksByRef(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/fidelity-components.html?now=1")
	waitJS(ctx, t, tab, "document.getElementById('rte').contentDocument?.body?.isContentEditable === true")
	snap := s.snapshot(ctx, t, slot)
	if l, ok := harness.Find(snap, "textbox", "Rich Text Area"); !ok || l.Ref == "" {
		t.Fatalf("no editor line:\n%s", snap)
	}
	m := regexp.MustCompile(`- paragraph \[ref=(e\d+)\]: Dear team,`).FindStringSubmatch(snap)
	if m == nil {
		t.Fatalf("the frame editor's paragraph has no ref:\n%s", snap)
	}
	s.ok(ctx, t, "browser_type", map[string]any{"element": "Dear team,", "ref": m[1], "text": " hello", "tab": slot})
	waitJS(ctx, t, tab, "[...document.getElementById('rte').contentDocument.querySelectorAll('p')].map(p => p.textContent).join('|') === 'Dear team, hello|See you Monday.'")
}

// TestGridCellRefClicksItsControl: a grid cell holding one link is named
// by it (as in Chromium), so the cell's ref is one an AI may pick: its
// click reaches the link, as a real click at the cell's center does.
func TestGridCellRefClicksItsControl(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/fidelity-components.html?now=1")
	snap := s.snapshot(ctx, t, slot)
	cell := ref(t, snap, "gridcell", "Budget.xlsx")
	s.ok(ctx, t, "browser_click", map[string]any{"element": "Budget.xlsx cell", "ref": cell, "tab": slot})
	waitJS(ctx, t, tab, "location.hash === '#budget'")
}
