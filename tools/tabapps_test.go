package tools

import (
	"strings"
	"testing"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// TestListTabsSaysWhichAppOpenedAndActed: browser_list_tabs names the app
// that opened a tab and the one that acted in it last.
func TestListTabsSaysWhichAppOpenedAndActed(t *testing.T) {
	out := formatTabs([]ProfileInfo{{Slug: "work", Label: "Work", Connected: true, Tabs: []protocol.TabInfo{
		{TabID: 5, Slot: 1, URL: "https://a.test/", Title: "A", OpenedBy: "Cursor", LastApp: "Claude Code"},
		{TabID: 6, Slot: 2, URL: "https://b.test/", Title: "B"},
	}}})
	if !strings.Contains(out, "- tab 1: A — https://a.test/ (opened by Cursor; last used by Claude Code)\n") {
		t.Fatalf("tab 1 does not name its apps:\n%s", out)
	}
	if !strings.Contains(out, "- tab 2: B — https://b.test/\n") {
		t.Fatalf("tab 2 should name no app:\n%s", out)
	}
}
