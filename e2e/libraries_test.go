package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/monkbrowse/monkbrowse/e2e/harness"
)

// The real-libraries corpus: small pages bundled at test time from the real
// npm packages pinned in libpages/package.json (installed by scripts/setup),
// driven through monkbrowse like an AI would, each effect read back through
// CDP from the page's own state (window.__state, set by the framework). Every
// page runs in a window whose document does not have focus (as when Chrome is
// in the background, and in headless), and the main tasks again in a hidden
// background tab.

var (
	libOnce sync.Once
	libFx   *harness.Fixtures
	libErr  error
)

// libFixtures bundles the corpus (once per run) and serves it.
func libFixtures(t testing.TB, p *prerequisites) *harness.Fixtures {
	t.Helper()
	libOnce.Do(func() {
		dir := filepath.Join(p.root, "e2e", "libpages")
		if _, err := os.Stat(filepath.Join(dir, "node_modules", "esbuild")); err != nil {
			libErr = fmt.Errorf("the corpus's npm packages are not installed (run scripts/setup): %v", err)
			return
		}
		out := filepath.Join(p.tmp, "libpages")
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "node", "build.mjs", out)
		cmd.Dir = dir
		if b, err := cmd.CombinedOutput(); err != nil {
			libErr = fmt.Errorf("bundling the corpus: %v\n%s", err, b)
			return
		}
		libFx = harness.NewFixtures(os.DirFS(out))
	})
	missing(t, libErr)
	return libFx
}

// libTab is one corpus page shared with monkbrowse.
type libTab struct {
	s    *suite
	tab  *harness.Tab
	slot int
}

// openLib opens a corpus page, in a visible window of its own that does not
// take the focus (as when the person works in their AI app) or as a hidden
// background tab, shares it and checks that its document has no focus.
func openLib(ctx context.Context, t *testing.T, s *suite, page string, hidden bool) *libTab {
	t.Helper()
	fx := libFixtures(t, s.p)
	u := unique(fx.URL("/" + page + ".html"))
	var tab *harness.Tab
	var err error
	if hidden {
		tab, err = s.browser.NewBackgroundTab(ctx, u)
	} else {
		tab, err = s.browser.NewUnfocusedWindow(ctx, u)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tab.Close)
	waitJS(ctx, t, tab, "!!window.__state")
	lt := &libTab{s: s, tab: tab, slot: s.share(ctx, t, tab)}
	c, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := harness.WaitEval[bool](c, tab, "!document.hasFocus()", func(v bool) bool { return v }); err != nil {
		t.Fatalf("the %s page's document keeps the focus; the corpus must run without it: %v", page, err)
	}
	if hidden {
		if v := js[string](ctx, t, tab, "document.visibilityState"); v != "hidden" {
			t.Fatalf("the background tab is %q, want hidden", v)
		}
	}
	return lt
}

func (l *libTab) snap(ctx context.Context, t *testing.T) string {
	t.Helper()
	return l.s.snapshot(ctx, t, l.slot)
}

func (l *libTab) ref(ctx context.Context, t *testing.T, role, name string) string {
	t.Helper()
	return ref(t, l.snap(ctx, t), role, name)
}

func (l *libTab) do(ctx context.Context, t *testing.T, tool string, args map[string]any) string {
	t.Helper()
	args["tab"] = l.slot
	if _, ok := args["element"]; !ok && args["ref"] != nil {
		args["element"] = "target"
	}
	return l.s.ok(ctx, t, tool, args)
}

// state reads window.__state.<path> as JSON text (the page's own state).
func (l *libTab) state(ctx context.Context, t *testing.T, path string) string {
	t.Helper()
	return js[string](ctx, t, l.tab, "JSON.stringify(window.__state."+path+")")
}

// wantState waits (briefly: the answer should already reflect it) until the state matches.
func (l *libTab) wantState(ctx context.Context, t *testing.T, path, want string) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		got := l.state(ctx, t, path)
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the page's state %s is %s, want %s", path, got, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// each runs the task in a focused-less window and, when alsoHidden, again in a hidden tab.
func each(t *testing.T, page string, alsoHidden bool, task func(ctx context.Context, t *testing.T, l *libTab)) {
	modes := []bool{false}
	if alsoHidden {
		modes = append(modes, true)
	}
	for _, hidden := range modes {
		name := "window-without-focus"
		if hidden {
			name = "hidden-tab"
		}
		t.Run(name, func(t *testing.T) {
			s := shared(t)
			ctx := testContext(t, testTimeout)
			task(ctx, t, openLib(ctx, t, s, page, hidden))
		})
	}
}

func TestLibReactControlledInputs(t *testing.T) {
	each(t, "react-form", true, func(ctx context.Context, t *testing.T, l *libTab) {
		l.do(ctx, t, "browser_type", map[string]any{"ref": l.ref(ctx, t, "textbox", "Full name"), "text": "ada lovelace"})
		l.wantState(ctx, t, "name", `"ADA LOVELACE"`)
		if v := js[string](ctx, t, l.tab, "document.querySelector('input').value"); v != "ADA LOVELACE" {
			t.Errorf("the controlled input shows %q", v)
		}
		l.do(ctx, t, "browser_type", map[string]any{"ref": l.ref(ctx, t, "textbox", "Bio"), "text": "first line\nsecond"})
		l.wantState(ctx, t, "bio", `"first line\nsecond"`)
		// type … submit: the onKeyDown of the Enter must see the typed draft in state.
		l.do(ctx, t, "browser_type", map[string]any{"ref": l.ref(ctx, t, "textbox", "New todo"), "text": "buy milk", "submit": true})
		l.wantState(ctx, t, "todos", `["buy milk"]`)
		l.wantState(ctx, t, "draft", `""`)
	})
}

func TestLibRadixDialog(t *testing.T) {
	each(t, "react-form", false, func(ctx context.Context, t *testing.T, l *libTab) {
		l.do(ctx, t, "browser_click", map[string]any{"ref": l.ref(ctx, t, "button", "Open settings")})
		l.wantState(ctx, t, "open", "true")
		snap := l.snap(ctx, t)
		if _, ok := harness.Find(snap, "dialog", "Settings"); !ok {
			t.Fatalf("the snapshot does not show the modal dialog:\n%s", harness.Clip(snap, 3000))
		}
		l.do(ctx, t, "browser_type", map[string]any{"ref": ref(t, snap, "textbox", "Nickname"), "text": "Countess"})
		l.wantState(ctx, t, "nick", `"Countess"`)
		l.do(ctx, t, "browser_click", map[string]any{"ref": ref(t, snap, "button", "Save settings")})
		l.wantState(ctx, t, "saved", `"Countess"`)
		l.wantState(ctx, t, "open", "false")
		// Escape closes it again (Radix listens on the document for the key).
		l.do(ctx, t, "browser_click", map[string]any{"ref": l.ref(ctx, t, "button", "Open settings")})
		l.wantState(ctx, t, "open", "true")
		l.do(ctx, t, "browser_press_key", map[string]any{"key": "Escape"})
		l.wantState(ctx, t, "open", "false")
	})
}

func TestLibPreactSubmit(t *testing.T) {
	each(t, "preact-todo", true, func(ctx context.Context, t *testing.T, l *libTab) {
		box := l.ref(ctx, t, "textbox", "What needs doing")
		l.do(ctx, t, "browser_type", map[string]any{"ref": box, "text": "water plants", "submit": true})
		l.wantState(ctx, t, "todos", `["water plants"]`)
		l.do(ctx, t, "browser_type", map[string]any{"ref": box, "text": "call mom", "submit": true})
		l.wantState(ctx, t, "todos", `["water plants","call mom"]`)
	})
}

func TestLibVueModel(t *testing.T) {
	each(t, "vue-form", false, func(ctx context.Context, t *testing.T, l *libTab) {
		snap := l.snap(ctx, t)
		l.do(ctx, t, "browser_type", map[string]any{"ref": ref(t, snap, "textbox", "E-mail"), "text": "  ada@example.org "})
		l.wantState(ctx, t, "email", `"ada@example.org"`)
		l.do(ctx, t, "browser_click", map[string]any{"ref": ref(t, snap, "checkbox", "I agree")})
		l.wantState(ctx, t, "agreed", "true")
		l.do(ctx, t, "browser_type", map[string]any{"ref": ref(t, snap, "textbox", "City"), "text": "Lyon", "submit": true})
		l.wantState(ctx, t, "sent", `["Lyon"]`)
	})
}

func TestLibLexical(t *testing.T) {
	each(t, "lexical", true, func(ctx context.Context, t *testing.T, l *libTab) {
		ed := l.ref(ctx, t, "textbox", "Post body")
		l.do(ctx, t, "browser_type", map[string]any{"ref": ed, "text": "Hello Lexical"})
		l.wantState(ctx, t, "text", `"Hello Lexical"`)
		// Typing again replaces the text (select-all, then the editor's own insertion).
		l.do(ctx, t, "browser_type", map[string]any{"ref": ed, "text": "Second draft"})
		l.wantState(ctx, t, "text", `"Second draft"`)
		l.do(ctx, t, "browser_press_key", map[string]any{"key": "Backspace"})
		l.wantState(ctx, t, "text", `"Second draf"`)
		l.do(ctx, t, "browser_press_key", map[string]any{"key": "Ctrl+A"})
		l.do(ctx, t, "browser_press_key", map[string]any{"key": "Ctrl+B"})
		l.wantState(ctx, t, "bold", "true")
		if n := js[int](ctx, t, l.tab, "document.querySelectorAll('#editor strong, #editor .bold').length"); n == 0 {
			t.Errorf("Ctrl+B did not make the text bold in the editor's DOM")
		}
		l.do(ctx, t, "browser_press_key", map[string]any{"key": "Ctrl+Z"})
		l.wantState(ctx, t, "bold", "false")
		l.do(ctx, t, "browser_press_key", map[string]any{"key": "End"})
		l.do(ctx, t, "browser_press_key", map[string]any{"key": "t"})
		l.wantState(ctx, t, "text", `"Second draft"`)
		l.do(ctx, t, "browser_type", map[string]any{"ref": ed, "text": ""})
		l.wantState(ctx, t, "text", `""`)
	})
}

func TestLibTipTap(t *testing.T) {
	each(t, "tiptap", false, func(ctx context.Context, t *testing.T, l *libTab) {
		ed := l.ref(ctx, t, "textbox", "Comment")
		l.do(ctx, t, "browser_type", map[string]any{"ref": ed, "text": "Ship it"})
		l.wantState(ctx, t, "text", `"Ship it"`)
		l.do(ctx, t, "browser_press_key", map[string]any{"key": "Backspace"})
		l.wantState(ctx, t, "text", `"Ship i"`)
		l.do(ctx, t, "browser_press_key", map[string]any{"key": "Ctrl+A"})
		l.do(ctx, t, "browser_press_key", map[string]any{"key": "Ctrl+B"})
		l.wantState(ctx, t, "bold", "true")
		if html := l.state(ctx, t, "html"); !strings.Contains(html, "<strong>") {
			t.Errorf("Ctrl+B did not reach TipTap's keymap: %s", html)
		}
	})
}

func TestLibReactSelect(t *testing.T) {
	each(t, "react-select", true, func(ctx context.Context, t *testing.T, l *libTab) {
		// Clicking the combobox focuses its input, and react-select opens its menu on focus.
		l.do(ctx, t, "browser_click", map[string]any{"ref": l.ref(ctx, t, "combobox", "Fruit")})
		l.wantState(ctx, t, "menuOpen", "true")
		l.do(ctx, t, "browser_click", map[string]any{"ref": l.ref(ctx, t, "option", "Cherry")})
		l.wantState(ctx, t, "fruit", `"cherry"`)
		// Type to filter, Enter picks the first match.
		l.do(ctx, t, "browser_type", map[string]any{"ref": l.ref(ctx, t, "combobox", "Fruit"), "text": "elder", "submit": true})
		l.wantState(ctx, t, "fruit", `"elderberry"`)
	})
}

func TestLibRadixMenu(t *testing.T) {
	each(t, "radix-menu", true, func(ctx context.Context, t *testing.T, l *libTab) {
		l.do(ctx, t, "browser_click", map[string]any{"ref": l.ref(ctx, t, "button", "File actions")})
		l.wantState(ctx, t, "open", "true")
		l.do(ctx, t, "browser_click", map[string]any{"ref": l.ref(ctx, t, "menuitem", "Duplicate")})
		l.wantState(ctx, t, "last", `"duplicate"`)
		l.wantState(ctx, t, "open", "false")
	})
}

func TestLibSortableJS(t *testing.T) {
	each(t, "sortable", true, func(ctx context.Context, t *testing.T, l *libTab) {
		snap := l.snap(ctx, t)
		out := l.do(ctx, t, "browser_drag", map[string]any{
			"startElement": "Alpha", "startRef": ref(t, snap, "listitem", "Alpha"),
			"endElement": "Charlie", "endRef": ref(t, snap, "listitem", "Charlie"),
		})
		l.wantState(ctx, t, "order", `["Bravo","Charlie","Alpha","Delta"]`)
		l.wantState(ctx, t, "ends", "1")
		// The drag's answer shows the list's new order, never "unchanged" (issue 41).
		if c, a := strings.Index(out, "Charlie"), strings.Index(out, "Alpha"); strings.Contains(out, "unchanged") || c < 0 || a < c {
			t.Errorf("the drag's answer does not show Alpha moved after Charlie:\n%s", out)
		}
	})
}

func TestLibDndKit(t *testing.T) {
	each(t, "dndkit", true, func(ctx context.Context, t *testing.T, l *libTab) {
		snap := l.snap(ctx, t)
		l.do(ctx, t, "browser_drag", map[string]any{
			"startElement": "Task A", "startRef": ref(t, snap, "button", "Task A"),
			"endElement": "Task C", "endRef": ref(t, snap, "button", "Task C"),
		})
		l.wantState(ctx, t, "order", `["Task B","Task C","Task A","Task D"]`)
	})
}

func TestLibDayPicker(t *testing.T) {
	each(t, "daypicker", false, func(ctx context.Context, t *testing.T, l *libTab) {
		snap := l.snap(ctx, t)
		line, ok := harness.FindName(snap, "May 15th, 2024")
		if !ok {
			t.Fatalf("no day 15 in the snapshot:\n%s", harness.Clip(snap, 4000))
		}
		l.do(ctx, t, "browser_click", map[string]any{"ref": line.Ref})
		l.wantState(ctx, t, "selected", `"2024-05-15"`)
	})
}

func TestLibSVGWidgets(t *testing.T) {
	each(t, "svg-switch", false, func(ctx context.Context, t *testing.T, l *libTab) {
		snap := l.snap(ctx, t)
		sw := ref(t, snap, "switch", "Dark mode")
		l.do(ctx, t, "browser_click", map[string]any{"ref": sw})
		l.wantState(ctx, t, "dark", "true")
		l.do(ctx, t, "browser_press_key", map[string]any{"key": "Space"})
		l.wantState(ctx, t, "dark", "false")
		l.do(ctx, t, "browser_click", map[string]any{"ref": ref(t, snap, "slider", "Volume")})
		// Focus events reach the widget although the window has no focus.
		l.wantState(ctx, t, "focusEvents", "1")
		l.do(ctx, t, "browser_press_key", map[string]any{"key": "ArrowRight"})
		l.do(ctx, t, "browser_press_key", map[string]any{"key": "ArrowRight"})
		l.wantState(ctx, t, "volume", "7")
	})
}

// TestLibCodeMirror5 types into CodeMirror 5, whose input is a hidden
// textarea: by the ref the snapshot gives its textbox, then by a click on
// the code and keys; the text is read back from the editor's own document.
func TestLibCodeMirror5(t *testing.T) {
	each(t, "codemirror5", true, func(ctx context.Context, t *testing.T, l *libTab) {
		snap := l.snap(ctx, t)
		ed := ref(t, snap, "textbox", "Source code")
		l.do(ctx, t, "browser_type", map[string]any{"ref": ed, "text": "const y = 2;"})
		l.wantState(ctx, t, "text", `"const y = 2;"`)
		l.do(ctx, t, "browser_press_key", map[string]any{"key": "Backspace"})
		l.wantState(ctx, t, "text", `"const y = 2"`)
		l.do(ctx, t, "browser_press_key", map[string]any{"key": "!"})
		l.wantState(ctx, t, "text", `"const y = 2!"`)
		// Focus elsewhere, then as a person would: a click on the code, End, a key.
		js[bool](ctx, t, l.tab, "(document.activeElement.blur(), true)")
		l.wantState(ctx, t, "focused", "false")
		x := js[float64](ctx, t, l.tab, "(() => { const r = document.querySelector('.CodeMirror-code .CodeMirror-line').getBoundingClientRect(); return r.left + 20; })()")
		y := js[float64](ctx, t, l.tab, "(() => { const r = document.querySelector('.CodeMirror-code .CodeMirror-line').getBoundingClientRect(); return r.top + r.height / 2; })()")
		l.do(ctx, t, "browser_click_xy", map[string]any{"x": x, "y": y})
		l.do(ctx, t, "browser_press_key", map[string]any{"key": "End"})
		l.do(ctx, t, "browser_press_key", map[string]any{"key": "?"})
		l.wantState(ctx, t, "text", `"const y = 2!?"`)
	})
}
