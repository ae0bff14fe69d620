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

// noticePoint is where the hand-off's Done sits in the tab (viewport CSS
// pixels): the centre of the banner's Done button when it has one, else
// the centre of the in-page notice. Read in the extension's isolated world
// (the root is closed).
func noticePoint(ctx context.Context, t *testing.T, b *harness.Browser, tabID int) (x, y float64) {
	t.Helper()
	pt, err := harness.EvalServiceWorker[[]float64](ctx, b, fmt.Sprintf(`chrome.scripting.executeScript({ target: { tabId: %d }, func: () => {
		const host = document.querySelector('monkbrowse-ask');
		const root = host && chrome.dom.openOrClosedShadowRoot(host);
		const el = root && (root.querySelector('button.done') || root.querySelector('.bar'));
		const r = el && el.getBoundingClientRect();
		return r && r.width > 0 ? [r.x + r.width / 2, r.y + r.height / 2] : [];
	} }).then((res) => res[0].result)`, tabID))
	if err != nil || len(pt) != 2 {
		t.Fatalf("the hand-off notice's place: %v %v", pt, err)
	}
	return pt[0], pt[1]
}

// TestAskHandOffCannotBeAnsweredOrRead (issue 40, finding 4): while the AI
// waits for the person, the page makes the in-page notice transparent
// (opacity:0 on its host, the one thing the old banner did not watch),
// draws its own "Accept cookies" button where Done sits and clicks there
// with a real (CDP) click: the request is not answered. The page searches
// for the AI's message with window.find and reads on with
// Selection.modify: the message is not found (the notice itself is found,
// so the search does reach it). The toolbar badge shows "?" while the
// request waits. The request is then answered in the popup.
func TestAskHandOffCannotBeAnsweredOrRead(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/form.html")
	tabID, err := s.popup.ChromeTabID(ctx, tab)
	if err != nil {
		t.Fatal(err)
	}
	const code = "4711"
	const message = "Type the one-time code " + code + " from your phone (issue 40), then press Done."
	answer := make(chan string, 1)
	go func() {
		res, err := s.server.Call(ctx, "browser_ask_user", map[string]any{"tab": slot, "message": message})
		if err != nil {
			answer <- "error: " + err.Error()
			return
		}
		answer <- res.Text
	}()
	waitJS(ctx, t, tab, `!!document.querySelector('monkbrowse-ask')`)
	// The toolbar button says so too, where the page cannot hide it.
	badge := fmt.Sprintf(`chrome.action.getBadgeText({ tabId: %d })`, tabID)
	waitJS(ctx, t, s.popup.Tab, badge+`.then((b) => b === '?')`)
	x, y := noticePoint(ctx, t, s.browser, tabID)

	// The decoy: the notice's host made invisible, the page's own button
	// under where Done sits, one real click on it.
	js[bool](ctx, t, tab, fmt.Sprintf(`(() => {
		const host = document.querySelector('monkbrowse-ask');
		host.style.setProperty('opacity', '0', 'important');
		const b = document.createElement('button');
		b.textContent = 'Accept cookies';
		b.style.cssText = 'position: fixed; z-index: 2147483646; width: 160px; height: 60px; left: %fpx; top: %fpx';
		b.addEventListener('click', () => { window.__cookies = (window.__cookies || 0) + 1; });
		document.body.append(b);
		window.__clicks = 0;
		window.addEventListener('click', (e) => { if (e.isTrusted) window.__clicks++; });
		return true;
	})()`, x-80, y-30))
	if got := js[string](ctx, t, tab, `getComputedStyle(document.querySelector('monkbrowse-ask')).opacity`); got != "0" {
		t.Fatalf("the page could not make the notice transparent (opacity %s): the test does not test", got)
	}
	if err := tab.Do(ctx, chromedp.MouseClickXY(x, y)); err != nil {
		t.Fatal(err)
	}
	waitJS(ctx, t, tab, `window.__clicks === 1`)

	// The reading: window.find crosses the closed shadow root; Selection.modify reads on.
	read := js[string](ctx, t, tab, fmt.Sprintf(`(() => {
		const out = [];
		const sel = getSelection();
		const words = [%q, 'monkbrowse', 'asks you', 'waiting'];
		for (let n = 0; n < words.length; n++) {
			sel.removeAllRanges();
			const found = window.find(words[n], false, false, true);
			out.push('word ' + n + ' found: ' + found);
			if (found) {
				sel.modify('move', 'backward', 'lineboundary');
				for (let i = 0; i < 6; i++) sel.modify('extend', 'forward', 'line');
				out.push(sel.toString());
			}
		}
		sel.removeAllRanges();
		return out.join('\n');
	})()`, code))
	t.Logf("what the page read:\n%s", read)
	if !strings.Contains(read, "word 1 found: true") {
		t.Errorf("window.find does not find the notice at all: the reading proves nothing\n%s", read)
	}
	if strings.Contains(read, code) || strings.Contains(read, "one-time code") {
		t.Errorf("the page read the AI's message back from the hand-off notice:\n%s", read)
	}

	// Not answered by the page: the popup still has the request; the
	// person answers it there.
	if err := s.popup.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	li := fmt.Sprintf(`[...document.querySelectorAll('#ask-list li')].find((li) => li.textContent.includes(%q))`, message)
	var out string
	for deadline := time.Now().Add(30 * time.Second); out == ""; time.Sleep(50 * time.Millisecond) {
		select {
		case out = <-answer:
			continue
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the request is neither answered nor in the popup")
		}
		if id := js[string](ctx, t, s.popup.Tab, `(`+li+`)?.dataset.askId || ''`); id != "" {
			if err := s.popup.Tab.Do(ctx, chromedp.Click(chromedp.CSS(fmt.Sprintf(`#ask-list li[data-ask-id=%q] button.decline`, id)))); err != nil {
				t.Fatal(err)
			}
			out = <-answer
		}
	}
	if !strings.Contains(out, "pressed Decline (in the monkbrowse popup)") {
		t.Errorf("the page's click on its decoy answered the request:\n%s", out)
	}
	waitJS(ctx, t, tab, `!document.querySelector('monkbrowse-ask')`)
	waitJS(ctx, t, s.popup.Tab, badge+`.then((b) => b !== '?')`)
}
