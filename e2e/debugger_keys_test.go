package e2e

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestDebuggerCtrlHome: with the debugger mode on, keys are real input,
// and the renderer's own bindings move the caret: in a textarea and a
// contenteditable, after a click, End, Ctrl+Home and a typed key put the
// key's text at the very start. (The apps corpus's ProseMirror task fails
// with the debugger on for ProseMirror's own reason: apps_test.go.)
func TestDebuggerCtrlHome(t *testing.T) {
	p := need(t)
	ctx := testContext(t, 2*testTimeout)
	sctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	s, err := newSuite(sctx, t, p, fixtures(), "ctrl-home")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.close)
	if err := s.browser.SetUseDebugger(ctx, true); err != nil {
		t.Fatal(err)
	}
	tab, slot := s.openShared(ctx, t, "/ctrl-home.html")
	snap := s.snapshot(ctx, t, slot)
	for _, c := range []struct{ role, name, read string }{
		{"textbox", "Notes", "document.getElementById('notes').value"},
		{"textbox", "Rich notes", "document.getElementById('rich').innerText"},
	} {
		s.ok(ctx, t, "browser_click", map[string]any{"tab": slot, "element": c.name, "ref": ref(t, snap, c.role, c.name)})
		for _, k := range []string{"End", "Ctrl+Home", "X"} {
			s.ok(ctx, t, "browser_press_key", map[string]any{"tab": slot, "key": k})
		}
		if got := js[string](ctx, t, tab, c.read); !strings.HasPrefix(got, "X") || strings.Count(got, "X") != 1 {
			t.Errorf("%s: after End, Ctrl+Home and X the text is %q, want X at the very start", c.name, got)
		}
	}
}
