package run

import (
	"testing"

	"github.com/monkbrowse/monkbrowse/bench/internal/snapshot"
)

// appShows finds an element inside another's subtree only, in both formats,
// and by inline text for unnamed lines.
func TestAppShows(t *testing.T) {
	yaml := "- list \"To do\" [ref=e1]:\n  - listitem [ref=e2]: Write report\n- list \"Done\" [ref=e3]:\n  - listitem [ref=e4]: Order laptops\n- paragraph [ref=e5]: Chosen: Contact 150\n"
	card := AppRead{AppTarget: AppTarget{Name: "Write report"}, Within: &AppTarget{Role: "list", Name: "Done"}}
	if appShows(yaml, snapshot.YAML, card) {
		t.Error("the card is under To do, yet found under Done")
	}
	moved := "- list \"To do\" [ref=e1]\n- list \"Done\" [ref=e3]:\n  - listitem [ref=e4]: Order laptops\n  - listitem [ref=e2]: Write report\n"
	if !appShows(moved, snapshot.YAML, card) {
		t.Error("the card under Done not found")
	}
	if !appShows(yaml, snapshot.YAML, AppRead{AppTarget: AppTarget{Role: "paragraph", Name: "Chosen: Contact 150"}}) {
		t.Error("an unnamed paragraph not found by its inline text")
	}
	uid := "uid=1_1 list \"Done\"\n  uid=1_2 listitem\n    uid=1_3 StaticText \"Write report\"\n"
	if !appShows(uid, snapshot.UID, card) {
		t.Error("chrome-devtools-mcp's format: the card under Done not found")
	}
	if !appShows("uid=1_0 RootWebArea \"x\"\n  uid=28_0 \"Chosen: Contact 150\"\n", snapshot.UID, AppRead{AppTarget: AppTarget{Name: "Chosen: Contact 150"}}) {
		t.Error("chrome-devtools-mcp's role-less text line not read")
	}
	if ref, _, ok := appLookup(moved, snapshot.YAML, AppTarget{Role: "listitem", Name: "Write report"}); !ok || ref != "e2" {
		t.Errorf("appLookup by inline text = %q, %v", ref, ok)
	}
}
