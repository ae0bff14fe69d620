package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/monkbrowse/monkbrowse/e2e/harness"
)

// TestWelcomePageOnInstall: a fresh installation opens the welcome page
// (what it does, Share, the JavaScript and debugger choices, how to check
// the connection, with the live state); the popup links to it; the harness's
// marker suppresses it.
func TestWelcomePageOnInstall(t *testing.T) {
	p := needBrowser(t)
	ctx := testContext(t, 2*time.Minute)
	ext, err := harness.CopyExtension(p.ext, mkdir(t, p, "welcome-ext"))
	if err != nil {
		t.Fatal(err)
	}
	// The shared copy carries the marker once any browser was launched.
	if err := os.Remove(filepath.Join(ext.Dir, harness.NoWelcomeMarker)); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	b, err := harness.Launch(ctx, harness.BrowserConfig{ExecPath: p.chromium, Monkbrowse: p.bin, Extension: ext, Welcome: true, Output: logSink(), Name: "chromium-welcome"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	want := b.ExtensionURL("welcome.html")
	info, err := b.FindTarget(wctx, "welcome page", func(in *target.Info) bool { return in.Type == "page" && in.URL == want })
	if err != nil {
		t.Fatal(err)
	}
	tab, err := b.AttachTab(ctx, info.TargetID)
	if err != nil {
		t.Fatal(err)
	}
	waitJS(ctx, t, tab, `document.querySelector('#status').textContent.length > 0 && !document.querySelector('#status').textContent.includes('checking')`)
	text := js[string](ctx, t, tab, "document.body.innerText")
	for _, w := range []string{"Share", "JavaScript", "Debugger", "Check the connection", "monkbrowse doctor", "Not connected"} {
		if !strings.Contains(text, w) {
			t.Errorf("the welcome page lacks %q:\n%s", w, text)
		}
	}
	pop, err := b.OpenPopup(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer pop.Close()
	if href := js[string](ctx, t, pop.Tab, "document.querySelector('#open-welcome').href"); href != want {
		t.Errorf("the popup's link goes to %q, want %q", href, want)
	}

	// With the marker (every other test), no welcome page opens.
	quiet, err := harness.Launch(ctx, harness.BrowserConfig{ExecPath: p.chromium, Monkbrowse: p.bin, Extension: p.ext, Output: logSink(), Name: "chromium-no-welcome"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(quiet.Close)
	qp, err := quiet.OpenPopup(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer qp.Close()
	waitJS(ctx, t, qp.Tab, "document.querySelector('#status').textContent.length > 0")
	targets, err := quiet.Targets(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range targets {
		if strings.Contains(in.URL, "welcome.html") {
			t.Errorf("the welcome page opened although the marker suppresses it")
		}
	}
}
