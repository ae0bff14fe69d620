package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/monkbrowse/monkbrowse/e2e/harness"
)

// The leaked value a seeded recording carries in its secret step: it must
// never come back, from storage, browser_recordings, the export or a run.
const recSecret = "hunter2-never-shown"

// signupRecording is the six-step flow on testdata/rec-form.html as the
// popup's recorder would store it (issue 42), with a secret value stored
// against the rules to prove it never leaves.
func signupRecording(site string) map[string]any {
	tgt := func(role, name string) map[string]any { return map[string]any{"role": role, "name": name} }
	return map[string]any{
		"name": "Create account", "description": "Signs up for a plan", "site": site, "created": "2026-12-04T22:00:00Z",
		"params": []any{
			map[string]any{"name": "fullName", "example": "Ada Lovelace"},
			map[string]any{"name": "email", "example": "ada@example.com"},
			map[string]any{"name": "password", "secret": true, "example": recSecret},
			map[string]any{"name": "plan", "example": "Pro"},
		},
		"steps": []any{
			map[string]any{"action": "type", "target": tgt("textbox", "Full name"), "param": "fullName", "value": "Ada Lovelace"},
			map[string]any{"action": "type", "target": tgt("textbox", "Email"), "param": "email", "value": "ada@example.com"},
			map[string]any{"action": "type", "target": tgt("textbox", "Password"), "param": "password", "secret": true, "value": recSecret},
			map[string]any{"action": "select", "target": tgt("combobox", "Plan"), "param": "plan", "value": "Pro"},
			map[string]any{"action": "check", "target": tgt("checkbox", "I accept the terms")},
			map[string]any{"action": "click", "target": tgt("button", "Create account")},
			map[string]any{"action": "wait_for", "value": "Welcome, {{fullName}}!"},
		},
	}
}

// seedRecordings stores recs in the extension's storage through CDP on the
// popup (an extension page), as the recorder would have.
func seedRecordings(ctx context.Context, t *testing.T, s *suite, recs ...map[string]any) {
	t.Helper()
	b, err := json.Marshal(recs)
	if err != nil {
		t.Fatal(err)
	}
	js[bool](ctx, t, s.popup.Tab, fmt.Sprintf("chrome.storage.local.set({recordings: %s}).then(() => true)", b))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, _ = harness.Eval[bool](ctx, s.popup.Tab, "chrome.storage.local.remove('recordings').then(() => true)")
	})
}

// submitted is the form's own record of its submit, read through CDP.
type submitted struct {
	Name, Email, Plan string
	PwLength          int
	Terms             bool
}

func readSubmitted(ctx context.Context, t *testing.T, tab *harness.Tab) (submitted, bool) {
	t.Helper()
	raw := js[string](ctx, t, tab, "JSON.stringify(window.submitted)")
	if raw == "null" {
		return submitted{}, false
	}
	var sub submitted
	if err := json.Unmarshal([]byte(raw), &sub); err != nil {
		t.Fatalf("window.submitted = %s: %v", raw, err)
	}
	return sub, true
}

// runWithPerson calls browser_run on a recording with a secret step: the
// person answers the hand-off by typing the password into the page with
// trusted input (CDP) and clicking Done in the real popup.
func runWithPerson(ctx context.Context, t *testing.T, s *suite, tab *harness.Tab, args map[string]any, password string) harness.ToolResult {
	t.Helper()
	done := make(chan harness.ToolResult, 1)
	go func() { done <- s.call(ctx, t, "browser_run", args) }()
	waitJS(ctx, t, s.popup.Tab, `!!document.querySelector('#ask-list button.done') && document.querySelector('#ask-list').textContent.includes('Please enter your password')`)
	if err := tab.Do(ctx, chromedp.SendKeys(chromedp.CSS("#pw"), password)); err != nil {
		t.Fatal(err)
	}
	if err := s.popup.Tab.Do(ctx, chromedp.Click(chromedp.CSS("#ask-list button.done"))); err != nil {
		t.Fatal(err)
	}
	select {
	case res := <-done:
		return res
	case <-ctx.Done():
		t.Fatal("browser_run did not answer after the person pressed Done")
	}
	return harness.ToolResult{}
}

// TestRunRecording: a recording seeded into the extension's storage is
// listed, read and exported without its secret; the AI runs it with other
// values (success read from the page's state through CDP), the person
// entering the password in the hand-off; on a page whose label was renamed
// and whose fields moved the run heals and says how; on one whose button
// is gone it stops at that step, quoting what the page has instead.
func TestRunRecording(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, 3*testTimeout)
	tab, slot := s.openShared(ctx, t, "/rec-form.html")
	seedRecordings(ctx, t, s, signupRecording(s.fx.Origin()))

	// ---- the list, the steps and the export ----
	list := s.ok(ctx, t, "browser_recordings", map[string]any{"tab": slot})
	for _, want := range []string{`"Create account"`, "7 step(s)", "fullName (recorded as \"Ada Lovelace\")", "password (a secret: the person enters it)", "Signs up for a plan"} {
		if !strings.Contains(list, want) {
			t.Errorf("the list lacks %q:\n%s", want, list)
		}
	}
	steps := s.ok(ctx, t, "browser_recordings", map[string]any{"tab": slot, "name": "Create account"})
	if !strings.Contains(steps, `"action":"select"`) {
		t.Errorf("one recording's steps:\n%s", steps)
	}
	export := s.ok(ctx, t, "browser_recordings", map[string]any{"tab": slot, "name": "Create account", "format": "playwright"})
	if !strings.Contains(export, `page.getByRole("textbox", { name: "Email", exact: true }).fill(email)`) || !strings.Contains(export, `secret("PASSWORD")`) {
		t.Errorf("the export:\n%s", export)
	}
	for what, text := range map[string]string{"list": list, "steps": steps, "export": export} {
		if strings.Contains(text, recSecret) {
			t.Errorf("the %s carries the secret value:\n%s", what, text)
		}
	}

	// ---- run with other values ----
	args := map[string]any{"tab": slot, "recording": "Create account", "params": map[string]any{"fullName": "Grace Hopper", "email": "grace@example.com", "plan": "Team"}}
	res := runWithPerson(ctx, t, s, tab, args, "c0b0l!")
	if res.IsError {
		t.Fatalf("browser_run failed: %s", res.Text)
	}
	sub, ok := readSubmitted(ctx, t, tab)
	if !ok || sub != (submitted{Name: "Grace Hopper", Email: "grace@example.com", Plan: "team", PwLength: 6, Terms: true}) {
		t.Fatalf("the form submitted %+v (submitted=%v); answer:\n%s", sub, ok, res.Text)
	}
	if !strings.HasPrefix(res.Text, "Ran 7 of 7 steps") || !strings.Contains(res.Text, "Welcome, Grace Hopper!") || strings.Contains(res.Text, "healed") {
		t.Errorf("answer:\n%s", res.Text)
	}
	if strings.Contains(res.Text, "c0b0l!") || strings.Contains(res.Text, recSecret) {
		t.Errorf("a password is in the answer:\n%s", res.Text)
	}
	// The activity log shows each step.
	waitJS(ctx, t, s.popup.Tab, `document.querySelector('#activity-list').textContent.includes('chose an option in')`)

	// ---- a missing parameter: nothing runs ----
	tab2, slot2 := s.openShared(ctx, t, "/rec-form.html")
	out := s.fails(ctx, t, "browser_run", map[string]any{"tab": slot2, "recording": "Create account", "params": map[string]any{"fullName": "X"}})
	if !strings.Contains(out, `needs a value for "email", "plan"`) {
		t.Errorf("missing params: %s", out)
	}
	if v := js[string](ctx, t, tab2, "document.getElementById('name').value"); v != "" {
		t.Errorf("a step ran before the parameters were complete: name = %q", v)
	}

	// ---- the page changed: a label renamed, a field moved → healed ----
	tab3, slot3 := s.openShared(ctx, t, "/rec-form.html?v=renamed")
	args["tab"] = slot3
	res = runWithPerson(ctx, t, s, tab3, args, "pw2")
	if res.IsError {
		t.Fatalf("the run on the changed page failed: %s", res.Text)
	}
	if sub, ok := readSubmitted(ctx, t, tab3); !ok || sub.Email != "grace@example.com" || sub.Plan != "team" {
		t.Fatalf("the changed form submitted %+v; answer:\n%s", sub, res.Text)
	}
	t.Logf("the healed run's answer:\n%s", res.Text)
	if !strings.Contains(res.Text, `healed: no exact match; used textbox "E-mail address"`) {
		t.Errorf("the heal is not reported:\n%s", res.Text)
	}

	// ---- the button is gone → stops at that step, with what is there ----
	tab4, slot4 := s.openShared(ctx, t, "/rec-form.html?v=gone")
	args["tab"] = slot4
	res = runWithPerson(ctx, t, s, tab4, args, "pw3")
	if !res.IsError {
		t.Fatalf("the run on the page without its button succeeded: %s", res.Text)
	}
	t.Logf("the stopped run's answer:\n%s", res.Text)
	for _, want := range []string{"Ran 5 of 7 steps", "stopped at step 6 (click)", "Steps 6–7 were not run", `button "Continue"`} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("the stop report lacks %q:\n%s", want, res.Text)
		}
	}
	if _, ok := readSubmitted(ctx, t, tab4); ok {
		t.Error("the form was submitted although the run stopped before the click")
	}
	if v := js[string](ctx, t, tab4, "document.getElementById('email').value"); v != "grace@example.com" {
		t.Errorf("the steps before the stop did not run: email = %q", v)
	}

	// ---- storage never held the secret after normalisation is applied on read;
	// the steps the AI writes itself run too (a batch it is sure of) ----
	tab5, slot5 := s.openShared(ctx, t, "/rec-form.html")
	res = s.call(ctx, t, "browser_run", map[string]any{"tab": slot5, "steps": []any{
		map[string]any{"action": "type", "target": map[string]any{"role": "textbox", "name": "Full name"}, "value": "Alan Turing"},
		map[string]any{"action": "check", "target": map[string]any{"role": "checkbox", "name": "I accept the terms"}},
	}})
	if res.IsError || js[string](ctx, t, tab5, "document.getElementById('name').value") != "Alan Turing" || !js[bool](ctx, t, tab5, "document.getElementById('terms').checked") {
		t.Errorf("the AI's own steps: %s", res.Text)
	}
}

// TestRunEndsOnStopAndCancel: the person's Stop (the tab's own Pause in the
// real popup) and the app cancelling its call (notifications/cancelled)
// end a run while it waits in its second step; the third never runs.
func TestRunEndsOnStopAndCancel(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, 2*testTimeout)
	args := func(slot int) map[string]any {
		return map[string]any{"tab": slot, "steps": []any{
			map[string]any{"action": "type", "target": map[string]any{"role": "textbox", "name": "Full name"}, "value": "Ada Lovelace"},
			map[string]any{"action": "wait_for", "value": "a text this page never shows"},
			map[string]any{"action": "type", "target": map[string]any{"role": "textbox", "name": "Email"}, "value": "ada@example.com"},
		}}
	}

	// The person's Stop: the tab's Pause in the popup.
	tab, slot := s.openShared(ctx, t, "/rec-form.html")
	id, err := s.popup.ChromeTabID(ctx, tab)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan harness.ToolResult, 1)
	go func() { got <- s.call(ctx, t, "browser_run", args(slot)) }()
	waitJS(ctx, t, tab, "document.getElementById('name').value === 'Ada Lovelace'")
	row := fmt.Sprintf(`li[data-tab-id="%d"]`, id)
	if err := s.popup.Tab.Do(ctx, chromedp.Click(chromedp.CSS(row+" .tab-pause"))); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	select {
	case res := <-got:
		t.Logf("answered %s after the Pause:\n%s", time.Since(stopped).Round(time.Millisecond), res.Text)
		if !res.IsError || !strings.Contains(res.Text, "Ran 1 of 3 steps") || !strings.Contains(res.Text, "the run ended at step") || !strings.Contains(res.Text, "paused the AI") {
			t.Errorf("the run's answer after the Pause:\n%s", res.Text)
		}
		if d := time.Since(stopped); d > 2*time.Second {
			t.Errorf("the run answered %s after the Pause, want within 2 s", d)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the run did not end after the tab's Pause")
	}
	if v := js[string](ctx, t, tab, "document.getElementById('email').value"); v != "" {
		t.Errorf("the step after the Pause ran: email = %q", v)
	}
	if err := s.popup.Tab.Do(ctx, chromedp.Click(chromedp.CSS(row+" .tab-pause"))); err != nil {
		t.Fatal(err)
	}
	waitJS(ctx, t, s.popup.Tab, fmt.Sprintf(`document.querySelector('%s')?.dataset.paused === undefined`, row))

	// The app cancels its call.
	tab2, slot2 := s.openShared(ctx, t, "/rec-form.html")
	cctx, cancel := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() {
		_, err := s.server.Call(cctx, "browser_run", args(slot2))
		errc <- err
	}()
	waitJS(ctx, t, tab2, "document.getElementById('name').value === 'Ada Lovelace'")
	cancel()
	<-errc
	// Calls to one tab run in order: this snapshot runs once the run's turn is over.
	s.ok(ctx, t, "browser_snapshot", map[string]any{"tab": slot2})
	if v := js[string](ctx, t, tab2, "document.getElementById('email').value"); v != "" {
		t.Errorf("the step after the cancel ran: email = %q", v)
	}
}

// TestRunRecordingOnReactPage: a recording on a page built with React and a
// Radix dialog (libpages/react-form), run with other values: a controlled
// input, a todo added with Enter, a dialog opened and its field (which
// exists only once the dialog is open) filled and saved; judged in the
// app's own state.
func TestRunRecordingOnReactPage(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, 2*testTimeout)
	l := openLib(ctx, t, s, "react-form", false)
	tgt := func(role, name string) map[string]any { return map[string]any{"role": role, "name": name} }
	seedRecordings(ctx, t, s, map[string]any{
		"name": "Settings", "site": "http://127.0.0.1", "created": "2026-12-04T22:00:00Z",
		"params": []any{map[string]any{"name": "who", "example": "Ada"}, map[string]any{"name": "todo", "example": "milk"}, map[string]any{"name": "nick", "example": "ada"}},
		"steps": []any{
			map[string]any{"action": "type", "target": tgt("textbox", "Full name"), "param": "who"},
			map[string]any{"action": "type", "target": tgt("textbox", "New todo"), "param": "todo"},
			map[string]any{"action": "press", "target": tgt("textbox", "New todo"), "value": "Enter"},
			map[string]any{"action": "click", "target": tgt("button", "Open settings")},
			map[string]any{"action": "type", "target": tgt("textbox", "Nickname"), "param": "nick"},
			map[string]any{"action": "click", "target": tgt("button", "Save settings")},
			map[string]any{"action": "wait_for", "value": "Saved nickname: {{nick}}"},
		},
	})
	res := s.call(ctx, t, "browser_run", map[string]any{"tab": l.slot, "recording": "Settings", "params": map[string]any{"who": "Grace", "todo": "eggs", "nick": "amazing-grace"}})
	if res.IsError {
		t.Fatalf("browser_run failed: %s", res.Text)
	}
	state := js[string](ctx, t, l.tab, "JSON.stringify({name: __state.name, todos: __state.todos, open: __state.open, saved: __state.saved})")
	if state != `{"name":"GRACE","todos":["eggs"],"open":false,"saved":"amazing-grace"}` {
		t.Errorf("the app's state is %s; answer:\n%s", state, res.Text)
	}
}
