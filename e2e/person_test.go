package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/monkbrowse/monkbrowse/e2e/harness"
	"github.com/monkbrowse/monkbrowse/tools"
)

// personPassword is what the person types into the password field: no
// result may ever carry it.
const personPassword = "Pers0n-Typed-Secret"

// firstLine is a result's first line.
func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// TestPersonEditsReported (issue 29): the person's trusted typing into a
// named field and into a password field and their click (real CDP input,
// while monkbrowse is idle) start the AI's next result on the tab with one
// line naming the fields by role and ref, the page names after the
// page-content note, and the password's value in no result; the result after
// that says nothing more. The AI's own typing and clicks — in the DOM mode
// and in the debugger mode, whose input is trusted too — are never reported
// as the person's.
func TestPersonEditsReported(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/person.html")
	at := map[string]any{"tab": slot}
	with := func(kv ...any) map[string]any {
		m := map[string]any{"tab": slot}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	var results []string
	call := func(tool string, args map[string]any) string {
		out := s.ok(ctx, t, tool, args)
		results = append(results, out)
		return out
	}
	t.Cleanup(func() {
		for _, r := range results {
			if strings.Contains(r, personPassword) {
				t.Errorf("a result carries the password the person typed:\n%s", r)
			}
		}
	})

	snap := call("browser_snapshot", at)
	notes, pw, save := ref(t, snap, "textbox", "Notes"), ref(t, snap, "textbox", "Password"), ref(t, snap, "button", "Save")

	// The person types into Notes and the password field and clicks Save.
	if err := tab.Do(ctx,
		chromedp.Click(chromedp.CSS("#notes")), chromedp.SendKeys(chromedp.CSS("#notes"), "call the bank"),
		chromedp.Click(chromedp.CSS("#password")), chromedp.SendKeys(chromedp.CSS("#password"), personPassword),
		chromedp.Click(chromedp.CSS("#save")),
	); err != nil {
		t.Fatal(err)
	}
	waitJS(ctx, t, tab, "window.__saved === 1")

	out := call("browser_get_text", at)
	want := fmt.Sprintf("Since your last action the person typed in a textbox (%s), typed in a textbox (%s) and clicked a button (%s) in tab %d;", notes, pw, save, slot)
	if !strings.HasPrefix(out, want) {
		t.Fatalf("the result after the person's edits starts\n%q\nwant\n%q\nwhole result:\n%s", firstLine(out), want, out)
	}
	names := fmt.Sprintf(`The person's edits, as the page names them: typed in textbox "Notes" [ref=%s]; typed in textbox "Password" [ref=%s]; clicked button "Save" [ref=%s].`, notes, pw, save)
	note := strings.Index(out, tools.PageContentNote)
	if i := strings.Index(out, names); i < 0 || note < 0 || i < note {
		t.Errorf("the page's names of the edits are missing or above the page-content note:\n%s", out)
	}
	if again := call("browser_get_text", at); strings.Contains(again, "the person") {
		t.Errorf("the edits were told a second time:\n%s", again)
	}

	// The page's own synthetic input while monkbrowse is idle: untrusted, not the person's.
	js[bool](ctx, t, tab, `(() => { const n = document.getElementById("notes"); n.value += "!"; n.dispatchEvent(new Event("input", {bubbles: true})); document.getElementById("save").click(); return true; })()`)
	waitJS(ctx, t, tab, "window.__saved === 2")
	if out := call("browser_get_text", at); strings.Contains(out, "the person") {
		t.Errorf("the page's own (untrusted) input and click were reported as the person's:\n%s", out)
	}

	// The AI's own actions in the DOM mode (untrusted events): not the person's.
	call("browser_type", with("element", "notes", "ref", notes, "text", "from the AI"))
	call("browser_click", with("element", "save", "ref", save))
	waitJS(ctx, t, tab, "window.__saved === 3")
	if out := call("browser_get_text", at); strings.Contains(out, "the person") {
		t.Errorf("the AI's DOM-mode typing and click were reported as the person's:\n%s", out)
	}

	// In the debugger mode the AI's input is trusted, like the person's.
	if err := s.browser.SetUseDebugger(ctx, true); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.browser.SetUseDebugger(context.Background(), false); err != nil {
			t.Errorf("switching the debugger mode off again: %v", err)
		}
	})
	js[bool](ctx, t, tab, `window.__trusted = 0; document.getElementById("save").addEventListener("click", (e) => { if (e.isTrusted) window.__trusted++ }); true`)
	call("browser_type", with("element", "notes", "ref", notes, "text", " again"))
	call("browser_click", with("element", "save", "ref", save))
	waitJS(ctx, t, tab, "window.__trusted === 1 && window.__saved === 4")
	if out := call("browser_get_text", at); strings.Contains(out, "the person") {
		t.Errorf("the AI's debugger-mode (trusted) typing and click were reported as the person's:\n%s", out)
	}

	// The person's click while monkbrowse is idle, in the debugger mode too.
	if err := tab.Do(ctx, chromedp.Click(chromedp.CSS("#save"))); err != nil {
		t.Fatal(err)
	}
	waitJS(ctx, t, tab, "window.__saved === 5")
	if out := call("browser_get_text", at); !strings.HasPrefix(out, fmt.Sprintf("Since your last action the person clicked a button (%s) in tab %d", save, slot)) {
		dump, _ := harness.EvalServiceWorker[string](ctx, s.browser, `chrome.storage.session.get(null).then((g) => JSON.stringify(Object.fromEntries(Object.entries(g).filter(([k]) => k.startsWith("person:")))))`)
		t.Errorf("the person's click after the AI's debugger-mode actions is not reported:\n%s\nthe extension's edits: %s", out, dump)
	}

	// The person reloads the page: the next action answers with the page
	// itself (the diff base is dropped), and says so.
	if err := tab.Do(ctx, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	if err := tab.WaitLoaded(ctx); err != nil {
		t.Fatal(err)
	}
	snap = call("browser_snapshot", at)
	if !strings.HasPrefix(snap, fmt.Sprintf("Since your last action the person reloaded the page in tab %d", slot)) {
		t.Errorf("the person's reload is not reported:\n%s", snap)
	}
}

// TestPersonPointsAtSelection (issue 29): before the person points,
// browser_get_selection says so and how to point; the person selects a word
// with a real double-click, right-clicks it (a real contextmenu event) and
// chooses "Show this to the AI" — run here through the extension's own
// "point" message from an extension page, the handler the context menu item
// calls, since CDP cannot choose an item of Chrome's native menu. The badge
// shows it, the activity log names it, and browser_get_selection returns the
// paragraph's ref (the one the snapshot gives), its ancestors' lines and the
// selected word as page content.
func TestPersonPointsAtSelection(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/person.html")
	at := map[string]any{"tab": slot}
	if out := s.ok(ctx, t, "browser_get_selection", at); !strings.Contains(out, "Nothing was pointed at") || !strings.Contains(out, "Show this to the AI") {
		t.Fatalf("before pointing: %s", out)
	}
	chromeTab, err := s.popup.ChromeTabID(ctx, tab)
	if err != nil {
		t.Fatal(err)
	}
	// A real double-click on the word "brown".
	wordAt := js[[]float64](ctx, t, tab, `(() => { const n = document.getElementById("intro").firstChild; const i = n.data.indexOf("brown"); const r = document.createRange(); r.setStart(n, i); r.setEnd(n, i + 5); const b = r.getBoundingClientRect(); return [b.x + b.width / 2, b.y + b.height / 2]; })()`)
	if err := tab.Do(ctx, chromedp.MouseClickXY(wordAt[0], wordAt[1], chromedp.ClickCount(2))); err != nil {
		t.Fatal(err)
	}
	word := js[string](ctx, t, tab, "getSelection().toString().trim()")
	if word != "brown" {
		t.Fatalf("the double-click selected %q", word)
	}
	box := js[[]float64](ctx, t, tab, `(() => { const r = getSelection().getRangeAt(0).getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()`)
	js[bool](ctx, t, tab, `window.__menus = 0; addEventListener("contextmenu", (e) => { if (e.isTrusted) window.__menus++ }); true`)
	if err := tab.Do(ctx, chromedp.MouseClickXY(box[0], box[1], chromedp.ButtonRight)); err != nil {
		t.Fatal(err)
	}
	waitJS(ctx, t, tab, "window.__menus === 1")
	pointed := js[bool](ctx, t, s.popup.Tab, fmt.Sprintf(`chrome.runtime.sendMessage({to: "bg", kind: "point", tabId: %d}).then((r) => r.ok && r.result.pointed)`, chromeTab))
	if !pointed {
		t.Fatal(`"Show this to the AI" found nothing to point at`)
	}
	// The badge says so once the acting badge of the AI's last call there
	// (held at least 300 ms) is down.
	waitJS(ctx, t, s.popup.Tab, fmt.Sprintf(`chrome.action.getBadgeText({tabId: %d}).then((b) => b === "◉")`, chromeTab))
	waitJS(ctx, t, s.popup.Tab, fmt.Sprintf(`chrome.storage.local.get("activity").then((g) => (g.activity || []).some((e) => e.app === "You" && e.tool === "person_pointed" && e.target && e.target.role === "paragraph" && e.slot === %d))`, slot))

	snap := s.snapshot(ctx, t, slot)
	para := ""
	for _, l := range harness.ParseSnapshot(snap) {
		if l.Role == "paragraph" && strings.Contains(l.Value+l.Name, "quick brown fox") {
			para = l.Ref
		}
	}
	if para == "" {
		t.Fatalf("no paragraph line in the snapshot:\n%s", snap)
	}
	// The AI's next result said so (the double-click and right-click are not edits).
	if want := fmt.Sprintf("Since your last action the person showed you a paragraph (%s) (call browser_get_selection) in tab %d;", para, slot); !strings.HasPrefix(snap, want) {
		t.Errorf("the result after pointing starts %q, want %q", firstLine(snap), want)
	}
	// The AI acting in the tab (that snapshot) does not take the "◉" away
	// before it reads what was pointed at.
	waitJS(ctx, t, s.popup.Tab, fmt.Sprintf(`chrome.action.getBadgeText({tabId: %d}).then((b) => b === "◉")`, chromeTab))
	out := s.ok(ctx, t, "browser_get_selection", at)
	note := strings.Index(out, tools.PageContentNote)
	if !strings.HasPrefix(out, fmt.Sprintf("The person pointed at ref %s in tab %d", para, slot)) || note < 0 {
		t.Fatalf("browser_get_selection answered (want ref %s):\n%s", para, out)
	}
	page := out[note:]
	for _, want := range []string{"- main", `[ref=` + para + `]`, "- Selected text:\n  " + word} {
		if !strings.Contains(page, want) {
			t.Errorf("the page part lacks %q:\n%s", want, out)
		}
	}
	// Read: the "◉" goes for good (after the acting badge of this read).
	waitJS(ctx, t, s.popup.Tab, fmt.Sprintf(`chrome.action.getBadgeText({tabId: %d}).then((b) => b === "")`, chromeTab))
}
