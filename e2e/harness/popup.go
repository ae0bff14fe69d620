package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
)

// Popup is the extension's real popup page opened in a tab
// (chrome-extension://<id>/popup.html), driven the way a person would: by
// clicking its Share toggles. Being an extension page, it also serves the
// harness as a read-only window on chrome.tabs and chrome.storage.
type Popup struct {
	b   *Browser
	Tab *Tab
}

// OpenPopup opens popup.html in a new tab.
func (b *Browser) OpenPopup(ctx context.Context) (*Popup, error) {
	t, err := b.NewTab(ctx, b.ExtensionURL("popup.html"))
	if err != nil {
		return nil, fmt.Errorf("opening the extension's popup page: %w", err)
	}
	return &Popup{b: b, Tab: t}, nil
}

// Close closes the popup's tab.
func (p *Popup) Close() { p.Tab.Close() }

// Reload opens the popup afresh, as a person does by clicking the toolbar
// icon again, and waits until it shows its tab list.
func (p *Popup) Reload(ctx context.Context) error {
	if err := p.Tab.Navigate(ctx, p.b.ExtensionURL("popup.html")); err != nil {
		return err
	}
	return nil
}

// storage reads one key of chrome.storage.local through the popup page.
func (p *Popup) storage(ctx context.Context, key string, v any) error {
	raw, err := Eval[[]byte](ctx, p.Tab, fmt.Sprintf(`chrome.storage.local.get(%q).then(r => r[%q] ?? null)`, key, key))
	if err != nil {
		return fmt.Errorf("reading chrome.storage.local %s: %w", key, err)
	}
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return json.Unmarshal(raw, v)
}

// Status is the extension's connection status record.
func (p *Popup) Status(ctx context.Context) (ExtStatus, error) {
	var st ExtStatus
	err := p.storage(ctx, "status", &st)
	return st, err
}

// Identity is the extension's persisted identity.
func (p *Popup) Identity(ctx context.Context) (ExtIdentity, error) {
	var id ExtIdentity
	err := p.storage(ctx, "identity", &id)
	return id, err
}

// Shares is the extension's persisted shares map (chrome tab id → slot).
func (p *Popup) Shares(ctx context.Context) (map[string]int, error) {
	m := map[string]int{}
	err := p.storage(ctx, "shares", &m)
	return m, err
}

// WaitConnected waits until the extension reports it is connected on port.
func (p *Popup) WaitConnected(ctx context.Context, port int) (ExtStatus, error) {
	var st ExtStatus
	for {
		c, cancel := context.WithTimeout(ctx, 5*time.Second)
		s, err := p.Status(c)
		cancel()
		if err == nil {
			st = s
			if s.State == "connected" && s.Port == port {
				return s, nil
			}
		}
		select {
		case <-ctx.Done():
			return st, fmt.Errorf("the extension did not connect to port %d (its status: state=%q port=%d reason=%q): %w", port, st.State, st.Port, st.Reason, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// ChromeTabID finds the chrome.tabs id of a tab the harness is attached to,
// by its current URL (the fixtures give every tab a unique query string).
func (p *Popup) ChromeTabID(ctx context.Context, t *Tab) (int, error) {
	loc, err := t.Location(ctx)
	if err != nil {
		return 0, err
	}
	return p.ChromeTabIDByURL(ctx, loc)
}

// ChromeTabIDByURL finds the only tab whose URL is url.
func (p *Popup) ChromeTabIDByURL(ctx context.Context, url string) (int, error) {
	for {
		ids, err := Eval[[]int](ctx, p.Tab, fmt.Sprintf(
			`chrome.tabs.query({}).then(ts => ts.filter(t => t.url === %q || t.pendingUrl === %q).map(t => t.id))`, url, url))
		if err == nil && len(ids) == 1 {
			return ids[0], nil
		}
		if err == nil && len(ids) > 1 {
			return 0, fmt.Errorf("%d tabs have the URL %s; give each a unique URL", len(ids), url)
		}
		select {
		case <-ctx.Done():
			return 0, fmt.Errorf("no tab has the URL %s (err %v): %w", url, err, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func rowSelector(chromeTabID int) string {
	return fmt.Sprintf(`li[data-tab-id="%d"]`, chromeTabID)
}

// SetShared opens the popup afresh, finds the tab's row and clicks its Share
// toggle when it is not already in the wanted state, then waits for the row's
// number to appear (or disappear). It returns the slot shown (0 when
// unshared).
func (p *Popup) SetShared(ctx context.Context, chromeTabID int, shared bool) (int, error) {
	if err := p.Reload(ctx); err != nil {
		return 0, err
	}
	row := rowSelector(chromeTabID)
	toggle := row + ` input.share`
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, err := WaitEval[bool](wctx, p.Tab, fmt.Sprintf(`!!document.querySelector(%q)`, toggle), func(v bool) bool { return v })
	if err != nil {
		rows, _ := Eval[string](ctx, p.Tab, `[...document.querySelectorAll('li[data-tab-id]')].map(li => li.dataset.tabId + ':' + li.textContent.trim().replace(/\s+/g, ' ')).join(' | ')`)
		return 0, fmt.Errorf("the popup shows no Share toggle for tab %d (rows: %s): %w", chromeTabID, rows, err)
	}
	checked, err := Eval[bool](ctx, p.Tab, fmt.Sprintf(`document.querySelector(%q).checked`, toggle))
	if err != nil {
		return 0, err
	}
	if checked != shared {
		if err := p.Tab.Do(ctx, chromedp.ScrollIntoView(chromedp.CSS(toggle)), chromedp.Click(chromedp.CSS(toggle))); err != nil {
			return 0, fmt.Errorf("clicking the Share toggle of tab %d: %w", chromeTabID, err)
		}
	}
	slotExpr := fmt.Sprintf(`(() => { const r = document.querySelector(%q); if (!r) return '?';
		const s = r.querySelector('.slot'); const c = r.querySelector('input.share');
		return (c && c.checked ? 'on:' : 'off:') + (s ? s.textContent.trim() : ''); })()`, row)
	v, err := WaitEval[string](wctx, p.Tab, slotExpr, func(v string) bool {
		if shared {
			n, err := strconv.Atoi(strings.TrimPrefix(v, "on:"))
			return strings.HasPrefix(v, "on:") && err == nil && n > 0
		}
		return v == "off:"
	})
	if err != nil {
		return 0, fmt.Errorf("after clicking Share (want shared=%v) the popup row of tab %d shows %q: %w", shared, chromeTabID, v, err)
	}
	if !shared {
		return 0, nil
	}
	n, _ := strconv.Atoi(strings.TrimPrefix(v, "on:"))
	return n, nil
}

// Share shares the tab through the popup and returns its number.
func (p *Popup) Share(ctx context.Context, chromeTabID int) (int, error) {
	return p.SetShared(ctx, chromeTabID, true)
}

// Unshare unshares the tab through the popup.
func (p *Popup) Unshare(ctx context.Context, chromeTabID int) error {
	_, err := p.SetShared(ctx, chromeTabID, false)
	return err
}
