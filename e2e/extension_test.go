package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/monkbrowse/monkbrowse/e2e/harness"
)

// TestExtensionLoads checks the launcher on its own: Chromium starts with the
// unpacked extension, its service worker runs, the popup page lists a tab,
// and the extension reports its connection state for a port where nothing
// listens.
func TestExtensionLoads(t *testing.T) {
	p := needBrowser(t)
	ctx := testContext(t, testTimeout)
	b, err := harness.Launch(ctx, harness.BrowserConfig{ExecPath: p.chromium, Monkbrowse: p.bin, Extension: p.ext, Output: logSink(), Name: "chromium-launcher"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()

	ver, err := harness.EvalServiceWorker[string](ctx, b, `chrome.runtime.getManifest().manifest_version + ' ' + chrome.runtime.id`)
	if err != nil {
		t.Fatal(err)
	}
	if want := "3 " + p.ext.ID; ver != want {
		t.Fatalf("service worker reports %q, want %q (EXTENSION_ID must match the manifest key)", ver, want)
	}

	dead, err := harness.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	if err := b.SetSettings(ctx, dead, "launcher"); err != nil {
		t.Fatal(err)
	}
	fx := fixtures()
	tab, err := b.NewTab(ctx, unique(fx.URL("/links.html")))
	if err != nil {
		t.Fatal(err)
	}
	defer tab.Close()
	pop, err := b.OpenPopup(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer pop.Close()
	id, err := pop.ChromeTabID(ctx, tab)
	if err != nil {
		t.Fatal(err)
	}
	if err := pop.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	waitJS(ctx, t, pop.Tab, fmt.Sprintf(`!!document.querySelector('li[data-tab-id="%d"] input.share')`, id))
	label := js[string](ctx, t, pop.Tab, fmt.Sprintf(`document.querySelector('li[data-tab-id="%d"] input.share').getAttribute('aria-label')`, id))
	if !strings.Contains(label, "Links one") {
		t.Errorf("the Share toggle's label is %q, want it to name the tab title %q", label, "Links one")
	}
	// Nothing listens on the port: the extension must say it is not connected.
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, err := pop.Status(ctx)
		if err == nil && st.Port == dead && st.State != "connected" && st.State != "" {
			t.Logf("status for a dead port: %+v", st)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("status for a dead port %d: %+v (err %v)", dead, st, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
