package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/monkbrowse/monkbrowse/e2e/harness"
)

// rulesPage is the options page, where the person edits their site rules
// with the real form (issue 44).
type rulesPage struct {
	tab   *harness.Tab
	popup *harness.Popup
}

func openRules(ctx context.Context, t *testing.T, b *harness.Browser, popup *harness.Popup) *rulesPage {
	t.Helper()
	tab, err := b.NewTab(ctx, b.ExtensionURL("options.html"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tab.Close)
	waitJS(ctx, t, tab, `document.querySelector('#rule-kind') !== null && document.querySelector('#rule-kind').options.length > 0`)
	return &rulesPage{tab: tab, popup: popup}
}

// set adds or changes the rule for pattern through the options page's
// form (value: act, ask-each, ask-risky, read_only, never) and waits until
// it is stored.
func (r *rulesPage) set(ctx context.Context, t *testing.T, pattern, value string) {
	t.Helper()
	if err := r.tab.Do(ctx,
		chromedp.SetValue(chromedp.CSS("#rule-pattern"), pattern),
		chromedp.SetValue(chromedp.CSS("#rule-kind"), value),
		chromedp.Click(chromedp.CSS("#rule-add")),
	); err != nil {
		t.Fatal(err)
	}
	rule, scope := value, ""
	if strings.HasPrefix(value, "ask-") {
		rule, scope = "ask", strings.TrimPrefix(value, "ask-")
	}
	cond := fmt.Sprintf(`r.pattern === %q && r.rule === %q`, strings.ToLower(pattern), rule)
	if scope != "" {
		cond += fmt.Sprintf(` && r.scope === %q`, scope)
	}
	waitJS(ctx, t, r.popup.Tab, `chrome.storage.local.get('siteRules').then(g => (g.siteRules ?? []).some(r => `+cond+`))`)
}

// clear removes every rule of the person's.
func (r *rulesPage) clear(ctx context.Context, t testing.TB) {
	if _, err := harness.Eval[any](ctx, r.popup.Tab, `chrome.storage.local.set({siteRules: []}).then(() => null)`); err != nil {
		t.Errorf("clearing the site rules: %v", err)
	}
}

// answerApproval waits for the action waiting in the popup and presses one
// of its buttons (allow, allow10, deny) with a real click; it returns the
// question the popup showed.
func answerApproval(ctx context.Context, t *testing.T, popup *harness.Popup, button string) string {
	t.Helper()
	waitJS(ctx, t, popup.Tab, `document.querySelector('#approval-list li') !== null && !document.querySelector('#approvals').hidden`)
	q := js[string](ctx, t, popup.Tab, `document.querySelector('#approval-list li .msg').textContent`)
	if err := popup.Tab.Do(ctx, chromedp.Click(chromedp.CSS("#approval-list li button."+button))); err != nil {
		t.Fatal(err)
	}
	return q
}

// TestSiteRules: the person's site rules (issue 44) on a fixture site,
// set in the real options page and the popup's control for the current
// site, in real Chromium: act; read only (reads work, the click is refused
// naming the rule and never reaches the page, the popup shows the rule on
// the tab and in its control); ask before acting with Allow and
// with Deny through the real popup (the page's counter moves only on
// Allow, the activity log names the app); ask only about submissions,
// purchases and deletions ("Next page" goes, "Place order" waits); a rule changed to act while a
// click waits lets it go; never: going there is refused, and a shared tab
// a click takes there stops being shared, nothing of ours runs in it, the
// AI is told it left its reach, and the popup cannot share it again.
func TestSiteRules(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, 3*time.Minute)
	rules := openRules(ctx, t, s.browser, s.popup)
	t.Cleanup(func() { rules.clear(context.Background(), t) })
	tab, slot := s.openShared(ctx, t, "/rules.html")
	site := strings.TrimPrefix(s.fx.Origin(), "http://") // 127.0.0.1:PORT: this fixture server only
	count := func() string { return js[string](ctx, t, tab, `document.getElementById('next-count').textContent`) }
	click := func() harness.ToolResult {
		snap := s.snapshot(ctx, t, slot)
		return s.call(ctx, t, "browser_click", map[string]any{"tab": slot, "element": "Next page", "ref": ref(t, snap, "button", "Next page")})
	}

	// act (the default)
	if res := click(); res.IsError || count() != "1" {
		t.Fatalf("act: the click did not work (count %s): %s", count(), res.Text)
	}

	// read only
	rules.set(ctx, t, site, "read_only")
	res := click()
	if !res.IsError || !strings.Contains(res.Text, "the person's site rules make "+site+" read only") || !strings.Contains(res.Text, "nothing was sent to the page") {
		t.Fatalf("read only: the click was not refused with the rule: %s", res.Text)
	}
	if count() != "1" {
		t.Fatalf("read only: the click reached the page (count %s)", count())
	}
	if snap := s.snapshot(ctx, t, slot); !strings.Contains(snap, "Place order") {
		t.Fatalf("read only: reading the page failed: %s", snap)
	}
	waitJS(ctx, t, s.popup.Tab, fmt.Sprintf(`(document.querySelector('li[data-tab-id] .title .rule[data-rule="read_only"]')?.closest('li')?.querySelector('.slot')?.textContent ?? '') === %q`, fmt.Sprint(slot)))

	// The popup's control for the current site shows the rule, and changes it.
	waitJS(ctx, t, s.popup.Tab, fmt.Sprintf(`document.querySelector('#site-rule-host').textContent === %q && document.querySelector('#site-rule-select').value === 'read_only'`, site))

	// ask before acting (switched in the popup): Allow
	js[any](ctx, t, s.popup.Tab, `(() => { const sel = document.querySelector('#site-rule-select'); sel.value = 'ask-each'; sel.dispatchEvent(new Event('change')); return null; })()`)
	waitJS(ctx, t, s.popup.Tab, fmt.Sprintf(`chrome.storage.local.get('siteRules').then(g => (g.siteRules ?? []).some(r => r.pattern === %q && r.rule === 'ask' && r.scope === 'each'))`, site))
	done := make(chan harness.ToolResult, 1)
	go func() { done <- click() }()
	q := answerApproval(ctx, t, s.popup, "allow")
	if !strings.Contains(q, "wants to click") || !strings.Contains(q, `"Next page"`) || !strings.Contains(q, fmt.Sprintf("in tab %d", slot)) {
		t.Errorf("the popup's question: %q", q)
	}
	if res := <-done; res.IsError || count() != "2" {
		t.Fatalf("ask, Allow: the click did not happen (count %s): %s", count(), res.Text)
	}
	// ask before acting: Deny
	go func() { done <- click() }()
	answerApproval(ctx, t, s.popup, "deny")
	if res := <-done; !res.IsError || !strings.Contains(res.Text, "the person pressed Deny") || count() != "2" {
		t.Fatalf("ask, Deny: not refused, or the page was touched (count %s): %s", count(), res.Text)
	}
	waitJS(ctx, t, s.popup.Tab, `document.querySelector('#activity-list').textContent.includes('asked you to allow it to click')`)

	// Ask only about submissions, purchases and deletions (the popup's other
	// choice): "Next page" goes without asking; "Place order" waits, and Deny keeps it from the page.
	js[any](ctx, t, s.popup.Tab, `(() => { const sel = document.querySelector('#site-rule-select'); sel.value = 'ask-risky'; sel.dispatchEvent(new Event('change')); return null; })()`)
	waitJS(ctx, t, s.popup.Tab, fmt.Sprintf(`chrome.storage.local.get('siteRules').then(g => (g.siteRules ?? []).some(r => r.pattern === %q && r.rule === 'ask' && r.scope === 'risky'))`, site))
	if res := click(); res.IsError || count() != "3" {
		t.Fatalf("ask about submissions only: an ordinary click waited or failed (count %s): %s", count(), res.Text)
	}
	go func() {
		snap := s.snapshot(ctx, t, slot)
		done <- s.call(ctx, t, "browser_click", map[string]any{"tab": slot, "element": "order", "ref": ref(t, snap, "button", "Place order")})
	}()
	if q := answerApproval(ctx, t, s.popup, "deny"); !strings.Contains(q, `"Place order"`) {
		t.Errorf("the popup's question: %q", q)
	}
	if res := <-done; !res.IsError || js[string](ctx, t, tab, `document.getElementById('orders').textContent`) != "0" {
		t.Fatalf("ask about submissions only: Place order was not held back: %s", res.Text)
	}
	rules.set(ctx, t, site, "ask-each")

	// A rule changed while a click waits for the person: act lets it go.
	go func() { done <- click() }()
	waitJS(ctx, t, s.popup.Tab, `document.querySelector('#approval-list li') !== null`)
	rules.set(ctx, t, site, "act")
	if res := <-done; res.IsError || count() != "4" {
		t.Fatalf("a rule changed to act while the click waited: not done (count %s): %s", count(), res.Text)
	}
	waitJS(ctx, t, s.popup.Tab, `document.querySelector('#approval-list li') === null`)

	// never
	other := strings.Replace(s.fx.URL("/links.html"), "127.0.0.1", "localhost", 1)
	rules.set(ctx, t, "localhost", "never")
	if res := s.call(ctx, t, "browser_navigate", map[string]any{"tab": slot, "url": other}); !res.IsError || !strings.Contains(res.Text, "keep the AI off localhost (never)") {
		t.Fatalf("never: going there was not refused: %s", res.Text)
	}
	// A click on the page's link takes the shared tab there.
	snap := s.snapshot(ctx, t, slot)
	s.call(ctx, t, "browser_click", map[string]any{"tab": slot, "element": "Go to the other site", "ref": ref(t, snap, "link", "Go to the other site")})
	waitJS(ctx, t, tab, `location.hostname === 'localhost' && document.readyState === 'complete'`)
	waitJS(ctx, t, s.popup.Tab, fmt.Sprintf(`chrome.storage.local.get('shares').then(g => !Object.values(g.shares ?? {}).includes(%d))`, slot))
	if js[bool](ctx, t, tab, `'__monkbrowseControl' in window`) {
		t.Fatal("never: our hooks run in the page on the never site")
	}
	res = s.call(ctx, t, "browser_snapshot", map[string]any{"tab": slot})
	if !res.IsError || !strings.Contains(res.Text, "went to localhost, a site the person's site rules keep from the AI (never)") || !strings.Contains(res.Text, "left your reach") {
		t.Fatalf("never: the AI is not told the tab left its reach: %s", res.Text)
	}
	// The popup cannot share it again.
	id, err := s.popup.ChromeTabID(ctx, tab)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.popup.Share(ctx, id); err == nil {
		t.Fatal("never: the popup shared a tab on a never site")
	}
	waitJS(ctx, t, s.popup.Tab, `document.querySelector('#error').textContent.includes('is set to "never"')`)
}
