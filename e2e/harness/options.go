package harness

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/chromedp/chromedp"
)

// SetAllowJavaScript opens the extension's real options page in a tab and,
// like a person, clicks the switch "Let the AI run JavaScript in shared
// tabs" (section "For this Chrome profile") when it is not already in the
// wanted state; it waits until the choice is stored, then closes the tab.
func (b *Browser) SetAllowJavaScript(ctx context.Context, on bool) error {
	return b.setProfileSwitch(ctx, "#allow-evaluate", "evaluate", "JavaScript", on)
}

// SetUseDebugger opens the real options page and, like a person, sets the
// switch "Use Chrome's debugger for real input" (section "For this Chrome
// profile"); it waits until the choice is stored, then closes the tab.
func (b *Browser) SetUseDebugger(ctx context.Context, on bool) error {
	return b.setProfileSwitch(ctx, "#use-debugger", "debugger", "debugger", on)
}

// SetSecretsInShots opens the real options page and, like a person, sets
// the switch "Show password, one-time-code and card fields in screenshots"
// (off: screenshots paint over them; issue 40).
func (b *Browser) SetSecretsInShots(ctx context.Context, on bool) error {
	return b.setProfileSwitch(ctx, "#secrets-in-shots", "secretsInShots", "secret fields in screenshots", on)
}

// setProfileSwitch opens the real options page and clicks the switch with
// this id in its "For this Chrome profile" section when it is not already
// on as wanted; it waits until the consent field key is stored that way,
// then closes the tab. what names the switch in errors.
func (b *Browser) setProfileSwitch(ctx context.Context, id, key, what string, on bool) error {
	t, err := b.NewTab(ctx, b.ExtensionURL("options.html"))
	if err != nil {
		return fmt.Errorf("opening the extension's options page: %w", err)
	}
	defer t.Close()
	box := `#profile-permissions ` + id
	stored := `(!!c && c.` + key + ` === true)`
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	// The page reads the stored state on load; wait until it has.
	if _, err := WaitEval[bool](wctx, t, `(async () => {
		const el = document.querySelector('`+box+`'); if (!el) return false;
		const c = (await chrome.storage.local.get('consent')).consent;
		return el.checked === `+stored+`;
	})()`, func(v bool) bool { return v }); err != nil {
		return fmt.Errorf("the options page shows no %s switch in its \"For this Chrome profile\" section: %w", what, err)
	}
	checked, err := Eval[bool](ctx, t, `document.querySelector('`+box+`').checked`)
	if err != nil {
		return err
	}
	if checked != on {
		if err := t.Do(ctx, chromedp.ScrollIntoView(chromedp.CSS(box)), chromedp.Click(chromedp.CSS(box))); err != nil {
			return fmt.Errorf("clicking the %s switch on the options page: %w", what, err)
		}
	}
	if _, err := WaitEval[bool](wctx, t, `chrome.storage.local.get('consent').then(({ consent: c }) => `+stored+` === `+strconv.FormatBool(on)+`)`,
		func(v bool) bool { return v }); err != nil {
		return fmt.Errorf("after clicking the %s switch (want on=%v) the extension did not store it: %w", what, on, err)
	}
	return nil
}
