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
	if !strings.Contains(got, "only the elements that changed") || !strings.Contains(got, "listitem [ref=e9]: Buy oat milk") || strings.Contains(got, "Item 120") {
		t.Fatalf("second action must carry the changes only:\n%s", got)
	}
	// Nothing changed: say so.
	r = callRaw(t, d, "browser_hover", `{"element":"Add","ref":"e4"}`)
	if !strings.Contains(text(r), "unchanged since your last snapshot") {
		t.Fatalf("unchanged page:\n%s", text(r))
	}
	// Another app (a forwarder) never saw this tab: it gets the full page.
	res, err := d.CallTool(context.Background(), protocol.CallTool{Name: "browser_click", Args: []byte(`{"element":"Add","ref":"e4"}`), Client: "forwarder pid 42"})
	if err != nil || !strings.Contains(res.Content[0].Text, "- Page Snapshot:\n```yaml\n- heading") {
		t.Fatalf("another app's first action must be full: %v\n%+v", err, res)
	}
	// Its next action is diffed against what it was shown itself.
	res, err = d.CallTool(context.Background(), protocol.CallTool{Name: "browser_hover", Args: []byte(`{"element":"Add","ref":"e4"}`), Client: "forwarder pid 42"})
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
	// browser_snapshot is always whole, and becomes the base.
	r = callRaw(t, d, "browser_snapshot", `{}`)
	if !strings.Contains(text(r), "Item 159") {
		t.Fatalf("browser_snapshot must be whole:\n%s", text(r))
	}
	// A change bigger than half the page falls back to the whole snapshot.
	snap = strings.ReplaceAll(snap, "Item", "Article")
	r = callRaw(t, d, "browser_click", `{"element":"Add","ref":"e4"}`)
	if strings.Contains(text(r), "only the elements that changed") || !strings.Contains(text(r), "Article 159") {
		t.Fatalf("a mostly changed page must be sent whole:\n%s", text(r))
	}
}

func TestSnapMemoryIsBounded(t *testing.T) {
	var m snapMemory
	for i := 0; i < maxRememberedSnapshots+10; i++ {
		m.remember(snapKey{tabID: i}, protocol.SnapshotResult{URL: "u", Snapshot: "s"})
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
