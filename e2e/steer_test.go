package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/monkbrowse/monkbrowse/e2e/harness"
)

// TestPersonSeesAndSteers (issue 28): two real MCP clients with different
// names (Claude Code owns the daemon, Cursor is its forwarder) act on a
// shared page; the popup and the options page name both apps and the
// elements by the page's names (not the AI's words); the password Cursor
// typed appears nowhere (popup, options page, export, extension storage);
// Stop in the popup answers a running browser_wait with the pause and the
// next click never reaches the page (nor the browser: the server refuses
// it, stop_test.go); Resume; the tab Claude Code opens lands
// in a tab group named after it, and browser_list_tabs says who opened it.
func TestPersonSeesAndSteers(t *testing.T) {
	p := need(t)
	ctx := testContext(t, 3*time.Minute)
	fx := fixtures()
	port, _ := harness.FreePort()
	cport, _ := harness.FreePort()
	home := mkdir(t, p, "home-steer")
	start := func(name, client string) *harness.Server {
		srv, err := harness.StartServer(ctx, harness.ServerConfig{Bin: p.bin, Port: port, ControlPort: cport, Home: home, Name: name, Log: logSink(), ClientName: client})
		if err != nil {
			t.Fatal(err)
		}
		trackServer(srv)
		t.Cleanup(func() { _ = srv.Close() })
		return srv
	}
	claude := start("steer-owner", "claude-code")
	pr := launchProfile(ctx, t, p, "chromium-steer", port, "steer")
	pr.waitConnected(ctx, t, port)
	pr.shareFixture(ctx, t, fx, "/form.html")
	cursor := start("steer-forwarder", "cursor")
	tab := map[string]any{"tab": pr.slot}
	with := func(kv ...any) map[string]any {
		m := map[string]any{"tab": pr.slot}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	shot(ctx, t, pr.popup, "steer-popup-before")
	js[bool](ctx, t, pr.tab, "window.__help = 0; document.getElementById('help').addEventListener('click', () => window.__help++); true")

	// Claude Code clicks Help, calling it by its own words; Cursor types
	// an email and a password.
	const secret = "Tr0ub4dor-e2e-secret"
	snap := snapshotOn(ctx, t, claude, tab)
	okOn(ctx, t, claude, "browser_click", with("element", "the little question thing", "ref", ref(t, snap, "button", "Help")))
	waitJS(ctx, t, pr.tab, "window.__help === 1")
	snap = snapshotOn(ctx, t, cursor, tab)
	okOn(ctx, t, cursor, "browser_type", with("element", "login", "ref", ref(t, snap, "textbox", "Email"), "text", "ada@example.test"))
	okOn(ctx, t, cursor, "browser_type", with("element", "secret box", "ref", ref(t, snap, "textbox", "Password"), "text", secret))
	if v := js[string](ctx, t, pr.tab, "document.getElementById('password').value"); v != secret {
		t.Fatalf("the password field holds %q", v)
	}

	// The popup names both apps and the elements as the page names them.
	pop := pr.popup
	if err := pop.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	slot := fmt.Sprint(pr.slot)
	waitJS(ctx, t, pop.Tab, `document.querySelector('#activity-list').textContent.includes('Claude Code clicked button "Help" in tab `+slot+`')`)
	waitJS(ctx, t, pop.Tab, `document.querySelector('#activity-list').textContent.includes('Cursor typed into textbox "Email": "ada@example.test" in tab `+slot+`')`)
	waitJS(ctx, t, pop.Tab, `document.querySelector('#activity-list').textContent.includes('Cursor typed into textbox "Password" in tab `+slot+`')`)
	waitJS(ctx, t, pop.Tab, `['Claude Code', 'Cursor'].every((a) => document.querySelector('#apps').textContent.includes(a))`)
	// The shared tab's row says which app acted in it last.
	id, err := pop.ChromeTabID(ctx, pr.tab)
	if err != nil {
		t.Fatal(err)
	}
	waitJS(ctx, t, pop.Tab, fmt.Sprintf(`document.querySelector('li[data-tab-id="%d"] .by')?.textContent.includes('Cursor') === true`, id))
	shot(ctx, t, pop, "steer-popup-activity")
	if txt := js[string](ctx, t, pop.Tab, "document.body.innerText"); strings.Contains(txt, "little question thing") {
		t.Errorf("the popup shows the AI's words for the element instead of the page's: %s", txt)
	}

	// The options page lists every entry; Export saves them as JSON.
	dl := t.TempDir()
	if err := pr.b.AllowDownloads(ctx, dl); err != nil {
		t.Fatal(err)
	}
	opts, err := pr.b.NewTab(ctx, pr.b.ExtensionURL("options.html"))
	if err != nil {
		t.Fatal(err)
	}
	waitJS(ctx, t, opts, `document.querySelector('#activity-table tbody').textContent.includes('typed into textbox "Password"')`)
	if err := opts.Do(ctx, chromedp.Click(chromedp.CSS("#activity-export"))); err != nil {
		t.Fatal(err)
	}
	export := waitExport(ctx, t, dl, "monkbrowse-activity-")
	var entries []struct {
		App, Tool, Outcome string
		Target             struct{ Role, Name string }
		Text               string
	}
	if err := json.Unmarshal(export, &entries); err != nil {
		t.Fatalf("the export is not JSON: %v\n%s", err, export)
	}
	apps := map[string]bool{}
	for _, e := range entries {
		apps[e.App] = true
	}
	if !apps["Claude Code"] || !apps["Cursor"] {
		t.Errorf("the export names the apps %v, want Claude Code and Cursor", apps)
	}

	// The password is nowhere the person (or anyone) could read it.
	storage := js[string](ctx, t, pop.Tab, "new Promise((r) => chrome.storage.local.get(null, (v) => r(JSON.stringify(v))))")
	for where, text := range map[string]string{
		"popup":        js[string](ctx, t, pop.Tab, "document.body.innerHTML"),
		"options page": js[string](ctx, t, opts, "document.body.innerHTML"),
		"export":       string(export),
		"storage":      storage,
	} {
		if strings.Contains(text, secret) {
			t.Errorf("the typed password appears in the %s", where)
		}
	}

	// Stop: a running wait answers with the pause within a second, and
	// a click sent after it never reaches the page.
	waited := make(chan harness.ToolResult, 1)
	go func() {
		res, err := claude.Call(ctx, "browser_wait", with("text", "text that never appears", "time", 30))
		if err != nil {
			res = harness.ToolResult{IsError: true, Text: err.Error()}
		}
		waited <- res
	}()
	waitJS(ctx, t, pop.Tab, `document.querySelector('#activity-list').textContent.includes('Claude Code read the text')`)
	if err := pop.Tab.Do(ctx, chromedp.Click(chromedp.CSS("#pause"))); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	select {
	case res := <-waited:
		if !res.IsError || !strings.Contains(res.Text, "paused the AI") {
			t.Errorf("the wait answered after Stop: %s", res.Text)
		}
		if d := time.Since(stopped); d > time.Second {
			t.Errorf("the wait answered %s after Stop, want within 1 s", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("browser_wait still runs 10 s after Stop")
	}
	res := callOn(ctx, t, cursor, "browser_click", with("element", "Help", "ref", ref(t, snap, "button", "Help")))
	if !res.IsError || !strings.Contains(res.Text, "paused the AI") {
		t.Errorf("a click while paused: %s", res.Text)
	}
	if n := js[int](ctx, t, pr.tab, "window.__help"); n != 1 {
		t.Errorf("the click while paused reached the page (%d clicks)", n)
	}
	waitJS(ctx, t, pop.Tab, `document.querySelector('#pause-state').textContent.includes('paused')`)
	// The server refused the click without sending it (stop_test.go) and
	// told the extension (refused): the log has it as paused, never as a
	// click that happened.
	waitJS(ctx, t, pop.Tab, `[...document.querySelectorAll('#activity-list li')].some((li) => li.dataset.outcome === 'paused' && li.textContent.includes('Cursor clicked in tab `+slot+` — paused'))`)
	if js[bool](ctx, t, pop.Tab, `[...document.querySelectorAll('#activity-list li')].some((li) => li.dataset.outcome !== 'paused' && li.textContent.includes('Cursor clicked'))`) {
		t.Error("the activity log has a click from Cursor that happened, but the server refused it while paused")
	}
	shot(ctx, t, pop, "steer-popup-paused")

	// The pause and the log survive the service worker stopping (as
	// Chrome stops an idle one): the next click is still refused.
	sw, err := pr.b.ServiceWorkerTarget(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := pr.b.StopServiceWorkers(ctx, pr.tab); err != nil {
		t.Fatal(err)
	}
	gone := false
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if infos, err := pr.b.Targets(ctx); err == nil && !hasTarget(infos, sw.TargetID) {
			gone = true
			break
		}
	}
	if !gone {
		t.Fatal("the service worker is still running after ServiceWorker.stopAllWorkers")
	}
	res = callOn(ctx, t, cursor, "browser_click", with("element", "Help", "ref", ref(t, snap, "button", "Help")))
	if !res.IsError || !strings.Contains(res.Text, "paused the AI") {
		t.Errorf("a click while paused, after the worker restarted: %s", res.Text)
	}
	if n := js[int](ctx, t, pr.tab, "window.__help"); n != 1 {
		t.Errorf("the click after the worker restarted reached the page (%d clicks)", n)
	}
	waitJS(ctx, t, pop.Tab, `document.querySelector('#activity-list').textContent.includes('Claude Code clicked button "Help"')`)
	// The same refusal again is one entry, counted.
	waitJS(ctx, t, pop.Tab, `document.querySelector('#activity-list').textContent.includes('Cursor clicked in tab `+slot+` (2 times) — paused')`)

	// Resume: the AI acts again.
	if err := pop.Tab.Do(ctx, chromedp.Click(chromedp.CSS("#pause"))); err != nil {
		t.Fatal(err)
	}
	waitJS(ctx, t, pop.Tab, `document.querySelector('#pause').textContent.includes('Stop')`)
	snap = snapshotOn(ctx, t, cursor, tab)
	okOn(ctx, t, cursor, "browser_click", with("element", "Help", "ref", ref(t, snap, "button", "Help")))
	waitJS(ctx, t, pr.tab, "window.__help === 2")

	// Stop aborts a call running inside the extension: a navigation
	// waiting for a slow page answers with the pause within a second.
	navigated := make(chan harness.ToolResult, 1)
	go func() {
		res, err := claude.Call(ctx, "browser_navigate", with("url", fx.URL("/slow/steer?ms=8000")))
		if err != nil {
			res = harness.ToolResult{IsError: true, Text: err.Error()}
		}
		navigated <- res
	}()
	waitJS(ctx, t, pop.Tab, fmt.Sprintf("chrome.tabs.get(%d).then((t) => (t.pendingUrl || '').includes('/slow/'))", id))
	if err := pop.Tab.Do(ctx, chromedp.Click(chromedp.CSS("#pause"))); err != nil {
		t.Fatal(err)
	}
	stopped = time.Now()
	select {
	case res := <-navigated:
		if !res.IsError || !strings.Contains(res.Text, "paused the AI") {
			t.Errorf("the navigation answered after Stop: %s", res.Text)
		}
		if d := time.Since(stopped); d > time.Second {
			t.Errorf("the navigation answered %s after Stop, want within 1 s", d)
		}
	case <-time.After(7 * time.Second):
		t.Fatal("browser_navigate still runs 7 s after Stop: the running call was not aborted")
	}
	if err := pop.Tab.Do(ctx, chromedp.Click(chromedp.CSS("#pause"))); err != nil {
		t.Fatal(err)
	}
	waitJS(ctx, t, pop.Tab, `document.querySelector('#pause').textContent.includes('Stop')`)

	// A tab Claude Code opens lands in a tab group named after it, and
	// browser_list_tabs says who opened it.
	url := unique(fx.URL("/links.html"))
	okOn(ctx, t, claude, "browser_new_tab", map[string]any{"url": url})
	group, err := harness.EvalServiceWorker[string](ctx, pr.b, fmt.Sprintf(`(async () => {
		const [t] = await chrome.tabs.query({ url: %q });
		if (!t || t.groupId < 0) return "no group";
		return (await chrome.tabGroups.get(t.groupId)).title;
	})()`, url))
	if err != nil || group != "Claude Code" {
		t.Errorf("the new tab's group: %q (%v), want Claude Code", group, err)
	}
	if list := okOn(ctx, t, cursor, "browser_list_tabs", nil); !strings.Contains(list, "opened by Claude Code") {
		t.Errorf("browser_list_tabs does not say who opened the new tab:\n%s", list)
	}

	// Clear in the options page empties the log for good: the worker's own
	// copy follows, so its next write holds only what came after.
	if err := opts.Do(ctx, chromedp.Click(chromedp.CSS("#activity-clear"))); err != nil {
		t.Fatal(err)
	}
	waitJS(ctx, t, opts, `document.querySelector('#activity-table tbody').textContent.trim() === ''`)
	snap = snapshotOn(ctx, t, cursor, tab)
	okOn(ctx, t, cursor, "browser_click", with("element", "Help", "ref", ref(t, snap, "button", "Help")))
	waitJS(ctx, t, pop.Tab, `chrome.storage.local.get("activity").then((g) => (g.activity || []).some((e) => e.tool === "browser_click"))`)
	if left := js[string](ctx, t, pop.Tab, `chrome.storage.local.get("activity").then((g) => (g.activity || []).map((e) => e.app + " " + e.tool).join("; "))`); strings.Contains(left, "browser_type") || strings.Contains(left, "Claude Code") {
		t.Errorf("entries from before Clear came back: %s", left)
	}
}

// waitExport waits (up to 10 s) for a finished file in dir whose name starts
// with prefix and returns its content.
func waitExport(ctx context.Context, t *testing.T, dir, prefix string) []byte {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		names, _ := filepath.Glob(filepath.Join(dir, prefix+"*"))
		for _, n := range names {
			if strings.HasSuffix(n, ".crdownload") {
				continue
			}
			if b, err := os.ReadFile(n); err == nil && len(b) > 0 {
				return b
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no file %s* was saved in %s", prefix, dir)
		}
		select {
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		case <-tick.C:
		}
	}
}

// shot saves the popup as PNG in $MONKBROWSE_E2E_SHOTS (for the closing
// note's before/after pictures); without it, nothing.
func shot(ctx context.Context, t *testing.T, pop *harness.Popup, name string) {
	t.Helper()
	dir := os.Getenv("MONKBROWSE_E2E_SHOTS")
	if dir == "" {
		return
	}
	c, cancel := pop.Tab.Context(ctx)
	defer cancel()
	png, err := chromedp.Run(c, chromedp.Screenshot(chromedp.CSS("body")))
	if err != nil {
		t.Logf("screenshot %s: %v", name, err)
		return
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Logf("screenshot %s: %v", name, err)
	}
}
