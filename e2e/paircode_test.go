package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/monkbrowse/monkbrowse/e2e/harness"
	"github.com/monkbrowse/monkbrowse/protocol"
)

// runPair runs `monkbrowse pair` (with args) as the person does where the
// server runs: HOME is the server's.
func runPair(t *testing.T, ctx context.Context, bin, home string, args ...string) string {
	t.Helper()
	cmd := exec.CommandContext(ctx, bin, append([]string{"pair"}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+home)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("monkbrowse pair %v: %v\n%s", args, err, errb.String())
	}
	return strings.TrimSpace(out.String())
}

// pasteCode types code into the real options page's "Pair with a code"
// field with trusted input (CDP key events), presses Pair and returns the
// message the page shows once it has answered.
func pasteCode(t *testing.T, ctx context.Context, opts *harness.Tab, code string) string {
	t.Helper()
	field := `#pairing #pair-code`
	// The field is emptied by the page after a pairing; after a refusal
	// the person selects the old text and types over it.
	if _, err := harness.Eval[bool](ctx, opts, `(document.querySelector('#pair-code').value = '', true)`); err != nil {
		t.Fatal(err)
	}
	if err := opts.Do(ctx, chromedp.ScrollIntoView(chromedp.CSS(field)), chromedp.Click(chromedp.CSS(field)),
		chromedp.SendKeys(chromedp.CSS(field), code), chromedp.Click(chromedp.CSS(`#pair-submit`))); err != nil {
		t.Fatalf("typing the code into the options page: %v", err)
	}
	msg, err := harness.WaitEval[string](ctx, opts, `(() => { const m = document.querySelector('#pair-message');
		return m.className === 'ok' || m.className === 'error' ? m.className + ': ' + m.textContent : ''; })()`,
		func(s string) bool { return s != "" })
	if err != nil {
		t.Fatalf("the options page never answered the paste: %v", err)
	}
	// Ready for the next paste.
	if _, err := harness.WaitEval[bool](ctx, opts, `!document.querySelector('#pair-submit').disabled`, func(b bool) bool { return b }); err != nil {
		t.Fatal(err)
	}
	if _, err := harness.Eval[bool](ctx, opts, `(document.querySelector('#pair-message').className = '', true)`); err != nil {
		t.Fatal(err)
	}
	return msg
}

// TestPairingCodeRealOptionsPage (issue 24): a Chromium with no pairing
// helper (the remote case: monkbrowse runs where Chrome's native host
// cannot reach) stays unpaired and says how to pair; a mistyped code, a
// non-code and an expired code typed into the real options page are
// refused, each saying so; the code `monkbrowse
// pair` printed pairs the extension, which then connects and shares a tab;
// the same code again is refused as used; `monkbrowse pair --reset`
// disconnects the extension and the popup says to paste a new code.
func TestPairingCodeRealOptionsPage(t *testing.T) {
	p := need(t)
	ctx := testContext(t, 3*time.Minute)
	port, _ := harness.FreePort()
	cport, _ := harness.FreePort()
	home := mkdir(t, p, "home-paircode")
	srv, err := harness.StartServer(ctx, harness.ServerConfig{Bin: p.bin, Port: port, ControlPort: cport, Home: home, Name: "owner-paircode", Log: logSink()})
	if err != nil {
		t.Fatal(err)
	}
	trackServer(srv)
	defer srv.Close()
	// No Monkbrowse: no native host in this profile.
	b, err := harness.Launch(ctx, harness.BrowserConfig{ExecPath: p.chromium, Extension: p.ext, Output: logSink(), Name: "chromium-paircode"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.SetSettings(ctx, port, "Remote"); err != nil {
		t.Fatal(err)
	}
	popup, err := b.OpenPopup(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer popup.Close()
	waitStatus := func(want string, reason func(string) bool) harness.ExtStatus {
		t.Helper()
		for {
			st, err := popup.Status(ctx)
			if err == nil && st.Port == port && st.State == want && reason(st.Reason) {
				return st
			}
			select {
			case <-ctx.Done():
				t.Fatalf("the extension's status never became %s: %+v %v\nserver log:\n%s", want, st, err, harness.Tail(srv.Log(), 30))
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	waitStatus("rejected", func(r string) bool { return strings.Contains(r, "run `monkbrowse pair` there and paste its code") })

	code := runPair(t, ctx, p.bin, home)
	if _, err := protocol.NormalizePairCode(code); err != nil {
		t.Fatalf("monkbrowse pair printed %q: %v", code, err)
	}
	opts, err := b.NewTab(ctx, b.ExtensionURL("options.html"))
	if err != nil {
		t.Fatal(err)
	}
	defer opts.Close()
	if _, err := harness.WaitEval[bool](ctx, opts, `!!document.querySelector('#pairing #pair-code')`, func(v bool) bool { return v }); err != nil {
		t.Fatalf("the options page has no pairing field: %v", err)
	}

	// A typo in the last symbol.
	last := code[len(code)-1]
	typo := code[:len(code)-1] + map[bool]string{true: "1", false: "0"}[last == '0']
	if msg := pasteCode(t, ctx, opts, typo); !strings.HasPrefix(msg, "error:") || !strings.Contains(msg, "does not know this pairing code") {
		t.Fatalf("a mistyped code: %q", msg)
	}
	if msg := pasteCode(t, ctx, opts, "not a code"); !strings.HasPrefix(msg, "error:") || !strings.Contains(msg, "not a monkbrowse pairing code") {
		t.Fatalf("not a code: %q", msg)
	}
	// A code printed more than 10 minutes ago: its file says when it expires.
	stale := runPair(t, ctx, p.bin, home)
	canon, _ := protocol.NormalizePairCode(stale)
	codeFile := filepath.Join(home, protocol.TokenDirName, "pairing-code-"+protocol.PairCodeID(canon))
	raw, err := os.ReadFile(codeFile)
	if err != nil {
		t.Fatal(err)
	}
	var rec map[string]any
	if err := json.Unmarshal(raw, &rec); err != nil || rec["expires"] == nil {
		t.Fatalf("code file %s: %v", raw, err)
	}
	rec["expires"] = time.Now().Add(-time.Minute).UTC().Format(time.RFC3339)
	raw, _ = json.Marshal(rec)
	if err := os.WriteFile(codeFile, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	if msg := pasteCode(t, ctx, opts, stale); !strings.HasPrefix(msg, "error:") || !strings.Contains(msg, "expired") {
		t.Fatalf("an expired code: %q", msg)
	}
	if msg := pasteCode(t, ctx, opts, strings.ToLower(code)); !strings.HasPrefix(msg, "ok:") || !strings.Contains(msg, "Paired with the monkbrowse on port "+itoa(port)) {
		t.Fatalf("the printed code: %q\nserver log:\n%s", msg, harness.Tail(srv.Log(), 30))
	}
	if _, err := popup.WaitConnected(ctx, port); err != nil {
		t.Fatalf("%v\nserver log:\n%s", err, harness.Tail(srv.Log(), 30))
	}
	fx := fixtures()
	url := fx.URL("/form.html?paircode=1")
	tab, err := b.NewTab(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer tab.Close()
	id, err := popup.ChromeTabIDByURL(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := popup.Share(ctx, id); err != nil {
		t.Fatal(err)
	}
	list, err := srv.Call(ctx, "browser_list_tabs", nil)
	if err != nil || list.IsError || !strings.Contains(list.Text, "Sign in fixture") {
		t.Fatalf("the code-paired extension's tab is not listed: %+v %v", list, err)
	}
	if msg := pasteCode(t, ctx, opts, code); !strings.HasPrefix(msg, "error:") || !strings.Contains(msg, "already used") {
		t.Fatalf("the code a second time: %q", msg)
	}

	// Unpairing: the running server closes the connection (at its next
	// ping) and the popup says how to pair again.
	if out := runPair(t, ctx, p.bin, home, "--reset"); !strings.Contains(out, "pair again") {
		t.Fatalf("pair --reset said %q", out)
	}
	st := waitStatus("rejected", func(r string) bool { return strings.Contains(r, "could not prove the pairing") })
	if !strings.Contains(st.Reason, "run `monkbrowse pair` where it runs and paste the new code") {
		t.Errorf("after the reset the status says %q", st.Reason)
	}
	if err := popup.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	shown, err := harness.WaitEval[string](ctx, popup.Tab, `document.querySelector('#status').textContent`,
		func(s string) bool { return strings.Contains(s, "paste the new code") })
	if err != nil {
		t.Fatalf("the popup does not say how to pair again: %q %v", shown, err)
	}
	if !strings.Contains(srv.Log(), "monkbrowse pair --reset") {
		t.Errorf("the server log does not say why it disconnected:\n%s", harness.Tail(srv.Log(), 20))
	}
	list, err = srv.Call(ctx, "browser_list_tabs", nil)
	if err != nil || !strings.Contains(list.Text, "0 connected") || !strings.Contains(list.Text, "(Remote, not connected)") {
		t.Fatalf("the unpaired extension still counts as connected: %+v %v", list, err)
	}
}
