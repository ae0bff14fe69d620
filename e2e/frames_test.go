package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/monkbrowse/monkbrowse/e2e/harness"
)

// under returns the element lines inside the first iframe line named name
// (its subtree, by indentation), and that line; fails the test when absent.
func under(t testing.TB, snap, name string) (harness.SnapshotLine, []harness.SnapshotLine) {
	t.Helper()
	lines := harness.ParseSnapshot(snap)
	for i, l := range lines {
		if l.Role != "iframe" || !strings.Contains(l.Name, name) {
			continue
		}
		var sub []harness.SnapshotLine
		for _, c := range lines[i+1:] {
			if c.Indent <= l.Indent {
				break
			}
			sub = append(sub, c)
		}
		return l, sub
	}
	t.Fatalf("no iframe named %q in the snapshot:\n%s", name, harness.Clip(snap, 4000))
	return harness.SnapshotLine{}, nil
}

func findIn(lines []harness.SnapshotLine, role, name string) (harness.SnapshotLine, bool) {
	for _, l := range lines {
		if l.Role == role && strings.Contains(l.Name, name) {
			return l, true
		}
	}
	return harness.SnapshotLine{}, false
}

// frameReady waits until the cross-site frame at urlPart has loaded, read in
// the frame's own DevTools target.
func (s *suite) frameReady(ctx context.Context, t testing.TB, urlPart string) {
	t.Helper()
	if _, err := harness.EvalInFrameTarget[bool](ctx, s.browser, urlPart, "new Promise((r) => document.readyState === 'complete' ? r(true) : addEventListener('load', () => r(true)))"); err != nil {
		t.Fatal(err)
	}
}

// TestFramesCrossSiteCardForm: a card form in a cross-site iframe (localhost
// inside 127.0.0.1) is in the snapshot under its iframe line, with refs that
// name the frame and stay the same across snapshots; typing into it and
// submitting it lands in the frame's own state; a cross-origin frame nested
// in a cross-site frame is read and clicked too.
func TestFramesCrossSiteCardForm(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	_, slot := s.openShared(ctx, t, "/checkout.html")
	s.frameReady(ctx, t, "card-frame.html")
	s.frameReady(ctx, t, "nest-inner.html")

	snap := s.snapshot(ctx, t, slot)
	t.Logf("snapshot:\n%s", snap)
	card, inside := under(t, snap, "Secure card payment")
	if card.Has("cross-origin") {
		t.Errorf("the card frame was not read: %s\n%s", card.Raw, snap)
	}
	number, ok := findIn(inside, "textbox", "Card number")
	if !ok {
		t.Fatalf("the card number field is not under the card frame's line:\n%s", snap)
	}
	if !strings.HasPrefix(number.Ref, "f") {
		t.Errorf("the frame's ref %q does not name its frame", number.Ref)
	}
	expiry, _ := findIn(inside, "textbox", "Expiry date")
	holder, _ := findIn(inside, "textbox", "Name on card")
	cvc, _ := findIn(inside, "textbox", "Security code")
	pay, ok := findIn(inside, "button", "Pay 42 EUR")
	if !ok || expiry.Ref == "" || holder.Ref == "" || cvc.Ref == "" {
		t.Fatalf("the card form's fields are missing under its line:\n%s", snap)
	}
	if _, ok := findIn(inside, "button", "Back to cart"); ok {
		t.Errorf("the top page's button is inside the frame's lines:\n%s", snap)
	}

	s.ok(ctx, t, "browser_type", map[string]any{"element": "Card number", "ref": number.Ref, "text": "4111111111114242", "tab": slot})
	s.ok(ctx, t, "browser_fill_form", map[string]any{"tab": slot, "fields": []map[string]any{
		{"element": "Expiry date", "ref": expiry.Ref, "value": "12/30"},
		{"element": "Name on card", "ref": holder.Ref, "value": "Ada Lovelace"},
		{"element": "Security code", "ref": cvc.Ref, "value": "737"},
	}})
	s.ok(ctx, t, "browser_click", map[string]any{"element": "Pay 42 EUR", "ref": pay.Ref, "tab": slot})
	paid, err := harness.EvalInFrameTarget[map[string]string](ctx, s.browser, "card-frame.html", "window.paid")
	if err != nil {
		t.Fatal(err)
	}
	if paid["number"] != "4111111111114242" || paid["expiry"] != "12/30" || paid["holder"] != "Ada Lovelace" || paid["cvc"] != "737" {
		t.Errorf("the card frame's form submitted %v", paid)
	}

	// The same documents: the same refs, and the frame's new text.
	again := s.snapshot(ctx, t, slot)
	_, inside2 := under(t, again, "Secure card payment")
	if n2, _ := findIn(inside2, "textbox", "Card number"); n2.Ref != number.Ref {
		t.Errorf("the card number's ref changed from %s to %s across snapshots", number.Ref, n2.Ref)
	}
	if !strings.Contains(again, "Paid with card ending 4242") {
		t.Errorf("the frame's text after paying is missing:\n%s", again)
	}
	// The frame's secret field is masked like the top page's.
	if c2, _ := findIn(inside2, "textbox", "Security code"); c2.Value == "" || strings.Contains(c2.Value, "737") {
		t.Errorf("the frame's security code is not masked: %s", c2.Raw)
	}
	if strings.Contains(again, "737") {
		t.Errorf("the security code's value is in the snapshot:\n%s", again)
	}
	// The frame's console output, marked with its origin (what it logged
	// while loading, before the tab was shared, is never seen).
	logs := s.ok(ctx, t, "browser_get_console_logs", map[string]any{"tab": slot})
	if !strings.Contains(logs, "[frame http://localhost:") || !strings.Contains(logs, "card frame paid") {
		t.Errorf("the card frame's console output is missing or unmarked:\n%s", logs)
	}
	page := s.ok(ctx, t, "browser_get_text", map[string]any{"tab": slot})
	if !strings.Contains(page, "Order total") || !strings.Contains(page, "[frame http://localhost:") || !strings.Contains(page, "Paid with card ending 4242") {
		t.Errorf("the page's text lacks the frame's:\n%s", page)
	}
	text := s.ok(ctx, t, "browser_get_text", map[string]any{"ref": pay.Ref, "tab": slot})
	if !strings.Contains(text, "Pay 42 EUR") {
		t.Errorf("get_text of the frame's button: %q", text)
	}

	// Nested: a cross-origin frame inside the cross-site chat frame.
	_, chat := under(t, snap, "Support chat")
	msgs, ok := findIn(chat, "iframe", "Chat messages")
	if !ok || msgs.Has("cross-origin") {
		t.Fatalf("the nested frame is not read under the chat frame:\n%s", snap)
	}
	_, nested := under(t, snap, "Chat messages")
	hello, ok := findIn(nested, "button", "Say hello")
	if !ok || hello.Ref == "" || hello.Indent <= msgs.Indent {
		t.Fatalf("the nested frame's button is not under its line:\n%s", snap)
	}
	s.ok(ctx, t, "browser_click", map[string]any{"element": "Say hello", "ref": hello.Ref, "tab": slot})
	if n, err := harness.EvalInFrameTarget[string](ctx, s.browser, "nest-inner.html", "document.getElementById('said').textContent"); err != nil || n != "1" {
		t.Errorf("the nested frame's button: said=%q, %v", n, err)
	}

	// A script-created about:blank frame inside the cross-site chat frame.
	_, blank := under(t, snap, "Emoji picker")
	pick, ok := findIn(blank, "button", "Pick emoji")
	if !ok || !strings.HasPrefix(pick.Ref, "f") {
		t.Fatalf("the script-created frame's button is not under its line with a frame ref:\n%s", snap)
	}
	s.ok(ctx, t, "browser_click", map[string]any{"element": "Pick emoji", "ref": pick.Ref, "tab": slot})
	if n, err := harness.EvalInFrameTarget[string](ctx, s.browser, "nest-outer.html", "window.picked()"); err != nil || n != "1" {
		t.Errorf("the script-created frame's button: picked=%q, %v", n, err)
	}
}

// TestFramesSpoofedHandshake: a page that floods its frames with made-up
// link messages and passes its ad frame's real one on to the card frame
// gets no frame stitched under another's line.
func TestFramesSpoofedHandshake(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/spoof.html")
	s.frameReady(ctx, t, "card-frame.html")
	s.frameReady(ctx, t, "ad-frame.html")
	for round := 0; round < 3; round++ {
		snap := s.snapshot(ctx, t, slot)
		t.Logf("round %d:\n%s", round, snap)
		_, card := under(t, snap, "Secure card payment")
		_, ad := under(t, snap, "Advert")
		if _, ok := findIn(card, "button", "Advert offer"); ok {
			t.Errorf("round %d: the ad frame was stitched under the card frame's line:\n%s", round, snap)
		}
		if _, ok := findIn(ad, "textbox", "Card number"); ok {
			t.Errorf("round %d: the card frame was stitched under the ad frame's line:\n%s", round, snap)
		}
		for _, l := range append(card, ad...) {
			if l.Role == "iframe" {
				t.Errorf("round %d: a frame was stitched inside another:\n%s", round, snap)
			}
		}
	}
	// The attack ran: the page passed real link messages on.
	if n := js[int](ctx, t, tab, "window.relayed || 0"); n == 0 {
		t.Errorf("the spoofing page never got a link message to pass on: the test did not test the attack")
	}
}

// TestFramesUnshared: the content script and the hooks run in a cross-site
// frame of a shared tab, and unsharing the tab disposes the one and puts the
// other to sleep there too.
func TestFramesUnshared(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/checkout.html")
	s.frameReady(ctx, t, "card-frame.html")
	s.ok(ctx, t, "browser_snapshot", map[string]any{"tab": slot})
	const present = "typeof globalThis.__monkbrowseContentScript"
	got, err := harness.EvalInExtensionWorlds(ctx, s.browser, s.browser.ExtensionID, "card-frame.html", present)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(got, `"object"`) {
		t.Fatalf("no content script in the shared tab's cross-site frame (extension worlds there: %v)", got)
	}
	// The hooks are active while the page's console and dialog functions are
	// theirs (the page-visible control keeps no readable state: issue 25).
	const hooks = `(() => { const f = Function.prototype.toString; return [window.confirm, console.log].every((fn) => !/\{\s*\[native code\]\s*\}\s*$/.test(f.call(fn))); })()`
	if on, err := harness.EvalInFrameTarget[bool](ctx, s.browser, "card-frame.html", hooks); err != nil || !on {
		t.Fatalf("the hooks are not active in the shared tab's cross-site frame: %v, %v", on, err)
	}

	id, err := s.popup.ChromeTabID(ctx, tab)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.popup.Unshare(ctx, id); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	last := "nothing read"
	for {
		got, err := harness.EvalInExtensionWorlds(wctx, s.browser, s.browser.ExtensionID, "card-frame.html", present)
		on, err2 := harness.EvalInFrameTarget[bool](wctx, s.browser, "card-frame.html", hooks)
		if err == nil && err2 == nil {
			if !slices.Contains(got, `"object"`) && !on {
				return
			}
			last = fmt.Sprintf("content script worlds %v, hooks active %v", got, on)
		}
		select {
		case <-wctx.Done():
			t.Fatalf("after unsharing, the cross-site frame still has our content script or active hooks (last reading: %s)", last)
		case <-time.After(50 * time.Millisecond): // the next reading
		}
	}
}

// TestFramesDialogArm: an answer armed with browser_handle_dialog is for
// the AI's own next dialog: a cross-site ad frame that asks meanwhile gets
// the default (dismissed) and does not use it up, its dialog is still
// reported, and the top page's dialog then gets the armed answer; an
// action the AI takes in a cross-site frame takes the answer with it (that
// frame's question gets it, once), and one whose frame asks nothing leaves
// it for the top page.
func TestFramesDialogArm(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/dialog-frames.html")
	s.frameReady(ctx, t, "ad-dialog.html?ad")
	s.frameReady(ctx, t, "ad-dialog.html?pay")
	snap := s.snapshot(ctx, t, slot)
	del := ref(t, snap, "button", "Delete account")

	s.ok(ctx, t, "browser_handle_dialog", map[string]any{"accept": true, "tab": slot})
	got, err := harness.EvalInFrameTarget[bool](ctx, s.browser, "ad-dialog.html?ad", "window.ask()")
	if err != nil {
		t.Fatal(err)
	}
	if got {
		t.Errorf("the ad frame's confirm was accepted with the AI's armed answer")
	}
	// The ad's dialog is reported with the next snapshot, as answered by default.
	again := s.ok(ctx, t, "browser_snapshot", map[string]any{"tab": slot})
	if !strings.Contains(again, "ad-token-9913") || !strings.Contains(again, "dismissed") {
		t.Errorf("the ad frame's dialog is not reported as dismissed:\n%s", harness.Clip(again, 1500))
	}
	out := s.ok(ctx, t, "browser_click", map[string]any{"element": "Delete account", "ref": del, "tab": slot})
	if r := js[string](ctx, t, tab, "document.getElementById('dialog-result').textContent"); r != "confirm returned true" {
		t.Errorf("after the ad's dialog the top page's confirm got %q: the ad used up the armed answer", r)
	}
	if !strings.Contains(out, "accepted as browser_handle_dialog asked") {
		t.Errorf("the armed click's result:\n%s", harness.Clip(out, 800))
	}

	// The AI acts in the payment frame after arming: that frame's own
	// question gets the armed answer, once; the top page's next one does not.
	_, inPay := under(t, snap, "Payment")
	pay, ok := findIn(inPay, "button", "Pay now")
	if !ok {
		t.Fatalf("the payment frame's button is not under its line:\n%s", snap)
	}
	s.ok(ctx, t, "browser_handle_dialog", map[string]any{"accept": true, "tab": slot})
	out = s.ok(ctx, t, "browser_click", map[string]any{"element": "Pay now", "ref": pay.Ref, "tab": slot})
	if a, err := harness.EvalInFrameTarget[string](ctx, s.browser, "ad-dialog.html?pay", "JSON.stringify(window.answers)"); err != nil || a != "[true]" {
		t.Errorf("the payment frame's confirm after arming an accept: %s, %v (want [true])", a, err)
	}
	if !strings.Contains(out, "pay-token-4471") || !strings.Contains(out, "accepted as browser_handle_dialog asked") {
		t.Errorf("the armed click in the frame's result:\n%s", harness.Clip(out, 800))
	}
	s.ok(ctx, t, "browser_click", map[string]any{"element": "Delete account", "ref": del, "tab": slot})
	if r := js[string](ctx, t, tab, "document.getElementById('dialog-result').textContent"); r != "confirm returned false" {
		t.Errorf("the answer the payment frame used was used again by the top page: %q", r)
	}
	// Armed, an action in a frame that asks nothing leaves the answer for the top page.
	s.ok(ctx, t, "browser_handle_dialog", map[string]any{"accept": true, "tab": slot})
	s.ok(ctx, t, "browser_hover", map[string]any{"element": "Pay now", "ref": pay.Ref, "tab": slot})
	s.ok(ctx, t, "browser_click", map[string]any{"element": "Delete account", "ref": del, "tab": slot})
	if r := js[string](ctx, t, tab, "document.getElementById('dialog-result').textContent"); r != "confirm returned true" {
		t.Errorf("after an action in a frame that asked nothing, the top page's confirm got %q: the armed answer was lost", r)
	}
}
