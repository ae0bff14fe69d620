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

// TestDiagnosticsOnOptionsPage: a failure the extension goes on without is
// not swallowed (issue 31). A shared tab that commits a chrome:// page
// cannot be injected into; the failed injection reaches the diagnostics log
// and the options page's Diagnostics section names it, without the page's
// address; Clear empties the log.
func TestDiagnosticsOnOptionsPage(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, 90*time.Second)
	tab, _ := s.openShared(ctx, t, "/links.html")
	id, err := s.popup.ChromeTabID(ctx, tab)
	if err != nil {
		t.Fatal(err)
	}
	// A document of a shared tab that no extension may script.
	if err := tab.Navigate(ctx, "chrome://version/"); err != nil {
		t.Fatal(err)
	}

	opts, err := s.browser.NewTab(ctx, s.browser.ExtensionURL("options.html"))
	if err != nil {
		t.Fatal(err)
	}
	defer opts.Close()
	wctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	want := fmt.Sprintf("into tab %d", id)
	text, err := harness.WaitEval[string](wctx, opts, `document.querySelector('#diagnostics #diag-list').textContent`,
		func(v string) bool { return strings.Contains(v, want) })
	if err != nil {
		t.Fatalf("the options page's Diagnostics section never named the failed injection (%q): %v", want, err)
	}
	var line string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, want) {
			line = l
			break
		}
	}
	if !strings.Contains(line, "inject: ") || strings.Contains(line, "chrome://version") {
		t.Errorf("the diagnostics line for the failed injection: %q, want where it failed and no page address", line)
	}

	if err := opts.Do(ctx, chromedp.Click(chromedp.CSS("#diag-clear"))); err != nil {
		t.Fatal(err)
	}
	if _, err := harness.WaitEval[bool](wctx, opts, `(async () => {
		const got = (await chrome.storage.session.get('diagnostics')).diagnostics;
		return Array.isArray(got) && got.length === 0 && document.querySelector('#diag-list').textContent.includes('Nothing has failed');
	})()`, func(v bool) bool { return v }); err != nil {
		t.Fatalf("Clear did not empty the diagnostics log: %v", err)
	}
}
