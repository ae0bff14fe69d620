package tools

import (
	"strings"
	"testing"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// TestPointedShowsTheFirstRefTheSnapshotHas: the element's own ref is a
// collapsed wrapper's (no line), so its nearest ancestor with a line is
// shown, under its ancestors, with its own part and the selected text, all
// after the page-content note; an element gone from the page is said so.
func TestPointedShowsTheFirstRefTheSnapshotHas(t *testing.T) {
	snap := protocol.SnapshotResult{URL: "https://a.test/notes", Snapshot: "- banner [ref=e1]:\n  - link \"Home\" [ref=e2]\n- main [ref=e3]:\n  - heading \"Notes\" [level=1] [ref=e4]\n  - article [ref=e5]:\n    - paragraph [ref=e6]: The quick brown fox\n  - button \"Save\" [ref=e7]\n"}
	tg := Target{Slug: "work", Slot: 2, TabID: 9}
	out := formatPointed(tg, protocol.GetSelectionResult{Pointed: true, Refs: []string{"e40", "e5", "e3"}, Text: "quick brown\nfox", At: 1_764_500_000_000}, snap)
	if !strings.HasPrefix(out, `The person pointed at ref e5 in tab 2 of profile "work" at `) {
		t.Fatalf("head:\n%s", out)
	}
	note := strings.Index(out, PageContentNote)
	want := "```yaml\n- main [ref=e3]:\n  - article [ref=e5]:\n    - paragraph [ref=e6]: The quick brown fox\n```\n- Selected text:\n  quick brown\n  fox"
	if i := strings.Index(out, want); i < 0 || i < note {
		t.Errorf("the pointed part is not\n%s\nafter the note in:\n%s", want, out)
	}
	if strings.Contains(out, "Home") || strings.Contains(out, "Save") {
		t.Errorf("lines beside the pointed element are shown:\n%s", out)
	}
	gone := formatPointed(tg, protocol.GetSelectionResult{Pointed: true, Refs: []string{"e99"}, Text: "fox"}, snap)
	if !strings.Contains(gone, "that is not in the page now") || !strings.Contains(gone, "- Selected text:\n  fox") {
		t.Errorf("an element gone from the page:\n%s", gone)
	}
	bad := formatPointed(tg, protocol.GetSelectionResult{Pointed: true, Refs: []string{"e6] [ref=e7"}}, snap)
	if !strings.Contains(bad, "not in the page now") {
		t.Errorf("a ref that is not one was looked up:\n%s", bad)
	}
}
