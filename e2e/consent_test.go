package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/monkbrowse/monkbrowse/e2e/harness"
)

// TestEvaluateNeedsConsent: in a fresh Chrome profile browser_evaluate is
// refused with a message naming the switch the person must turn on; after
// the person switches on "Let the AI run JavaScript in shared tabs" on the
// real options page, it runs. The popup shows the switch too.
func TestEvaluateNeedsConsent(t *testing.T) {
	p := need(t)
	ctx := testContext(t, 2*testTimeout)
	sctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	s, err := newSuite(sctx, t, p, fixtures(), "consent")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.close)

	tab, slot := s.openShared(ctx, t, "/form.html")
	msg := s.fails(ctx, t, "browser_evaluate", map[string]any{"expression": "(window.ranByAI = 'yes', document.title)", "tab": slot})
	for _, want := range []string{"Let the AI run JavaScript in shared tabs", "For this Chrome profile", "browser_snapshot"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the refusal does not say %q:\n%s", want, msg)
		}
	}
	if v := js[bool](ctx, t, tab, "'ranByAI' in window"); v {
		t.Error("the refused expression ran in the page anyway")
	}
	waitJS(ctx, t, s.popup.Tab, "document.querySelector('#allow-evaluate') && document.querySelector('#allow-evaluate').checked === false")

	if err := s.browser.SetAllowJavaScript(ctx, true); err != nil {
		t.Fatal(err)
	}
	out := s.ok(ctx, t, "browser_evaluate", map[string]any{"expression": "(window.ranByAI = 'yes', document.title)", "tab": slot})
	want := js[string](ctx, t, tab, "document.title")
	if !strings.Contains(out, want) {
		t.Errorf("evaluate after the switch gave %q, want the title %q", out, want)
	}
	if v := js[string](ctx, t, tab, "window.ranByAI"); v != "yes" {
		t.Errorf("the page sees ranByAI=%q after evaluate", v)
	}
	// The popup follows the switch.
	waitJS(ctx, t, s.popup.Tab, "document.querySelector('#allow-evaluate').checked === true")
}

// pageWatch records, through CDP, the execution contexts created in a tab
// and the native JavaScript dialogs it opens. It is attached before the
// page loads, so every context of the page is seen.
type pageWatch struct {
	extOrigin string
	mu        sync.Mutex
	ext       []string // extension contexts seen: "name origin type"
	extIDs    []runtime.ExecutionContextID
	dialogs   chan *page.EventJavascriptDialogOpening
}

func watchPage(ctx context.Context, t *testing.T, tab *harness.Tab, extensionID string) *pageWatch {
	t.Helper()
	w := &pageWatch{extOrigin: "chrome-extension://" + extensionID, dialogs: make(chan *page.EventJavascriptDialogOpening, 8)}
	c, cancel := tab.Context(ctx)
	t.Cleanup(cancel)
	err := chromedp.Listen(c, func(ev any) {
		switch e := ev.(type) {
		case *runtime.EventExecutionContextCreated:
			d := e.Context
			if strings.HasPrefix(d.Origin, w.extOrigin) || strings.Contains(string(d.AuxData), `"isolated"`) {
				w.mu.Lock()
				w.ext = append(w.ext, fmt.Sprintf("%q %s %s", d.Name, d.Origin, d.AuxData))
				w.extIDs = append(w.extIDs, d.ID)
				w.mu.Unlock()
			}
		case *page.EventJavascriptDialogOpening:
			select {
			case w.dialogs <- e:
			default:
			}
		}
	})
	if err != nil {
		t.Fatalf("listening to the tab's events: %v", err)
	}
	return w
}

func (w *pageWatch) extensionContexts() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.ext...)
}

// nativeCheck is true when the page's dialog and console functions are the
// browser's own and nothing of monkbrowse is on the page's window.
const nativeCheck = `(() => {
	const f = Function.prototype.toString;
	const nat = (fn) => typeof fn === 'function' && /\{\s*\[native code\]\s*\}\s*$/.test(f.call(fn));
	const all = [window.alert, window.confirm, window.prompt, console.log, console.info, console.warn, console.error, console.debug];
	const names = Object.getOwnPropertyNames(window).filter(n => /monkbrowse/i.test(n));
	return all.every(nat) && names.length === 0 && !('__monkbrowseHooks' in window);
})()`

// answerDialog waits for the tab's next native dialog and answers it.
func answerDialog(ctx context.Context, t *testing.T, tab *harness.Tab, w *pageWatch, wantMessage string, accept bool) {
	t.Helper()
	select {
	case d := <-w.dialogs:
		if d.Message != wantMessage {
			t.Errorf("the native dialog says %q, want %q", d.Message, wantMessage)
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("no native dialog %q opened in the page", wantMessage)
	}
	c, cancel := tab.Context(ctx)
	defer cancel()
	if _, err := chromedp.Call(c, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: accept}); err != nil {
		t.Fatalf("answering the native dialog: %v", err)
	}
}

// TestUnsharedTabUntouched: in a tab that was never shared, nothing of
// monkbrowse runs: no execution context of the extension (CDP
// Runtime.executionContextCreated), alert/confirm/prompt/console are the
// browser's natives, and confirm() opens a real dialog, through several
// navigations of the tab (the service worker's navigation listener ignores
// it). Sharing the tab injects (which proves the detector sees our
// contexts); unsharing puts the natives back.
func TestUnsharedTabUntouched(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	// Another tab is shared meanwhile, so the service worker is busy and
	// its listeners run for this profile.
	s.openShared(ctx, t, "/links.html")

	tab, err := s.browser.NewTab(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tab.Close)
	w := watchPage(ctx, t, tab, s.browser.ExtensionID)
	for i, p := range []string{"/dialogs.html", "/form.html", "/console.html"} {
		if err := tab.Navigate(ctx, unique(s.fx.URL(p))); err != nil {
			t.Fatal(err)
		}
		if !js[bool](ctx, t, tab, nativeCheck) {
			t.Errorf("page %d (%s): the page's functions are not the browser's natives, or monkbrowse left something on window", i+1, p)
		}
		// A real dialog opens and the page waits for the person.
		js[bool](ctx, t, tab, `(setTimeout(() => { window.__answer = confirm('native-check-`+fmt.Sprint(i)+`'); }, 0), true)`)
		answerDialog(ctx, t, tab, w, "native-check-"+fmt.Sprint(i), true)
		waitJS(ctx, t, tab, "window.__answer === true")
	}
	// The page's console output is not recorded anywhere: the tab is not
	// even listed.
	list := s.ok(ctx, t, "browser_list_tabs", nil)
	loc := js[string](ctx, t, tab, "location.href")
	if strings.Contains(list, loc) {
		t.Errorf("the unshared tab is listed:\n%s", list)
	}
	if got := w.extensionContexts(); len(got) > 0 {
		t.Fatalf("the extension ran in a tab that was never shared: %v", got)
	}

	// Positive control: sharing injects (the watch sees it), and the hooks answer dialogs.
	slot := s.share(ctx, t, tab)
	c, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for len(w.extensionContexts()) == 0 {
		select {
		case <-c.Done():
			t.Fatal("after sharing, no execution context of the extension appeared in the page: the check above could not have failed")
		case <-time.After(50 * time.Millisecond):
		}
	}
	if js[bool](ctx, t, tab, nativeCheck) {
		t.Error("after sharing, the page's functions are still the natives (no hooks)")
	}
	s.ok(ctx, t, "browser_snapshot", map[string]any{"tab": slot})

	// Unshared again: dormant, the natives are back.
	id, err := s.popup.ChromeTabID(ctx, tab)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.popup.Unshare(ctx, id); err != nil {
		t.Fatal(err)
	}
	wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
	defer wcancel()
	if _, err := harness.WaitEval[bool](wctx, tab, nativeCheck+` || (Object.getOwnPropertyNames(window).filter(n => /monkbrowse/i.test(n)).join() === '__monkbrowseControl' && [window.alert, window.confirm, window.prompt, console.log].every(f => /\[native code\]/.test(Function.prototype.toString.call(f))))`, func(v bool) bool { return v }); err != nil {
		t.Errorf("after unsharing, the page's functions are not the natives again: %v", err)
	}
	js[bool](ctx, t, tab, `(setTimeout(() => { window.__answer2 = confirm('native-again'); }, 0), true)`)
	answerDialog(ctx, t, tab, w, "native-again", false)
	waitJS(ctx, t, tab, "window.__answer2 === false")
	// Its next document gets nothing.
	before := len(w.extensionContexts())
	if err := tab.Navigate(ctx, unique(s.fx.URL("/form.html"))); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond) // a late injection would show up here
	if !js[bool](ctx, t, tab, nativeCheck) {
		t.Error("after unsharing, the tab's next page got hooks")
	}
	if got := w.extensionContexts(); len(got) != before {
		t.Errorf("after unsharing, the extension ran in the tab's next page: %v", got[before:])
	}
}

// TestDialogDefaults: in a shared tab dialogs never block and are never
// silently accepted: alert acknowledged, confirm dismissed, prompt
// cancelled; the action's result says so and the console log records it.
func TestDialogDefaults(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/dialogs.html")
	snap := s.snapshot(ctx, t, slot)
	for _, c := range []struct{ button, page, says string }{
		{"Show alert", "alert returned", `An alert "alert-token-7731" appeared and was acknowledged`},
		{"Ask confirm", "confirm returned false", `A confirm dialog "confirm-token-7732" appeared and was dismissed (confirm() returned false)`},
		{"Ask prompt", "prompt returned null", `A prompt "prompt-token-7733" appeared and was cancelled (prompt() returned null)`},
	} {
		out := s.ok(ctx, t, "browser_click", map[string]any{"element": c.button, "ref": ref(t, snap, "button", c.button), "tab": slot})
		if !strings.Contains(out, c.says) {
			t.Errorf("clicking %s: the result does not say %q:\n%s", c.button, c.says, harness.Clip(out, 800))
		}
		if got := js[string](ctx, t, tab, "document.getElementById('dialog-result').textContent"); got != c.page {
			t.Errorf("clicking %s: the page got %q, want %q", c.button, got, c.page)
		}
	}
	logs := s.ok(ctx, t, "browser_get_console_logs", map[string]any{"tab": slot})
	for _, want := range []string{`confirm("confirm-token-7732") → false (dismissed by default)`, `prompt("prompt-token-7733", "default answer") → null (cancelled by default)`, `alert("alert-token-7731")`} {
		if !strings.Contains(logs, want) {
			t.Errorf("the console log lacks %q:\n%s", want, logs)
		}
	}
}

// TestHandleDialog: browser_handle_dialog arms the answer for the next
// dialog only; its result teaches the pattern.
func TestHandleDialog(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/dialogs.html")
	snap := s.snapshot(ctx, t, slot)
	confirmBtn := ref(t, snap, "button", "Ask confirm")
	promptBtn := ref(t, snap, "button", "Ask prompt")
	result := func() string { return js[string](ctx, t, tab, "document.getElementById('dialog-result').textContent") }

	out := s.ok(ctx, t, "browser_handle_dialog", map[string]any{"accept": true, "tab": slot})
	if !strings.Contains(out, "repeat the action") || !strings.Contains(out, "60 seconds") {
		t.Errorf("the handle_dialog result does not teach arm-then-repeat:\n%s", out)
	}
	out = s.ok(ctx, t, "browser_click", map[string]any{"element": "Ask confirm", "ref": confirmBtn, "tab": slot})
	if !strings.Contains(out, `A confirm dialog "confirm-token-7732" appeared and was accepted as browser_handle_dialog asked`) {
		t.Errorf("the armed click's result:\n%s", harness.Clip(out, 800))
	}
	if got := result(); got != "confirm returned true" {
		t.Errorf("with accept armed the page got %q", got)
	}
	// One dialog only: the next confirm is dismissed again.
	s.ok(ctx, t, "browser_click", map[string]any{"element": "Ask confirm", "ref": confirmBtn, "tab": slot})
	if got := result(); got != "confirm returned false" {
		t.Errorf("the armed answer was used twice: the page got %q", got)
	}
	// A prompt answered with text.
	s.ok(ctx, t, "browser_handle_dialog", map[string]any{"accept": true, "promptText": "Grace Hopper", "tab": slot})
	out = s.ok(ctx, t, "browser_click", map[string]any{"element": "Ask prompt", "ref": promptBtn, "tab": slot})
	if got := result(); got != `prompt returned "Grace Hopper"` {
		t.Errorf("the armed prompt got %q", got)
	}
	if !strings.Contains(out, `answered with "Grace Hopper"`) {
		t.Errorf("the armed prompt's result:\n%s", harness.Clip(out, 800))
	}
	// Armed to dismiss.
	s.ok(ctx, t, "browser_handle_dialog", map[string]any{"accept": false, "tab": slot})
	s.ok(ctx, t, "browser_click", map[string]any{"element": "Ask confirm", "ref": confirmBtn, "tab": slot})
	if got := result(); got != "confirm returned false" {
		t.Errorf("armed to dismiss, the page got %q", got)
	}
	// The arm survives a navigation of the tab (the next page's dialog is answered).
	s.ok(ctx, t, "browser_handle_dialog", map[string]any{"accept": true, "tab": slot})
	s.ok(ctx, t, "browser_navigate", map[string]any{"url": unique(s.fx.URL("/dialogs.html")), "tab": slot})
	snap = s.snapshot(ctx, t, slot)
	s.ok(ctx, t, "browser_click", map[string]any{"element": "Ask confirm", "ref": ref(t, snap, "button", "Ask confirm"), "tab": slot})
	if got := result(); got != "confirm returned true" {
		t.Errorf("after a navigation the armed answer was lost: the page got %q", got)
	}
	msg := s.fails(ctx, t, "browser_handle_dialog", map[string]any{"accept": true, "tab": 99})
	if !strings.Contains(msg, "99") {
		t.Errorf("an unknown tab's refusal: %s", msg)
	}
}

// TestBeforeUnloadNeverBlocks: a page that asks "Leave site?" (with the
// user activation Chrome requires for it) does not hold up a navigation
// the AI asked for.
func TestBeforeUnloadNeverBlocks(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/beforeunload.html")
	// A real (CDP) click gives the page the user activation Chrome wants
	// before it shows a beforeunload dialog.
	if err := tab.Do(ctx, chromedp.Click(chromedp.CSS("#edit"))); err != nil {
		t.Fatal(err)
	}
	waitJS(ctx, t, tab, "document.getElementById('state').textContent === 'dirty'")
	next := unique(s.fx.URL("/links.html"))
	start := time.Now()
	s.ok(ctx, t, "browser_navigate", map[string]any{"url": next, "tab": slot})
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("the navigation took %s", d)
	}
	if loc := js[string](ctx, t, tab, "location.href"); loc != next {
		t.Errorf("the tab is at %s after navigating to %s", loc, next)
	}
}

// TestNativeDialogDoesNotHang: a native dialog the page opened before our
// hooks (here: while the tab was not shared yet) makes calls answer that a
// dialog is probably open, instead of hanging until the timeout.
func TestNativeDialogDoesNotHang(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, err := s.browser.NewTab(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tab.Close)
	w := watchPage(ctx, t, tab, s.browser.ExtensionID)
	if err := tab.Navigate(ctx, unique(s.fx.URL("/dialogs.html"))); err != nil {
		t.Fatal(err)
	}
	id, err := s.popup.ChromeTabID(ctx, tab)
	if err != nil {
		t.Fatal(err)
	}
	js[bool](ctx, t, tab, `(setTimeout(() => alert('early-bird'), 0), true)`)
	var opened *page.EventJavascriptDialogOpening
	select {
	case opened = <-w.dialogs:
	case <-time.After(15 * time.Second):
		t.Fatal("the page's alert did not open")
	}
	slot, err := s.popup.Share(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	msg := s.fails(ctx, t, "browser_snapshot", map[string]any{"tab": slot})
	took := time.Since(start)
	if !strings.Contains(msg, "native dialog") || !strings.Contains(msg, "not responding") {
		t.Errorf("with a native dialog open the snapshot says:\n%s", msg)
	}
	if took > 20*time.Second {
		t.Errorf("the call took %s to notice the dialog", took)
	}
	t.Logf("noticed the open dialog %q in %s: %s", opened.Message, took.Round(time.Millisecond), msg)
	c, cancel := tab.Context(ctx)
	defer cancel()
	if _, err := chromedp.Call(c, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true}); err != nil {
		t.Fatal(err)
	}
	// Answered by the person: the tab works again.
	s.ok(ctx, t, "browser_snapshot", map[string]any{"tab": slot})
}

// TestContentScriptCannotTouchStorage: our content script runs in the page's
// renderer, which a hostile page may have compromised. From that world it
// must not be able to share tabs or switch JavaScript on by writing
// chrome.storage.local (the service worker restricts it to trusted contexts).
// The probe runs in the extension's own isolated world of a shared tab,
// found through CDP.
func TestContentScriptCannotTouchStorage(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, err := s.browser.NewTab(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tab.Close)
	w := watchPage(ctx, t, tab, s.browser.ExtensionID)
	if err := tab.Navigate(ctx, unique(s.fx.URL("/form.html"))); err != nil {
		t.Fatal(err)
	}
	slot := s.share(ctx, t, tab)
	s.ok(ctx, t, "browser_snapshot", map[string]any{"tab": slot})

	const probe = `(async () => {
		if (!globalThis.chrome || !chrome.storage || !chrome.storage.local) return 'absent';
		try {
			await chrome.storage.local.set({ monkbrowseProbe: 1 });
			return 'written';
		} catch (e) { return 'refused: ' + (e && e.message); }
	})()`
	w.mu.Lock()
	ids := append([]runtime.ExecutionContextID(nil), w.extIDs...)
	w.mu.Unlock()
	if len(ids) == 0 {
		t.Fatal("no execution context of the extension in the shared tab: nothing to probe")
	}
	c, cancel := tab.Context(ctx)
	defer cancel()
	probed := 0
	for _, id := range ids {
		var got string
		yes := true
		r, err := chromedp.Call(c, runtime.Evaluate, runtime.EvaluateParams{
			Expression: probe, ContextID: id, ReturnByValue: &yes, AwaitPromise: &yes,
		})
		if err == nil && r.ExceptionDetails != nil {
			err = fmt.Errorf("%s", r.ExceptionDetails.Text)
		}
		if err == nil {
			err = json.Unmarshal(r.Result.Value, &got)
		}
		if err != nil {
			continue // a context of an earlier document, gone since
		}
		probed++
		if got == "written" {
			t.Errorf("the content script's world wrote chrome.storage.local (context %d)", id)
		}
		t.Logf("context %d: %s", id, got)
	}
	if probed == 0 {
		t.Fatal("no extension context of the shared tab could be probed")
	}
}
