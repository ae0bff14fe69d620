package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/monkbrowse/monkbrowse/e2e/harness"
)

// TestUploadRootsAndSymlinkEscape: browser_upload_file reads files inside
// the app's --upload-root only; a symbolic link inside the root that leads
// outside, a hidden file and /proc are refused, and the page's file input
// stays empty (read back through CDP).
func TestUploadRootsAndSymlinkEscape(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/upload.html")
	outside := t.TempDir()
	secret := filepath.Join(outside, "id_rsa")
	if err := os.WriteFile(secret, []byte("PRIVATE KEY"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp(s.uploads, "consent-")
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "innocent.txt")
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	hiddenFile := filepath.Join(dir, ".env")
	if err := os.WriteFile(hiddenFile, []byte("TOKEN=1"), 0o600); err != nil {
		t.Fatal(err)
	}
	environ := filepath.Join(dir, "environ")
	if err := os.Symlink("/proc/self/environ", environ); err != nil {
		t.Fatal(err)
	}
	in := ref(t, s.snapshot(ctx, t, slot), "button", "Attachment")
	for path, want := range map[string]string{
		secret:     "outside the folders",
		link:       "through a symbolic link",
		hiddenFile: "hidden",
		environ:    "/proc",
	} {
		msg := s.fails(ctx, t, "browser_upload_file", map[string]any{"element": "Attachment", "ref": in, "path": path, "tab": slot})
		if !strings.Contains(msg, want) {
			t.Errorf("%s: the refusal does not say %q: %s", path, want, msg)
		}
	}
	if n := js[float64](ctx, t, tab, "document.getElementById('file').files.length"); n != 0 {
		t.Fatalf("a refused file reached the page's input (%v files)", n)
	}
	if v := js[string](ctx, t, tab, "document.getElementById('file-info').textContent"); v != "none" {
		t.Fatalf("the page saw a file: %q", v)
	}
	// A regular file inside the root goes through.
	ok := filepath.Join(dir, "ok.txt")
	if err := os.WriteFile(ok, []byte("allowed"), 0o600); err != nil {
		t.Fatal(err)
	}
	s.ok(ctx, t, "browser_upload_file", map[string]any{"element": "Attachment", "ref": in, "path": ok, "tab": slot})
	waitJS(ctx, t, tab, "document.getElementById('file-content').textContent === 'allowed'")
}

// TestFileURLsOnlyWithTheAppsFlag: file: URLs are refused to an app whose
// monkbrowse was started without --allow-file-urls, and opened for an app
// (here a forwarder of the same owner) whose monkbrowse has the flag; the
// flag of one app never lets another app in.
func TestFileURLsOnlyWithTheAppsFlag(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, 2*testTimeout)
	tab, slot := s.openShared(ctx, t, "/upload.html")
	before := js[string](ctx, t, tab, "location.href")
	page := filepath.Join(t.TempDir(), "local.html")
	if err := os.WriteFile(page, []byte("<title>Local</title><h1>local file content</h1>"), 0o644); err != nil {
		t.Fatal(err)
	}
	fileURL := "file://" + page
	for _, tool := range []string{"browser_navigate", "browser_new_tab"} {
		args := map[string]any{"url": fileURL}
		if tool == "browser_navigate" {
			args["tab"] = slot
		}
		msg := s.fails(ctx, t, tool, args)
		if !strings.Contains(msg, "--allow-file-urls") {
			t.Errorf("%s: the refusal does not name the flag: %s", tool, msg)
		}
	}
	if got := js[string](ctx, t, tab, "location.href"); got != before {
		t.Fatalf("the tab moved to %s", got)
	}
	fwd, err := harness.StartServer(ctx, harness.ServerConfig{
		Bin: s.p.bin, Port: s.port, ControlPort: s.controlPort, Home: s.home, Name: "forwarder-file-urls", Log: logSink(),
		Args: []string{"--allow-file-urls"},
	})
	if err != nil {
		t.Fatal(err)
	}
	trackServer(fwd)
	t.Cleanup(func() { _ = fwd.Close() })
	out := okOn(ctx, t, fwd, "browser_navigate", map[string]any{"url": fileURL, "tab": slot})
	if !strings.Contains(out, "local file content") {
		t.Errorf("the navigation's snapshot does not show the file's content:\n%s", harness.Clip(out, 1500))
	}
	if got := js[string](ctx, t, tab, "location.href"); got != fileURL {
		t.Fatalf("the tab is at %s, want %s", got, fileURL)
	}
	// The owner's own app is still refused.
	s.ok(ctx, t, "browser_navigate", map[string]any{"url": s.fx.URL("/upload.html"), "tab": slot})
	if msg := s.fails(ctx, t, "browser_navigate", map[string]any{"url": fileURL, "tab": slot}); !strings.Contains(msg, "--allow-file-urls") {
		t.Fatalf("the owner's app: %s", msg)
	}
}

// TestDataURLAnswers: a data: URL never leaves the tab's queue stuck.
// Chrome aborts an extension's navigation of an existing tab to a data: URL
// (net::ERR_ABORTED, nothing commits), so browser_navigate answers at once
// that the tab stayed and points to browser_new_tab, which Chrome allows
// and which opens the page.
func TestDataURLAnswers(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/upload.html")
	before := js[string](ctx, t, tab, "location.href")
	dataURL := "data:text/html,<title>Data</title><h1>from a data URL</h1>"
	start := time.Now()
	msg := s.fails(ctx, t, "browser_navigate", map[string]any{"url": dataURL, "tab": slot})
	took := time.Since(start)
	if !strings.Contains(msg, "browser_new_tab") || !strings.Contains(msg, "data:") {
		t.Errorf("the answer does not explain the data: URL: %s", msg)
	}
	if took > 10*time.Second {
		t.Errorf("browser_navigate to a data: URL answered after %s", took)
	}
	if got := js[string](ctx, t, tab, "location.href"); got != before {
		t.Fatalf("the tab moved to %s", got)
	}
	// The tab's queue is free: the next call answers.
	s.ok(ctx, t, "browser_snapshot", map[string]any{"tab": slot})
	// In a new tab the data: page opens.
	out := s.ok(ctx, t, "browser_new_tab", map[string]any{"url": dataURL})
	if !strings.Contains(out, "Opened tab") {
		t.Fatalf("browser_new_tab: %s", out)
	}
	nt, err := s.browser.WaitTab(ctx, "the data: tab", func(u string) bool { return strings.HasPrefix(u, "data:text/html,") })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nt.Close)
	if got := js[string](ctx, t, nt, "document.querySelector('h1').textContent"); got != "from a data URL" {
		t.Fatalf("the new tab shows %q", got)
	}
}
