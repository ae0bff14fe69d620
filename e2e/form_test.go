package e2e

import (
	"strings"
	"testing"

	"github.com/monkbrowse/monkbrowse/e2e/harness"
)

// TestFormTools fills the sign-in fixture the way a person would: type
// (with input events), click a checkbox and a radio, select options by label
// and by value, hover, then type with submit. Every effect is read back
// through CDP; the snapshot's roles, names and states are checked too.
func TestFormTools(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/form.html")

	snap := s.snapshot(ctx, t, slot)
	for _, want := range []struct{ role, name, attr string }{
		{"heading", "Sign in", "level=1"},
		{"textbox", "Email", ""},
		{"checkbox", "Remember me", ""},
		{"radio", "Free", "checked"},
		{"radio", "Pro", ""},
		{"combobox", "Country", ""},
		{"listbox", "Languages", ""},
		{"textbox", "Bio", ""},
		{"button", "Sign in", ""},
		{"button", "Delete account", "disabled"},
		{"link", "Forgot password?", ""},
	} {
		l, ok := harness.Find(snap, want.role, want.name)
		if !ok {
			t.Errorf("snapshot has no %s %q", want.role, want.name)
			continue
		}
		if l.Ref == "" {
			t.Errorf("snapshot line without a ref: %s", l.Raw)
		}
		if want.attr != "" && !l.Has(want.attr) {
			t.Errorf("snapshot line %q lacks [%s]", l.Raw, want.attr)
		}
	}
	if t.Failed() {
		t.Fatalf("snapshot:\n%s", harness.Clip(snap, 5000))
	}
	for _, hidden := range []string{"hidden-aria-token", "hidden-visibility-token", "hidden-display-token", "hidden-inert-token", "Tooltip: use your work email"} {
		if strings.Contains(snap, hidden) {
			t.Errorf("hidden content %q is in the snapshot", hidden)
		}
	}
	if l, _ := harness.Find(snap, "checkbox", "Remember me"); l.Has("checked") {
		t.Errorf("the unchecked checkbox shows as checked: %s", l.Raw)
	}
	if l, _ := harness.Find(snap, "link", "Forgot password?"); !strings.Contains(snap, "/url: /links.html") {
		t.Errorf("the link's URL is not shown under %s", l.Raw)
	}

	// browser_type replaces the content and fires input events.
	email := ref(t, snap, "textbox", "Email")
	js[bool](ctx, t, tab, "(document.getElementById('email').value = 'old@example.com', true)")
	out := s.ok(ctx, t, "browser_type", map[string]any{"element": "Email field", "ref": email, "text": "ada@example.com", "tab": slot})
	if v := js[string](ctx, t, tab, "document.getElementById('email').value"); v != "ada@example.com" {
		t.Errorf("email field holds %q after browser_type, want ada@example.com", v)
	}
	if v := js[string](ctx, t, tab, "document.getElementById('email-mirror').textContent"); v != "ada@example.com" {
		t.Errorf("the page's input listener saw %q; typing must fire input events", v)
	}
	if l, ok := harness.Find(out, "textbox", "Email"); !ok || !strings.Contains(l.Value, "ada@example.com") {
		t.Errorf("the snapshot after browser_type does not show the typed value: %q", l.Raw)
	}
	pw, ok := harness.FindName(snap, "Password")
	if !ok {
		t.Fatalf("the snapshot has no element named Password:\n%s", snap)
	}
	s.ok(ctx, t, "browser_type", map[string]any{"element": "Password", "ref": pw.Ref, "text": "s3cret!", "tab": slot})
	if v := js[string](ctx, t, tab, "document.getElementById('password').value"); v != "s3cret!" {
		t.Errorf("password field holds %q", v)
	}
	s.ok(ctx, t, "browser_type", map[string]any{"element": "Bio", "ref": ref(t, snap, "textbox", "Bio"), "text": "line one\nline two", "tab": slot})
	if v := js[string](ctx, t, tab, "document.getElementById('bio').value"); v != "line one\nline two" {
		t.Errorf("textarea holds %q", v)
	}

	// Checkbox and radio by click.
	out = s.ok(ctx, t, "browser_click", map[string]any{"element": "Remember me", "ref": ref(t, snap, "checkbox", "Remember me"), "tab": slot})
	if !js[bool](ctx, t, tab, "document.getElementById('remember').checked") {
		t.Error("the checkbox is not checked after browser_click")
	}
	if l, _ := harness.Find(out, "checkbox", "Remember me"); !l.Has("checked") {
		t.Errorf("the snapshot after the click does not show the checkbox checked: %s", l.Raw)
	}
	s.ok(ctx, t, "browser_click", map[string]any{"element": "Pro plan", "ref": ref(t, snap, "radio", "Pro"), "tab": slot})
	if v := js[string](ctx, t, tab, "document.querySelector('input[name=plan]:checked').value"); v != "pro" {
		t.Errorf("checked plan is %q after clicking Pro", v)
	}

	// Select by label, and a multi-select by value and label.
	s.ok(ctx, t, "browser_select_option", map[string]any{"element": "Country", "ref": ref(t, snap, "combobox", "Country"), "values": []string{"Japan"}, "tab": slot})
	if v := js[string](ctx, t, tab, "document.getElementById('country').value"); v != "jp" {
		t.Errorf("country is %q after selecting Japan", v)
	}
	if !strings.Contains(js[string](ctx, t, tab, "document.getElementById('events').textContent"), "change:country") {
		t.Error("selecting an option fired no change event")
	}
	s.ok(ctx, t, "browser_select_option", map[string]any{"element": "Languages", "ref": ref(t, snap, "listbox", "Languages"), "values": []string{"go", "Rust"}, "tab": slot})
	if v := js[string](ctx, t, tab, "[...document.getElementById('langs').selectedOptions].map(o => o.value).join(',')"); v != "go,rs" {
		t.Errorf("languages selected: %q, want go,rs", v)
	}

	// Hover shows the tooltip.
	out = s.ok(ctx, t, "browser_hover", map[string]any{"element": "Help button", "ref": ref(t, snap, "button", "Help"), "tab": slot})
	waitJS(ctx, t, tab, "document.getElementById('hovered').textContent === 'yes'")
	if !strings.Contains(out, "Tooltip: use your work email") {
		t.Errorf("the snapshot after browser_hover does not show the tooltip it opened:\n%s", harness.Clip(out, 3000))
	}

	// Type with submit: Enter submits the form once, with every value.
	s.ok(ctx, t, "browser_type", map[string]any{"element": "Email field", "ref": email, "text": "grace@example.com", "submit": true, "tab": slot})
	waitJS(ctx, t, tab, "document.getElementById('submits').textContent === '1'")
	got := js[string](ctx, t, tab, "document.getElementById('result').textContent")
	for _, want := range []string{"email=grace@example.com", "password=s3cret!", "remember=on", "plan=pro", "country=jp", "langs=go", "langs=rs", "bio=line one"} {
		if !strings.Contains(got, want) {
			t.Errorf("the submitted form lacks %q: %s", want, got)
		}
	}
}
