package e2e

import (
	"context"
	"strings"
	"testing"
)

// The input side of issue 41: with the debugger mode off, synthetic input
// does what a browser does for a person's keys and mouse. Each fixture
// reproduces one class of app; the effect is read back from the page's own
// model through CDP.

// TestInputGridCellEditor: a data grid opens its in-cell editor in the
// first key's keydown handler and focuses it; the key's text goes to that
// editor (the element focused after keydown), so "1200" stays "1200", and
// browser_type on a cell types into the editor it opens.
func TestInputGridCellEditor(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/input-grid.html")
	snap := s.snapshot(ctx, t, slot)
	amount := ref(t, snap, "gridcell", "Rent amount")
	s.ok(ctx, t, "browser_click", map[string]any{"element": "Rent amount", "ref": amount, "tab": slot})
	waitJS(ctx, t, tab, "document.activeElement && document.activeElement.getAttribute('aria-label') === 'Rent amount'")
	for _, k := range []string{"1", "2", "0", "0", "Enter"} {
		if out := s.ok(ctx, t, "browser_press_key", map[string]any{"key": k, "tab": slot}); strings.Contains(out, "showed no change") {
			t.Errorf("%s in the grid is answered as having changed nothing:\n%s", k, out)
		}
	}
	if v := js[string](ctx, t, tab, "window.__state.cells.amount"); v != "1200" {
		t.Errorf("the grid's model holds %q after typing 1200 and Enter on the cell, want 1200", v)
	}
	status := ref(t, snap, "gridcell", "Rent status")
	s.ok(ctx, t, "browser_type", map[string]any{"element": "Rent status", "ref": status, "text": "Paid", "submit": true, "tab": slot})
	if v := js[string](ctx, t, tab, "window.__state.cells.status"); v != "Paid" {
		t.Errorf("the grid's model holds %q after browser_type Paid on the cell, want Paid", v)
	}
}

// TestInputCaretKeys: in a contenteditable whose editor leaves caret keys
// to the browser (ProseMirror, Lexical), Shift+Ctrl+ArrowLeft selects the
// word before the caret (and Ctrl+B bolds it), Ctrl+Home and Ctrl+End move
// the caret to the document's ends, ArrowDown and Home move it by lines.
func TestInputCaretKeys(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/input-rich.html")
	ed := ref(t, s.snapshot(ctx, t, slot), "textbox", "Notes body")
	s.ok(ctx, t, "browser_type", map[string]any{"element": "Notes body", "ref": ed, "text": "alpha beta gamma", "tab": slot})
	waitJS(ctx, t, tab, "document.getElementById('ed').textContent === 'alpha beta gamma'")
	// Every key here changes the text or moves the caret: none may be answered as unchanged.
	press := func(k string) string {
		out := s.ok(ctx, t, "browser_press_key", map[string]any{"key": k, "tab": slot})
		if strings.Contains(out, "showed no change") {
			t.Errorf("%s is answered as having changed nothing:\n%s", k, out)
		}
		return out
	}
	press("Shift+Ctrl+ArrowLeft")
	if v := js[string](ctx, t, tab, "String(getSelection())"); v != "gamma" {
		t.Fatalf("Shift+Ctrl+ArrowLeft selected %q, want gamma", v)
	}
	press("Ctrl+B")
	waitJS(ctx, t, tab, "/<(b|strong)>gamma<\\/(b|strong)>/.test(document.getElementById('ed').innerHTML)")
	press("Ctrl+Home")
	press("X")
	waitJS(ctx, t, tab, "document.getElementById('ed').textContent.startsWith('Xalpha')")
	press("Ctrl+End")
	press("Enter")
	for _, k := range []string{"d", "e", "l", "t", "a"} {
		press(k)
	}
	waitJS(ctx, t, tab, "window.__state.text.includes('delta')")
	press("Ctrl+Home")
	press("ArrowDown")
	press("End")
	press("Home")
	press("Z")
	if v := js[string](ctx, t, tab, "Array.from(document.getElementById('ed').children).map((p) => p.textContent).join('|')"); v != "Xalpha beta gamma|Zdelta" {
		t.Errorf("after ArrowDown, End, Home and Z the paragraphs are %q, want Xalpha beta gamma|Zdelta", v)
	}
	// Shift+End from the start of a line selects to its end.
	press("Shift+End")
	if v := js[string](ctx, t, tab, "String(getSelection())"); v != "delta" {
		t.Errorf("Shift+End selected %q, want delta", v)
	}
}

// TestInputCanvasDrag: a coordinate drag on a canvas whiteboard draws the
// dragged size, not 0×0 (the app applies moves in animation frames), and
// a drag that ends past the canvas's edge still reaches it through the
// pointer capture the app set.
func TestInputCanvasDrag(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/input-whiteboard.html")
	out := s.ok(ctx, t, "browser_drag_xy", map[string]any{"startX": 90, "startY": 100, "endX": 290, "endY": 250, "tab": slot})
	if v := js[string](ctx, t, tab, "JSON.stringify(window.__state.shapes)"); v != `[{"x":50,"y":40,"w":200,"h":150}]` {
		t.Fatalf("the whiteboard holds %s after dragging 200×150 from (50, 40), want that rectangle", v)
	}
	if strings.Contains(out, "no change") {
		t.Errorf("the drag that drew a rectangle is answered as unchanged:\n%s", out)
	}
	if !js[bool](ctx, t, tab, "window.__state.captured") {
		t.Errorf("the canvas was never told it holds the pointer capture (gotpointercapture)")
	}
	// Past the canvas's right edge, over the panel beside it.
	s.ok(ctx, t, "browser_drag_xy", map[string]any{"startX": 340, "startY": 160, "endX": 520, "endY": 200, "tab": slot})
	if v := js[string](ctx, t, tab, "JSON.stringify(window.__state.shapes[1])"); v != `{"x":300,"y":100,"w":180,"h":40}` {
		t.Errorf("the drag past the canvas's edge drew %s, want the whole 180×40 (the canvas holds the pointer capture)", v)
	}
	// A key the page ignores: the answer says nothing changed and names the debugger switch.
	out = s.ok(ctx, t, "browser_press_key", map[string]any{"key": "F8", "tab": slot})
	if !strings.Contains(out, "showed no change") || !strings.Contains(out, "Use Chrome's debugger") {
		t.Errorf("a key that changed nothing is not answered as such:\n%s", out)
	}
}

// TestInputLibraryCaretKeys: the caret and selection keys in the real
// Lexical and TipTap (ProseMirror) editors, read from each editor's own
// model: Shift+Ctrl+ArrowLeft selects the last word and Ctrl+B bolds just
// it; Ctrl+Home, ArrowDown and End move the caret where the next key types.
func TestInputLibraryCaretKeys(t *testing.T) {
	t.Run("lexical", func(t *testing.T) {
		each(t, "lexical", false, func(ctx context.Context, t *testing.T, l *libTab) {
			ed := l.ref(ctx, t, "textbox", "Post body")
			l.do(ctx, t, "browser_type", map[string]any{"ref": ed, "text": "alpha beta gamma"})
			l.wantState(ctx, t, "text", `"alpha beta gamma"`)
			l.do(ctx, t, "browser_press_key", map[string]any{"key": "Shift+Ctrl+ArrowLeft"})
			l.do(ctx, t, "browser_press_key", map[string]any{"key": "Ctrl+B"})
			formats := `JSON.stringify(window.__editor.getEditorState().toJSON().root.children[0].children.map((n) => [n.text, n.format]))`
			if v := js[string](ctx, t, l.tab, formats); v != `[["alpha beta ",0],["gamma",1]]` {
				t.Errorf("Lexical's text nodes after Shift+Ctrl+ArrowLeft and Ctrl+B: %s, want gamma alone bold", v)
			}
			l.do(ctx, t, "browser_press_key", map[string]any{"key": "Ctrl+Home"})
			l.do(ctx, t, "browser_press_key", map[string]any{"key": "X"})
			l.wantState(ctx, t, "text", `"Xalpha beta gamma"`)
		})
	})
	t.Run("tiptap", func(t *testing.T) {
		each(t, "tiptap", false, func(ctx context.Context, t *testing.T, l *libTab) {
			ed := l.ref(ctx, t, "textbox", "Comment")
			js[bool](ctx, t, l.tab, "(window.__focusAt = 0, document.addEventListener('focus', () => { window.__focusAt = performance.now(); }, true), true)")
			l.do(ctx, t, "browser_type", map[string]any{"ref": ed, "text": "alpha beta gamma"})
			l.wantState(ctx, t, "text", `"alpha beta gamma"`)
			l.do(ctx, t, "browser_press_key", map[string]any{"key": "Shift+Ctrl+ArrowLeft"})
			l.do(ctx, t, "browser_press_key", map[string]any{"key": "Ctrl+B"})
			l.wantState(ctx, t, "html", `"<p>alpha beta <strong>gamma</strong></p>"`)
			l.do(ctx, t, "browser_press_key", map[string]any{"key": "Ctrl+End"})
			l.do(ctx, t, "browser_press_key", map[string]any{"key": "Enter"})
			l.do(ctx, t, "browser_press_key", map[string]any{"key": "d"})
			// ProseMirror undoes a move to the document's start within 200 ms
			// of a focus event (its guard against browsers that reset the
			// selection on focus): a person's or an AI's next action comes
			// later than that; these come faster, so wait for the guard to end.
			waitJS(ctx, t, l.tab, "performance.now() - window.__focusAt > 200")
			l.do(ctx, t, "browser_press_key", map[string]any{"key": "Ctrl+Home"})
			l.do(ctx, t, "browser_press_key", map[string]any{"key": "X"})
			l.do(ctx, t, "browser_press_key", map[string]any{"key": "ArrowDown"})
			l.do(ctx, t, "browser_press_key", map[string]any{"key": "y"})
			l.wantState(ctx, t, "text", `"Xalpha beta gamma\n\ndy"`)
		})
	})
}
