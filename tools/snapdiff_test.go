package tools

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/monkbrowse/monkbrowse/protocol"
)

const pageBefore = `- heading "Today's tasks" [level=1] [ref=e1]
- form [ref=e2]:
  - textbox "New task" [ref=e3]
  - button "Add task" [ref=e4]
- list "Tasks" [ref=e5]:
  - listitem [ref=e6]: Water the plants
- paragraph [ref=e7]:
  - text: "Tasks left:"
  - status [ref=e8]: "1"`

const pageAfter = `- heading "Today's tasks" [level=1] [ref=e1]
- form [ref=e2]:
  - textbox "New task" [ref=e3]
  - button "Add task" [active] [ref=e4]
- list "Tasks" [ref=e5]:
  - listitem [ref=e6]: Water the plants
  - listitem [ref=e9]: Buy oat milk
- paragraph [ref=e7]:
  - text: "Tasks left:"
  - status [ref=e8]: "2"`

func TestDiffSnapshot(t *testing.T) {
	tests := []struct {
		name        string
		prev, next  string
		wantChanges string
		wantRemoved []string
		wantSame    bool
	}{
		{name: "identical", prev: pageBefore, next: pageBefore, wantSame: true},
		{name: "added, changed state and changed text, under their ancestors", prev: pageBefore, next: pageAfter,
			wantChanges: `- form [ref=e2]:
  - button "Add task" [active] [ref=e4]
- list "Tasks" [ref=e5]:
  - listitem [ref=e9]: Buy oat milk
- paragraph [ref=e7]:
  - status [ref=e8]: "2"
`},
		{name: "removed element", prev: pageAfter, next: strings.Replace(pageAfter, "  - listitem [ref=e9]: Buy oat milk\n", "", 1),
			wantChanges: "", wantRemoved: []string{"listitem [ref=e9]"}},
		{name: "text child of an element changed", prev: "- paragraph [ref=e1]:\n  - text: one\n  - link \"x\" [ref=e2]", next: "- paragraph [ref=e1]:\n  - text: two\n  - link \"x\" [ref=e2]",
			wantChanges: "- paragraph [ref=e1]:\n  - text: two\n"},
		{name: "top-level text changed", prev: "- text: a\n- button \"b\" [ref=e1]", next: "- text: c\n- button \"b\" [ref=e1]",
			wantChanges: "- text: c\n"},
		{name: "element moved to another parent", prev: "- list [ref=e1]:\n  - listitem [ref=e2]: a\n- list [ref=e3]", next: "- list [ref=e1]\n- list [ref=e3]:\n  - listitem [ref=e2]: a",
			wantChanges: "- list [ref=e1]\n- list [ref=e3]:\n  - listitem [ref=e2]: a\n"},
		{name: "reorder of the same elements is a change, shown in the new order",
			prev:        "- list [ref=e1]:\n  - listitem [ref=e2]: a\n  - listitem [ref=e3]: b\n  - listitem [ref=e4]: c",
			next:        "- list [ref=e1]:\n  - listitem [ref=e3]: b\n  - listitem [ref=e2]: a\n  - listitem [ref=e4]: c",
			wantChanges: "- list [ref=e1]:\n  - listitem [ref=e3]: b\n  - listitem [ref=e2]: a\n  - listitem [ref=e4]: c\n"},
		{name: "the last item moved first: the whole list in its new order, not the other lists",
			prev:        "- list [ref=e1]:\n  - listitem [ref=e2]: a\n  - listitem [ref=e3]: b\n  - listitem [ref=e4]: c\n  - listitem [ref=e5]: d\n- list [ref=e6]:\n  - listitem [ref=e7]: x\n  - listitem [ref=e8]: y",
			next:        "- list [ref=e1]:\n  - listitem [ref=e5]: d\n  - listitem [ref=e2]: a\n  - listitem [ref=e3]: b\n  - listitem [ref=e4]: c\n- list [ref=e6]:\n  - listitem [ref=e7]: x\n  - listitem [ref=e8]: y",
			wantChanges: "- list [ref=e1]:\n  - listitem [ref=e5]: d\n  - listitem [ref=e2]: a\n  - listitem [ref=e3]: b\n  - listitem [ref=e4]: c\n"},
		{name: "a moved item's children are not repeated, its siblings are",
			prev:        "- list [ref=e1]:\n  - listitem [ref=e2]:\n    - button \"A\" [ref=e3]\n  - listitem [ref=e4]:\n    - button \"B\" [ref=e5]\n  - listitem [ref=e6]: c",
			next:        "- list [ref=e1]:\n  - listitem [ref=e4]:\n    - button \"B\" [ref=e5]\n  - listitem [ref=e6]: c\n  - listitem [ref=e2]:\n    - button \"A\" [ref=e3]",
			wantChanges: "- list [ref=e1]:\n  - listitem [ref=e4]:\n  - listitem [ref=e6]: c\n  - listitem [ref=e2]:\n"},
		{name: "top-level elements swapped",
			prev: "- button \"A\" [ref=e1]\n- button \"B\" [ref=e2]", next: "- button \"B\" [ref=e2]\n- button \"A\" [ref=e1]",
			wantChanges: "- button \"B\" [ref=e2]\n- button \"A\" [ref=e1]\n"},
		{name: "an item removed from the middle moves no other",
			prev:        "- list [ref=e1]:\n  - listitem [ref=e2]: a\n  - listitem [ref=e3]: b\n  - listitem [ref=e4]: c",
			next:        "- list [ref=e1]:\n  - listitem [ref=e2]: a\n  - listitem [ref=e4]: c",
			wantChanges: "", wantRemoved: []string{"listitem [ref=e3]"}},
		{name: "an item inserted in the middle moves no other",
			prev:        "- list [ref=e1]:\n  - listitem [ref=e2]: a\n  - listitem [ref=e4]: c",
			next:        "- list [ref=e1]:\n  - listitem [ref=e2]: a\n  - listitem [ref=e3]: b\n  - listitem [ref=e4]: c",
			wantChanges: "- list [ref=e1]:\n  - listitem [ref=e3]: b\n"},
		{name: "new subtree comes whole", prev: "- main [ref=e1]", next: "- main [ref=e1]:\n  - dialog \"Confirm\" [ref=e2]:\n    - text: Sure?\n    - button \"OK\" [ref=e3]",
			wantChanges: "- main [ref=e1]:\n  - dialog \"Confirm\" [ref=e2]:\n    - text: Sure?\n    - button \"OK\" [ref=e3]\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			changes, removed, same := DiffSnapshot(tc.prev, tc.next)
			if same != tc.wantSame {
				t.Fatalf("same = %v, want %v (changes %q removed %v)", same, tc.wantSame, changes, removed)
			}
			if changes != tc.wantChanges {
				t.Errorf("changes:\n%s\nwant:\n%s", changes, tc.wantChanges)
			}
			if fmt.Sprint(removed) != fmt.Sprint(tc.wantRemoved) {
				t.Errorf("removed = %v, want %v", removed, tc.wantRemoved)
			}
		})
	}
}

// snapBrowser answers snapshots from a script the test changes between
// calls, like a page changed by actions.
type snapBrowser struct {
	url, snapshot *string
}

func (b snapBrowser) answer(typ string, _ any, out any) error {
	if typ == protocol.MsgSnapshot {
		*out.(*protocol.SnapshotResult) = protocol.SnapshotResult{TabID: 7, URL: *b.url, Title: "T", Snapshot: *b.snapshot}
	}
	return nil
}

func TestActionsAnswerWithChangesSinceTheAppsLastSnapshot(t *testing.T) {
	url, snap := "http://x.test/a", pageBefore
	// A big page, so the diff is worth it.
	for i := 100; i < 160; i++ {
		snap += fmt.Sprintf("\n- link \"Item %d\" [ref=e%d]:\n  - /url: /item/%d", i, i, i)
	}
	big := snap
	d := NewDispatcher(fakeBrowser{answer: snapBrowser{&url, &snap}.answer}, nil)
	text := func(r protocol.CallToolResult) string { return r.Content[0].Text }

	// The first action of an app answers in full: it has no base yet.
	r := callRaw(t, d, "browser_click", `{"element":"Add","ref":"e4"}`)
	if !strings.Contains(text(r), "- Page Snapshot:\n```yaml\n- heading") {
		t.Fatalf("first action must carry the full snapshot:\n%s", text(r))
	}
	// The page changes; the next action shows only what changed.
	snap = strings.Replace(big, pageBefore, pageAfter, 1)
	r = callRaw(t, d, "browser_click", `{"element":"Add","ref":"e4"}`)
	got := text(r)
	if !strings.Contains(got, "Changes since your last snapshot") || !strings.Contains(got, "listitem [ref=e9]: Buy oat milk") || strings.Contains(got, "Item 120") {
		t.Fatalf("second action must carry the changes only:\n%s", got)
	}
	// The URL is the one the app holds (a diff is only made for the same
	// URL), and the title did not change: neither is repeated.
	if strings.Contains(got, "- Page URL:") || strings.Contains(got, "- Page Title:") {
		t.Fatalf("a diff must not repeat the unchanged URL and title:\n%s", got)
	}
	// Nothing changed: say so.
	r = callRaw(t, d, "browser_hover", `{"element":"Add","ref":"e4"}`)
	if !strings.Contains(text(r), "unchanged since your last snapshot") {
		t.Fatalf("unchanged page:\n%s", text(r))
	}
	// Another app (a forwarder) never saw this tab: it gets the full page.
	res, err := d.CallTool(WithClient(context.Background(), "forwarder pid 42"), protocol.CallTool{Name: "browser_click", Args: []byte(`{"element":"Add","ref":"e4"}`)})
	if err != nil || !strings.Contains(res.Content[0].Text, "- Page Snapshot:\n```yaml\n- heading") {
		t.Fatalf("another app's first action must be full: %v\n%+v", err, res)
	}
	// Its next action is diffed against what it was shown itself.
	res, err = d.CallTool(WithClient(context.Background(), "forwarder pid 42"), protocol.CallTool{Name: "browser_hover", Args: []byte(`{"element":"Add","ref":"e4"}`)})
	if err != nil || !strings.Contains(res.Content[0].Text, "unchanged since your last snapshot") {
		t.Fatalf("another app's second action must be diffed against its own view: %v\n%+v", err, res)
	}
	// Another URL: full again.
	url = "http://x.test/b"
	r = callRaw(t, d, "browser_click", `{"element":"Add","ref":"e4"}`)
	if !strings.Contains(text(r), "- Page Snapshot:\n```yaml\n- heading") {
		t.Fatalf("a new URL must carry the full snapshot:\n%s", text(r))
	}
	// Navigation tools always show the whole page, even an unchanged one.
	r = callRaw(t, d, "browser_reload", `{}`)
	if !strings.Contains(text(r), "- Page Snapshot:\n```yaml\n- heading") {
		t.Fatalf("browser_reload must carry the full snapshot:\n%s", text(r))
	}
	// The app was just given the whole page: a snapshot of the unchanged
	// page says so in one line, once; asking again gets it whole.
	r = callRaw(t, d, "browser_snapshot", `{}`)
	if !strings.Contains(text(r), "Unchanged since your last full snapshot") || strings.Contains(text(r), "Item 159") {
		t.Fatalf("browser_snapshot of the page the reload showed must say it is unchanged:\n%s", text(r))
	}
	r = callRaw(t, d, "browser_snapshot", `{}`)
	if !strings.Contains(text(r), "Item 159") {
		t.Fatalf("a second browser_snapshot must be whole:\n%s", text(r))
	}
	// A change bigger than half the page falls back to the whole snapshot.
	snap = strings.ReplaceAll(snap, "Item", "Article")
	r = callRaw(t, d, "browser_click", `{"element":"Add","ref":"e4"}`)
	if strings.Contains(text(r), "Changes since your last snapshot") || !strings.Contains(text(r), "Article 159") {
		t.Fatalf("a mostly changed page must be sent whole:\n%s", text(r))
	}
}

func TestSnapMemoryIsBounded(t *testing.T) {
	var m snapMemory
	for i := 0; i < maxRememberedSnapshots+10; i++ {
		m.remember(snapKey{tabID: i}, protocol.SnapshotResult{URL: "u", Snapshot: "s"}, true)
	}
	if len(m.items) != maxRememberedSnapshots {
		t.Fatalf("remembered %d snapshots, want %d", len(m.items), maxRememberedSnapshots)
	}
	if _, ok := m.last(snapKey{tabID: 0}); ok {
		t.Fatal("the oldest snapshot should have been forgotten first")
	}
	if _, ok := m.last(snapKey{tabID: maxRememberedSnapshots + 9}); !ok {
		t.Fatal("the newest snapshot was forgotten")
	}
}

// FuzzDiffSnapshot holds DiffSnapshot to what its callers rely on: a snapshot
// compared with itself is the same; the changes are lines of next, in next's
// order, with next's indentation; removed names only elements of prev that
// next lacks; "not same" always says what differs; "same" means every element
// of next shows in prev what it shows now.
func FuzzDiffSnapshot(f *testing.F) {
	f.Add(pageBefore, pageAfter)
	f.Add("- a [ref=e1]\n    - b [ref=e2]\n  - c", "- a [ref=e1]")
	f.Add("- list [ref=e1]:\n  - listitem [ref=e2]: a\n- list [ref=e3]", "- list [ref=e1]\n- list [ref=e3]:\n  - listitem [ref=e2]: a")
	f.Fuzz(func(t *testing.T, prev, next string) {
		if _, _, same := DiffSnapshot(next, next); !same {
			t.Fatal("a snapshot differs from itself")
		}
		changes, removed, same := DiffSnapshot(prev, next)
		if same {
			if changes != "" || len(removed) > 0 {
				t.Fatalf("same, with changes %q and removed %v", changes, removed)
			}
		} else if changes == "" && len(removed) == 0 {
			t.Fatal("not same, but nothing said to differ")
		}
		// The changes are a subsequence of next's lines.
		nextLines := strings.Split(next, "\n")
		j := 0
		for _, c := range strings.Split(strings.TrimSuffix(changes, "\n"), "\n") {
			if c == "" {
				continue
			}
			for j < len(nextLines) && strings.TrimRight(nextLines[j], "\r") != c && nextLines[j] != c {
				j++
			}
			if j == len(nextLines) {
				t.Fatalf("change line %q is not a line of next (in order)", c)
			}
			j++
		}
		prevRefs, nextRefs := refLines(prev), refLines(next)
		for _, r := range removed {
			m := refRe.FindStringSubmatch(r)
			if m == nil {
				t.Fatalf("removed entry %q names no ref", r)
			}
			if _, was := prevRefs[m[1]]; !was {
				t.Fatalf("removed %s was not in prev", m[1])
			}
			if _, is := nextRefs[m[1]]; is {
				t.Fatalf("removed %s is still in next", m[1])
			}
		}
		if same {
			for ref, line := range nextRefs {
				if prevRefs[ref] != line {
					t.Fatalf("same, but %s shows %q, was %q", ref, line, prevRefs[ref])
				}
			}
		}
	})
}

// refLines maps each ref of a snapshot to its line (indentation removed).
func refLines(s string) map[string]string {
	m := map[string]string{}
	for _, l := range parseSnapshot(s) {
		if l.ref != "" {
			m[l.ref] = l.text
		}
	}
	return m
}

// TestDiffLeavesOutFocusThatIsNoNews: the element an action acted on taking
// focus, and an element losing focus to another, are not changes worth
// tokens; focus moving to an element the action did not name (a Tab key
// press) is.
func TestDiffLeavesOutFocusThatIsNoNews(t *testing.T) {
	const page = "- form [ref=e1]:\n  - textbox \"Subject\" [ref=e2]\n  - button \"Open\" [ref=e3]\n- paragraph [ref=e4]: \"Opened: 0\""
	clicked := strings.Replace(strings.Replace(page, `"Open" [ref=e3]`, `"Open" [active] [ref=e3]`, 1), "Opened: 0", "Opened: 1", 1)
	changes, _, same := diffSnapshot(page, clicked, "e3")
	if same || changes != "- paragraph [ref=e4]: \"Opened: 1\"\n" {
		t.Fatalf("click on e3: the button taking focus is no news, the counter is:\n%s", changes)
	}
	// Without the target, the same focus change is shown.
	if changes, _, _ = diffSnapshot(page, clicked, ""); !strings.Contains(changes, `button "Open" [active] [ref=e3]`) {
		t.Fatalf("focus gained by an element no action named must be shown:\n%s", changes)
	}
	// Typing into e2 after the click: the field shows its value and focus;
	// the button that lost focus is left out.
	typed := strings.Replace(strings.Replace(clicked, `"Open" [active] [ref=e3]`, `"Open" [ref=e3]`, 1), `"Subject" [ref=e2]`, `"Subject" [active] [ref=e2]: Printer`, 1)
	changes, _, _ = diffSnapshot(clicked, typed, "e2")
	if changes != "- form [ref=e1]:\n  - textbox \"Subject\" [active] [ref=e2]: Printer\n" {
		t.Fatalf("type into e2:\n%s", changes)
	}
	// Only focus moved, to an element the action did not name: shown, the
	// element that lost it is not.
	tabbed := strings.Replace(strings.Replace(typed, `[active] [ref=e2]`, `[ref=e2]`, 1), `"Open" [ref=e3]`, `"Open" [active] [ref=e3]`, 1)
	changes, _, same = diffSnapshot(typed, tabbed, "")
	if same || changes != "- form [ref=e1]:\n  - button \"Open\" [active] [ref=e3]\n" {
		t.Fatalf("Tab moved focus to e3:\n%s", changes)
	}
	// Focus lost to nothing (the page took it away): shown.
	blurred := strings.Replace(typed, `[active] [ref=e2]`, `[ref=e2]`, 1)
	if changes, _, _ = diffSnapshot(typed, blurred, "e2"); !strings.Contains(changes, `textbox "Subject" [ref=e2]: Printer`) {
		t.Fatalf("focus lost to no element must be shown:\n%s", changes)
	}
}

// TestSnapshotAfterAWholeAnswerSaysUnchanged: browser_snapshot right after
// an answer that showed the whole page (a navigation's) answers in one line
// when nothing changed, once; it answers in full after a cut answer, after a
// diff, when the page or its title changed, and for another app.
func TestSnapshotAfterAWholeAnswerSaysUnchanged(t *testing.T) {
	url, snap := "http://x.test/a", pageBefore
	title := "T"
	d := NewDispatcher(fakeBrowser{answer: func(typ string, _ any, out any) error {
		if typ == protocol.MsgSnapshot {
			*out.(*protocol.SnapshotResult) = protocol.SnapshotResult{TabID: 7, URL: url, Title: title, Snapshot: snap}
		}
		return nil
	}}, nil)
	text := func(r protocol.CallToolResult) string { return r.Content[0].Text }
	unchanged := func(r protocol.CallToolResult) bool {
		return strings.Contains(text(r), "Unchanged since your last full snapshot") && !strings.Contains(text(r), "Water the plants")
	}
	callRaw(t, d, "browser_navigate", `{"url":"http://x.test/a"}`)
	if r := callRaw(t, d, "browser_snapshot", `{}`); !unchanged(r) {
		t.Fatalf("after a whole navigation answer:\n%s", text(r))
	}
	if r := callRaw(t, d, "browser_snapshot", `{}`); unchanged(r) || !strings.Contains(text(r), "Water the plants") {
		t.Fatalf("asked again, the page must come whole:\n%s", text(r))
	}
	// That whole answer is a base again: the next snapshot may be short.
	if r := callRaw(t, d, "browser_snapshot", `{}`); !unchanged(r) {
		t.Fatalf("after a whole snapshot:\n%s", text(r))
	}
	// Another app never saw the page.
	res, err := d.CallTool(WithClient(context.Background(), "forwarder pid 42"), protocol.CallTool{Name: "browser_snapshot", Args: []byte(`{}`)})
	if err != nil || !strings.Contains(res.Content[0].Text, "Water the plants") {
		t.Fatalf("another app's snapshot must be whole: %v %+v", err, res)
	}
	// A title change is news.
	title = "T2"
	if r := callRaw(t, d, "browser_snapshot", `{}`); unchanged(r) {
		t.Fatalf("a changed title must be shown:\n%s", text(r))
	}
	// After an action answered by a diff, the app holds no whole text of the
	// page: the snapshot is whole.
	big := pageBefore
	for i := 100; i < 160; i++ {
		big += fmt.Sprintf("\n- link \"Item %d\" [ref=e%d]", i, i)
	}
	snap = big
	callRaw(t, d, "browser_navigate", `{"url":"http://x.test/a"}`)
	snap = strings.Replace(big, pageBefore, pageAfter, 1)
	if r := callRaw(t, d, "browser_click", `{"element":"Add","ref":"e4"}`); !strings.Contains(text(r), "Changes since your last snapshot") {
		t.Fatalf("the click must answer with a diff:\n%s", text(r))
	}
	if r := callRaw(t, d, "browser_snapshot", `{}`); unchanged(r) || !strings.Contains(text(r), "Item 159") {
		t.Fatalf("after a diff the snapshot must be whole:\n%s", text(r))
	}
	// A navigation answer cut to its budget is not the whole page.
	for i := 160; i < 1200; i++ {
		snap += fmt.Sprintf("\n- link \"Item %d\" [ref=e%d]", i, i)
	}
	r := callRaw(t, d, "browser_navigate", `{"url":"http://x.test/a"}`)
	if !strings.Contains(text(r), "part 1") {
		t.Fatalf("the navigation answer should be cut:\n%s", text(r))
	}
	if r := callRaw(t, d, "browser_snapshot", `{}`); unchanged(r) {
		t.Fatalf("after a cut navigation answer the snapshot must not say unchanged:\n%s", text(r))
	}
}

// A page that reorders itself (a sortable list dragged, a table sorted by
// the app) is never answered "unchanged" (issue 41): not by the action
// that did it, not by the snapshot after it.
func TestPageDrivenReorderIsNeverUnchanged(t *testing.T) {
	url := "http://x.test/board"
	items := []string{"Alpha", "Bravo", "Charlie", "Delta"}
	page := func(order ...int) string {
		var b strings.Builder
		b.WriteString("- list \"Board\" [ref=e1]:")
		for _, i := range order {
			fmt.Fprintf(&b, "\n  - listitem [ref=e%d]: %s", i+2, items[i])
		}
		// A big page, so a diff is what an action answers with.
		for i := 100; i < 160; i++ {
			fmt.Fprintf(&b, "\n- link \"Item %d\" [ref=e%d]", i, i)
		}
		return b.String()
	}
	snap := page(0, 1, 2, 3)
	d := NewDispatcher(fakeBrowser{answer: snapBrowser{&url, &snap}.answer}, nil)
	text := func(r protocol.CallToolResult) string { return r.Content[0].Text }
	callRaw(t, d, "browser_navigate", `{"url":"http://x.test/board"}`)

	// The drag moved Delta to the top: same elements, same parent, new order.
	snap = page(3, 0, 1, 2)
	got := text(callRaw(t, d, "browser_drag", `{"startElement":"Delta","startRef":"e5","endElement":"Alpha","endRef":"e2"}`))
	if strings.Contains(got, "unchanged") || !strings.Contains(got, "Changes since your last snapshot") {
		t.Fatalf("a reorder must be answered as a change:\n%s", got)
	}
	if i, j := strings.Index(got, "Delta"), strings.Index(got, "Alpha"); i < 0 || j < 0 || i > j {
		t.Fatalf("the change must show the new order (Delta before Alpha):\n%s", got)
	}
	// The page reorders itself again (the app sorts the list): the snapshot says so.
	snap = page(2, 1, 0, 3)
	got = text(callRaw(t, d, "browser_snapshot", `{}`))
	if strings.Contains(got, "Unchanged") || !strings.Contains(got, "]: Charlie") {
		t.Fatalf("a snapshot after a reorder must not say unchanged:\n%s", got)
	}
	if i, j, k := strings.Index(got, "Charlie"), strings.Index(got, "Bravo"), strings.Index(got, "Alpha"); !(i < j && j < k) {
		t.Fatalf("the snapshot must show the new order:\n%s", got)
	}
}
