package owner

import (
	"strings"
	"testing"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// TestTabThatLeftReachIsExplained: a tab the extension reports as having
// left the AI's reach (a "never" site, issue 44) is answered with the
// extension's sentence, one line and bounded; once its number is shared
// again, the number is an ordinary tab. The policy is kept for status.
func TestTabThatLeftReachIsExplained(t *testing.T) {
	r := newRegistry(4)
	c := &conn{}
	if ack := r.admit(protocol.Auth{ProfileID: "p1", Label: "work", Tabs: []protocol.TabInfo{{TabID: 5, Slot: 1, URL: "https://a.test/"}}}, c, "v"); !ack.OK {
		t.Fatalf("not admitted: %+v", ack)
	}
	if _, ok := r.activate(c); !ok {
		t.Fatal("not activated")
	}
	why := "tab 2 went to bank.test, a site the person's site rules keep from the AI (never):\nmonkbrowse stopped sharing the tab"
	r.setRules(c, &protocol.SitePolicy{Forbidden: []string{"evaluate"}}, []protocol.LeftTab{{Slot: 2, Reason: why}, {Slot: 0, Reason: "ignored"}})
	got := r.leftReach(c, 2)
	if !strings.HasPrefix(got, "tab 2 went to bank.test") || strings.Contains(got, "\n") {
		t.Fatalf("leftReach(2) = %q", got)
	}
	if r.leftReach(c, 1) != "" || r.leftReach(c, 0) != "" || r.leftReach(c, 3) != "" {
		t.Fatal("a tab that did not leave is explained as having left")
	}
	if err := leftReachError(got, r.tabsOf(c)); !strings.HasPrefix(err.Error(), "Tab 2 went to bank.test") || !strings.Contains(err.Error(), "The shared tabs now:") {
		t.Fatalf("the error reads %q", err)
	}
	if p := r.list()[0].Policy; p == nil || p.Forbidden[0] != "evaluate" {
		t.Fatalf("the policy is not kept: %+v", p)
	}
	// Number 2 is shared again: an ordinary tab.
	r.setTabs(c, []protocol.TabInfo{{TabID: 5, Slot: 1}, {TabID: 9, Slot: 2}})
	r.setRules(c, nil, nil)
	if r.leftReach(c, 2) != "" {
		t.Fatal("a number shared again is still out of reach")
	}
	if r.list()[0].Policy != nil {
		t.Fatal("a policy the extension no longer reports is kept")
	}
	// A list_tabs answer's Left is kept too, and keeps the policy.
	r.setRules(c, &protocol.SitePolicy{Forbidden: []string{"uploads"}}, nil)
	r.learnLeft(c, []protocol.LeftTab{{Slot: 4, Reason: "tab 4 went to bank.test"}})
	if r.leftReach(c, 4) != "tab 4 went to bank.test" || r.list()[0].Policy == nil {
		t.Fatal("a list_tabs answer's Left is not kept, or it dropped the policy")
	}
	long := strings.Repeat("x", 2000)
	r.setRules(c, nil, []protocol.LeftTab{{Slot: 7, Reason: long}})
	if n := len(r.leftReach(c, 7)); n > maxLeftReason+40 {
		t.Fatalf("the sentence is not bounded: %d bytes", n)
	}
}
