package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/monkbrowse/monkbrowse/e2e/harness"
)

// chromiumPolicyDir is where Debian's Chromium reads machine policy on
// Linux (JSON files, read when the browser starts).
const chromiumPolicyDir = "/etc/chromium/policies/managed"

// writePolicy writes a real Chromium policy file for one extension id and
// removes it when the test ends. The policy names only that id (a copy of
// the extension under its own key), so other browsers on this machine,
// which load the extension under its pinned id, are not touched.
func writePolicy(t *testing.T, extID string, managed map[string]any, settings map[string]any) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("writing Chromium's machine policy needs root")
	}
	// Leave the machine as found: the folders the test makes go too
	// (removed only while empty; the deepest first, as Cleanup runs last-in first-out).
	for _, d := range []string{filepath.Dir(chromiumPolicyDir), chromiumPolicyDir} {
		if _, err := os.Stat(d); os.IsNotExist(err) {
			t.Cleanup(func() { _ = os.Remove(d) })
		}
	}
	if err := os.MkdirAll(chromiumPolicyDir, 0o755); err != nil {
		t.Fatal(err)
	}
	doc := map[string]any{"3rdparty": map[string]any{"extensions": map[string]any{extID: managed}}}
	if settings != nil {
		doc["ExtensionSettings"] = map[string]any{extID: settings}
	}
	raw, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(chromiumPolicyDir, "monkbrowse-e2e-siterules-"+extID+".json")
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := os.Remove(path); err != nil {
			t.Errorf("removing the policy file: %v", err)
		}
	})
}

// TestSitePolicy: the organisation's policy through a real Chromium
// policy (issue 44), for a copy of the extension under its own id, in its
// own browser started after the policy file is written: a blocked site
// cannot be shared and cannot be opened; a forbidden capability (JavaScript)
// is refused even though the person switched it on; an AI app the policy
// does not name is refused while the one it names works; the popup and the
// options page show what is managed ("set by your organisation"), Export
// is off; the server knows the policy (doctor's status); and with the
// debugger mode on, runtime_blocked_hosts (a host in a frame of the tab)
// makes Chrome refuse the debugger, so a click falls back to synthetic
// input and says why.
func TestSitePolicy(t *testing.T) {
	p := need(t)
	ctx := testContext(t, 3*time.Minute)
	fx := fixtures()
	ext := foreignExtension(t, p)
	writePolicy(t, ext.ID, map[string]any{
		"blockedSites":     []string{"localhost"},
		"capabilities":     map[string]any{"evaluate": false, "uploads": false},
		"allowedApps":      []string{"Policy Test App"},
		"logExport":        false,
		"logRetentionDays": 30,
	}, map[string]any{"runtime_blocked_hosts": []string{"*://localhost"}})

	port, _ := harness.FreePort()
	cport, _ := harness.FreePort()
	home := mkdir(t, p, "home-policy")
	start := func(name, client string) *harness.Server {
		srv, err := harness.StartServer(ctx, harness.ServerConfig{Bin: p.bin, Port: port, ControlPort: cport, Home: home, Name: name, Log: logSink(), ClientName: client,
			Args: []string{"--allow-extension-id", ext.ID}})
		if err != nil {
			t.Fatal(err)
		}
		trackServer(srv)
		t.Cleanup(func() { _ = srv.Close() })
		return srv
	}
	app := start("policy-owner", "Policy Test App")
	b, err := harness.Launch(ctx, harness.BrowserConfig{ExecPath: p.chromium, Monkbrowse: p.bin, Extension: ext, Output: logSink(), Name: "chromium-policy", AllowExtensionID: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	if err := b.SetSettings(ctx, port, "managed"); err != nil {
		t.Fatal(err)
	}
	pop, err := b.OpenPopup(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pop.WaitConnected(ctx, port); err != nil {
		t.Fatalf("%v\nserver log:\n%s", err, harness.Tail(app.Log(), 30))
	}
	// Chromium hands the extension its managed storage.
	managed := js[string](ctx, t, pop.Tab, `chrome.storage.managed.get(null).then(m => JSON.stringify(m))`)
	if !strings.Contains(managed, `"blockedSites":["localhost"]`) {
		t.Fatalf("Chromium did not give the extension the policy (is %s read?): %s", chromiumPolicyDir, managed)
	}
	// The person switches the debugger on; JavaScript they cannot (the
	// options page's switch is off and disabled), so it is stored on as if
	// they had switched it on before the policy came.
	if err := b.SetAllowJavaScript(ctx, true); err == nil {
		t.Fatal("the person could switch on JavaScript, which the policy forbids")
	}
	js[any](ctx, t, pop.Tab, `chrome.storage.local.get('consent').then(g => chrome.storage.local.set({consent: {...(g.consent ?? {}), evaluate: true}})).then(() => null)`)
	if err := b.SetUseDebugger(ctx, true); err != nil {
		t.Fatal(err)
	}

	// The page has a frame on a host runtime_blocked_hosts names, so Chrome
	// refuses its debugger for the tab (Chromium 156 checks every frame).
	tab, err := b.NewTab(ctx, unique(fx.URL("/rules-framed.html")))
	if err != nil {
		t.Fatal(err)
	}
	id, err := pop.ChromeTabID(ctx, tab)
	if err != nil {
		t.Fatal(err)
	}
	slot, err := pop.Share(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	on := map[string]any{"tab": slot}

	// The app the policy names works; its click falls back to synthetic input.
	snap := snapshotOn(ctx, t, app, on)
	res := callOn(ctx, t, app, "browser_click", map[string]any{"tab": slot, "element": "Next page", "ref": ref(t, snap, "button", "Next page")})
	if res.IsError || js[string](ctx, t, tab, `document.getElementById('next-count').textContent`) != "1" {
		t.Fatalf("the allowed app's click did not work: %s", res.Text)
	}
	if !strings.Contains(res.Text, "Done with synthetic input instead of real input: your organisation's policy does not let extensions use Chrome's debugger here") {
		t.Errorf("the click does not say it fell back from the debugger the policy blocks:\n%s", res.Text)
	}
	log := js[string](ctx, t, pop.Tab, `chrome.storage.session.get('debuggerLog').then(g => JSON.stringify(g.debuggerLog ?? []))`)
	t.Logf("the attach log: %s", log)
	if !strings.Contains(log, `"event":"refused"`) || strings.Contains(log, `"event":"attach"`) {
		t.Errorf("the attach log does not show Chrome refusing the debugger: %s", log)
	}

	// A full-page screenshot, which the debugger mode takes in one capture, is stitched and says why.
	if res := callOn(ctx, t, app, "browser_screenshot", map[string]any{"tab": slot, "fullPage": true}); res.IsError || !strings.Contains(res.Text, "Taken without the debugger mode's single capture: Chrome's debugger cannot be used in tab") {
		t.Errorf("the full-page screenshot does not say it was taken without the debugger: %s", harness.Clip(res.Text, 600))
	}

	// A forbidden capability, though the person switched it on.
	if res := callOn(ctx, t, app, "browser_evaluate", map[string]any{"tab": slot, "expression": "document.title"}); !res.IsError || !strings.Contains(res.Text, "your organisation's policy does not allow running JavaScript in pages") {
		t.Fatalf("evaluate was not refused by the policy: %s", res.Text)
	}

	// A blocked site: not opened, and not shareable.
	other := strings.Replace(fx.URL("/links.html"), "127.0.0.1", "localhost", 1)
	if res := callOn(ctx, t, app, "browser_navigate", map[string]any{"tab": slot, "url": other}); !res.IsError || !strings.Contains(res.Text, "Your organisation's policy keeps the AI off localhost (never)") {
		t.Fatalf("the blocked site was opened: %s", res.Text)
	}
	blocked, err := b.NewTab(ctx, unique(other))
	if err != nil {
		t.Fatal(err)
	}
	bid, err := pop.ChromeTabID(ctx, blocked)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pop.Share(ctx, bid); err == nil {
		t.Fatal("the popup shared a tab on a site the policy blocks")
	}
	waitJS(ctx, t, pop.Tab, `document.querySelector('#error').textContent.includes('set to "never" by your organisation')`)

	// An AI app the policy does not name.
	other2 := start("policy-forwarder", "Other App")
	if res := callOn(ctx, t, other2, "browser_snapshot", on); !res.IsError || !strings.Contains(res.Text, `lets only these AI apps use this browser through monkbrowse: "Policy Test App"`) || !strings.Contains(res.Text, `"Other App"`) {
		t.Fatalf("an app the policy does not name was not refused: %s", res.Text)
	}

	// The popup and the options page show what is managed.
	if err := pop.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	waitJS(ctx, t, pop.Tab, `!document.querySelector('#managed').hidden && document.querySelector('#managed').textContent.includes('Set by your organisation') && document.querySelector('#managed').textContent.includes('never: localhost')`)
	waitJS(ctx, t, pop.Tab, `document.querySelector('#allow-evaluate').disabled && !document.querySelector('#allow-evaluate').checked && document.querySelector('#allow-evaluate').closest('label').textContent.includes('set by your organisation')`)
	opts, err := b.NewTab(ctx, b.ExtensionURL("options.html"))
	if err != nil {
		t.Fatal(err)
	}
	waitJS(ctx, t, opts, `document.querySelector('#rules-table tr[data-managed="true"][data-pattern="localhost"]')?.textContent.includes('set by your organisation') ?? false`)
	waitJS(ctx, t, opts, `document.querySelector('#activity-export').disabled && document.querySelector('#rules-managed').textContent.includes('cannot be exported')`)

	// The server learned the policy: tools/list leaves out what it forbids
	// for every connected profile (here the only one), for the owner's app
	// and a forwarder's alike, and monkbrowse doctor prints it.
	for _, srv := range []*harness.Server{app, other2} {
		list, err := srv.ListTools(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tl := range list {
			names = append(names, tl.Name)
		}
		if slices.Contains(names, "browser_evaluate") || slices.Contains(names, "browser_upload_file") || !slices.Contains(names, "browser_click") {
			t.Errorf("tools/list does not follow the policy: %v", names)
		}
	}
	// monkbrowse doctor prints the policy.
	out := runDoctor(ctx, t, p, port, cport, home)
	for _, want := range []string{"policy set by your organisation", "localhost", "evaluate, uploads", "Policy Test App"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor does not print %q:\n%s", want, out)
		}
	}
	// The activity log records the refusals by app.
	waitJS(ctx, t, pop.Tab, `chrome.storage.local.get("activity").then(g => (g.activity ?? []).some(e => e.app === "Policy Test App" && e.outcome === "refused" && e.tool === "browser_evaluate"))`)
}

// runDoctor runs `monkbrowse doctor` against the owner on these ports (its
// exit code says whether everything is in place; only the text matters here).
func runDoctor(ctx context.Context, t *testing.T, p *prerequisites, port, cport int, home string) string {
	t.Helper()
	cmd := exec.CommandContext(ctx, p.bin, "doctor", "--port", fmt.Sprint(port), "--control-port", fmt.Sprint(cport))
	cmd.Env = append(os.Environ(), "HOME="+home)
	out, err := cmd.Output()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("monkbrowse doctor: %v", err)
	}
	return string(out)
}
