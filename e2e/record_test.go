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

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/monkbrowse/monkbrowse/e2e/harness"
	"github.com/monkbrowse/monkbrowse/protocol"
)

// recordPassword is what the person types into the password field while
// recording: it must never be stored.
const recordPassword = "Rec0rded-Secret-42"

// recorder drives one recording through the real popup: Record on the
// tab's row, the person's real input in the tab (the test's own CDP
// connection), Stop, the name.
type recorder struct {
	s     *suite
	tab   *harness.Tab
	tabID int
}

func (s *suite) startRecording(ctx context.Context, t *testing.T, tab *harness.Tab) *recorder {
	t.Helper()
	id, err := s.popup.ChromeTabID(ctx, tab)
	if err != nil {
		t.Fatal(err)
	}
	r := &recorder{s: s, tab: tab, tabID: id}
	t.Cleanup(func() {
		// A failed test leaves no recording under way for the next one.
		_, _ = harness.Eval[bool](context.Background(), s.popup.Tab, `chrome.runtime.sendMessage({to: "bg", kind: "record-discard"}).then(() => true)`)
	})
	if err := s.popup.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	btn := fmt.Sprintf(`li[data-tab-id="%d"] button.tab-record`, id)
	waitJS(ctx, t, s.popup.Tab, fmt.Sprintf(`document.querySelector(%q)?.textContent === "Record" && !document.querySelector(%q).disabled`, btn, btn))
	clickAt(ctx, t, s.popup.Tab, btn)
	// The badge shows once every frame of the tab listens.
	waitJS(ctx, t, s.popup.Tab, fmt.Sprintf(`chrome.action.getBadgeText({tabId: %d}).then((b) => b === "REC")`, id))
	waitJS(ctx, t, s.popup.Tab, fmt.Sprintf(`document.querySelector(%q)?.textContent === "Stop recording"`, btn))
	return r
}

// clickAt clicks the element sel of an extension page with a real click at
// its centre: the popup re-renders its rows on every tab event, so a node
// looked up before the click may be gone by then; its successor sits at
// the same point.
func clickAt(ctx context.Context, t *testing.T, tab *harness.Tab, sel string) {
	t.Helper()
	at := js[point](ctx, t, tab, fmt.Sprintf(`((e) => { e.scrollIntoView({block: "center"}); const r = e.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })(document.querySelector(%q))`, sel))
	if err := tab.Do(ctx, chromedp.MouseClickXY(at[0], at[1])); err != nil {
		t.Fatal(err)
	}
}

// waitListening waits until the content script of the tab's page at
// urlPart reports the person's steps (a new document after a navigation).
func (r *recorder) waitListening(ctx context.Context, t *testing.T, urlPart string, frame bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	expr := `globalThis.__monkbrowseContentScript?.recording?.() === true`
	for {
		var got []string
		var err error
		if frame {
			got, err = harness.EvalInExtensionWorlds(ctx, r.s.browser, r.s.browser.ExtensionID, urlPart, expr)
		} else {
			got, err = harness.EvalInPageExtensionWorlds(ctx, r.s.browser, r.s.browser.ExtensionID, urlPart, expr)
		}
		for _, v := range got {
			if v == "true" {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the page at %s does not record (contexts %v, err %v)", urlPart, got, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop presses Stop recording in the popup's row and waits for the save form.
func (r *recorder) stop(ctx context.Context, t *testing.T) {
	t.Helper()
	btn := fmt.Sprintf(`li[data-tab-id="%d"] button.tab-record`, r.tabID)
	clickAt(ctx, t, r.s.popup.Tab, btn)
	waitJS(ctx, t, r.s.popup.Tab, `!document.querySelector("#recording-form").hidden`)
	waitJS(ctx, t, r.s.popup.Tab, fmt.Sprintf(`chrome.action.getBadgeText({tabId: %d}).then((b) => b !== "REC")`, r.tabID))
}

// save names the stopped recording in the popup's form (real clicks and
// typing), renames parameters, and waits until it is stored.
func (r *recorder) save(ctx context.Context, t *testing.T, name, description string, renames map[string]string) protocol.Recording {
	t.Helper()
	p := r.s.popup.Tab
	typeInto := func(sel, text string) {
		t.Helper()
		if err := p.Do(ctx, chromedp.ScrollIntoView(chromedp.CSS(sel)), chromedp.Click(chromedp.CSS(sel))); err != nil {
			t.Fatal(err)
		}
		// What the field holds is replaced, as after the person selects it all.
		js[bool](ctx, t, p, fmt.Sprintf(`(document.querySelector(%q).select(), true)`, sel))
		c, cancel := p.Context(ctx)
		defer cancel()
		if _, err := chromedp.Call(c, input.InsertText, input.InsertTextParams{Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	typeInto("#recording-name", name)
	typeInto("#recording-description", description)
	for from, to := range renames {
		sel := fmt.Sprintf(`#recording-params input.param-name[data-param=%q]`, from)
		waitJS(ctx, t, p, fmt.Sprintf(`!!document.querySelector(%q)`, sel))
		typeInto(sel, to)
	}
	if err := p.Do(ctx, chromedp.Click(chromedp.CSS("#recording-save"))); err != nil {
		t.Fatal(err)
	}
	waitJS(ctx, t, p, `document.querySelector("#recording-message").className === "ok" && !document.querySelector("#recording-message").hidden`)
	var rec protocol.Recording
	raw := js[string](ctx, t, p, fmt.Sprintf(`chrome.storage.local.get("recordings").then((g) => JSON.stringify((g.recordings ?? []).find((r) => r.name === %q) ?? null))`, name))
	if err := json.Unmarshal([]byte(raw), &rec); err != nil || rec.Name != name {
		t.Fatalf("the recording %q is not stored: %s (%v)", name, raw, err)
	}
	return rec
}

// storageDump is everything the extension keeps (local and session storage), as JSON text.
func (s *suite) storageDump(ctx context.Context, t *testing.T) string {
	t.Helper()
	return js[string](ctx, t, s.popup.Tab, `Promise.all([chrome.storage.local.get(null), chrome.storage.session.get(null)]).then(([l, s]) => JSON.stringify({local: l, session: s}))`)
}

// stepsJSON is the steps as compact JSON, one a line, for messages.
func stepsJSON(steps []protocol.Step) string {
	var b strings.Builder
	for i, s := range steps {
		j, _ := json.Marshal(s)
		fmt.Fprintf(&b, "%d: %s\n", i, j)
	}
	return b.String()
}

// TestRecordFormFlow (issue 42): the person records signing up on a fixture
// form through the real popup, with trusted input from the test's own CDP
// connection: typing in three fields (key by key and inserted), "Show
// password" then the password, a checkbox, a <select> by keyboard, a
// cross-site frame's field, a Tab key and a button, the submit that navigates, a
// button on the next page and an address typed into the address bar. The
// stored recording has those steps as the person sees the targets (role,
// name, the frame's address), the typed values as named parameters (one
// renamed in the popup), the password as a secret step; the password is
// nowhere in the extension's storage, local or session.
func TestRecordFormFlow(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/record.html")
	start := js[string](ctx, t, tab, "location.href")
	s.frameReady(ctx, t, "record-frame.html")
	r := s.startRecording(ctx, t, tab)
	r.waitListening(ctx, t, "record-frame.html", true)

	c, cancel := tab.Context(ctx)
	defer cancel()
	click := func(sel string) {
		t.Helper()
		if err := tab.Do(ctx, chromedp.Click(chromedp.CSS(sel))); err != nil {
			t.Fatal(err)
		}
	}
	insert := func(text string) {
		t.Helper()
		if _, err := chromedp.Call(c, input.InsertText, input.InsertTextParams{Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	click("#name")
	insert("Ada Lovelace")
	click("#email")
	if err := tab.Do(ctx, chromedp.SendKeys(chromedp.CSS("#email"), "ada@example.org")); err != nil {
		t.Fatal(err)
	}
	// "Show password" first: the field is type=text while the person types.
	click("#show")
	waitJS(ctx, t, tab, `document.getElementById("pw").type === "text"`)
	click("#pw")
	insert(recordPassword)
	click("#news")
	// The <select> by keyboard, as a person can (its popup is Chrome's own).
	js[bool](ctx, t, tab, `(document.getElementById("size").focus(), true)`)
	if err := tab.Do(ctx, chromedp.KeyEvent(kb.ArrowDown)); err != nil {
		t.Fatal(err)
	}
	waitJS(ctx, t, tab, `document.getElementById("size").value === "Medium"`)
	// The cross-origin frame: real clicks at its elements' points on the page.
	frameAt := func(id string) point {
		t.Helper()
		origin := js[point](ctx, t, tab, `((r) => [r.left + 5, r.top + 5])(document.getElementById("promo").getBoundingClientRect())`)
		el, err := harness.EvalInFrameTarget[point](ctx, s.browser, "record-frame.html", fmt.Sprintf(`((r) => [r.left + r.width / 2 - 5, r.top + r.height / 2 - 5])(document.getElementById(%q).getBoundingClientRect())`, id))
		if err != nil {
			t.Fatal(err)
		}
		return origin.plus(el)
	}
	code := frameAt("code")
	if err := tab.Do(ctx, chromedp.MouseClickXY(code[0], code[1])); err != nil {
		t.Fatal(err)
	}
	insert("SPRING")
	// A key that is a step of its own: Tab, out of the frame's field.
	if err := tab.Do(ctx, chromedp.KeyEvent(kb.Tab)); err != nil {
		t.Fatal(err)
	}
	apply := frameAt("apply")
	if err := tab.Do(ctx, chromedp.MouseClickXY(apply[0], apply[1])); err != nil {
		t.Fatal(err)
	}
	if got := s.frameState(ctx, t, "record-frame.html", `document.getElementById("applied").textContent`); got != `"Applied SPRING"` {
		t.Fatalf("the frame's Apply shows %s", got)
	}
	// Submit: the form posts to the next page; the recording goes on there.
	click("#submit")
	waitJS(ctx, t, tab, `location.pathname === "/record-done.html" && document.readyState === "complete"`)
	r.waitListening(ctx, t, "record-done.html", false)
	click("#finish")
	waitJS(ctx, t, tab, `window.__finished === 1`)
	// An address typed into the address bar.
	typed := s.fx.URL("/record.html?again=1")
	if _, err := chromedp.Call(c, page.Navigate, page.NavigateParams{URL: typed, TransitionType: page.TransitionTypeTyped}); err != nil {
		t.Fatal(err)
	}
	waitJS(ctx, t, tab, `location.search === "?again=1" && document.readyState === "complete"`)
	// The popup shows the steps as they come, the typed address last.
	waitJS(ctx, t, s.popup.Tab, `document.querySelector("#recording-live-steps li:last-child")?.textContent.endsWith("?again=1")`)
	if live := js[string](ctx, t, s.popup.Tab, `document.querySelector("#recording-live-steps").innerText`); !strings.Contains(live, `Type "Ada Lovelace" into textbox "Full name"`) || strings.Contains(live, recordPassword) {
		t.Errorf("the popup's live steps:\n%s", live)
	}

	// The badge still says the tab records, on its third document.
	waitJS(ctx, t, s.popup.Tab, fmt.Sprintf(`chrome.action.getBadgeText({tabId: %d}).then((b) => b === "REC")`, r.tabID))
	r.stop(ctx, t)
	rec := r.save(ctx, t, "Sign up at the fixture", "Signs up with a name and an email", map[string]string{"full_name": "name"})

	want := []protocol.Step{
		{Action: "navigate", Value: strings.SplitN(start, "#", 2)[0]},
		{Action: "type", Target: &protocol.StepTarget{Role: "textbox", Name: "Full name"}, Param: "name"},
		{Action: "type", Target: &protocol.StepTarget{Role: "textbox", Name: "Email"}, Param: "email"},
		{Action: "check", Target: &protocol.StepTarget{Role: "checkbox", Name: "Show password"}},
		{Action: "type", Target: &protocol.StepTarget{Role: "textbox", Name: "Password"}, Param: "password", Secret: true},
		{Action: "check", Target: &protocol.StepTarget{Role: "checkbox", Name: "Subscribe to the newsletter"}},
		{Action: "select", Target: &protocol.StepTarget{Role: "combobox", Name: "Size"}, Value: "Medium"},
		{Action: "type", Target: &protocol.StepTarget{Role: "textbox", Name: "Promo code", Frame: "FRAME"}, Param: "promo_code"},
		{Action: "press", Target: &protocol.StepTarget{Role: "textbox", Name: "Promo code", Frame: "FRAME"}, Value: "Tab"},
		{Action: "click", Target: &protocol.StepTarget{Role: "button", Name: "Apply", Frame: "FRAME"}},
		{Action: "click", Target: &protocol.StepTarget{Role: "button", Name: "Sign up"}},
		{Action: "click", Target: &protocol.StepTarget{Role: "button", Name: "Finish"}},
		{Action: "navigate", Value: typed},
	}
	if len(rec.Steps) != len(want) {
		t.Fatalf("recorded %d steps, want %d:\n%s", len(rec.Steps), len(want), stepsJSON(rec.Steps))
	}
	for i, w := range want {
		g := rec.Steps[i]
		if w.Target != nil && w.Target.Frame == "FRAME" {
			// The frame's address: the other fixture origin's page, origin and path.
			if g.Target == nil || !strings.HasSuffix(g.Target.Frame, "/record-frame.html") || strings.HasPrefix(g.Target.Frame, s.fx.Origin()) {
				t.Errorf("step %d's frame is %+v, want the other origin's /record-frame.html", i, g.Target)
				continue
			}
			w.Target.Frame = g.Target.Frame
		}
		gj, _ := json.Marshal(g)
		wj, _ := json.Marshal(w)
		if string(gj) != string(wj) {
			t.Errorf("step %d is\n%s\nwant\n%s", i, gj, wj)
		}
	}
	wantParams := []protocol.RecordingParam{
		{Name: "name", Example: "Ada Lovelace"},
		{Name: "email", Example: "ada@example.org"},
		{Name: "password", Secret: true},
		{Name: "promo_code", Example: "SPRING"},
	}
	pj, _ := json.Marshal(rec.Params)
	wpj, _ := json.Marshal(wantParams)
	if string(pj) != string(wpj) {
		t.Errorf("the parameters are %s, want %s", pj, wpj)
	}
	if rec.Description != "Signs up with a name and an email" || rec.Site != s.fx.Origin() {
		t.Errorf("description %q, site %q (want the fixture's origin %s)", rec.Description, rec.Site, s.fx.Origin())
	}
	if dump := s.storageDump(ctx, t); strings.Contains(dump, recordPassword) || strings.Contains(dump, "Rec0rded") {
		t.Errorf("the extension's storage holds the password the person typed while recording:\n%s", harness.Clip(dump, 4000))
	}

	// ---- the AI runs the recording with other values (browser_run) ----
	// The pages keep what was submitted in the tab's sessionStorage: start clean.
	js[bool](ctx, t, tab, `(sessionStorage.clear(), true)`)
	if _, err := harness.EvalInFrameTarget[bool](ctx, s.browser, "record-frame.html", `(sessionStorage.clear(), true)`); err != nil {
		t.Fatal(err)
	}
	const runPassword = "Run-Time-Pw-7"
	done := make(chan harness.ToolResult, 1)
	go func() {
		res, err := s.server.Call(ctx, "browser_run", map[string]any{"tab": slot, "recording": "Sign up at the fixture",
			"params": map[string]any{"name": "Grace Hopper", "email": "grace@example.org", "promo_code": "WINTER"}})
		if err != nil {
			res = harness.ToolResult{IsError: true, Text: "transport: " + err.Error()}
		}
		done <- res
	}()
	// The secret step is the person's: they type it in the page and press Done in the popup.
	waitJS(ctx, t, s.popup.Tab, `!!document.querySelector('#ask-list button.done') && document.querySelector('#ask-list').textContent.includes('Please enter your password')`)
	if err := tab.Do(ctx, chromedp.SendKeys(chromedp.CSS("#pw"), runPassword)); err != nil {
		t.Fatal(err)
	}
	clickAt(ctx, t, s.popup.Tab, "#ask-list button.done")
	var res harness.ToolResult
	select {
	case res = <-done:
	case <-ctx.Done():
		t.Fatal("browser_run did not answer after the person pressed Done")
	}
	if res.IsError || !strings.HasPrefix(res.Text, fmt.Sprintf("Ran %d of %d steps", len(rec.Steps), len(rec.Steps))) {
		t.Fatalf("browser_run of the recording:\n%s", res.Text)
	}
	t.Logf("browser_run answered:\n%s", harness.Clip(res.Text, 3000))
	if strings.Contains(res.Text, runPassword) || strings.Contains(res.Text, recordPassword) {
		t.Errorf("a password is in browser_run's answer:\n%s", res.Text)
	}
	// Success, read from the pages' own state: the form posted the new values,
	// the next page's Finish was pressed, the frame applied the new code.
	waitJS(ctx, t, tab, `location.search === "?again=1"`)
	if got, want := js[string](ctx, t, tab, `sessionStorage.getItem("signup") ?? "null"`),
		fmt.Sprintf(`{"name":"Grace Hopper","email":"grace@example.org","pwLength":%d,"news":true,"size":"Medium"}`, len(runPassword)); got != want {
		t.Errorf("the run submitted %s, want %s; answer:\n%s", got, want, res.Text)
	}
	if got := js[string](ctx, t, tab, `sessionStorage.getItem("finished") ?? "null"`); got != "1" {
		t.Errorf("the next page's Finish was pressed %s times by the run", got)
	}
	s.frameReady(ctx, t, "record-frame.html")
	if got, err := harness.EvalInFrameTarget[string](ctx, s.browser, "record-frame.html", `sessionStorage.getItem("applied") ?? "null"`); err != nil || got != "WINTER" {
		t.Errorf("the frame applied %q (%v), want WINTER", got, err)
	}
}

// TestRecordReactSelect (issue 42): on a page built with the real
// react-select (e2e/libpages), the person clicks the field, types to
// filter and clicks an option, with trusted input; the recording holds one
// select step on the combobox as the snapshot names it, with the option's
// name as its value (the click that opened the menu and the filter typing
// are folded into it), and the page's own state has the choice.
func TestRecordReactSelect(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	fx := libFixtures(t, s.p)
	tab, err := s.browser.NewTab(ctx, unique(fx.URL("/react-select.html")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tab.Close)
	waitJS(ctx, t, tab, "!!window.__state")
	s.share(ctx, t, tab)
	start := js[string](ctx, t, tab, "location.href")
	r := s.startRecording(ctx, t, tab)

	center := func(expr string) point {
		t.Helper()
		return js[point](ctx, t, tab, `((r) => [r.left + r.width / 2, r.top + r.height / 2])(`+expr+`.getBoundingClientRect())`)
	}
	control := center(`document.getElementById("fruit-input").closest("[class*=control]")`)
	if err := tab.Do(ctx, chromedp.MouseClickXY(control[0], control[1])); err != nil {
		t.Fatal(err)
	}
	waitJS(ctx, t, tab, "window.__state.menuOpen === true")
	c, cancel := tab.Context(ctx)
	defer cancel()
	if _, err := chromedp.Call(c, input.InsertText, input.InsertTextParams{Text: "Ch"}); err != nil {
		t.Fatal(err)
	}
	option := `[...document.querySelectorAll("[role=option]")].find((o) => o.textContent === "Cherry")`
	waitJS(ctx, t, tab, "!!"+option)
	at := center(option)
	if err := tab.Do(ctx, chromedp.MouseClickXY(at[0], at[1])); err != nil {
		t.Fatal(err)
	}
	waitJS(ctx, t, tab, `window.__state.fruit === "cherry"`)

	r.stop(ctx, t)
	rec := r.save(ctx, t, "Choose a fruit", "", nil)
	want := []protocol.Step{
		{Action: "navigate", Value: strings.SplitN(start, "#", 2)[0]},
		{Action: "select", Target: &protocol.StepTarget{Role: "combobox", Name: "Fruit"}, Value: "Cherry"},
	}
	gj, _ := json.Marshal(rec.Steps)
	wj, _ := json.Marshal(want)
	if string(gj) != string(wj) {
		t.Errorf("recorded\n%s\nwant\n%s", stepsJSON(rec.Steps), stepsJSON(want))
	}
	if len(rec.Params) != 0 {
		t.Errorf("a chosen option is a value, not a parameter, until the person marks it: %+v", rec.Params)
	}
}

// TestRecordingsEditedInOptions (issue 42): the options page lists a
// recording (name, description, site, parameters, steps in words), and the
// person's real clicks and typing there rename a parameter, make a chosen
// value a parameter, drop a step, rename the recording and delete it; each
// edit is read back from chrome.storage.local.
func TestRecordingsEditedInOptions(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	const seed = `{"name":"Order tea","description":"Orders the usual","site":"https://shop.example","created":"2026-12-04T10:00:00Z",
		"params":[{"name":"email","example":"a@b.org"},{"name":"password","secret":true}],
		"steps":[{"action":"navigate","value":"https://shop.example/"},
		{"action":"type","target":{"role":"textbox","name":"Email"},"param":"email"},
		{"action":"type","target":{"role":"textbox","name":"Password"},"param":"password","secret":true},
		{"action":"select","target":{"role":"combobox","name":"Tea"},"value":"Green"},
		{"action":"click","target":{"role":"button","name":"Order"}}]}`
	js[bool](ctx, t, s.popup.Tab, `chrome.storage.local.set({recordings: [`+seed+`]}).then(() => true)`)
	t.Cleanup(func() {
		_, _ = harness.Eval[bool](context.Background(), s.popup.Tab, `chrome.storage.local.remove("recordings").then(() => true)`)
	})
	opts, err := s.browser.NewTab(ctx, s.browser.ExtensionURL("options.html"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(opts.Close)
	li := `#recording-list li[data-name="Order tea"]`
	waitJS(ctx, t, opts, `!!document.querySelector('`+li+`')`)
	if js[bool](ctx, t, opts, `document.querySelector("#recordings-empty").checkVisibility()`) {
		t.Errorf("the options page says there are no recordings beside one")
	}
	text := js[string](ctx, t, opts, `document.querySelector('`+li+`').innerText`)
	for _, want := range []string{"Order tea", "Orders the usual", "https://shop.example", `e.g. "a@b.org"`, "a secret you enter when it runs",
		`Type {{email}} into textbox "Email"`, `You enter a secret (password) into textbox "Password"`, `Choose "Green" in combobox "Tea"`, `Click button "Order"`} {
		if !strings.Contains(text, want) {
			t.Errorf("the options page's recording does not show %q:\n%s", want, text)
		}
	}
	stored := func() protocol.Recording {
		t.Helper()
		var recs []protocol.Recording
		raw := js[string](ctx, t, opts, `chrome.storage.local.get("recordings").then((g) => JSON.stringify(g.recordings ?? []))`)
		if err := json.Unmarshal([]byte(raw), &recs); err != nil || len(recs) != 1 {
			t.Fatalf("stored recordings: %s (%v)", raw, err)
		}
		return recs[0]
	}
	press := func(sel string) {
		t.Helper()
		if err := opts.Do(ctx, chromedp.ScrollIntoView(chromedp.CSS(sel)), chromedp.Click(chromedp.CSS(sel))); err != nil {
			t.Fatal(err)
		}
	}
	retype := func(sel, text string) {
		t.Helper()
		press(sel)
		js[bool](ctx, t, opts, fmt.Sprintf(`(document.querySelector(%q).select(), true)`, sel))
		c, cancel := opts.Context(ctx)
		defer cancel()
		if _, err := chromedp.Call(c, input.InsertText, input.InsertTextParams{Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	until := func(what string, ok func(protocol.Recording) bool) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			r := stored()
			if ok(r) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: the stored recording is %+v\n%s", what, r, stepsJSON(r.Steps))
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	retype(li+` div[data-param="email"] input.param-rename-input`, "mail")
	press(li + ` div[data-param="email"] button.param-rename`)
	until("renaming the parameter", func(r protocol.Recording) bool {
		return len(r.Params) == 2 && r.Params[0].Name == "mail" && r.Steps[1].Param == "mail"
	})
	waitJS(ctx, t, opts, `!!document.querySelector('`+li+` div[data-param="mail"]')`)
	press(li + ` .rec-steps li:nth-child(4) button.step-param`)
	until("making the chosen tea a parameter", func(r protocol.Recording) bool {
		return len(r.Params) == 3 && r.Params[2].Name == "tea" && r.Params[2].Example == "Green" && r.Steps[3].Param == "tea" && r.Steps[3].Value == ""
	})
	waitJS(ctx, t, opts, `document.querySelectorAll('`+li+` .rec-steps li').length === 5`)
	press(li + ` .rec-steps li:nth-child(1) button.step-drop`)
	until("dropping the first step", func(r protocol.Recording) bool {
		return len(r.Steps) == 4 && r.Steps[0].Action == "type"
	})
	// Download as Playwright test: the export (lib/recording-export.ts) as a file.
	dl := t.TempDir()
	if err := s.browser.AllowDownloads(ctx, dl); err != nil {
		t.Fatal(err)
	}
	press(li + ` button.rec-download`)
	file := filepath.Join(dl, "order-tea.spec.ts")
	deadline := time.Now().Add(10 * time.Second)
	var test []byte
	for {
		if b, err := os.ReadFile(file); err == nil && len(b) > 0 {
			test = b
			break
		}
		if time.Now().After(deadline) {
			entries, _ := os.ReadDir(dl)
			t.Fatalf("no %s downloaded (the folder has %v)", file, entries)
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, want := range []string{`test("Order tea"`, `secret("PASSWORD")`, `getByRole("combobox", { name: "Tea"`} {
		if !strings.Contains(string(test), want) {
			t.Errorf("the downloaded test lacks %s:\n%s", want, test)
		}
	}
	retype(li+` input.rec-rename-input`, "Order green tea")
	press(li + ` button.rec-rename`)
	until("renaming the recording", func(r protocol.Recording) bool { return r.Name == "Order green tea" })
	waitJS(ctx, t, opts, `!!document.querySelector('#recording-list li[data-name="Order green tea"]')`)
	press(`#recording-list li[data-name="Order green tea"] button.rec-delete`)
	waitJS(ctx, t, opts, `chrome.storage.local.get("recordings").then((g) => Array.isArray(g.recordings) && g.recordings.length === 0)`)
	waitJS(ctx, t, opts, `document.querySelector("#recordings-empty").checkVisibility()`)
}
