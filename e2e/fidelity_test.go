package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
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
			compareWithChromium(ctx, t, tab, snap)
		})
	}
}

// compareWithChromium fails t unless every (role, name) pair of Chromium's
// tree for tab (interactive roles and table cells) is in snap, and every
// pair of snap is among Chromium's unignored nodes.
// ignore names pairs of ours that Chromium's tree of the top frame cannot
// hold (a same-origin iframe's content is in another frame's tree).
func compareWithChromium(ctx context.Context, t *testing.T, tab *harness.Tab, snap string, ignore ...axPair) {
	t.Helper()
	theirs := chromiumPairs(t, ctx, tab)
	var ours []axPair
	for _, o := range ourPairs(snap) {
		if !slices.Contains(ignore, o) {
			ours = append(ours, o)
		}
	}
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

// apgPages are all the reproductions of W3C ARIA Authoring Practices example
// pages in e2e/testdata/apg (issue 27): every pattern's example page, the
// five that first differed from Chromium's tree (grid and treegrid cells,
// tree item names) among them, plus the tooltip and window splitter patterns,
// which have no example page of their own. No npm package carries the APG
// pages, so these are written for this corpus: their markup, styles and
// scripts reproduce the structure of the originals, checked against the
// originals' source (each page's head says what it reproduces); the data and
// prose are our own.
var apgPages = []string{
	"accordion", "alert", "breadcrumb", "button", "carousel-tabs", "checkbox",
	"combobox-autocomplete-list", "combobox-datepicker", "combobox-grid-popup", "combobox-select-only",
	"data-grids", "dialog-modal", "disclosure-faq", "disclosure-navigation", "feed", "landmarks",
	"layout-grids", "link", "listbox-grouped", "listbox-rearrangeable", "listbox-scrollable",
	"menu-button-actions", "menu-button-links", "menubar-editor", "menubar-navigation", "meter",
	"radio", "slider", "slider-multithumb", "spinbutton-datepicker", "switch", "table", "table-sortable",
	"tabs-automatic", "tabs-manual", "toolbar", "tooltip", "treegrid", "treeview-files",
	"treeview-navigation", "window-splitter",
}

// apgChanges are a second state of each page, made by the page's own script
// (a click it handles): the comparison is made again there. Each expression
// returns true once the change is made.
var apgChanges = map[string]string{
	"accordion":                  `(document.getElementById('accordion2id').click(), !document.getElementById('sect2').hidden)`,
	"alert":                      `(document.getElementById('alert-trigger').click(), document.getElementById('notes_save').click(), document.getElementById('example').textContent.includes('five minutes') && document.getElementById('notes_save_status').textContent !== '')`,
	"breadcrumb":                 `(document.querySelector('a[href="#plants"]').click(), document.querySelector('a[href="#plants"]').getAttribute('aria-current') === 'page')`,
	"button":                     `(document.getElementById('toggle').click(), document.getElementById('toggle').getAttribute('aria-pressed') === 'true')`,
	"carousel-tabs":              `(document.getElementById('carousel-tab-3').click(), document.getElementById('carousel-item-3').classList.contains('active'))`,
	"checkbox":                   `(document.querySelector('#ex1 [role=checkbox]').click(), document.querySelector('.group_checkbox').click(), document.querySelector('.group_checkbox').getAttribute('aria-checked') === 'true')`,
	"combobox-autocomplete-list": `(document.getElementById('cb1-button').click(), document.getElementById('cb1-input').getAttribute('aria-expanded') === 'true')`,
	"combobox-datepicker":        `(document.querySelector('.combobox-datepicker button.icon').click(), document.getElementById('id-datepicker-1').classList.contains('open'))`,
	"combobox-grid-popup":        `(document.getElementById('ex1-input').value = 'c', document.getElementById('ex1-input').dispatchEvent(new Event('input')), document.getElementById('ex1-input').getAttribute('aria-expanded') === 'true')`,
	"combobox-select-only":       `(document.getElementById('combo1').click(), document.getElementById('combo1').getAttribute('aria-expanded') === 'true')`,
	"data-grids":                 `(document.querySelector('#g2 [aria-haspopup]').click(), document.getElementById('toggle_columns').click(), document.querySelector('#g2 [role=menu]').classList.contains('open'))`,
	"dialog-modal":               `(document.getElementById('open_dialog1').click(), document.getElementById('backdrop1').classList.contains('active'))`,
	"disclosure-faq":             `(document.querySelector('[aria-controls=faq2_desc]').click(), document.getElementById('faq2_desc').classList.contains('open'))`,
	"disclosure-navigation":      `(document.querySelector('[aria-controls=id_services_menu]').click(), document.querySelector('[aria-controls=id_services_menu]').getAttribute('aria-expanded') === 'true')`,
	"feed":                       `(window.dispatchEvent(new Event('scroll')), document.querySelectorAll('#restaurant-feed [role=article]').length === 6)`,
	"landmarks":                  `(document.getElementById('tab1').click(), document.getElementById('tabpanel1').classList.contains('active') && !document.getElementById('tabpanel2').classList.contains('active'))`,
	"layout-grids":               `(document.getElementById('next').click(), document.querySelector('#recipients button').click(), document.querySelectorAll('#recipients [role=row]').length === 2)`,
	"link":                       `(document.getElementById('link3').click(), document.getElementById('where').textContent === 'Last opened: link3')`,
	"listbox-grouped":            `(document.getElementById('ss_elem_5').click(), document.getElementById('ss_elem_5').getAttribute('aria-selected') === 'true')`,
	"listbox-rearrangeable":      `(document.getElementById('ss_opt2').click(), document.getElementById('ss_unimp').click(), document.getElementById('ms_opt3').click(), document.getElementById('ss_unimp_list').children.length === 1 && document.getElementById('ms_opt3').getAttribute('aria-selected') === 'true')`,
	"listbox-scrollable":         `(document.getElementById('ss_elem_Rhine').click(), document.getElementById('ss_elem_Rhine').getAttribute('aria-selected') === 'true')`,
	"menu-button-actions":        `(document.getElementById('menubutton1').click(), document.getElementById('menu1').classList.contains('open'))`,
	"menu-button-links":          `(document.getElementById('menubutton').click(), document.getElementById('menu2').classList.contains('open'))`,
	"menubar-editor":             `(document.querySelectorAll('[role=menubar] > li > [role=menuitem]')[1].click(), document.querySelector('[data-option=font-bold]').click(), document.querySelector('[data-option=font-bold]').getAttribute('aria-checked') === 'true')`,
	"menubar-navigation":         `(document.querySelector('[href="#visit"]').click(), document.querySelector('[href="#getting-here"]').click(), document.querySelector('[href="#getting-here"]').getAttribute('aria-expanded') === 'true')`,
	"meter":                      `(document.querySelector('.play-meters').click(), document.querySelector('.play-meters').textContent === 'Pause Updates')`,
	"radio":                      `(document.querySelectorAll('#rg1 [role=radio]')[1].click(), document.getElementById('rb33').click(), document.getElementById('rb33').getAttribute('aria-checked') === 'true')`,
	"slider":                     `(document.querySelector('.color-slider.red').click(), document.getElementById('id-temp-slider').dispatchEvent(new MouseEvent('click', {bubbles: true})), document.querySelector('.color-slider.red').getAttribute('aria-valuenow') === '65' && document.getElementById('id-temp-slider').getAttribute('aria-valuenow') === '19')`,
	"slider-multithumb":          `(document.getElementById('hostel-min').dispatchEvent(new MouseEvent('click', {bubbles: true})), document.getElementById('hostel-min').getAttribute('aria-valuenow') === '30')`,
	"spinbutton-datepicker":      `(document.querySelector('.month .increase').click(), document.querySelector('.month [role=spinbutton]').textContent === 'July' && document.getElementById('myDatepickerDate').textContent.includes('July'))`,
	"switch":                     `(document.querySelector('div[role=switch]').click(), document.querySelector('div[role=switch]').getAttribute('aria-checked') === 'true')`,
	"table":                      `(document.getElementById('add_row').click(), document.querySelectorAll('#choir_rows [role=row]').length === 5)`,
	"table-sortable":             `(document.querySelector('input[value=show-unsorted-icon]').click(), document.querySelectorAll('table.sortable th button')[3].click(), document.querySelectorAll('table.sortable th')[4].getAttribute('aria-sort') === 'ascending' && document.querySelector('table.sortable').classList.contains('show-unsorted-icon'))`,
	"tabs-automatic":             `(document.getElementById('tab-3').click(), !document.getElementById('tabpanel-3').classList.contains('is-hidden'))`,
	"tabs-manual":                `(document.getElementById('tab-3').click(), !document.getElementById('tabpanel-3').classList.contains('is-hidden'))`,
	"toolbar":                    `(document.querySelector('[role=toolbar] [aria-haspopup]').click(), document.querySelector('[role=toolbar] [value=bold]').click(), document.getElementById('menu1').classList.contains('open'))`,
	"tooltip":                    `(document.querySelector('[aria-describedby=tt-print]').click(), document.querySelector('[aria-describedby=tt-print]').parentElement.classList.contains('show'))`,
	"treegrid":                   `(document.querySelectorAll('#treegrid tbody tr')[4].cells[0].click(), document.querySelectorAll('#treegrid tbody tr')[4].getAttribute('aria-expanded') === 'true')`,
	"treeview-files":             `(document.querySelector('[role=tree] [aria-expanded=false]').click(), document.getElementById('last_action').value === 'Desserts')`,
	"treeview-navigation":        `(document.querySelector('[aria-owns=sub-study] .icon').click(), document.querySelector('[aria-owns=sub-study]').getAttribute('aria-expanded') === 'true')`,
	"window-splitter":            `(document.querySelector('.split [role=separator]').click(), document.querySelector('.split [role=separator]').getAttribute('aria-valuenow') === '10')`,
}

// apgRoles are the roles compared on the APG pages: comparedRoles plus the
// structure an AI finds its way by (headings, landmarks, the widgets' containers).
var apgRoles = func() map[string]bool {
	m := map[string]bool{
		"heading": true, "navigation": true, "main": true, "banner": true, "contentinfo": true, "region": true,
		"tree": true, "group": true, "grid": true, "treegrid": true, "table": true, "row": true, "menu": true, "separator": true,
	}
	for r := range comparedRoles {
		m[r] = true
	}
	return m
}()

// The targets (issue 27, Build 3): (role, name) recall against
// Chromium's tree, after the normalisation in docs/DECISIONS.md ("Roles and
// names follow Chromium"): names compared with their white space collapsed
// and trimmed; an empty name of ours on a table part named by its content
// matches any name (the child lines carry it).
const (
	apgPageRecall    = 0.97
	apgOverallRecall = 0.99
)

// apgExplained are the misses we know and accept, each with the reason the
// test prints beside it; a miss not listed here fails the test, as does a
// pair of ours that Chromium's tree does not have. None are left.
var apgExplained = map[string]string{}

// axRawPairs is chromiumPairs for a role set, keeping the raw names too.
func axRawPairs(t *testing.T, ctx context.Context, tab *harness.Tab, roles map[string]bool) (pairs []axPair, raw []string) {
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
	for _, n := range res.Nodes {
		if n.Ignored || n.Role == nil {
			continue
		}
		role := axString(n.Role)
		if !roles[role] {
			continue
		}
		name := axString(n.Name)
		pairs = append(pairs, axPair{role, normName(name)})
		raw = append(raw, name)
	}
	return pairs, raw
}

// matchPairs pairs each of theirs with a distinct pair of ours (exact names
// first, then the content-named wildcard), so that a name Chromium has three
// times must be in our snapshot three times; it returns theirs left unmatched
// and ours left unmatched.
func matchPairs(theirs, ours []axPair) (missing, extra []axPair) {
	used := make([]bool, len(ours))
	left := make([]bool, len(theirs))
	for pass := 0; pass < 2; pass++ {
		for i, p := range theirs {
			if pass == 1 && !left[i] {
				continue
			}
			found := false
			for j, o := range ours {
				if used[j] || o.role != p.role {
					continue
				}
				if o.name == p.name || (pass == 1 && o.name == "" && contentNamed[o.role]) {
					used[j], found = true, true
					break
				}
			}
			left[i] = !found
		}
	}
	for i, p := range theirs {
		if left[i] {
			missing = append(missing, p)
		}
	}
	for j, o := range ours {
		if !used[j] {
			extra = append(extra, o)
		}
	}
	return missing, extra
}

// TestFidelityAPG: on each ARIA Practices reproduction, loaded and after a
// change its script makes, the share of Chromium's (role, name) pairs that
// our snapshot has, per page and over all pages, at the targets; the
// grid and treegrid cells and the tree items all match; every miss is listed
// and must be explained in apgExplained; and nothing of ours is missing from
// Chromium's tree.
func TestFidelityAPG(t *testing.T) {
	s := shared(t)
	total, matched := 0, 0
	for _, page := range apgPages {
		t.Run(page, func(t *testing.T) {
			ctx := testContext(t, testTimeout)
			tab, slot := s.openShared(ctx, t, "/apg/"+page+".html")
			for _, state := range []string{"loaded", "changed"} {
				if state == "changed" {
					if !js[bool](ctx, t, tab, apgChanges[page]) {
						t.Fatalf("%s: the page's script did not make the change %s", page, apgChanges[page])
					}
				}
				m, n := compareAPG(ctx, t, s, tab, slot, page+" ("+state+")")
				matched += m
				total += n
			}
		})
	}
	if total > 0 {
		overall := float64(matched) / float64(total)
		t.Logf("overall: %d of %d pairs (%.1f%% recall) over %d pages, each loaded and changed", matched, total, 100*overall, len(apgPages))
		if overall < apgOverallRecall {
			t.Errorf("overall recall %.1f%% is below the target %.0f%%", 100*overall, 100*apgOverallRecall)
		}
	}
}

// compareAPG compares one state of an APG page; it returns the pairs of
// Chromium's matched and their number.
func compareAPG(ctx context.Context, t *testing.T, s *suite, tab *harness.Tab, slot int, page string) (int, int) {
	t.Helper()
	// The whole text each time: a page whose lines the change left as they
	// were is answered "unchanged" first (snapshotOn asks again).
	snap := snapshotOn(ctx, t, s.server, map[string]any{"tab": slot, "maxTokens": 100000})
	theirs, raw := axRawPairs(t, ctx, tab, apgRoles)
	var ours []axPair
	for _, l := range harness.ParseSnapshot(snap) {
		if l.Ref != "" && apgRoles[l.Role] {
			ours = append(ours, axPair{l.Role, normName(l.Name)})
		}
	}
	if len(theirs) == 0 {
		t.Fatal("Chromium's tree has no compared node: the comparison would prove nothing")
	}
	missing, extra := matchPairs(theirs, ours)
	spaced := 0
	for _, n := range raw {
		if n != normName(n) {
			spaced++
		}
	}
	recall := float64(len(theirs)-len(missing)) / float64(len(theirs))
	t.Logf("%s: %d of %d of Chromium's pairs in our snapshot (%.1f%% recall); %d of ours not in Chromium's tree; %d of Chromium's names have white space at their ends or doubled, which the normalisation drops",
		page, len(theirs)-len(missing), len(theirs), 100*recall, len(extra), spaced)
	for _, p := range missing {
		if why, ok := apgExplained[p.String()]; ok {
			t.Logf("  missing: %s (%s)", p, why)
		} else {
			t.Errorf("%s: missing, unexplained: Chromium's %s is not in our snapshot", page, p)
		}
	}
	for _, o := range extra {
		t.Errorf("%s: ours only: %s is not among Chromium's unignored nodes", page, o)
	}
	if recall < apgPageRecall {
		t.Errorf("%s: recall %.1f%% is below the target %.0f%%", page, 100*recall, 100*apgPageRecall)
	}
	// The parts issue 27 found wrong must all match, explained or not.
	for _, p := range missing {
		if p.role == "gridcell" || p.role == "treeitem" || p.role == "columnheader" || p.role == "rowheader" {
			t.Errorf("%s: Chromium's %s is not in our snapshot (grid cells and tree items must all match)", page, p)
		}
	}
	if t.Failed() {
		t.Logf("Chromium: %v\nsnapshot:\n%s", theirs, snap)
	}
	return len(theirs) - len(missing), len(theirs)
}

// openComponents opens the components page (issue 41) the way its
// ElementInternals can be read: the tab is shared first, then navigated,
// so the MAIN-world hooks run in the new document before its scripts.
func openComponents(ctx context.Context, t *testing.T, s *suite) (*harness.Tab, int) {
	t.Helper()
	tab, slot := s.openShared(ctx, t, "/links.html")
	s.ok(ctx, t, "browser_navigate", map[string]any{"url": s.fx.URL("/fidelity-components.html"), "tab": slot})
	waitJS(ctx, t, tab, "location.pathname === '/fidelity-components.html' && window.componentsDefined === true && document.getElementById('rte').contentDocument?.body?.isContentEditable === true")
	return tab, slot
}

// TestFidelityComponents: the components page — roles from ElementInternals,
// options slotted into a shadow listbox and drawn in an option's shadow
// root, a grid cell holding a link, an editable iframe body with its own
// aria-label, a canvas's fallback table, an editor's blocks — agrees with
// Chromium's tree, and the lines that were missing are there with refs.
func TestFidelityComponents(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := openComponents(ctx, t, s)
	snap := s.ok(ctx, t, "browser_snapshot", map[string]any{"tab": slot, "maxTokens": 100000})
	if strings.Contains(snap, "Unchanged since") {
		snap = s.ok(ctx, t, "browser_snapshot", map[string]any{"tab": slot, "maxTokens": 100000})
	}
	// The editable iframe body is in the frame's own tree (Chromium names
	// it "Rich Text Area" there, as generic; our line is the textbox the
	// AI types into).
	compareWithChromium(ctx, t, tab, snap, axPair{"textbox", "Rich Text Area"})
	for _, want := range []struct{ role, name string }{
		{"listbox", "Shipping speed"}, {"option", "Standard"}, {"option", "Express"}, {"checkbox", "Gift wrap"},
		{"option", "Small"}, {"option", "Large"}, {"option", "Apple"}, {"option", "Pear"},
		{"gridcell", "Report.pdf"}, {"textbox", "Rich Text Area"},
		{"cell", "North"}, {"button", "Sort by Q1"},
		{"textbox", "Notes"}, {"heading", "Plan"},
	} {
		if l, ok := harness.Find(snap, want.role, want.name); !ok || l.Ref == "" {
			t.Errorf("no %s %q line with a ref:\n%s", want.role, want.name, snap)
		}
	}
	for _, text := range []string{"First paragraph", "Milk", "Eggs"} {
		if !regexp.MustCompile(`- (paragraph|listitem) \[ref=e\d+\]: ` + text).MatchString(snap) {
			t.Errorf("the editor's block %q has no line with a ref:\n%s", text, snap)
		}
	}
	if strings.Contains(snap, "ElementInternals") {
		t.Errorf("the hooks were in time, yet the snapshot says internals are missing:\n%s", snap)
	}
}
