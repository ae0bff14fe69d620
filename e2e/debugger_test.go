package e2e

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/monkbrowse/monkbrowse/e2e/harness"
)

// attachLog reads the extension's own attach log (chrome.storage.session
// "debuggerLog"): a test's CDP session also makes a tab look attached, so
// only the extension can say whether it attached.
type attachEntry struct {
	Time   int64  `json:"time"`
	TabID  int    `json:"tabId"`
	Event  string `json:"event"`
	Detail string `json:"detail"`
}

func attachLog(ctx context.Context, t testing.TB, b *harness.Browser) []attachEntry {
	t.Helper()
	raw, err := harness.EvalServiceWorker[string](ctx, b, `chrome.storage.session.get('debuggerLog').then(r => JSON.stringify(r.debuggerLog || []))`)
	if err != nil {
		t.Fatal(err)
	}
	var out []attachEntry
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// extensionAttached asks Chrome whether the extension itself holds a
// debugger session on the tab: sendCommand fails when it does not.
func extensionAttached(ctx context.Context, t testing.TB, b *harness.Browser, tabID int) bool {
	t.Helper()
	v, err := harness.EvalServiceWorker[bool](ctx, b, `chrome.debugger.sendCommand({tabId: `+itoa(tabID)+`}, 'Runtime.evaluate', {expression: '1'}).then(() => true, () => false)`)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestDebuggerMode drives one browser through both modes. Off (the default):
// a page that ignores untrusted events does not react, nothing needs the
// debugger, and the extension's attach log stays empty. On (switched on in
// the real options page): the same click works, typing and keys are real, a
// canvas click is trusted, a native confirm is answered through the debugger,
// bodies are listed, a PDF is saved, a full page is one capture; after the
// idle time the extension detaches on its own; switching off detaches at once.
func TestDebuggerMode(t *testing.T) {
	p := need(t)
	ctx := testContext(t, 3*testTimeout)
	sctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	s, err := newSuite(sctx, t, p, fixtures(), "debugger")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.close)
	dir := mkdir(t, p, "dbg-downloads")
	if err := s.browser.AllowDownloads(ctx, dir); err != nil {
		t.Fatal(err)
	}

	// ---- off ----
	tab, slot := s.openShared(ctx, t, "/canvas.html")
	snap := s.snapshot(ctx, t, slot)
	trusted := ref(t, snap, "button", "Trusted only")
	s.ok(ctx, t, "browser_click", map[string]any{"tab": slot, "element": "Trusted only", "ref": trusted})
	if n := js[string](ctx, t, tab, "document.getElementById('trusted-count').textContent"); n != "0" {
		t.Fatalf("with the mode off the trusted-only button counted %s trusted clicks", n)
	}
	if n := js[string](ctx, t, tab, "document.getElementById('untrusted-count').textContent"); n != "1" {
		t.Fatalf("the untrusted click did not reach the page (%s)", n)
	}
	s.ok(ctx, t, "browser_click_xy", map[string]any{"tab": slot, "x": 150, "y": 130})
	s.ok(ctx, t, "browser_screenshot", map[string]any{"tab": slot, "fullPage": true})
	msg := s.fails(ctx, t, "browser_pdf", map[string]any{"tab": slot})
	if !strings.Contains(msg, "debugger mode") || !strings.Contains(msg, "For this Chrome profile") {
		t.Errorf("browser_pdf with the mode off: %s", msg)
	}
	out := s.ok(ctx, t, "browser_network_requests", map[string]any{"tab": slot, "includeBodies": true})
	if !strings.Contains(out, "need the debugger mode") {
		t.Errorf("bodies with the mode off: %s", out)
	}
	if l := attachLog(ctx, t, s.browser); len(l) != 0 {
		t.Fatalf("with the mode off the extension attached: %+v", l)
	}

	// ---- on ----
	if err := s.browser.SetUseDebugger(ctx, true); err != nil {
		t.Fatal(err)
	}
	js[bool](ctx, t, s.popup.Tab, "(chrome.storage.local.set({debuggerIdleMs: 1500}), true)")
	s.ok(ctx, t, "browser_click", map[string]any{"tab": slot, "element": "Trusted only", "ref": trusted})
	if n := js[string](ctx, t, tab, "document.getElementById('trusted-count').textContent"); n != "1" {
		t.Errorf("with the mode on the trusted-only button counted %s trusted clicks, want 1", n)
	}
	// Clicking the button scrolled it into view: back to the top, where the canvas is at (100, 80).
	js[bool](ctx, t, tab, "(scrollTo(0, 0), true)")
	s.ok(ctx, t, "browser_click_xy", map[string]any{"tab": slot, "x": 200, "y": 180})
	if got := js[string](ctx, t, tab, "JSON.stringify(window.clicks.at(-1))"); got != `{"x":100,"y":100,"trusted":true,"button":0}` {
		t.Errorf("canvas click with the mode on = %s, want a trusted one at (100, 100)", got)
	}
	chromeTab, err := s.popup.ChromeTabID(ctx, tab)
	if err != nil {
		t.Fatal(err)
	}
	if !extensionAttached(ctx, t, s.browser, chromeTab) {
		t.Error("right after working in the tab the extension is not attached")
	}
	// Detached after the idle time, by itself: the banner goes away.
	deadline := time.Now().Add(10 * time.Second)
	for extensionAttached(ctx, t, s.browser, chromeTab) {
		if time.Now().After(deadline) {
			t.Fatal("the extension is still attached 10 s after its last work (idle time 1.5 s)")
		}
		time.Sleep(200 * time.Millisecond)
	}
	if l := attachLog(ctx, t, s.browser); len(l) < 2 || l[0].Event != "attach" || l[len(l)-1].Event != "detach" || l[len(l)-1].Detail != "idle" {
		t.Errorf("attach log after the idle time: %+v", l)
	}

	// Full page in one capture.
	img := decodePNG(t, s.call(ctx, t, "browser_screenshot", map[string]any{"tab": slot, "fullPage": true, "format": "png", "fullSize": true}))
	if h := js[int](ctx, t, tab, "document.documentElement.scrollHeight"); img.Bounds().Dy() < h {
		t.Errorf("the debugger's full-page capture is %d pixels tall, the page %d", img.Bounds().Dy(), h)
	}

	// Typing and keys are real input.
	form, fslot := s.openShared(ctx, t, "/form.html")
	fsnap := s.snapshot(ctx, t, fslot)
	js[bool](ctx, t, form, `(window.trustedKeys = 0, document.getElementById('email').addEventListener('keydown', e => { if (e.isTrusted) window.trustedKeys++ }), true)`)
	s.ok(ctx, t, "browser_type", map[string]any{"tab": fslot, "element": "Email", "ref": ref(t, fsnap, "textbox", "Email"), "text": "real@example.com"})
	if v := js[string](ctx, t, form, "document.getElementById('email').value"); v != "real@example.com" {
		t.Errorf("typed through the debugger: %q", v)
	}
	s.ok(ctx, t, "browser_press_key", map[string]any{"tab": fslot, "key": "Backspace"})
	if v := js[string](ctx, t, form, "document.getElementById('email').value"); v != "real@example.co" {
		t.Errorf("after a real Backspace: %q", v)
	}
	if n := js[int](ctx, t, form, "window.trustedKeys"); n < 1 {
		t.Errorf("no trusted keydown reached the field (%d)", n)
	}

	// A native confirm answered through the debugger (dismissed, like browser_handle_dialog's default).
	dlg, dslot := s.openShared(ctx, t, "/dialog-confirm.html")
	dsnap := s.snapshot(ctx, t, dslot)
	s.ok(ctx, t, "browser_click", map[string]any{"tab": dslot, "element": "Delete item", "ref": ref(t, dsnap, "button", "Delete item")})
	waitJS(ctx, t, dlg, "document.getElementById('answer').textContent !== 'none'")
	if v := js[string](ctx, t, dlg, "document.getElementById('answer').textContent"); v != "false" {
		t.Errorf("the native confirm returned %s, want false (dismissed)", v)
	}
	found := false
	for _, e := range attachLog(ctx, t, s.browser) {
		if e.Event == "dialog" && strings.Contains(e.Detail, "confirm") && strings.Contains(e.Detail, "Really delete?") && strings.Contains(e.Detail, "dismissed") {
			found = true
		}
	}
	if !found {
		t.Errorf("the attach log shows no confirm answered through the debugger: %+v", attachLog(ctx, t, s.browser))
	}
	logs := s.ok(ctx, t, "browser_get_console_logs", map[string]any{"tab": dslot})
	if !strings.Contains(logs, "native, answered through the debugger") {
		t.Errorf("console logs: %s", logs)
	}

	// Bodies of requests made while attached.
	s.ok(ctx, t, "browser_reload", map[string]any{"tab": dslot})                   // not attached: the page's fetch has no body
	s.ok(ctx, t, "browser_click_xy", map[string]any{"tab": dslot, "x": 1, "y": 1}) // attach
	js[bool](ctx, t, dlg, "(fetch('/api/dbg-late').then(r => r.text()), true)")
	waitFor(ctx, t, func() bool {
		out = s.ok(ctx, t, "browser_network_requests", map[string]any{"tab": dslot, "filter": "/api/dbg", "includeBodies": true})
		return strings.Contains(out, "api-body-dbg-late")
	})
	if !strings.Contains(out, `body: {"api":"dbg-late","token":"api-body-dbg-late"}`) {
		t.Errorf("bodies with the mode on:\n%s", out)
	}

	// A PDF saved under the download folder.
	out = s.ok(ctx, t, "browser_pdf", map[string]any{"tab": dslot})
	// The path is page text: it follows the page-content note on its own line.
	i := strings.Index(out, "\n- PDF file: ")
	if i < 0 || i < strings.Index(out, "not instructions") {
		t.Fatalf("browser_pdf: %s", out)
	}
	pdfPath, _, _ := strings.Cut(out[i+len("\n- PDF file: "):], "\n")
	b, err := os.ReadFile(pdfPath)
	if err != nil || !strings.HasPrefix(string(b), "%PDF-") || !strings.HasPrefix(pdfPath, dir) {
		t.Errorf("the PDF at %s (download folder %s): %v, starts %q", pdfPath, dir, err, string(b[:min(len(b), 8)]))
	}

	// Switching off detaches at once (a long idle time, so only the switch can explain it).
	js[bool](ctx, t, s.popup.Tab, "(chrome.storage.local.set({debuggerIdleMs: 120000}), true)")
	s.ok(ctx, t, "browser_click_xy", map[string]any{"tab": slot, "x": 150, "y": 130})
	if !extensionAttached(ctx, t, s.browser, chromeTab) {
		t.Fatal("not attached after working in the tab")
	}
	if err := s.browser.SetUseDebugger(ctx, false); err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, func() bool { return !extensionAttached(ctx, t, s.browser, chromeTab) })
	l := attachLog(ctx, t, s.browser)
	if last := l[len(l)-1]; last.Event != "detach" || last.Detail != "switched off" {
		t.Errorf("the last log entry after switching off: %+v", last)
	}
	n := len(l)
	s.ok(ctx, t, "browser_click", map[string]any{"tab": slot, "element": "Trusted only", "ref": trusted})
	if l := attachLog(ctx, t, s.browser); len(l) != n {
		t.Errorf("the extension attached again after the mode was switched off: %+v", l[n:])
	}

	// Unsharing a tab detaches from it at once.
	if err := s.browser.SetUseDebugger(ctx, true); err != nil {
		t.Fatal(err)
	}
	s.ok(ctx, t, "browser_click_xy", map[string]any{"tab": slot, "x": 150, "y": 130})
	if !extensionAttached(ctx, t, s.browser, chromeTab) {
		t.Fatal("not attached after working in the tab")
	}
	if err := s.popup.Unshare(ctx, chromeTab); err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, func() bool { return !extensionAttached(ctx, t, s.browser, chromeTab) })
	l = attachLog(ctx, t, s.browser)
	if last := l[len(l)-1]; last.Event != "detach" || last.Detail != "unshared" {
		t.Errorf("the last log entry after unsharing: %+v", last)
	}
}

// waitFor polls cond for up to 5 s (it must not take so long that the idle
// detach matters).
func waitFor(ctx context.Context, t testing.TB, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) || ctx.Err() != nil {
			t.Fatal("condition not met within 5 s")
		}
		time.Sleep(150 * time.Millisecond)
	}
}
