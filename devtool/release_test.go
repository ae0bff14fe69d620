package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"
)

func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, s := range files {
		f := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

const testManifest = `{"manifest_version":3,"name":"monkbrowse","version":"0.3.0","key":"MIIBpublic","permissions":["tabs"],"description":"a <b> & c"}`

func TestZipExtensionDeterministic(t *testing.T) {
	files := map[string]string{
		"manifest.json":        testManifest,
		"background.js":        "console.log(1)",
		"chunks/popup-abc.js":  "x",
		"popup.html":           "<html></html>",
		"assets/z.css":         "a{}",
		"icons/../icons/a.png": "\x89PNG",
	}
	a, b := t.TempDir(), t.TempDir()
	writeTree(t, a, files)
	writeTree(t, b, files)
	// Different times and modes on disk must not show in the zip.
	old := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	_ = os.Chtimes(filepath.Join(b, "background.js"), old, old)
	_ = os.Chmod(filepath.Join(b, "popup.html"), 0o755)

	out := t.TempDir()
	for _, store := range []bool{false, true} {
		za, zb := filepath.Join(out, "a.zip"), filepath.Join(out, "b.zip")
		if err := zipExtension(a, za, "1.2.3-rc.1", store); err != nil {
			t.Fatal(err)
		}
		if err := zipExtension(b, zb, "1.2.3-rc.1", store); err != nil {
			t.Fatal(err)
		}
		ba, _ := os.ReadFile(za)
		bb, _ := os.ReadFile(zb)
		if !bytes.Equal(ba, bb) {
			t.Fatalf("store=%v: two zips of the same files differ", store)
		}
		zr, err := zip.NewReader(bytes.NewReader(ba), int64(len(ba)))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, f := range zr.File {
			names = append(names, f.Name)
			if !f.Modified.Equal(zipTime) || f.Mode().Perm() != 0o644 || f.Method != zip.Deflate {
				t.Errorf("%s: time %v mode %v method %d", f.Name, f.Modified, f.Mode(), f.Method)
			}
		}
		if !sort.StringsAreSorted(names) || len(names) != len(files) {
			t.Errorf("entries %v: want %d, sorted", names, len(files))
		}
		mf, err := zr.Open("manifest.json")
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(mf)
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		if _, has := m["key"]; has == store {
			t.Errorf("store=%v: manifest key present=%v", store, has)
		}
		if m["version"] != "1.2.3" || m["version_name"] != "1.2.3-rc.1" || m["description"] != "a <b> & c" {
			t.Errorf("manifest %s", raw)
		}
	}
}

func TestManifestWithoutKeyRefusedForUnpacked(t *testing.T) {
	if _, err := manifestFor([]byte(`{"version":"1.0.0"}`), "1.0.0", false); err == nil {
		t.Error("an unpacked zip without key was accepted")
	}
	if _, err := manifestFor([]byte(`{`), "1.0.0", true); err == nil {
		t.Error("a broken manifest was accepted")
	}
	b, err := manifestFor([]byte(testManifest), "2.0.0", false)
	if err != nil || strings.Contains(string(b), "version_name") || !strings.Contains(string(b), `"version": "2.0.0"`) {
		t.Errorf("%s %v", b, err)
	}
}

func TestVerifySums(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"b": "two", "a": "one"})
	if err := writeSums(dir, []string{"b", "a"}); err != nil {
		t.Fatal(err)
	}
	sums, _ := os.ReadFile(filepath.Join(dir, "SHA256SUMS"))
	if !strings.HasSuffix(strings.Split(string(sums), "\n")[0], "  a") {
		t.Errorf("not sorted: %s", sums)
	}
	if n, err := verifySums(dir); err != nil || n != 2 {
		t.Fatalf("verify: %d %v", n, err)
	}
	if sha, err := exec.LookPath("sha256sum"); err == nil {
		c := exec.Command(sha, "-c", "--quiet", "SHA256SUMS")
		c.Dir = dir
		if out, err := c.CombinedOutput(); err != nil {
			t.Errorf("sha256sum -c: %v %s", err, out)
		}
	}
	writeTree(t, dir, map[string]string{"b": "tampered"})
	if _, err := verifySums(dir); err == nil || !strings.Contains(err.Error(), "b: sha256") {
		t.Errorf("a changed file passed: %v", err)
	}
	writeTree(t, dir, map[string]string{"SHA256SUMS": "nonsense\n"})
	if _, err := verifySums(dir); err == nil {
		t.Error("a malformed SHA256SUMS passed")
	}
}

func TestReleaseRejectsBadVersion(t *testing.T) {
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	tl := &tool{root: root, log: io.Discard}
	for _, v := range []string{"", "1.2", "latest", "1.2.3;rm"} {
		if err := tl.release([]string{"-out", t.TempDir(), v}, io.Discard); err == nil {
			t.Errorf("version %q accepted", v)
		}
	}
}

// TestReleaseStamped builds the host's release binary and checks the
// stamped version. (Byte-for-byte reproducibility with a cold build cache is
// `devtool reproduce`, run by scripts/test.)
func TestReleaseStamped(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skips a release build")
	}
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if out, _ := exec.Command("go", "env", "GOVERSION").Output(); strings.TrimSpace(string(out)) != ReleaseGo {
		t.Skipf("local Go is %s, releases pin %s (the go command would download it)", strings.TrimSpace(string(out)), ReleaseGo)
	}
	dir := t.TempDir()
	tl := &tool{root: root, log: io.Discard}
	if err := tl.release([]string{"-out", dir, "-platforms", runtime.GOOS + "/" + runtime.GOARCH, "-skip-extension", "9.8.7-test"}, io.Discard); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "monkbrowse-9.8.7-test-"+runtime.GOOS+"-"+runtime.GOARCH)
	out, err := exec.Command(bin, "--version").Output()
	if err != nil || !strings.HasPrefix(string(out), "monkbrowse 9.8.7-test ") {
		t.Errorf("--version: %q %v", out, err)
	}
	if n, err := verifySums(dir); err != nil || n != 1 {
		t.Errorf("verify: %d %v", n, err)
	}
}
