package harness

import (
	"context"
	"fmt"
	"time"

	"github.com/chromedp/chromedp"
)

// SetAllowJavaScript opens the extension's real options page in a tab and,
// like a person, clicks the switch "Let the AI run JavaScript in shared
// tabs" (section "For this Chrome profile") when it is not already in the
// wanted state; it waits until the choice is stored, then closes the tab.
func (b *Browser) SetAllowJavaScript(ctx context.Context, on bool) error {
	t, err := b.NewTab(ctx, b.ExtensionURL("options.html"))
	if err != nil {
		return fmt.Errorf("opening the extension's options page: %w", err)
	}
	defer t.Close()
	const box = `#profile-permissions #allow-evaluate`
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	// The page reads the stored state on load; wait until it has.
	if _, err := WaitEval[bool](wctx, t, `(async () => {
		const el = document.querySelector('`+box+`'); if (!el) return false;
		const c = (await chrome.storage.local.get('consent')).consent;
		return el.checked === (!!c && c.evaluate === true);
	})()`, func(v bool) bool { return v }); err != nil {
		return fmt.Errorf("the options page shows no JavaScript switch in its \"For this Chrome profile\" section: %w", err)
	}
	checked, err := Eval[bool](ctx, t, `document.querySelector('`+box+`').checked`)
	if err != nil {
		return err
	}
	if checked != on {
		if err := t.Do(ctx, chromedp.ScrollIntoView(chromedp.CSS(box)), chromedp.Click(chromedp.CSS(box))); err != nil {
			return fmt.Errorf("clicking the JavaScript switch on the options page: %w", err)
		}
	}
	want := "false"
	if on {
		want = "true"
	}
	if _, err := WaitEval[bool](wctx, t, `chrome.storage.local.get('consent').then(r => !!r.consent && r.consent.evaluate === `+want+`)`,
		func(v bool) bool { return v }); err != nil {
		return fmt.Errorf("after clicking the JavaScript switch (want on=%v) the extension did not store it: %w", on, err)
	}
	return nil
}

// SetUseDebugger opens the real options page and, like a person, sets the
// switch "Use Chrome's debugger for real input" (section "For this Chrome
// profile"); it waits until the choice is stored, then closes the tab.
func (b *Browser) SetUseDebugger(ctx context.Context, on bool) error {
	t, err := b.NewTab(ctx, b.ExtensionURL("options.html"))
	if err != nil {
		return fmt.Errorf("opening the extension's options page: %w", err)
	}
	defer t.Close()
	const box = `#profile-permissions #use-debugger`
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := WaitEval[bool](wctx, t, `(async () => {
		const el = document.querySelector('`+box+`'); if (!el) return false;
		const c = (await chrome.storage.local.get('consent')).consent;
		return el.checked === (!!c && c.debugger === true);
	})()`, func(v bool) bool { return v }); err != nil {
		return fmt.Errorf("the options page shows no debugger switch in its \"For this Chrome profile\" section: %w", err)
	}
	checked, err := Eval[bool](ctx, t, `document.querySelector('`+box+`').checked`)
	if err != nil {
		return err
	}
	if checked != on {
		if err := t.Do(ctx, chromedp.ScrollIntoView(chromedp.CSS(box)), chromedp.Click(chromedp.CSS(box))); err != nil {
			return fmt.Errorf("clicking the debugger switch on the options page: %w", err)
		}
	}
	want := "false"
	if on {
		want = "true"
	}
	if _, err := WaitEval[bool](wctx, t, `chrome.storage.local.get('consent').then(r => (!!r.consent && r.consent.debugger === true) === `+want+`)`,
		func(v bool) bool { return v }); err != nil {
		return fmt.Errorf("after clicking the debugger switch (want on=%v) the extension did not store it: %w", on, err)
	}
	return nil
}
