package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/monkbrowse/monkbrowse/e2e/harness"
)

// unzip extracts a release zip into dir, refusing paths that leave it.
func unzip(t *testing.T, zipPath, dir string) {
	t.Helper()
	if err := harness.Unzip(zipPath, dir); err != nil {
		t.Fatal(err)
	}
}

func manifestOf(t *testing.T, dir string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestReleaseArtifacts checks what scripts/release wrote (scripts/test sets
// MONKBROWSE_RELEASE_DIR): the unpacked zip, unzipped as a person does,
// loads in Chromium with the fixed id and connects to the release binary,
// which serves a shared tab; the store zip carries no key.
func TestReleaseArtifacts(t *testing.T) {
	dir, ver := os.Getenv("MONKBROWSE_RELEASE_DIR"), os.Getenv("MONKBROWSE_RELEASE_VERSION")
	if dir == "" || ver == "" {
		t.Skip("MONKBROWSE_RELEASE_DIR and MONKBROWSE_RELEASE_VERSION are not set (scripts/test sets them after running the release)")
	}
	p := needBrowser(t)
	ctx := testContext(t, 3*time.Minute)
	bin := filepath.Join(dir, "monkbrowse-"+ver+"-"+runtime.GOOS+"-"+runtime.GOARCH)
	out, err := exec.Command(bin, "--version").Output()
	if err != nil || !strings.HasPrefix(string(out), "monkbrowse "+ver+" ") {
		t.Fatalf("%s --version: %q %v", bin, out, err)
	}

	store := mkdir(t, p, "release-store")
	unzip(t, filepath.Join(dir, "monkbrowse-extension-"+ver+"-store.zip"), store)
	if m := manifestOf(t, store); m["key"] != nil || m["manifest_version"] != float64(3) {
		t.Errorf("the store zip's manifest: key %v, manifest_version %v", m["key"], m["manifest_version"])
	}

	unpacked := mkdir(t, p, "release-unpacked")
	unzip(t, filepath.Join(dir, "monkbrowse-extension-"+ver+".zip"), unpacked)
	m := manifestOf(t, unpacked)
	if m["key"] == nil {
		t.Fatal("the unpacked zip's manifest has no key")
	}
	if core, _, _ := strings.Cut(ver, "-"); m["version"] != core || m["version_name"] != ver {
		t.Errorf("manifest version %v / %v for release %s", m["version"], m["version_name"], ver)
	}
	port, _ := harness.FreePort()
	cport, _ := harness.FreePort()
	srv, err := harness.StartServer(ctx, harness.ServerConfig{Bin: bin, Port: port, ControlPort: cport, Home: mkdir(t, p, "home-release"), Name: "release-owner", Log: logSink()})
	if err != nil {
		t.Fatal(err)
	}
	trackServer(srv)
	t.Cleanup(func() { _ = srv.Close() })
	b, err := harness.Launch(ctx, harness.BrowserConfig{ExecPath: p.chromium, Monkbrowse: p.bin, Extension: harness.Extension{Dir: unpacked, ID: p.ext.ID}, Output: logSink(), Name: "chromium-release"})
	if err != nil {
		t.Fatalf("the released extension does not load with id %s: %v", p.ext.ID, err)
	}
	t.Cleanup(b.Close)
	if err := b.SetSettings(ctx, port, "released"); err != nil {
		t.Fatal(err)
	}
	pop, err := b.OpenPopup(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer pop.Close()
	pr := &profile{b: b, popup: pop}
	pr.waitConnected(ctx, t, port)
	pr.shareFixture(ctx, t, fixtures(), "/links2.html")
	if out := okOn(ctx, t, srv, "browser_get_text", map[string]any{"tab": pr.slot}); !strings.Contains(out, "You are on page two") {
		t.Errorf("the release binary through the released extension: %s", out)
	}
}
