package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/monkbrowse/monkbrowse/server/internal/fakeext"
)

// uploadedTo returns the files the fake page's input e7 of tab 101 holds.
func uploadedTo(t *testing.T, e *fakeext.Ext) []fakeext.File {
	t.Helper()
	page := e.Page(101)
	el, ok := page.Element("e7")
	if !ok {
		t.Fatal("no element e7 on the fake page")
	}
	return el.Files
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func upload(t *testing.T, p *proc, path string) (string, bool) {
	t.Helper()
	r := p.call(t, "browser_upload_file", map[string]any{"element": "Attachment", "ref": "e7", "path": path})
	return resultText(r), !r.IsError
}

// TestUploadRootsAreTheCallingAppsOwn drives an owner and a forwarder with
// real MCP clients over stdio that declare roots: each app uploads from its
// own client's roots and its own --upload-root folders, never from the
// other app's; roots/list_changed makes the server read the roots again.
func TestUploadRootsAreTheCallingAppsOwn(t *testing.T) {
	home, control := t.TempDir(), freePort(t)
	ownerRoot, fwdRoot, fwdFlagRoot, laterRoot := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	ownerFile := writeFile(t, ownerRoot, "owner.txt", "from the owner's workspace")
	fwdFile := writeFile(t, fwdRoot, "fwd.txt", "from the forwarder's workspace")
	flagFile := writeFile(t, fwdFlagRoot, "flag.txt", "from --upload-root")
	laterFile := writeFile(t, laterRoot, "later.txt", "after list_changed")

	ownerRoots := &clientRoots{}
	ownerRoots.set("file://" + ownerRoot)
	owner := startProcWith(t, procOptions{legacy: true, home: home, controlPort: control, roots: ownerRoots})
	e := owner.connect(t, fakeext.Options{Label: "Work", Tabs: e2eTabs()})

	fwdRoots := &clientRoots{}
	fwdRoots.set("file://" + fwdRoot)
	fwd := startProcWith(t, procOptions{legacy: true, home: home, controlPort: control, roots: fwdRoots, forwarder: true,
		args: []string{"--upload-root", fwdFlagRoot}})
	// The forwarder is ready when it logs its role (its calls go to the
	// owner from then on); then its calls reach the owner's extension.
	if !fwd.stderr.waitForText("forwarder: another monkbrowse owns the browser connections") {
		t.Fatalf("the forwarder never reached the owner:\n%s", fwd.stderr.String())
	}
	if txt := resultText(fwd.call(t, "browser_list_tabs", nil)); !strings.Contains(txt, `profile "work"`) {
		t.Fatalf("the forwarder's browser_list_tabs does not list the owner's profile: %s", txt)
	}

	// The owner's app: its client's root only.
	if txt, ok := upload(t, owner, ownerFile); !ok || !strings.Contains(txt, "Put owner.txt (26 bytes)") {
		t.Fatalf("owner upload from its root: %s", txt)
	}
	if f := uploadedTo(t, e); len(f) != 1 || f[0].Name != "owner.txt" || string(f[0].Data) != "from the owner's workspace" {
		t.Fatalf("the page received %+v", f)
	}
	for _, path := range []string{fwdFile, flagFile} {
		if txt, ok := upload(t, owner, path); ok || !strings.Contains(txt, "outside the folders") || !strings.Contains(txt, ownerRoot) {
			t.Errorf("the owner's app uploaded %s from another app's roots: %s", path, txt)
		}
	}

	// The forwarder's app: its client's root and its own --upload-root,
	// read in the forwarder's process; never the owner's root.
	if txt, ok := upload(t, fwd, fwdFile); !ok || !strings.Contains(txt, "Put fwd.txt") {
		t.Fatalf("forwarder upload from its client's root: %s", txt)
	}
	if f := uploadedTo(t, e); len(f) != 1 || string(f[0].Data) != "from the forwarder's workspace" {
		t.Fatalf("the page received %+v", f)
	}
	if txt, ok := upload(t, fwd, flagFile); !ok || !strings.Contains(txt, "Put flag.txt") {
		t.Fatalf("forwarder upload from its --upload-root: %s", txt)
	}
	if txt, ok := upload(t, fwd, ownerFile); ok || !strings.Contains(txt, "outside the folders") {
		t.Fatalf("the forwarder's app uploaded from the owner's root: %s", txt)
	}
	if f := uploadedTo(t, e); len(f) != 1 || f[0].Name != "flag.txt" {
		t.Fatalf("a refused upload reached the page: %+v", f)
	}

	// roots/list_changed: the forwarder reads its client's roots again.
	fwdRoots.mu.Lock()
	asked := fwdRoots.asks
	fwdRoots.mu.Unlock()
	fwdRoots.set("file://" + laterRoot)
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	if err := fwd.c.RootListChanges(ctx); err != nil {
		t.Fatal(err)
	}
	// The notification and the next call travel on one stdin, in order.
	if txt, ok := upload(t, fwd, laterFile); !ok || !strings.Contains(txt, "Put later.txt") {
		t.Fatalf("upload from the new root after roots/list_changed: %s", txt)
	}
	if txt, ok := upload(t, fwd, fwdFile); ok || !strings.Contains(txt, "outside the folders") {
		t.Fatalf("the old root still counts after roots/list_changed: %s", txt)
	}
	fwdRoots.mu.Lock()
	if fwdRoots.asks != asked+1 {
		t.Errorf("roots/list was asked %d times after the change, want once (then cached)", fwdRoots.asks-asked)
	}
	fwdRoots.mu.Unlock()
}

// TestUploadWithoutAnyRoot names the flag and the client setting.
func TestUploadWithoutAnyRoot(t *testing.T) {
	p := startProc(t, true)
	p.connect(t, fakeext.Options{Label: "Work", Tabs: e2eTabs()})
	f := writeFile(t, t.TempDir(), "a.txt", "a")
	txt, ok := upload(t, p, f)
	if ok || !strings.Contains(txt, "--upload-root") || !strings.Contains(txt, "roots") {
		t.Fatalf("%s", txt)
	}
}

// TestUploadRootsNewestProtocol: a client on the newest MCP protocol gives
// its roots through an input request on the call itself.
func TestUploadRootsNewestProtocol(t *testing.T) {
	root := t.TempDir()
	roots := &clientRoots{}
	roots.set("file://" + root)
	p := startProcWith(t, procOptions{legacy: false, roots: roots})
	e := p.connect(t, fakeext.Options{Label: "Work", Tabs: e2eTabs()})
	f := writeFile(t, root, "modern.txt", "newest protocol")
	if txt, ok := upload(t, p, f); !ok || !strings.Contains(txt, "Put modern.txt") {
		t.Fatalf("%s", txt)
	}
	if got := uploadedTo(t, e); len(got) != 1 || string(got[0].Data) != "newest protocol" {
		t.Fatalf("the page received %+v", got)
	}
	if txt, ok := upload(t, p, writeFile(t, t.TempDir(), "x.txt", "x")); ok || !strings.Contains(txt, "outside the folders") {
		t.Fatalf("%s", txt)
	}
}
