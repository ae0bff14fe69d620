package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/monkbrowse/monkbrowse/e2e/harness"
)

// hooksDormant is true when the page's confirm and console.log are the
// browser's own again (the dormant hooks keep only a page-visible control
// with no readable state, so the natives are the test).
const hooksDormant = `(() => { const f = Function.prototype.toString; return [window.alert, window.confirm, window.prompt, console.log].every((fn) => /\{\s*\[native code\]\s*\}\s*$/.test(f.call(fn))); })()`

// TestUnshareDuringFullPageScreenshot (issue 21): the person unshares a tab
// while a stitched full-page screenshot is scrolling through it. The call
// answers that the person stopped sharing the tab, the extension injects
// nothing more into the page (no new extension execution context after the
// unshare), and the page's confirm is the native one again and opens a
// real dialog.
func TestUnshareDuringFullPageScreenshot(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab := s.openTab(ctx, t, "/form.html")
	w := watchPage(ctx, t, tab, s.browser.ExtensionID)
	slot := s.share(ctx, t, tab)
	// The content script and the hooks are in the page (the positive control
	// for the context watch).
	s.ok(ctx, t, "browser_snapshot", map[string]any{"tab": slot})
	if len(w.extensionContexts()) == 0 {
		t.Fatal("after sharing and a snapshot, no execution context of the extension was seen in the page: the check below could not fail")
	}
	// Eight screens (the stitch takes at most ten), and a page-side count of
	// the capture's scrolling.
	js[bool](ctx, t, tab, `(() => {
		const d = document.createElement('div');
		d.style.height = (innerHeight * 8) + 'px';
		document.body.appendChild(d);
		window.__scrolls = 0;
		addEventListener('scroll', () => { window.__scrolls++; });
		scrollTo(0, 0);
		return true;
	})()`)

	type answer struct {
		res harness.ToolResult
		err error
	}
	done := make(chan answer, 1)
	go func() {
		res, err := s.server.Call(ctx, "browser_screenshot", map[string]any{"tab": slot, "fullPage": true})
		done <- answer{res, err}
	}()
	// The capture is under way once it has scrolled the page past its first screen.
	waitJS(ctx, t, tab, "window.__scrolls > 0 && scrollY > 0")
	select {
	case a := <-done:
		t.Fatalf("the full-page screenshot ended before the unshare (the page is too short to catch it running): %v %s", a.err, harness.Clip(a.res.Text, 500))
	default:
	}
	id, err := s.popup.ChromeTabID(ctx, tab)
	if err != nil {
		t.Fatal(err)
	}
	before := len(w.extensionContexts())
	if err := s.popup.Unshare(ctx, id); err != nil {
		t.Fatal(err)
	}

	var a answer
	select {
	case a = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the full-page screenshot did not answer within 30 s of the unshare")
	}
	if a.err != nil {
		t.Fatalf("browser_screenshot: %v", a.err)
	}
	if !a.res.IsError || !strings.Contains(a.res.Text, "stopped sharing") {
		t.Errorf("the screenshot interrupted by the unshare answered (error %v) %s; want the person stopped sharing the tab", a.res.IsError, harness.Clip(a.res.Text, 500))
	}
	// The call answers at once, while its work may still be running in the
	// service worker; that work must stop at its next op. It is watched for
	// as long as the rest of the stitch would take (the eight screens, each
	// at least one of Chrome's rate-limited captures, about 0.5 s): it must
	// neither inject into the page nor scroll it.
	scrolls := js[float64](ctx, t, tab, "window.__scrolls")
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); {
		if got := w.extensionContexts(); len(got) != before {
			t.Fatalf("after the unshare, the aborted screenshot injected into the page again: %v", got[before:])
		}
		if n := js[float64](ctx, t, tab, "window.__scrolls"); n != scrolls {
			t.Fatalf("after the call answered, the aborted screenshot went on scrolling the page (%v scroll events, then %v)", scrolls, n)
		}
		time.Sleep(100 * time.Millisecond) // the next reading of the watch window
	}

	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := harness.WaitEval[bool](wctx, tab, hooksDormant, func(v bool) bool { return v }); err != nil {
		t.Fatalf("after the unshare, the page's dialog and console functions are not the natives again: %v", err)
	}
	js[bool](ctx, t, tab, `(setTimeout(() => { window.__answer = confirm('native-after-abort'); }, 0), true)`)
	answerDialog(ctx, t, tab, w, "native-after-abort", false)
	waitJS(ctx, t, tab, "window.__answer === false")
	if got := w.extensionContexts(); len(got) != before {
		t.Errorf("after the unshare, the extension ran in the page again: %v", got[before:])
	}
}

// TestUnshareDetachesDebugger (issue 21): in debugger mode, the person
// unshares a tab while a debugger-mode click is still being delivered (the
// page's mousedown handler keeps its main thread busy for four seconds): the
// call answers that the person stopped sharing, and the extension detaches
// from the tab at once, while the page is still busy, not when the click is
// done.
func TestUnshareDetachesDebugger(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	if err := s.browser.SetUseDebugger(ctx, true); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.browser.SetUseDebugger(context.Background(), false); err != nil {
			t.Errorf("switching the debugger mode off again: %v", err)
		}
	})
	tab, slot := s.openShared(ctx, t, "/canvas.html")
	chromeTab, err := s.popup.ChromeTabID(ctx, tab)
	if err != nil {
		t.Fatal(err)
	}
	js[bool](ctx, t, tab, `(addEventListener('mousedown', () => {
		window.__busyUntil = Date.now() + 4000;
		while (Date.now() < window.__busyUntil) {}
	}, true), true)`)
	n := len(attachLog(ctx, t, s.browser))

	type answer struct {
		res harness.ToolResult
		err error
	}
	done := make(chan answer, 1)
	go func() {
		res, err := s.server.Call(ctx, "browser_click_xy", map[string]any{"tab": slot, "x": 150, "y": 130})
		done <- answer{res, err}
	}()
	// The action is under way once the extension has attached for it.
	waitFor(ctx, t, func() bool {
		for _, e := range attachLog(ctx, t, s.browser)[n:] {
			if e.TabID == chromeTab && e.Event == "attach" {
				return true
			}
		}
		return false
	})
	select {
	case a := <-done:
		t.Fatalf("the debugger-mode click ended before the unshare: %v %s", a.err, harness.Clip(a.res.Text, 500))
	default:
	}
	if err := s.popup.Unshare(ctx, chromeTab); err != nil {
		t.Fatal(err)
	}
	var a answer
	select {
	case a = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the debugger-mode click did not answer within 30 s of the unshare")
	}
	if a.err != nil {
		t.Fatalf("browser_click_xy: %v", a.err)
	}
	if !a.res.IsError || !strings.Contains(a.res.Text, "stopped sharing") {
		t.Errorf("the click interrupted by the unshare answered (error %v) %s; want the person stopped sharing the tab", a.res.IsError, harness.Clip(a.res.Text, 500))
	}
	var detached *attachEntry
	waitFor(ctx, t, func() bool {
		for _, e := range attachLog(ctx, t, s.browser)[n:] {
			if e.TabID == chromeTab && e.Event == "detach" {
				detached = &e
				return true
			}
		}
		return false
	})
	if detached.Detail != "unshared" {
		t.Errorf("the extension detached from the tab for %q, want \"unshared\"", detached.Detail)
	}
	if extensionAttached(ctx, t, s.browser, chromeTab) {
		t.Error("the extension still holds a debugger session on the unshared tab")
	}
	busyUntil := js[float64](ctx, t, tab, "window.__busyUntil")
	if float64(detached.Time) >= busyUntil {
		t.Errorf("the extension detached at %d, after the page's click handler was done (%v): not at once", detached.Time, busyUntil)
	}
}
