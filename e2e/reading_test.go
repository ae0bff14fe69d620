package e2e

import (
	"bytes"
	"fmt"
	"image/png"
	"strings"
	"testing"
	"time"
)

// TestGetText reads a whole page and one element by ref.
func TestGetText(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	_, slot := s.openShared(ctx, t, "/links2.html")
	all := s.ok(ctx, t, "browser_get_text", map[string]any{"tab": slot})
	for _, want := range []string{"Page two", "You are on page two.", "Go to page three"} {
		if !strings.Contains(all, want) {
			t.Errorf("the page text lacks %q:\n%s", want, all)
		}
	}
	snap := s.snapshot(ctx, t, slot)
	h := ref(t, snap, "heading", "Page two")
	one := s.ok(ctx, t, "browser_get_text", map[string]any{"element": "heading", "ref": h, "tab": slot})
	if !strings.Contains(one, "Page two") || strings.Contains(one, "page three") {
		t.Errorf("the heading's text is %q", one)
	}
}

// TestEvaluate runs JavaScript in the page (reading and changing it), and on
// a page with a strict Content Security Policy gets a clear error.
func TestEvaluate(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/form.html")
	out := s.ok(ctx, t, "browser_evaluate", map[string]any{"expression": "document.title", "tab": slot})
	if !strings.Contains(out, "Sign in fixture") {
		t.Errorf("evaluate document.title gave %q", out)
	}
	out = s.ok(ctx, t, "browser_evaluate", map[string]any{"expression": "({links: document.links.length, sum: 20 + 22})", "tab": slot})
	if !strings.Contains(out, "42") || !strings.Contains(out, `"links"`) {
		t.Errorf("evaluate of an object gave %q", out)
	}
	out = s.ok(ctx, t, "browser_evaluate", map[string]any{"expression": "new Promise(r => setTimeout(() => r('awaited-' + 7), 50))", "tab": slot})
	if !strings.Contains(out, "awaited-7") {
		t.Errorf("a promise was not awaited: %q", out)
	}
	// It runs in the page's main world: page globals are visible and changes stick.
	s.ok(ctx, t, "browser_evaluate", map[string]any{"expression": "(window.fromAI = 'yes', document.body.dataset.ai = 'was here', 1)", "tab": slot})
	if v := js[string](ctx, t, tab, "window.fromAI + '/' + document.body.dataset.ai"); v != "yes/was here" {
		t.Errorf("the page sees %q after evaluate", v)
	}
	msg := s.fails(ctx, t, "browser_evaluate", map[string]any{"expression": "(() => { throw new Error('boom-4411') })()", "tab": slot})
	if !strings.Contains(msg, "boom-4411") {
		t.Errorf("a thrown error is not reported: %s", msg)
	}

	// The CSP page refuses eval: the error must say why.
	csp, cslot := s.openShared(ctx, t, "/csp.html")
	res := s.call(ctx, t, "browser_evaluate", map[string]any{"expression": "1 + 1", "tab": cslot})
	low := strings.ToLower(res.Text)
	if !res.IsError {
		t.Errorf("evaluate on the strict-CSP page succeeded (%q); the page forbids eval, so this must be a clear error (or the extension bypassed the page's policy)", res.Text)
	} else if !strings.Contains(low, "content security policy") && !strings.Contains(low, "csp") {
		t.Errorf("the CSP error does not name the cause: %s", res.Text)
	}
	// The page still works, and other tools work on it.
	snap := s.snapshot(ctx, t, cslot)
	s.ok(ctx, t, "browser_click", map[string]any{"element": "Strict button", "ref": ref(t, snap, "button", "Strict button"), "tab": cslot})
	waitJS(ctx, t, csp, "document.getElementById('csp-clicks').textContent === '1'")
}

// TestConsoleAndDialogs reads console output at every level and uncaught
// errors; alert/confirm/prompt do not block the page and are recorded.
func TestConsoleAndDialogs(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/console.html")
	// What the page logged while it loaded, before it was shared, was never
	// seen: nothing of monkbrowse runs in a tab that is not shared.
	if logs := s.ok(ctx, t, "browser_get_console_logs", map[string]any{"tab": slot}); strings.Contains(logs, "log-token-1001") {
		t.Errorf("console output from before the tab was shared was recorded:\n%s", logs)
	}
	snap := s.snapshot(ctx, t, slot)
	s.ok(ctx, t, "browser_click", map[string]any{"element": "Log every level", "ref": ref(t, snap, "button", "Log every level"), "tab": slot})
	s.ok(ctx, t, "browser_click", map[string]any{"element": "Log later", "ref": ref(t, snap, "button", "Log later"), "tab": slot})
	s.ok(ctx, t, "browser_click", map[string]any{"element": "Throw", "ref": ref(t, snap, "button", "Throw"), "tab": slot})
	logs := s.ok(ctx, t, "browser_get_console_logs", map[string]any{"tab": slot})
	for _, c := range []struct{ token, level string }{
		{"log-token-1001", "log"},
		{"info-token-1002", "info"},
		{"warn-token-1003", "warn"},
		{"error-token-1004", "error"},
		{"debug-token-1005", "debug"},
		{"click-token-1006", "log"},
		{"uncaught-token-1007", "error"},
	} {
		line := lineWith(logs, c.token)
		if line == "" {
			t.Errorf("console logs lack %s (%s):\n%s", c.token, c.level, logs)
			continue
		}
		if !strings.Contains(strings.ToLower(line), c.level) {
			t.Errorf("the line of %s does not show level %s: %q", c.token, c.level, line)
		}
	}
	_ = tab

	dtab, dslot := s.openShared(ctx, t, "/dialogs.html")
	snap = s.snapshot(ctx, t, dslot)
	for _, c := range []struct{ button, result string }{
		{"Show alert", "alert returned"},
		{"Ask confirm", "confirm returned"},
		{"Ask prompt", "prompt returned"},
	} {
		start := time.Now()
		s.ok(ctx, t, "browser_click", map[string]any{"element": c.button, "ref": ref(t, snap, "button", c.button), "tab": dslot})
		waitJS(ctx, t, dtab, fmt.Sprintf("document.getElementById('dialog-result').textContent.startsWith(%s)", jsString(c.result)))
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%s blocked for %s", c.button, d)
		}
		t.Logf("%s: %s", c.button, js[string](ctx, t, dtab, "document.getElementById('dialog-result').textContent"))
	}
	// The page is not blocked: CDP can still evaluate and the page answers.
	if v := js[string](ctx, t, dtab, "document.getElementById('after').textContent"); v != "yes" {
		t.Errorf("the page did not continue after its dialogs: %q", v)
	}
	logs = s.ok(ctx, t, "browser_get_console_logs", map[string]any{"tab": dslot})
	for _, tok := range []string{"alert-token-7731", "confirm-token-7732", "prompt-token-7733"} {
		if !strings.Contains(logs, tok) {
			t.Errorf("the dialog %s is not recorded in the console logs:\n%s", tok, logs)
		}
	}
}

func lineWith(text, token string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, token) {
			return l
		}
	}
	return ""
}

// TestScreenshot captures a shared background tab: the PNG shows that tab
// (its solid colour), and the person's tab is in front again afterwards.
func TestScreenshot(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	user := s.openTab(ctx, t, "/color.html?c=00ff00")
	shot, err := s.browser.NewBackgroundTab(ctx, unique(s.fx.URL("/color.html?c=ff00ff")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(shot.Close)
	slot := s.share(ctx, t, shot)
	uid, err := s.popup.ChromeTabID(ctx, user)
	if err != nil {
		t.Fatal(err)
	}
	sid, err := s.popup.ChromeTabID(ctx, shot)
	if err != nil {
		t.Fatal(err)
	}
	same := js[bool](ctx, t, s.popup.Tab, fmt.Sprintf("Promise.all([chrome.tabs.get(%d), chrome.tabs.get(%d)]).then(([a, b]) => a.windowId === b.windowId && a.active && !b.active)", uid, sid))
	if !same {
		t.Fatal("harness: the background tab did not open behind the person's tab in the same window")
	}
	if v := js[string](ctx, t, shot, "document.visibilityState"); v != "hidden" {
		t.Fatalf("the tab to capture should start in the background, it is %s", v)
	}
	res := s.call(ctx, t, "browser_screenshot", map[string]any{"tab": slot, "format": "png"})
	if res.IsError {
		t.Fatalf("browser_screenshot failed: %s", res.Text)
	}
	if len(res.Images) != 1 || res.Images[0].MIMEType != "image/png" {
		t.Fatalf("want one image/png item, got %d images (%s)", len(res.Images), res.Text)
	}
	img, err := png.Decode(bytes.NewReader(res.Images[0].Data))
	if err != nil {
		t.Fatalf("the screenshot is not a valid PNG: %v", err)
	}
	b := img.Bounds()
	if b.Dx() < 100 || b.Dy() < 100 {
		t.Fatalf("the screenshot is only %dx%d", b.Dx(), b.Dy())
	}
	r, g, bl, _ := img.At(b.Min.X+b.Dx()/2, b.Min.Y+b.Dy()*3/4).RGBA()
	if r>>8 < 200 || g>>8 > 60 || bl>>8 < 200 {
		t.Errorf("the screenshot's centre is rgb(%d,%d,%d), want the captured tab's magenta, not the person's green tab", r>>8, g>>8, bl>>8)
	}
	// The person's tab is given back.
	waitJS(ctx, t, user, "document.visibilityState === 'visible'")
	if v := js[string](ctx, t, shot, "document.visibilityState"); v != "hidden" {
		t.Errorf("the captured tab is still %s; the person's tab should be in front again", v)
	}
}

// TestWait waits for a time and for text that appears later.
func TestWait(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/wait.html?ms=1500")
	start := time.Now()
	s.ok(ctx, t, "browser_wait", map[string]any{"time": 0.5, "tab": slot})
	if d := time.Since(start); d < 450*time.Millisecond || d > 5*time.Second {
		t.Errorf("waiting 0.5 s took %s", d)
	}
	start = time.Now()
	out := s.ok(ctx, t, "browser_wait", map[string]any{"text": "Report is ready", "time": 10, "tab": slot})
	took := time.Since(start)
	if v := js[string](ctx, t, tab, "document.getElementById('status').textContent"); v != "Report is ready" {
		t.Errorf("browser_wait returned (%q) before the text was on the page: %q", out, v)
	}
	if took > 8*time.Second {
		t.Errorf("waiting for the text took %s, it appears after 1.5 s", took)
	}
	start = time.Now()
	res := s.call(ctx, t, "browser_wait", map[string]any{"text": "never-there-9931", "time": 1, "tab": slot})
	if d := time.Since(start); d > 6*time.Second {
		t.Errorf("waiting 1 s for missing text took %s", d)
	}
	if !strings.Contains(res.Text, "did not appear") && !res.IsError {
		t.Errorf("waiting for missing text does not say it did not appear: %q", res.Text)
	}
}
