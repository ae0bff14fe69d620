package e2e

import (
	"bytes"
	"context"
	"fmt"
	"image"
	_ "image/jpeg"
	_ "image/png"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/monkbrowse/monkbrowse/e2e/harness"
)

// answerInPopup reloads the popup, waits for the pending request whose
// message includes msg and presses its button (done or decline) with a
// real click, as the person does.
func (s *suite) answerInPopup(t *testing.T, ctx context.Context, msg, cls string) {
	t.Helper()
	if err := s.popup.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	li := fmt.Sprintf(`[...document.querySelectorAll('#ask-list li')].find((li) => li.textContent.includes(%q))`, msg)
	waitJS(ctx, t, s.popup.Tab, `!!`+li+`?.querySelector('button.`+cls+`')`)
	id := js[string](ctx, t, s.popup.Tab, li+`.dataset.askId`)
	if err := s.popup.Tab.Do(ctx, chromedp.Click(chromedp.CSS(fmt.Sprintf(`#ask-list li[data-ask-id=%q] button.%s`, id, cls)))); err != nil {
		t.Fatal(err)
	}
}

// TestSecretStaysSecretAfterShowPassword (issue 40, finding 3): during a
// hand-off the person types their password (trusted input through CDP) and
// ticks the page's own "Show password", which makes the field type=text;
// after Done, neither the answer (the page's diff), nor a snapshot,
// get_text or find carries the password: a field once a password stays
// secret for its life in the document.
func TestSecretStaysSecretAfterShowPassword(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/showpw.html")
	at := map[string]any{"tab": slot}
	s.ok(ctx, t, "browser_snapshot", at) // the diff base: the field is a password field
	const secret = "Shown-Pa55word-40"
	const message = "Please sign in (issue 40), then press Done."

	answer := make(chan string, 1)
	go func() {
		res, err := s.server.Call(ctx, "browser_ask_user", map[string]any{"tab": slot, "message": message})
		if err != nil {
			answer <- "error: " + err.Error()
			return
		}
		answer <- res.Text
	}()
	if err := tab.Do(ctx,
		chromedp.Click(chromedp.CSS("#user")), chromedp.SendKeys(chromedp.CSS("#user"), "ada"),
		chromedp.Click(chromedp.CSS("#pw")), chromedp.SendKeys(chromedp.CSS("#pw"), secret),
		chromedp.Click(chromedp.CSS("#show")),
	); err != nil {
		t.Fatal(err)
	}
	waitJS(ctx, t, tab, `document.getElementById('pw').type === 'text' && document.getElementById('pw').value === `+fmt.Sprintf("%q", secret))
	s.answerInPopup(t, ctx, message, "done")
	out := <-answer
	if !strings.Contains(out, "pressed Done") {
		t.Fatalf("the hand-off's answer: %s", out)
	}
	if !strings.Contains(out, "ada") {
		t.Errorf("the answer does not show what the person changed:\n%s", out)
	}
	results := map[string]string{"the answer after Done": out}
	results["browser_snapshot"] = s.snapshot(ctx, t, slot)
	results["browser_get_text"] = s.ok(ctx, t, "browser_get_text", at)
	results["browser_find"] = s.ok(ctx, t, "browser_find", map[string]any{"tab": slot, "query": "Password"})
	for what, r := range results {
		if strings.Contains(r, secret) {
			t.Errorf("%s carries the password the person typed and then showed:\n%s", what, r)
		}
	}
	if !strings.Contains(results["browser_find"], "•••") {
		t.Errorf("browser_find does not show the field masked:\n%s", results["browser_find"])
	}
}

// TestSecretTypedByAIStaysOutOfLog (issue 40, finding 3): the page's "Show
// password" is ticked (a trusted click) before the AI ever looked at the
// field; the AI then types into it: the activity log kept in the
// extension's storage (shown and exported) has the entry without the text.
func TestSecretTypedByAIStaysOutOfLog(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/showpw.html")
	if err := tab.Do(ctx, chromedp.Click(chromedp.CSS("#show"))); err != nil {
		t.Fatal(err)
	}
	waitJS(ctx, t, tab, `document.getElementById('pw').type === 'text'`)
	snap := s.snapshot(ctx, t, slot)
	pw := ref(t, snap, "textbox", "Password")
	const typed = "AI-typed-Secret-40"
	// (The AI's own text may come back to the AI: it knows it. The page's
	// diff in the answer shows the field masked.)
	out := s.ok(ctx, t, "browser_type", map[string]any{"tab": slot, "element": "Password", "ref": pw, "text": typed})
	if v := js[string](ctx, t, tab, `document.getElementById('pw').value`); v != typed {
		t.Fatalf("the field holds %q after browser_type, want %q", v, typed)
	}
	if !strings.Contains(out, `textbox "Password" [active] [ref=`+pw+`]: ••••`) {
		t.Errorf("browser_type's answer does not show the field masked:\n%s", out)
	}
	entry := fmt.Sprintf(`chrome.storage.local.get("activity").then((g) => (g.activity || []).filter((e) => e.tool === "browser_type" && e.slot === %d && e.target && e.target.name === "Password"))`, slot)
	waitJS(ctx, t, s.popup.Tab, entry+`.then((l) => l.length > 0)`)
	log := js[string](ctx, t, s.popup.Tab, `chrome.storage.local.get("activity").then((g) => JSON.stringify(g.activity || []))`)
	if strings.Contains(log, typed) {
		t.Errorf("the activity log keeps the text the AI typed into a password field shown as text:\n%s", log)
	}
}

// coverGrey samples the inside of a box (viewport CSS pixels; scale: image
// pixels per CSS pixel) of a screenshot and counts the samples in the grey
// screenshots paint secret fields with (#7a7a7a, give or take scaling and
// JPEG).
func coverGrey(img image.Image, x0, y0, w, h, scale float64) (covered, all int) {
	// Inside the box by 4 CSS pixels: the image is scaled, its edges blend.
	for y := y0 + 4; y < y0+h-4; y += 2 {
		for x := x0 + 4; x < x0+w-4; x += 3 {
			r, g, b, _ := img.At(int(x*scale), int(y*scale)).RGBA()
			all++
			near := func(v uint32) bool { d := int(v>>8) - 0x7a; return d >= -8 && d <= 8 }
			if near(r) && near(g) && near(b) {
				covered++
			}
		}
	}
	return covered, all
}

// screenshotImage is browser_screenshot's image, decoded.
func (s *suite) screenshotImage(ctx context.Context, t *testing.T, slot int) image.Image {
	t.Helper()
	res := s.call(ctx, t, "browser_screenshot", map[string]any{"tab": slot})
	if res.IsError || len(res.Images) != 1 {
		t.Fatalf("browser_screenshot: %s (%d images)", res.Text, len(res.Images))
	}
	img, _, err := image.Decode(bytes.NewReader(res.Images[0].Data))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// TestSecretPaintedOverInScreenshots (issue 40, finding 3): a password the
// person typed and then showed with the page's "Show password" is painted
// over in browser_screenshot (the field's box is all the cover's grey; the
// Username field beside it is not); with the options page's switch "Show
// password, one-time-code and card fields in screenshots" on, it is not.
func TestSecretPaintedOverInScreenshots(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/showpw.html")
	if err := tab.Do(ctx,
		chromedp.Click(chromedp.CSS("#user")), chromedp.SendKeys(chromedp.CSS("#user"), "WWWWWWWWWW"),
		chromedp.Click(chromedp.CSS("#pw")), chromedp.SendKeys(chromedp.CSS("#pw"), "WWWWWWWWWW"),
		chromedp.Click(chromedp.CSS("#show")), chromedp.Click(chromedp.CSS("h1")),
	); err != nil {
		t.Fatal(err)
	}
	waitJS(ctx, t, tab, `document.getElementById('pw').type === 'text'`)
	// Each field's inner box (inside its border) in viewport CSS pixels, and the viewport's width.
	boxes := js[[]float64](ctx, t, tab, `(() => {
		const out = [];
		for (const id of ['pw', 'user']) {
			const el = document.getElementById(id), r = el.getBoundingClientRect();
			out.push(r.left + el.clientLeft, r.top + el.clientTop, el.clientWidth, el.clientHeight);
		}
		out.push(innerWidth);
		return out;
	})()`)
	shoot := func() (pw, pwAll, user, userAll int) {
		t.Helper()
		img := s.screenshotImage(ctx, t, slot)
		scale := float64(img.Bounds().Dx()) / boxes[8]
		pw, pwAll = coverGrey(img, boxes[0], boxes[1], boxes[2], boxes[3], scale)
		user, userAll = coverGrey(img, boxes[4], boxes[5], boxes[6], boxes[7], scale)
		return pw, pwAll, user, userAll
	}
	pw, all, user, userAll := shoot()
	if all == 0 || pw != all {
		t.Errorf("the shown password field is not painted over: %d of %d sampled pixels grey", pw, all)
	}
	// (The W's typed in it have grey edges of their own: a few pixels.)
	if user*4 > userAll {
		t.Errorf("the Username field is painted over too (%d grey pixels): the cover must be the secret fields' only", user)
	}

	if err := s.browser.SetSecretsInShots(ctx, true); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.browser.SetSecretsInShots(context.Background(), false); err != nil {
			t.Errorf("switching secret fields in screenshots off again: %v", err)
		}
	})
	if pw, all, _, _ := shoot(); pw == all {
		t.Errorf("with the person's switch on, the password field is still painted over (%d of %d)", pw, all)
	}
}

// TestSecretPaintedOverInCrossSiteFrame (issue 40): the card number and
// security code of a card form in a cross-site iframe (its own content
// script knows them secret) are painted over in browser_screenshot once a
// snapshot has linked the frame; the Name on card beside them is not.
func TestSecretPaintedOverInCrossSiteFrame(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/checkout.html")
	s.frameReady(ctx, t, "card-frame.html")
	s.snapshot(ctx, t, slot) // links the frames
	// The iframe's content box in the top viewport, the fields' boxes in the frame's.
	frame := js[[]float64](ctx, t, tab, `(() => { const f = document.getElementById('card'), r = f.getBoundingClientRect(); return [r.left + f.clientLeft, r.top + f.clientTop, innerWidth]; })()`)
	fields, err := harness.EvalInFrameTarget[[]float64](ctx, s.browser, "card-frame.html", `(() => {
		const out = [];
		for (const id of ['number', 'cvc', 'holder']) {
			const el = document.getElementById(id), r = el.getBoundingClientRect();
			out.push(r.left + el.clientLeft, r.top + el.clientTop, el.clientWidth, el.clientHeight);
		}
		return out;
	})()`)
	if err != nil || len(fields) != 12 {
		t.Fatalf("the card fields' boxes: %v %v", fields, err)
	}
	img := s.screenshotImage(ctx, t, slot)
	scale := float64(img.Bounds().Dx()) / frame[2]
	for i, name := range []string{"Card number", "Security code", "Name on card"} {
		b := fields[i*4 : i*4+4]
		grey, all := coverGrey(img, frame[0]+b[0], frame[1]+b[1], b[2], b[3], scale)
		secret := name != "Name on card"
		if secret && (all == 0 || grey != all) {
			t.Errorf("%s in the cross-site frame is not painted over: %d of %d sampled pixels grey", name, grey, all)
		}
		if !secret && grey*4 > all {
			t.Errorf("%s in the cross-site frame is painted over (%d of %d): only secret fields are", name, grey, all)
		}
	}
}
