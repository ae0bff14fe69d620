package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/chromedp"

	"github.com/monkbrowse/monkbrowse/e2e/harness"
)

// The fidelity corpus (issue 13): pages that exercise each rule of
// extension/lib/page/aam.ts, compared against Chromium's own accessibility
// tree (CDP Accessibility.getFullAXTree), not against hand-written
// expectations only.

// comparedRoles are the roles whose (role, name) pairs must agree: what can
// be acted on, and the table parts the rules fix.
var comparedRoles = map[string]bool{
	"button": true, "link": true, "textbox": true, "searchbox": true, "checkbox": true, "radio": true,
	"combobox": true, "slider": true, "spinbutton": true, "switch": true, "tab": true, "menuitem": true,
	"menuitemcheckbox": true, "menuitemradio": true, "option": true, "treeitem": true,
	"gridcell": true, "cell": true, "rowheader": true, "columnheader": true,
}

// contentNamed are the table parts our snapshot leaves unnamed when their
// content holds elements (the child lines say it): for them an empty name
// of ours matches any name of Chromium's.
var contentNamed = map[string]bool{"cell": true, "gridcell": true, "row": true}

type axPair struct{ role, name string }

func (p axPair) String() string { return fmt.Sprintf("%s %q", p.role, p.name) }

func normName(s string) string { return strings.Join(strings.Fields(s), " ") }

// chromiumPairs returns the (role, name) pairs of the compared roles among
// the nodes Chromium does not ignore.
func chromiumPairs(t *testing.T, ctx context.Context, tab *harness.Tab) []axPair {
	t.Helper()
	c, cancel := tab.Context(ctx)
	defer cancel()
	if _, err := chromedp.Call(c, accessibility.Enable, struct{}{}); err != nil {
		t.Logf("Accessibility.enable: %v", err)
	}
	res, err := chromedp.Call(c, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{})
	if err != nil {
		t.Fatalf("Accessibility.getFullAXTree: %v", err)
	}
	var out []axPair
	for _, n := range res.Nodes {
		if n.Ignored || n.Role == nil {
			continue
		}
		role := axString(n.Role)
		if !comparedRoles[role] {
			continue
		}
		out = append(out, axPair{role, normName(axString(n.Name))})
	}
	return out
}

func axString(v *accessibility.Value) string {
	if v == nil || len(v.Value) == 0 {
		return ""
	}
	var s string
	if err := json.Unmarshal([]byte(v.Value), &s); err != nil {
		return strings.Trim(string(v.Value), `"`)
	}
	return s
}

// ourPairs returns the (role, name) pairs of the compared roles in a snapshot.
func ourPairs(snap string) []axPair {
	var out []axPair
	for _, l := range harness.ParseSnapshot(snap) {
		if l.Ref != "" && comparedRoles[l.Role] {
			out = append(out, axPair{l.Role, normName(l.Name)})
		}
	}
	return out
}

func pairMatches(ours, theirs axPair) bool {
	return ours.role == theirs.role && (ours.name == theirs.name || (ours.name == "" && contentNamed[ours.role]))
}

// TestFidelityCorpus: on every fidelity page, every (role, name) pair of
// Chromium's tree (interactive roles and table cells) is in our snapshot,
// and every pair of ours is in Chromium's tree among the nodes it does not
// ignore (so nothing of ours is hidden there).
func TestFidelityCorpus(t *testing.T) {
	s := shared(t)
	for _, page := range []string{"/fidelity-tables.html", "/fidelity-svg.html", "/fidelity-names.html", "/fidelity-widgets.html", "/fidelity-apg.html"} {
		t.Run(strings.TrimSuffix(strings.TrimPrefix(page, "/"), ".html"), func(t *testing.T) {
			ctx := testContext(t, testTimeout)
			tab, slot := s.openShared(ctx, t, page)
			snap := s.ok(ctx, t, "browser_snapshot", map[string]any{"tab": slot, "maxTokens": 100000})
			theirs := chromiumPairs(t, ctx, tab)
			ours := ourPairs(snap)
			if len(theirs) == 0 {
				t.Fatal("Chromium's tree has no compared node: the comparison would prove nothing")
			}
			var missing, hidden []string
			for _, p := range theirs {
				found := false
				for _, o := range ours {
					if pairMatches(o, p) {
						found = true
						break
					}
				}
				if !found {
					missing = append(missing, p.String())
				}
			}
			for _, o := range ours {
				found := false
				for _, p := range theirs {
					if pairMatches(o, p) {
						found = true
						break
					}
				}
				if !found {
					hidden = append(hidden, o.String())
				}
			}
			sort.Strings(missing)
			sort.Strings(hidden)
			if len(missing) > 0 {
				t.Errorf("in Chromium's tree but not in our snapshot: %s", strings.Join(missing, ", "))
			}
			if len(hidden) > 0 {
				t.Errorf("in our snapshot but not among Chromium's unignored nodes: %s", strings.Join(hidden, ", "))
			}
			if t.Failed() {
				t.Logf("Chromium: %v\nours: %v\nsnapshot:\n%s", theirs, ours, snap)
			}
			t.Logf("%d pairs compared", len(theirs))
		})
	}
}

// TestFidelitySVGSliderByRef: the slider inside an SVG has a line and a ref,
// and acting on that ref reaches it (click and arrow key change its value).
func TestFidelitySVGSliderByRef(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/fidelity-svg.html")
	snap := s.snapshot(ctx, t, slot)
	knob := ref(t, snap, "slider", "Volume")
	s.ok(ctx, t, "browser_click", map[string]any{"element": "Volume slider", "ref": knob, "tab": slot})
	waitJS(ctx, t, tab, "document.getElementById('knob').getAttribute('aria-valuenow') === '4'")
	s.ok(ctx, t, "browser_press_key", map[string]any{"key": "ArrowRight", "tab": slot})
	waitJS(ctx, t, tab, "document.getElementById('knob').getAttribute('aria-valuenow') === '5'")
	after := s.snapshot(ctx, t, slot)
	if l, ok := harness.Find(after, "slider", "Volume"); !ok || l.Ref != knob || !strings.Contains(l.Value, "5") {
		t.Errorf("after the key the slider line is %+v (want ref %s, value 5)", l, knob)
	}
}
