package e2e

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/monkbrowse/monkbrowse/e2e/harness"
)

// Debug lines of the owner (server/internal/owner) this test waits for to
// know a call is where it means it to be.
const (
	logCallQueued = "a call waits for its tab's turn behind a running call"
	logWaitPlaced = "a time-only browser_wait is tied to its profile"
)

// TestStopEndsQueuedCallsAndWaits (issue 28): with a browser_evaluate
// running in the shared tab, a click from the forwarder's app (Cursor)
// queued in the server behind it and a time-only browser_wait (which runs
// in the server and never reaches the extension), the person's Stop (a
// trusted click in the real popup) answers all three within a second, the
// click without it ever being sent, so the page's click counter stays 0;
// the toolbar badge says paused. Resume lets the next click through. A
// shared tab's own Pause in the popup refuses calls on that tab only, and
// that tab's badge says so.
func TestStopEndsQueuedCallsAndWaits(t *testing.T) {
	p := need(t)
	ctx := testContext(t, 2*time.Minute)
	fx := fixtures()
	port, _ := harness.FreePort()
	cport, _ := harness.FreePort()
	home := mkdir(t, p, "home-stop")
	start := func(name, client string) *harness.Server {
		srv, err := harness.StartServer(ctx, harness.ServerConfig{Bin: p.bin, Port: port, ControlPort: cport, Home: home, Name: name, Log: logSink(), ClientName: client})
		if err != nil {
			t.Fatal(err)
		}
		trackServer(srv)
		t.Cleanup(func() { _ = srv.Close() })
		return srv
	}
	claude := start("stop-owner", "claude-code")
	pr := launchProfile(ctx, t, p, "chromium-stop", port, "stop")
	pr.waitConnected(ctx, t, port)
	pr.shareFixture(ctx, t, fx, "/form.html")
	cursor := start("stop-forwarder", "cursor")
	if err := pr.b.SetAllowJavaScript(ctx, true); err != nil {
		t.Fatal(err)
	}
	pop := pr.popup
	if dir := os.Getenv("MONKBROWSE_E2E_SHOTS"); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	with := func(tab int, kv ...any) map[string]any {
		m := map[string]any{"tab": tab}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	js[bool](ctx, t, pr.tab, "window.__clicks = 0; document.getElementById('help').addEventListener('click', () => window.__clicks++); true")
	snap := okOn(ctx, t, cursor, "browser_snapshot", with(pr.slot))
	help := ref(t, snap, "button", "Help")
	shot(ctx, t, pop, "popup-before")
	// Stop has a keyboard shortcut from install (the suggested one).
	if sc := js[string](ctx, t, pop.Tab, `chrome.commands.getAll().then((cs) => cs.find((c) => c.name === 'toggle-pause')?.shortcut ?? 'no command')`); sc == "" || sc == "no command" {
		t.Errorf("Stop's command has no shortcut: %q", sc)
	}

	// A call running in the tab, a click queued behind it, a time-only wait.
	async := func(srv *harness.Server, tool string, args map[string]any) <-chan harness.ToolResult {
		ch := make(chan harness.ToolResult, 1)
		go func() {
			res, err := srv.Call(ctx, tool, args)
			if err != nil {
				res = harness.ToolResult{IsError: true, Text: err.Error()}
			}
			ch <- res
		}()
		return ch
	}
	evaluated := async(claude, "browser_evaluate", with(pr.slot, "expression", "(window.__running = true, new Promise((r) => setTimeout(() => r('too late'), 30000)))"))
	waitJS(ctx, t, pr.tab, "window.__running === true")
	clicked := async(cursor, "browser_click", with(pr.slot, "element", "Help", "ref", help))
	waitLog(ctx, t, claude, logCallQueued)
	waited := async(claude, "browser_wait", map[string]any{"time": 30})
	waitLog(ctx, t, claude, logWaitPlaced)

	if err := pop.Tab.Do(ctx, chromedp.Click(chromedp.CSS("#pause"))); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	for _, c := range []struct {
		what string
		ch   <-chan harness.ToolResult
		want string
	}{
		{"the running browser_evaluate", evaluated, "paused the AI"},
		{"the queued click", clicked, "nothing had been sent"},
		{"the time-only browser_wait", waited, "browser_wait was stopped"},
	} {
		select {
		case res := <-c.ch:
			if !res.IsError || !strings.Contains(res.Text, "paused the AI") || !strings.Contains(res.Text, c.want) {
				t.Errorf("%s answered after Stop: %s", c.what, res.Text)
			}
			t.Logf("%s answered %s after Stop", c.what, time.Since(stopped).Round(time.Millisecond))
			if d := time.Since(stopped); d > time.Second {
				t.Errorf("%s answered %s after Stop, want within 1 s", c.what, d)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("%s still runs 10 s after Stop", c.what)
		}
	}
	if n := js[int](ctx, t, pr.tab, "window.__clicks"); n != 0 {
		t.Errorf("the click queued before Stop reached the page (%d clicks)", n)
	}
	waitJS(ctx, t, pop.Tab, `document.querySelector('#pause-state').textContent.includes('paused')`)
	waitJS(ctx, t, pop.Tab, `chrome.action.getBadgeText({}).then((t) => t === 'II')`)
	shot(ctx, t, pop, "popup-after-stop")
	// A new call while paused: refused by the server, never sent.
	if res := callOn(ctx, t, cursor, "browser_click", with(pr.slot, "element", "Help", "ref", help)); !res.IsError || !strings.Contains(res.Text, "nothing had been sent") {
		t.Errorf("a click while paused: %s", res.Text)
	}
	if n := js[int](ctx, t, pr.tab, "window.__clicks"); n != 0 {
		t.Errorf("a click while paused reached the page (%d clicks)", n)
	}

	// Resume: the AI acts again.
	if err := pop.Tab.Do(ctx, chromedp.Click(chromedp.CSS("#pause"))); err != nil {
		t.Fatal(err)
	}
	waitJS(ctx, t, pop.Tab, `document.querySelector('#pause').textContent.includes('Stop')`)
	waitJS(ctx, t, pop.Tab, `chrome.action.getBadgeText({}).then((t) => t === '')`)
	// The title says connected again (not paused), on the tab the AI acted in
	// too (once the acting badge's least time, 300 ms, is over).
	waitJS(ctx, t, pop.Tab, `chrome.action.getTitle({}).then((t) => t.startsWith('monkbrowse: connected'))`)
	if id, err := pop.ChromeTabID(ctx, pr.tab); err != nil {
		t.Fatal(err)
	} else {
		waitJS(ctx, t, pop.Tab, fmt.Sprintf(`chrome.action.getTitle({ tabId: %d }).then((t) => t.startsWith('monkbrowse: connected'))`, id))
	}
	okOn(ctx, t, cursor, "browser_click", with(pr.slot, "element", "Help", "ref", help))
	waitJS(ctx, t, pr.tab, "window.__clicks === 1")

	// A tab's own Pause: calls on it are refused, the other tab works.
	other, err := pr.b.NewTab(ctx, unique(fx.URL("/links.html")))
	if err != nil {
		t.Fatal(err)
	}
	otherID, err := pop.ChromeTabID(ctx, other)
	if err != nil {
		t.Fatal(err)
	}
	otherSlot, err := pop.Share(ctx, otherID)
	if err != nil {
		t.Fatal(err)
	}
	id, err := pop.ChromeTabID(ctx, pr.tab)
	if err != nil {
		t.Fatal(err)
	}
	row := fmt.Sprintf(`li[data-tab-id="%d"]`, id)
	if err := pop.Tab.Do(ctx, chromedp.Click(chromedp.CSS(row+" .tab-pause"))); err != nil {
		t.Fatal(err)
	}
	waitJS(ctx, t, pop.Tab, fmt.Sprintf(`document.querySelector('%s')?.dataset.paused === 'true'`, row))
	waitJS(ctx, t, pop.Tab, fmt.Sprintf(`chrome.action.getBadgeText({ tabId: %d }).then((t) => t === 'II')`, id))
	waitJS(ctx, t, pop.Tab, fmt.Sprintf(`chrome.action.getBadgeText({ tabId: %d }).then((t) => t === '')`, otherID))
	shot(ctx, t, pop, "popup-tab-paused")
	res := callOn(ctx, t, claude, "browser_click", with(pr.slot, "element", "Help", "ref", help))
	if !res.IsError || !strings.Contains(res.Text, fmt.Sprintf("paused the AI in tab %d", pr.slot)) {
		t.Errorf("a click on the paused tab: %s", res.Text)
	}
	if n := js[int](ctx, t, pr.tab, "window.__clicks"); n != 1 {
		t.Errorf("a click on the paused tab reached the page (%d clicks)", n)
	}
	if out := okOn(ctx, t, claude, "browser_snapshot", with(otherSlot)); !strings.Contains(out, "link") {
		t.Errorf("the other tab's snapshot while tab %d is paused: %s", pr.slot, out)
	}
	if list := okOn(ctx, t, cursor, "browser_list_tabs", nil); !regexp.MustCompile(fmt.Sprintf(`tab %d \([^)]*paused by the person\)`, pr.slot)).MatchString(list) {
		t.Errorf("browser_list_tabs does not say tab %d is paused:\n%s", pr.slot, list)
	}
	if err := pop.Tab.Do(ctx, chromedp.Click(chromedp.CSS(row+" .tab-pause"))); err != nil {
		t.Fatal(err)
	}
	waitJS(ctx, t, pop.Tab, fmt.Sprintf(`document.querySelector('%s')?.dataset.paused === undefined`, row))
	waitJS(ctx, t, pop.Tab, fmt.Sprintf(`chrome.action.getTitle({ tabId: %d }).then((t) => t.startsWith('monkbrowse: connected'))`, id))
	okOn(ctx, t, claude, "browser_click", with(pr.slot, "element", "Help", "ref", help))
	waitJS(ctx, t, pr.tab, "window.__clicks === 2")
}

// waitLog waits (up to 10 s) until srv's stderr holds line.
func waitLog(ctx context.Context, t *testing.T, srv *harness.Server, line string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !strings.Contains(srv.Log(), line) {
		if time.Now().After(deadline) {
			t.Fatalf("%s never logged %q:\n%s", srv.Name, line, harness.Tail(srv.Log(), 30))
		}
		select {
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		case <-tick.C:
		}
	}
}
