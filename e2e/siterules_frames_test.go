package e2e

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/monkbrowse/monkbrowse/e2e/harness"
)

// TestSiteRulesFrames: the site rules hold in every frame of a shared tab
// (issue 44), in real Chromium. The top page (127.0.0.1) is act; it frames
// a widget on localhost, which the person sets to never, and one on
// 127.0.0.1:<other port>, set to read only. Before the rules, both frames
// are read (so the secret is there to leak). After: the never frame is one
// iframe line naming the rule, and its secret text is in no answer of
// browser_snapshot, browser_find, browser_get_text,
// browser_get_console_logs or browser_network_requests; a screenshot paints
// its area over; a click by the ref the AI got before, and a click at a
// point on it (synthetic, and the debugger mode's real input, which landed
// before the rule), are refused naming the rule and never reach the frame
// (its own state, read over CDP, stays). The read-only frame is read, and typing into it is refused
// naming the rule, its field left empty.
func TestSiteRulesFrames(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, 2*time.Minute)
	rules := openRules(ctx, t, s.browser, s.popup)
	t.Cleanup(func() { rules.clear(ctx, t) })
	tab, slot := s.openShared(ctx, t, "/rules-frames.html")
	s.frameReady(ctx, t, "rules-vault-frame.html")
	waitJS(ctx, t, tab, `window.couponLoaded === true`)
	couponSrc, err := url.Parse(js[string](ctx, t, tab, `document.getElementById('coupon').src`))
	if err != nil {
		t.Fatal(err)
	}
	couponSite := couponSrc.Host // 127.0.0.1:<other port>: the coupon frame's origin only

	const secret = "VAULT-SECRET"
	// Before any rule: both frames are read, so the test can see a leak.
	before := s.snapshot(ctx, t, slot)
	if !strings.Contains(before, secret) || !strings.Contains(before, "COUPON-TERMS-55") {
		t.Fatalf("the frames were not read before the rules were set:\n%s", before)
	}
	// Each frame logs to its console; before the rules the vault's entry is read too.
	js[any](ctx, t, tab, `(() => { for (const id of ['vault', 'coupon']) document.getElementById(id).contentWindow.postMessage('log', '*'); return null; })()`)
	waitFor(ctx, t, func() bool { // both frames' console entries
		logs := s.ok(ctx, t, "browser_get_console_logs", map[string]any{"tab": slot})
		return strings.Contains(logs, "VAULT-SECRET-LOG asked") && strings.Contains(logs, "coupon frame says hi")
	})
	if _, err := harness.EvalInFrameTarget[bool](ctx, s.browser, "rules-vault-frame.html", `new Promise((r) => { const t = () => (window.fetched ? r(true) : setTimeout(t, 20)); t(); })`); err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, func() bool { // the vault frame's request, in the tab's network log
		return strings.Contains(s.ok(ctx, t, "browser_network_requests", map[string]any{"tab": slot}), "VAULT-SECRET-NET")
	})
	_, vault := under(t, before, "Vault widget")
	open, ok := findIn(vault, "button", "Open")
	if !ok || !strings.HasPrefix(open.Ref, "f") {
		t.Fatalf("no frame ref for the vault's button:\n%s", before)
	}

	// The vault frame's area in viewport CSS pixels (inside its border) and the viewport's width, for screenshots.
	area := js[[]float64](ctx, t, tab, `(() => { const el = document.getElementById('vault'), r = el.getBoundingClientRect(); return [r.left + el.clientLeft, r.top + el.clientTop, el.clientWidth, el.clientHeight, innerWidth]; })()`)
	shotGrey := func() (grey, all int) {
		img := s.screenshotImage(ctx, t, slot)
		return coverGrey(img, area[0], area[1], area[2], area[3], float64(img.Bounds().Dx())/area[4])
	}
	if grey, all := shotGrey(); all == 0 || grey*4 > all {
		t.Fatalf("before the rules the vault frame is painted over already (%d of %d grey)", grey, all)
	}

	// Real input (the debugger mode's) at a point on the vault's button: before the rules it lands.
	opened := func() int {
		t.Helper()
		n, err := harness.EvalInFrameTarget[int](ctx, s.browser, "rules-vault-frame.html", "window.opened")
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	btn, err := harness.EvalInFrameTarget[[]float64](ctx, s.browser, "rules-vault-frame.html", `(() => { const r = document.getElementById('open').getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()`)
	if err != nil {
		t.Fatal(err)
	}
	point := map[string]any{"tab": slot, "x": area[0] + btn[0], "y": area[1] + btn[1]}
	if err := s.browser.SetUseDebugger(ctx, true); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.browser.SetUseDebugger(context.Background(), false) })
	s.ok(ctx, t, "browser_click_xy", point)
	if n := opened(); n != 1 {
		t.Fatalf("the real click at the vault's button did not land before the rules (opened %d)", n)
	}
	if err := s.browser.SetUseDebugger(ctx, false); err != nil {
		t.Fatal(err)
	}

	rules.set(ctx, t, "localhost", "never")
	rules.set(ctx, t, couponSite, "read_only")

	// The snapshot: the vault frame is one line naming the rule, nothing under it.
	snap := s.snapshot(ctx, t, slot)
	t.Logf("snapshot:\n%s", snap)
	line, inside := under(t, snap, "Vault widget")
	if !strings.Contains(line.Raw, "[blocked by your site rules: never on localhost]") || len(inside) != 0 {
		t.Errorf("the vault frame's line: %q, with %d lines under it", line.Raw, len(inside))
	}
	_, coupon := under(t, snap, "Coupon widget")
	code, ok := findIn(coupon, "textbox", "Coupon code")
	if !ok || !strings.HasPrefix(code.Ref, "f") {
		t.Fatalf("the read-only coupon frame was not read:\n%s", snap)
	}
	answers := map[string]string{"browser_snapshot": snap}
	answers["browser_find"] = s.ok(ctx, t, "browser_find", map[string]any{"tab": slot, "query": "VAULT"})
	answers["browser_find button"] = s.ok(ctx, t, "browser_find", map[string]any{"tab": slot, "query": "role:button"})
	answers["browser_get_text"] = s.ok(ctx, t, "browser_get_text", map[string]any{"tab": slot})
	answers["browser_get_console_logs"] = s.ok(ctx, t, "browser_get_console_logs", map[string]any{"tab": slot})
	answers["browser_network_requests"] = s.ok(ctx, t, "browser_network_requests", map[string]any{"tab": slot})
	for tool, out := range answers {
		if strings.Contains(out, secret) {
			t.Errorf("%s shows the never frame's content:\n%s", tool, harness.Clip(out, 3000))
		}
	}
	if !strings.Contains(answers["browser_get_text"], "COUPON-TERMS-55") || !strings.Contains(answers["browser_get_text"], "three items") {
		t.Errorf("browser_get_text lost the readable frames' text:\n%s", answers["browser_get_text"])
	}
	if !strings.Contains(answers["browser_get_console_logs"], "coupon frame says hi") {
		t.Errorf("the read-only frame's console is missing:\n%s", answers["browser_get_console_logs"])
	}

	// A screenshot paints the never frame over whole.
	if grey, all := shotGrey(); all == 0 || grey != all {
		t.Errorf("the never frame is not painted over in the screenshot: %d of %d sampled pixels grey", grey, all)
	}

	// A click by the vault button's ref from before the rule: refused naming the rule, the frame untouched.
	res := s.call(ctx, t, "browser_click", map[string]any{"tab": slot, "element": "Open", "ref": open.Ref})
	want := fmt.Sprintf("ref %s is in a frame of the page on localhost, a site the person's site rules keep from the AI (never: localhost)", open.Ref)
	if !res.IsError || !strings.Contains(res.Text, want) {
		t.Errorf("the click into the never frame was not refused with the rule: %s", res.Text)
	}
	if n := opened(); n != 1 {
		t.Errorf("the click reached the never frame (opened %d, want 1: the click before the rules)", n)
	}
	// A point on it: refused, with synthetic input and with the debugger mode's real input.
	for _, debugger := range []bool{false, true} {
		if err := s.browser.SetUseDebugger(ctx, debugger); err != nil {
			t.Fatal(err)
		}
		res := s.call(ctx, t, "browser_click_xy", point)
		if !res.IsError || !strings.Contains(res.Text, "is in a frame of the page on localhost, a site the person's site rules keep from the AI (never: localhost)") {
			t.Errorf("a point on the never frame (debugger mode %v) was not refused with the rule: %s", debugger, res.Text)
		}
		if n := opened(); n != 1 {
			t.Errorf("the point reached the never frame (debugger mode %v, opened %d)", debugger, n)
		}
	}
	if err := s.browser.SetUseDebugger(ctx, false); err != nil {
		t.Fatal(err)
	}
	if res := s.call(ctx, t, "browser_get_text", map[string]any{"tab": slot, "ref": open.Ref}); !res.IsError || strings.Contains(res.Text, secret) || !strings.Contains(res.Text, "(never: localhost)") {
		t.Errorf("reading the never frame by ref was not refused: %s", res.Text)
	}

	// The read-only frame: typing is refused naming the rule, the field stays empty.
	res = s.call(ctx, t, "browser_type", map[string]any{"tab": slot, "element": "Coupon code", "ref": code.Ref, "text": "SAVE10"})
	if !res.IsError || !strings.Contains(res.Text, "which the person's site rules make read only for the AI ("+couponSite+"): reading the frame works, but to type there is refused") {
		t.Errorf("typing into the read-only frame was not refused with the rule: %s", res.Text)
	}
	if v, err := harness.EvalInFrame[string](ctx, tab, "rules-coupon-frame.html", "document.getElementById('code').value"); err != nil || v != "" {
		t.Errorf("the typing reached the read-only frame (value %q, %v)", v, err)
	}
}

// TestSiteRulesFramesSiteTools: the site rules hold for a frame's own tools
// (WebMCP, issue 43) in real Chromium with WebMCP on. The shop page (act)
// frames a payment provider on localhost that offers pay_invoice. With
// localhost read only, the tool is listed but calling it is refused naming
// the rule, before the person is asked, and nothing is paid (the frame's own
// state, read over CDP); with localhost never, the frame is not asked for
// its tools and the AI neither sees nor can call them.
func TestSiteRulesFramesSiteTools(t *testing.T) {
	ctx := testContext(t, 2*time.Minute)
	srv, b, pr, _ := shopShared(ctx, t)
	pop := pr.popup
	setRules := func(rules string) {
		t.Helper()
		if _, err := harness.Eval[any](ctx, pop.Tab, `chrome.storage.local.set({siteRules: `+rules+`}).then(() => null)`); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		_, _ = harness.Eval[any](context.Background(), pop.Tab, `chrome.storage.local.set({siteRules: []}).then(() => null)`)
	})
	tab := map[string]any{"tab": pr.slot}
	call := map[string]any{"tab": pr.slot, "name": "pay_invoice", "arguments": map[string]any{"amount": 5}}
	paid := func() int {
		n, err := harness.EvalInFrameTarget[int](ctx, b, "webmcp-pay.html", "paid.length")
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if list := okOn(ctx, t, srv, "browser_site_tools", tab); !strings.Contains(list, "- name: pay_invoice") {
		t.Fatalf("before the rules the frame's tool is not listed:\n%s", list)
	}

	// read only: listed, the call refused naming the rule, nothing paid.
	setRules(`[{pattern: "localhost", rule: "read_only"}]`)
	waitJS(ctx, t, pop.Tab, `chrome.storage.local.get('siteRules').then(g => (g.siteRules ?? []).some(r => r.pattern === 'localhost' && r.rule === 'read_only'))`)
	if list := okOn(ctx, t, srv, "browser_site_tools", tab); !strings.Contains(list, "- name: pay_invoice") {
		t.Errorf("a read-only frame's tools are not listed:\n%s", list)
	}
	res := callOn(ctx, t, srv, "browser_site_tool_call", call)
	if !res.IsError || !strings.Contains(res.Text, `the site tool "pay_invoice" is in a frame of the page on localhost, which the person's site rules make read only for the AI (localhost)`) {
		t.Errorf("calling a read-only frame's tool was not refused with the rule: %s", res.Text)
	}
	if n := paid(); n != 0 {
		t.Errorf("the read-only frame's tool ran (%d payments)", n)
	}

	// never: the frame's tools are neither listed nor callable.
	setRules(`[{pattern: "localhost", rule: "never"}]`)
	waitJS(ctx, t, pop.Tab, `chrome.storage.local.get('siteRules').then(g => (g.siteRules ?? []).some(r => r.pattern === 'localhost' && r.rule === 'never'))`)
	list := okOn(ctx, t, srv, "browser_site_tools", tab)
	if strings.Contains(list, "pay_invoice") || strings.Contains(list, "origin: http://localhost:") || !strings.Contains(list, "- name: place_order") {
		t.Errorf("the never frame's tools are listed, or the page's are not:\n%s", list)
	}
	if res := callOn(ctx, t, srv, "browser_site_tool_call", call); !res.IsError || !strings.Contains(res.Text, "no tool with this name") {
		t.Errorf("the never frame's tool was not refused: %s", res.Text)
	}
	if n := paid(); n != 0 {
		t.Errorf("the never frame's tool ran (%d payments)", n)
	}
}
