package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/monkbrowse/monkbrowse/e2e/harness"
)

// TestEditorAndKeys types into a contenteditable editor and presses keys and
// a key combination; the page's own listeners record what arrived.
func TestEditorAndKeys(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/editor.html")
	snap := s.snapshot(ctx, t, slot)

	editor := ref(t, snap, "textbox", "Note body")
	s.ok(ctx, t, "browser_type", map[string]any{"element": "Note body editor", "ref": editor, "text": "Hello from the AI", "tab": slot})
	if v := js[string](ctx, t, tab, "document.getElementById('editor').textContent"); v != "Hello from the AI" {
		t.Errorf("the editor holds %q after browser_type, want the old text replaced by %q", v, "Hello from the AI")
	}
	if v := js[string](ctx, t, tab, "document.getElementById('editor-mirror').textContent"); v != "Hello from the AI" {
		t.Errorf("the editor's input listener saw %q", v)
	}

	// Focus the one-line field by a click, then Ctrl+A selects its text.
	line := ref(t, snap, "textbox", "One line")
	s.ok(ctx, t, "browser_click", map[string]any{"element": "One line field", "ref": line, "tab": slot})
	waitJS(ctx, t, tab, "document.activeElement && document.activeElement.id === 'line'")
	s.ok(ctx, t, "browser_press_key", map[string]any{"key": "Ctrl+A", "tab": slot})
	if v := js[string](ctx, t, tab, "document.getElementById('combo').textContent"); !strings.EqualFold(v, "Ctrl+a") {
		t.Errorf("the page saw the combination %q, want Ctrl+a", v)
	}
	waitJS(ctx, t, tab, "(() => { const e = document.getElementById('line'); return e.selectionStart === 0 && e.selectionEnd === e.value.length; })()")

	s.ok(ctx, t, "browser_press_key", map[string]any{"key": "Escape", "tab": slot})
	s.ok(ctx, t, "browser_press_key", map[string]any{"key": "Shift+Tab", "tab": slot})
	keys := js[string](ctx, t, tab, "document.getElementById('keys').textContent")
	for _, want := range []string{"Ctrl+a", "Escape", "Shift+Tab"} {
		if !strings.Contains(strings.ToLower(keys), strings.ToLower(want)) {
			t.Errorf("the page's keydown log %q lacks %s", keys, want)
		}
	}
}

// TestScroll scrolls by an amount (lazy content loads) and scrolls an
// element into view by ref.
func TestScroll(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/lazy.html")
	if n := js[string](ctx, t, tab, "document.getElementById('lazy-status').textContent"); n != "0" {
		t.Fatalf("the lazy list loaded before any scroll: %s", n)
	}
	out := s.ok(ctx, t, "browser_scroll", map[string]any{"direction": "down", "amount": 4000, "tab": slot})
	if y := js[float64](ctx, t, tab, "window.scrollY"); y < 1000 {
		t.Fatalf("window.scrollY is %v after scrolling down 4000 px", y)
	}
	waitJS(ctx, t, tab, "document.getElementById('lazy-status').textContent === '3'")
	if !strings.Contains(out, "Lazy item") {
		// The content loads asynchronously; the next snapshot must show it.
		snap := s.snapshot(ctx, t, slot)
		if !strings.Contains(snap, "Lazy item 3") {
			t.Errorf("after scrolling, the snapshot does not show the lazily loaded items:\n%s", harness.Clip(snap, 3000))
		}
	}
	s.ok(ctx, t, "browser_scroll", map[string]any{"direction": "up", "amount": 10000, "tab": slot})
	if y := js[float64](ctx, t, tab, "window.scrollY"); y != 0 {
		t.Errorf("window.scrollY is %v after scrolling up past the top", y)
	}

	// Scroll an element into view by ref.
	tab2, slot2 := s.openShared(ctx, t, "/links.html")
	snap := s.snapshot(ctx, t, slot2)
	sec := ref(t, snap, "heading", "Section")
	s.ok(ctx, t, "browser_scroll", map[string]any{"element": "Section heading", "ref": sec, "tab": slot2})
	if !js[bool](ctx, t, tab2, "(() => { const r = document.getElementById('section').getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; })()") {
		t.Error("the heading is not in the viewport after scrolling it into view")
	}
}

// TestDragAndDrop drags a card onto another column of an HTML5 drag-and-drop
// board.
func TestDragAndDrop(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/drag.html")
	snap := s.snapshot(ctx, t, slot)
	card := ref(t, snap, "listitem", "Card A")
	done := ref(t, snap, "region", "Done column")
	s.ok(ctx, t, "browser_drag", map[string]any{"startElement": "Card A", "startRef": card, "endElement": "Done column", "endRef": done, "tab": slot})
	waitJS(ctx, t, tab, "document.getElementById('drop-result').textContent === 'card-a -> done'")
	if p := js[string](ctx, t, tab, "document.getElementById('card-a').closest('section').id"); p != "done" {
		t.Errorf("Card A is in column %q after the drag", p)
	}
	if ev := js[string](ctx, t, tab, "document.getElementById('drag-events').textContent"); !strings.Contains(ev, "dragstart") || !strings.Contains(ev, "drop") {
		t.Errorf("the page saw drag events %q, want dragstart … drop", ev)
	}
}

// TestUploadFile puts a file from disk into a file input; the page reads
// its name, size and content.
func TestUploadFile(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/upload.html")
	dir := s.uploads // the owner's --upload-root
	file := filepath.Join(dir, "notes.txt")
	content := "hello upload 123\nsecond line"
	if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	snap := s.snapshot(ctx, t, slot)
	in, ok := harness.FindName(snap, "Attachment")
	if !ok {
		t.Fatalf("the snapshot has no file input named Attachment:\n%s", snap)
	}
	s.ok(ctx, t, "browser_upload_file", map[string]any{"element": "Attachment", "ref": in.Ref, "path": file, "tab": slot})
	waitJS(ctx, t, tab, "document.getElementById('file-content').textContent.length > 0")
	if v := js[string](ctx, t, tab, "document.getElementById('file-info').textContent"); v != "notes.txt 28 bytes" {
		t.Errorf("the page sees the file as %q, want %q", v, "notes.txt 28 bytes")
	}
	if v := js[string](ctx, t, tab, "document.getElementById('file-content').textContent"); v != content {
		t.Errorf("the page read %q from the file", v)
	}
	// A missing file is refused with a reason, and the input is untouched.
	msg := s.fails(ctx, t, "browser_upload_file", map[string]any{"element": "Attachment", "ref": in.Ref, "path": filepath.Join(dir, "missing.txt"), "tab": slot})
	if !strings.Contains(msg, "missing.txt") {
		t.Errorf("the refusal does not name the file: %s", msg)
	}
}
