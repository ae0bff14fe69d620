package e2e

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestClickHiddenTwin clicks a screen-reader copy of a list item (the
// markup of rc-select, Ant Design's Select): the answer is an error that
// says nothing was clicked and names the visible item with its ref; the
// retry on that ref selects it, read back in the page's own state. A copy
// with no visible twin is clicked and reported as having had no effect.
func TestClickHiddenTwin(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/hidden-twin.html")
	snap := s.snapshot(ctx, t, slot)

	copyRef := ref(t, snap, "option", "Banana")
	msg := s.fails(ctx, t, "browser_click", map[string]any{"element": "Banana option", "ref": copyRef, "tab": slot})
	if !strings.Contains(msg, "not visible") || !strings.Contains(msg, "nothing was clicked") {
		t.Errorf("the refusal does not say the option is invisible and was not clicked: %s", msg)
	}
	t.Logf("refusal: %s", msg)
	m := regexp.MustCompile(`\[ref=(e\d+)\]: click that ref instead`).FindStringSubmatch(msg)
	if m == nil {
		t.Fatalf("the refusal names no visible twin's ref: %s", msg)
	}
	if v := js[any](ctx, t, tab, "window.__state.selected"); v != nil {
		t.Fatalf("the refused click selected %v", v)
	}
	s.ok(ctx, t, "browser_click", map[string]any{"element": "Banana", "ref": m[1], "tab": slot})
	if v := js[string](ctx, t, tab, "String(window.__state.selected)"); v != "banana" {
		t.Errorf("after clicking the named twin the page selected %q, want banana", v)
	}

	// A copy with no visible twin: clicked, and reported as having done nothing.
	durian := ref(t, snap, "option", "Durian")
	msg = s.fails(ctx, t, "browser_click", map[string]any{"element": "Durian option", "ref": durian, "tab": slot})
	if !strings.Contains(msg, "no effect") || !strings.Contains(msg, "not visible") {
		t.Errorf("the click on an invisible option with no effect is not reported as such: %s", msg)
	}
	if v := js[string](ctx, t, tab, "String(window.__state.selected)"); v != "banana" {
		t.Errorf("the selection changed to %q", v)
	}
}

// TestEditContextEditor types into an EditContext editor (issue 41): without
// the debugger mode the text reaches the editor's own model through its
// EditContext's textupdate events, and so do keys and deletions; with it on,
// the real keyboard input arrives there too.
func TestEditContextEditor(t *testing.T) {
	p := need(t)
	ctx := testContext(t, 2*testTimeout)
	sctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	s, err := newSuite(sctx, t, p, fixtures(), "editcontext")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.close)
	tab, slot := s.openShared(ctx, t, "/editcontext.html")
	if !js[bool](ctx, t, tab, "window.__state.supported") {
		t.Skip("this Chromium has no EditContext")
	}
	ed := ref(t, s.snapshot(ctx, t, slot), "textbox", "Draft")
	s.ok(ctx, t, "browser_type", map[string]any{"element": "Draft", "ref": ed, "text": "hello", "tab": slot})
	waitJS(ctx, t, tab, "window.__state.text === 'hello'")
	if v := js[string](ctx, t, tab, "document.getElementById('ed').textContent"); v != "hello" {
		t.Errorf("the editor draws %q, want hello", v)
	}
	s.ok(ctx, t, "browser_press_key", map[string]any{"key": "!", "tab": slot})
	waitJS(ctx, t, tab, "window.__state.text === 'hello!'")
	s.ok(ctx, t, "browser_press_key", map[string]any{"key": "Backspace", "tab": slot})
	waitJS(ctx, t, tab, "window.__state.text === 'hello'")
	// Typing again replaces the text, as in a field.
	s.ok(ctx, t, "browser_type", map[string]any{"element": "Draft", "ref": ed, "text": "", "tab": slot})
	waitJS(ctx, t, tab, "window.__state.text === ''")

	if err := s.browser.SetUseDebugger(ctx, true); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.browser.SetUseDebugger(context.Background(), false) })
	s.ok(ctx, t, "browser_type", map[string]any{"element": "Draft", "ref": ed, "text": "hello", "tab": slot})
	waitJS(ctx, t, tab, "window.__state.text === 'hello'")
}

// TestIframeEditor types into a rich-text editor whose body is a
// contenteditable document in a same-origin iframe (TinyMCE's build): the
// snapshot offers the body as a textbox named by the iframe's title, as
// Chromium does, and browser_type replaces its text.
func TestIframeEditor(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/iframe-editor.html")
	snap := s.snapshot(ctx, t, slot)
	ed := ref(t, snap, "textbox", "Rich Text Area")
	s.ok(ctx, t, "browser_type", map[string]any{"element": "editor", "ref": ed, "text": "Hello from the frame", "tab": slot})
	if v := js[string](ctx, t, tab, "String(window.__state.text)"); v != "Hello from the frame" {
		t.Errorf("the editor's copy is %q after browser_type", v)
	}
	if v := js[string](ctx, t, tab, "document.getElementById('ed').contentDocument.body.textContent"); v != "Hello from the frame" {
		t.Errorf("the frame's body holds %q", v)
	}
	s.ok(ctx, t, "browser_press_key", map[string]any{"key": "!", "tab": slot})
	if v := js[string](ctx, t, tab, "String(window.__state.text)"); v != "Hello from the frame!" {
		t.Errorf("after pressing ! the editor's copy is %q", v)
	}
}

// TestClickHiddenTwinDebugger: the same checks in the debugger mode, whose
// click is real input at the element's place (issue 27): the copy with a
// visible twin is refused before any input, naming the twin; the twin is
// clicked for real and selects; a transparent copy is clicked for real and
// the answer says the click had no effect; a clipped copy whose place shows
// another element is not clicked at all (the real click would land there).
func TestClickHiddenTwinDebugger(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	if err := s.browser.SetUseDebugger(ctx, true); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.browser.SetUseDebugger(context.Background(), false); err != nil {
			t.Errorf("switching the debugger mode off again: %v", err)
		}
	})
	tab, slot := s.openShared(ctx, t, "/hidden-twin.html")
	js[bool](ctx, t, tab, `(window.__trusted = [], document.addEventListener('click', (e) => window.__trusted.push(e.isTrusted), true), true)`)
	snap := s.snapshot(ctx, t, slot)

	msg := s.fails(ctx, t, "browser_click", map[string]any{"element": "Banana option", "ref": ref(t, snap, "option", "Banana"), "tab": slot})
	m := regexp.MustCompile(`\[ref=(e\d+)\]: click that ref instead`).FindStringSubmatch(msg)
	if m == nil || !strings.Contains(msg, "nothing was clicked") {
		t.Fatalf("the debugger-mode click on the copy is not refused with its twin's ref: %s", msg)
	}
	if n := js[int](ctx, t, tab, "window.__trusted.length"); n != 0 {
		t.Fatalf("the refused click reached the page (%d clicks)", n)
	}
	s.ok(ctx, t, "browser_click", map[string]any{"element": "Banana", "ref": m[1], "tab": slot})
	if v := js[string](ctx, t, tab, "String(window.__state.selected) + ' ' + JSON.stringify(window.__trusted)"); v != "banana [true]" {
		t.Errorf("after the real click on the twin: %q, want banana selected by one trusted click", v)
	}

	msg = s.fails(ctx, t, "browser_click", map[string]any{"element": "Elderberry option", "ref": ref(t, snap, "option", "Elderberry"), "tab": slot})
	if !strings.Contains(msg, "no effect") || !strings.Contains(msg, "not visible (transparent") {
		t.Errorf("the real click on the transparent copy is not reported as having no effect: %s", msg)
	}
	if v := js[string](ctx, t, tab, "JSON.stringify(window.__trusted)"); v != "[true,true]" {
		t.Errorf("the transparent copy was not clicked for real: clicks %s", v)
	}

	msg = s.fails(ctx, t, "browser_click", map[string]any{"element": "Durian option", "ref": ref(t, snap, "option", "Durian"), "tab": slot})
	if !strings.Contains(msg, "not visible") || !strings.Contains(msg, "would land on") || !strings.Contains(msg, "nothing was clicked") {
		t.Errorf("the click on the clipped copy is not refused as landing elsewhere: %s", msg)
	}
	if v := js[string](ctx, t, tab, "JSON.stringify(window.__trusted)"); v != "[true,true]" {
		t.Errorf("the refused click on the clipped copy reached the page: clicks %s", v)
	}
	if v := js[string](ctx, t, tab, "String(window.__state.selected)"); v != "banana" {
		t.Errorf("the selection changed to %q", v)
	}
}
