package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/monkbrowse/monkbrowse/e2e/harness"
	"github.com/monkbrowse/monkbrowse/tools"
)

// askSlice is browser_ask_user's wait per call in these tests (the
// server's MONKBROWSE_ASK_SLICE; 50 s for people): long enough that an
// answer the continuation is not woken for would come late, short enough
// for the suite.
const askSlice = 3 * time.Second

var waitIDRe = regexp.MustCompile(`waitId "([^"]+)"`)

// TestAskUserHandOff (issue 29, issue 40): browser_ask_user shows the
// AI's message in the popup only; the tab shows a neutral notice the page
// may read (no message, no button) and the page's clicks cannot answer it;
// the first call answers with a waitId, and the continuation resolves
// within 2 s of the person's click on Done in the popup, with what changed
// in the page (the Email the person typed) and never the password they
// typed; the notice goes. A second ask is answered Decline in the popup. An
// ask survives the service worker stopping; Stop, the app cancelling its
// call and unsharing the tab end it and take the notice down.
func TestAskUserHandOff(t *testing.T) {
	p := need(t)
	ctx := testContext(t, 3*time.Minute)
	fx := fixtures()
	port, _ := harness.FreePort()
	cport, _ := harness.FreePort()
	srv, err := harness.StartServer(ctx, harness.ServerConfig{Bin: p.bin, Port: port, ControlPort: cport, Home: mkdir(t, p, "home-ask"), Name: "ask",
		Log: logSink(), ClientName: "claude-code", Env: []string{"MONKBROWSE_ASK_SLICE=" + askSlice.String()}})
	if err != nil {
		t.Fatal(err)
	}
	trackServer(srv)
	t.Cleanup(func() { _ = srv.Close() })
	pr := launchProfile(ctx, t, p, "chromium-ask", port, "ask")
	pr.waitConnected(ctx, t, port)
	pr.shareFixture(ctx, t, fx, "/form.html")
	tabID, err := pr.popup.ChromeTabID(ctx, pr.tab)
	if err != nil {
		t.Fatal(err)
	}
	with := func(kv ...any) map[string]any {
		m := map[string]any{"tab": pr.slot}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	okOn(ctx, t, srv, "browser_snapshot", with()) // the diff base
	const message = "Please sign in with your password, then press Done."

	first := make(chan harness.ToolResult, 1)
	go func() { first <- callOn(ctx, t, srv, "browser_ask_user", with("message", message)) }()
	waitJS(ctx, t, pr.tab, `!!document.querySelector('monkbrowse-ask')`)

	// The page's own scripts cannot read the message or answer it: the
	// notice in the tab has neither the message nor a button.
	if v := js[bool](ctx, t, pr.tab, `document.querySelector('monkbrowse-ask').shadowRoot === null`); !v {
		t.Error("the notice's shadow root is open to the page")
	}
	page := js[string](ctx, t, pr.tab, `document.documentElement.innerText + '\n' + document.documentElement.textContent + '\n' + document.documentElement.outerHTML`)
	if strings.Contains(page, "sign in with your password") || strings.Contains(page, "Decline") {
		t.Errorf("the page can read the request's text:\n%s", harness.Clip(page, 2000))
	}
	if n, err := harness.EvalServiceWorker[int](ctx, pr.b, fmt.Sprintf(`chrome.scripting.executeScript({ target: { tabId: %d }, func: () => {
		const root = chrome.dom.openOrClosedShadowRoot(document.querySelector('monkbrowse-ask'));
		return root.querySelectorAll('button').length + (root.textContent.includes('sign in with your password') ? 100 : 0);
	} }).then((res) => res[0].result)`, tabID)); err != nil || n != 0 {
		t.Errorf("the notice in the tab holds buttons or the message (%d, %v)", n, err)
	}
	dx, dy := noticePoint(ctx, t, pr.b, tabID)
	js[bool](ctx, t, pr.tab, fmt.Sprintf(`(() => {
		document.querySelector('monkbrowse-ask').click();
		const el = document.elementFromPoint(%f, %f); el.click();
		el.dispatchEvent(new MouseEvent('click', { bubbles: true, composed: true, clientX: %f, clientY: %f }));
		return true;
	})()`, dx, dy, dx, dy))
	// The person's own (trusted) click on the notice answers nothing either.
	if err := pr.tab.Do(ctx, chromedp.MouseClickXY(dx, dy)); err != nil {
		t.Fatal(err)
	}

	shotPage(ctx, t, pr.tab, "ask-banner")
	if err := pr.popup.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	waitJS(ctx, t, pr.popup.Tab, `!document.querySelector('#asks').hidden && document.querySelector('#ask-list').textContent.includes('Claude Code asks you (tab `+fmt.Sprint(pr.slot)+`)')`)
	shot(ctx, t, pr.popup, "ask-popup")

	// The person types (trusted input) while the AI waits.
	const secret = "Hunter2-ask-secret"
	if err := pr.tab.Do(ctx, chromedp.SendKeys(chromedp.CSS("#email"), "ada@example.test"), chromedp.SendKeys(chromedp.CSS("#password"), secret)); err != nil {
		t.Fatal(err)
	}

	var waitID string
	select {
	case res := <-first:
		m := waitIDRe.FindStringSubmatch(res.Text)
		if res.IsError || m == nil || !strings.Contains(res.Text, "not answered yet") {
			t.Fatalf("the first call (the page's clicks must not answer it): %s", res.Text)
		}
		waitID = m[1]
	case <-time.After(askSlice + 20*time.Second):
		t.Fatal("the first browser_ask_user call did not answer after its slice")
	}

	// The continuation waits; the person clicks Done in the popup.
	cont := make(chan harness.ToolResult, 1)
	go func() { cont <- callOn(ctx, t, srv, "browser_ask_user", map[string]any{"waitId": waitID}) }()
	if err := pr.popup.Tab.Do(ctx, chromedp.Click(chromedp.CSS("#ask-list button.done"))); err != nil {
		t.Fatal(err)
	}
	clicked := time.Now()
	select {
	case res := <-cont:
		took := time.Since(clicked)
		t.Logf("the continuation answered %s after the click", took.Round(time.Millisecond))
		if took > 2*time.Second {
			t.Errorf("the continuation answered %s after the click, want within 2 s", took)
		}
		if res.IsError || !strings.Contains(res.Text, "pressed Done (in the monkbrowse popup)") {
			t.Fatalf("the answer: %s", res.Text)
		}
		if !strings.Contains(res.Text, "ada@example.test") || !strings.Contains(res.Text, tools.DiffHeading) {
			t.Errorf("the answer does not show what changed in the page:\n%s", res.Text)
		}
		if strings.Contains(res.Text, secret) {
			t.Errorf("the answer carries the password the person typed:\n%s", res.Text)
		}
	case <-time.After(askSlice + 20*time.Second):
		t.Fatal("the continuation did not answer")
	}
	waitJS(ctx, t, pr.tab, `!document.querySelector('monkbrowse-ask')`)
	waitJS(ctx, t, pr.popup.Tab, `document.querySelector('#asks').hidden`)
	waitJS(ctx, t, pr.popup.Tab, `document.querySelector('#activity-list').textContent.includes('Claude Code got your answer (popup): "Done" in tab `+fmt.Sprint(pr.slot)+`')`)

	// Decline, in the popup this time (a page could cover the banner).
	second := make(chan harness.ToolResult, 1)
	go func() { second <- callOn(ctx, t, srv, "browser_ask_user", with("message", "May I place the order?")) }()
	waitJS(ctx, t, pr.popup.Tab, `!document.querySelector('#asks').hidden && !!document.querySelector('#ask-list button.decline')`)
	if err := pr.popup.Tab.Do(ctx, chromedp.Click(chromedp.CSS("#ask-list button.decline"))); err != nil {
		t.Fatal(err)
	}
	select {
	case res := <-second:
		if res.IsError || !strings.Contains(res.Text, "pressed Decline (in the monkbrowse popup)") {
			t.Fatalf("the declined ask: %s", res.Text)
		}
	case <-time.After(askSlice + 20*time.Second):
		t.Fatal("the declined ask did not answer")
	}
	waitJS(ctx, t, pr.tab, `!document.querySelector('monkbrowse-ask')`)

	// The request survives the service worker stopping (as Chrome stops
	// an idle one): the banner and the popup still show it, and the
	// person's Done reaches the next continuation.
	pending := func(msg string) string {
		t.Helper()
		res := callOn(ctx, t, srv, "browser_ask_user", with("message", msg))
		m := waitIDRe.FindStringSubmatch(res.Text)
		if res.IsError || m == nil {
			t.Fatalf("ask %q: %s", msg, res.Text)
		}
		return m[1]
	}
	waitID = pending("Please solve the CAPTCHA.")
	// The person's own navigation (a login's redirect): the next page
	// shows the request again.
	if err := pr.tab.Navigate(ctx, unique(fx.URL("/links.html"))); err != nil {
		t.Fatal(err)
	}
	waitJS(ctx, t, pr.tab, `location.pathname === '/links.html' && !!document.querySelector('monkbrowse-ask')`)
	sw, err := pr.b.ServiceWorkerTarget(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Stopped again while it runs: a worker the harness's last eval had
	// just detached from does not always stop at the first try.
	gone := false
	for try := 0; try < 10 && !gone; try++ {
		if err := pr.b.StopServiceWorkers(ctx, pr.tab); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if infos, err := pr.b.Targets(ctx); err == nil && !hasTarget(infos, sw.TargetID) {
				gone = true
				break
			}
		}
	}
	if !gone {
		t.Fatal("the service worker still runs after ServiceWorker.stopAllWorkers")
	}
	if err := pr.popup.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	waitJS(ctx, t, pr.popup.Tab, `document.querySelector('#ask-list').textContent.includes('Please solve the CAPTCHA.')`)
	if err := pr.popup.Tab.Do(ctx, chromedp.Click(chromedp.CSS("#ask-list button.done"))); err != nil {
		t.Fatal(err)
	}
	waitJS(ctx, t, pr.tab, `!document.querySelector('monkbrowse-ask')`)
	if res := callOn(ctx, t, srv, "browser_ask_user", map[string]any{"waitId": waitID}); res.IsError || !strings.Contains(res.Text, "pressed Done (in the monkbrowse popup)") {
		t.Errorf("after the worker restarted: %s", res.Text)
	}

	// Stop in the popup ends a waiting ask (code paused) and takes its
	// banner down.
	stopped := make(chan harness.ToolResult, 1)
	go func() {
		stopped <- callOn(ctx, t, srv, "browser_ask_user", with("message", "Confirm the transfer, please."))
	}()
	waitJS(ctx, t, pr.tab, `!!document.querySelector('monkbrowse-ask')`)
	if err := pr.popup.Tab.Do(ctx, chromedp.Click(chromedp.CSS("#pause"))); err != nil {
		t.Fatal(err)
	}
	select {
	case res := <-stopped:
		if !res.IsError || !strings.Contains(res.Text, "paused the AI") {
			t.Errorf("an ask during Stop: %s", res.Text)
		}
	case <-time.After(askSlice + 20*time.Second):
		t.Fatal("the ask did not answer after Stop")
	}
	waitJS(ctx, t, pr.tab, `!document.querySelector('monkbrowse-ask')`)
	// Resume once the popup shows the pause: before, the button is still
	// disabled (the worker has not answered Stop) or would ask for Stop
	// again, and the click does nothing.
	waitJS(ctx, t, pr.popup.Tab, `document.querySelector('#pause').textContent.includes('Resume') && !document.querySelector('#pause').disabled`)
	if err := pr.popup.Tab.Do(ctx, chromedp.Click(chromedp.CSS("#pause"))); err != nil {
		t.Fatal(err)
	}
	waitJS(ctx, t, pr.popup.Tab, `document.querySelector('#pause').textContent.includes('Stop')`)

	// The tab's own Pause ends its ask and takes the banner down.
	tabPaused := make(chan harness.ToolResult, 1)
	go func() {
		tabPaused <- callOn(ctx, t, srv, "browser_ask_user", with("message", "Check the amount, please."))
	}()
	waitJS(ctx, t, pr.tab, `!!document.querySelector('monkbrowse-ask')`)
	row := fmt.Sprintf(`li[data-tab-id="%d"]`, tabID)
	if err := pr.popup.Tab.Do(ctx, chromedp.Click(chromedp.CSS(row+" .tab-pause"))); err != nil {
		t.Fatal(err)
	}
	waitJS(ctx, t, pr.tab, `!document.querySelector('monkbrowse-ask')`)
	select {
	case res := <-tabPaused:
		if !strings.Contains(res.Text, "paused the AI") && !strings.Contains(res.Text, "pressed Stop") {
			t.Errorf("an ask when its tab was paused: %s", res.Text)
		}
	case <-time.After(askSlice + 20*time.Second):
		t.Fatal("the ask did not answer after its tab was paused")
	}
	// Resume once the row shows the tab paused (its button re-rendered,
	// enabled, saying Resume).
	waitJS(ctx, t, pr.popup.Tab, fmt.Sprintf(`document.querySelector('%[1]s')?.dataset.paused === 'true' && document.querySelector('%[1]s .tab-pause')?.disabled === false`, row))
	if err := pr.popup.Tab.Do(ctx, chromedp.Click(chromedp.CSS(row+" .tab-pause"))); err != nil {
		t.Fatal(err)
	}
	waitJS(ctx, t, pr.popup.Tab, fmt.Sprintf(`document.querySelector('%s')?.dataset.paused === undefined`, row))

	// The AI app cancelling the waiting call (notifications/cancelled)
	// ends the ask too: its banner goes.
	cctx, cancel := context.WithCancel(ctx)
	cancelled := make(chan error, 1)
	go func() {
		_, err := srv.Call(cctx, "browser_ask_user", with("message", "Please approve the login on your phone."))
		cancelled <- err
	}()
	waitJS(ctx, t, pr.tab, `!!document.querySelector('monkbrowse-ask')`)
	cancel()
	<-cancelled
	waitJS(ctx, t, pr.tab, `!document.querySelector('monkbrowse-ask')`)

	// Unsharing the tab ends the ask; the continuation says so.
	waitID = pending("Please pay, then press Done.")
	if err := pr.popup.Unshare(ctx, tabID); err != nil {
		t.Fatal(err)
	}
	waitJS(ctx, t, pr.tab, `!document.querySelector('monkbrowse-ask')`)
	if res := callOn(ctx, t, srv, "browser_ask_user", map[string]any{"waitId": waitID}); !strings.Contains(res.Text, "stopped sharing the tab") {
		t.Errorf("after unsharing: %s", res.Text)
	}
}

// shotPage saves a page tab's viewport as PNG in $MONKBROWSE_E2E_SHOTS.
func shotPage(ctx context.Context, t *testing.T, tab *harness.Tab, name string) {
	t.Helper()
	dir := os.Getenv("MONKBROWSE_E2E_SHOTS")
	if dir == "" {
		return
	}
	c, cancel := tab.Context(ctx)
	defer cancel()
	png, err := chromedp.Run(c, chromedp.CaptureScreenshot())
	if err != nil {
		t.Logf("screenshot %s: %v", name, err)
		return
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Logf("screenshot %s: %v", name, err)
	}
}

// TestAskUserIgnoresMonkbrowseInput (issue 29): debugger-mode input is
// trusted too, so the AI's own browser_click_xy where the hand-off's notice
// sits must not answer the person's request (nothing in the tab answers
// it since issue 40); the person's Decline in the popup is the answer.
func TestAskUserIgnoresMonkbrowseInput(t *testing.T) {
	p := need(t)
	ctx := testContext(t, 3*time.Minute)
	fx := fixtures()
	port, _ := harness.FreePort()
	cport, _ := harness.FreePort()
	srv, err := harness.StartServer(ctx, harness.ServerConfig{Bin: p.bin, Port: port, ControlPort: cport, Home: mkdir(t, p, "home-ask-dbg"), Name: "ask-dbg",
		Log: logSink(), ClientName: "claude-code", Env: []string{"MONKBROWSE_ASK_SLICE=" + askSlice.String()}})
	if err != nil {
		t.Fatal(err)
	}
	trackServer(srv)
	t.Cleanup(func() { _ = srv.Close() })
	pr := launchProfile(ctx, t, p, "chromium-ask-dbg", port, "askdbg")
	pr.waitConnected(ctx, t, port)
	pr.shareFixture(ctx, t, fx, "/form.html")
	if err := pr.b.SetUseDebugger(ctx, true); err != nil {
		t.Fatal(err)
	}
	tabID, err := pr.popup.ChromeTabID(ctx, pr.tab)
	if err != nil {
		t.Fatal(err)
	}
	asked := make(chan harness.ToolResult, 1)
	go func() {
		asked <- callOn(ctx, t, srv, "browser_ask_user", map[string]any{"tab": pr.slot, "message": "Please confirm the payment, then press Done."})
	}()
	waitJS(ctx, t, pr.tab, `!!document.querySelector('monkbrowse-ask')`)
	x, y := noticePoint(ctx, t, pr.b, tabID)
	js[bool](ctx, t, pr.tab, `window.__clicks = 0; document.addEventListener('click', (e) => { if (e.isTrusted) window.__clicks++; }, true); true`)
	okOn(ctx, t, srv, "browser_click_xy", map[string]any{"tab": pr.slot, "x": x, "y": y})
	if n := js[int](ctx, t, pr.tab, "window.__clicks"); n != 1 {
		t.Fatalf("the debugger-mode click did not reach the page as a trusted click (%d)", n)
	}
	if err := pr.popup.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	waitJS(ctx, t, pr.popup.Tab, `!!document.querySelector('#ask-list button.decline')`)
	if err := pr.popup.Tab.Do(ctx, chromedp.Click(chromedp.CSS("#ask-list button.decline"))); err != nil {
		t.Fatal(err)
	}
	var res harness.ToolResult
	select {
	case res = <-asked:
	case <-time.After(askSlice + 20*time.Second):
		t.Fatal("the ask did not answer")
	}
	// The slice may have ended before the person's answer: the
	// continuation then answers at once.
	if m := waitIDRe.FindStringSubmatch(res.Text); m != nil && !res.IsError {
		start := time.Now()
		res = callOn(ctx, t, srv, "browser_ask_user", map[string]any{"waitId": m[1]})
		if d := time.Since(start); d > time.Second {
			t.Errorf("the continuation of an answered ask took %s, want at once", d)
		}
	}
	if res.IsError || !strings.Contains(res.Text, "pressed Decline (in the monkbrowse popup)") {
		t.Fatalf("the AI's own trusted click answered the request, or no answer: %s", res.Text)
	}
}
