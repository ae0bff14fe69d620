package files

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestReadInsideRoot(t *testing.T) {
	dir := t.TempDir()
	f := write(t, filepath.Join(dir, "docs", "report.txt"), "hello")
	got, err := Read(f, Policy{Roots: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "report.txt" || got.Size != 5 || got.Data != base64.StdEncoding.EncodeToString([]byte("hello")) || got.Path != f {
		t.Fatalf("%+v", got)
	}
	// The same through the MCP client's roots, as a file:// URI.
	if _, err := Read(f, Policy{ClientRoots: []string{"file://" + dir}}); err != nil {
		t.Fatal(err)
	}
}

func TestNoRootNamesTheFlagAndTheClientSetting(t *testing.T) {
	f := write(t, filepath.Join(t.TempDir(), "a.txt"), "x")
	for _, p := range []Policy{{}, {ClientSupportsRoots: true}, {ClientRoots: []string{"https://example.com/"}}, {Roots: []string{filepath.Join(t.TempDir(), "missing")}}} {
		_, err := Read(f, p)
		if err == nil || !strings.Contains(err.Error(), "--upload-root") || !strings.Contains(err.Error(), "roots") {
			t.Errorf("%+v: %v", p, err)
		}
	}
}

func TestRefusals(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	secret := write(t, filepath.Join(outside, "id_rsa"), "KEY")
	write(t, filepath.Join(dir, ".ssh", "id_rsa"), "KEY")
	write(t, filepath.Join(dir, ".env"), "TOKEN=1")
	visible := write(t, filepath.Join(dir, "ok.txt"), "fine")
	big := write(t, filepath.Join(dir, "big.bin"), strings.Repeat("x", 2048))
	must(t, os.Symlink(secret, filepath.Join(dir, "escape.txt")))
	must(t, os.Symlink(outside, filepath.Join(dir, "escape-dir")))
	must(t, os.Symlink(visible, filepath.Join(dir, ".dotlink")))
	must(t, os.Symlink(filepath.Join(dir, ".ssh", "id_rsa"), filepath.Join(dir, "to-hidden")))
	must(t, os.Symlink("/proc/self/environ", filepath.Join(dir, "environ")))
	must(t, os.Symlink("/dev/zero", filepath.Join(dir, "zero")))
	must(t, os.Mkdir(filepath.Join(dir, "sub"), 0o700))
	cases := map[string]string{
		"relative.txt":                   "absolute path",
		secret:                           "outside the folders",
		filepath.Join(dir, "escape.txt"): "through a symbolic link",
		filepath.Join(dir, "escape-dir", "id_rsa"): "through a symbolic link",
		filepath.Join(dir, ".ssh", "id_rsa"):       "hidden",
		filepath.Join(dir, ".env"):                 "hidden",
		filepath.Join(dir, ".dotlink"):             "hidden",
		filepath.Join(dir, "to-hidden"):            "hidden",
		filepath.Join(dir, "environ"):              "/proc",
		filepath.Join(dir, "zero"):                 "/dev",
		filepath.Join(dir, "sub"):                  "is a folder",
		filepath.Join(dir, "missing.txt"):          "There is no file",
		big:                                        "more than the upload limit of 1.0 KiB",
	}
	p := Policy{Roots: []string{dir}, Limit: 1024}
	for path, want := range cases {
		if _, err := Read(path, p); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error containing %q", path, err, want)
		}
	}
	if _, err := Read(visible, p); err != nil {
		t.Errorf("a visible file inside the root: %v", err)
	}
}

func TestSystemDirsRefusedEvenUnderRootSlash(t *testing.T) {
	for _, path := range []string{"/proc/self/environ", "/sys/kernel/hostname", "/dev/null"} {
		if _, err := os.Lstat(path); err != nil {
			continue
		}
		if _, err := Read(path, Policy{Roots: []string{"/"}}); err == nil || !strings.Contains(err.Error(), "never uploads from") {
			t.Errorf("%s: %v", path, err)
		}
	}
}

func TestRootThatIsASymlink(t *testing.T) {
	real := t.TempDir()
	f := write(t, filepath.Join(real, "a.txt"), "a")
	link := filepath.Join(t.TempDir(), "root-link")
	must(t, os.Symlink(real, link))
	// The root's own link is resolved: the file is inside by either name.
	for _, path := range []string{f, filepath.Join(link, "a.txt")} {
		if _, err := Read(path, Policy{Roots: []string{link}}); err != nil {
			t.Errorf("%s: %v", path, err)
		}
	}
	// Hidden components above the root do not count.
	hiddenParent := filepath.Join(t.TempDir(), ".config", "app")
	g := write(t, filepath.Join(hiddenParent, "b.txt"), "b")
	if _, err := Read(g, Policy{Roots: []string{hiddenParent}}); err != nil {
		t.Errorf("a hidden folder above the root: %v", err)
	}
}

func TestRootPaths(t *testing.T) {
	got := RootPaths([]string{"file:///home/a/proj", "file://localhost/tmp/x%20y", "/abs/path", "https://example.com/", "file://otherhost/share", "relative"})
	want := []string{"/home/a/proj", "/tmp/x y", "/abs/path"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q want %q", got, want)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// A folder whose name starts with the root's name is not inside the root,
// and on Windows a path inside the root in another case is.
func TestWithinComponentsAndCase(t *testing.T) {
	cases := []struct {
		dir, path string
		sep       byte
		fold      bool
		rel       string // "" when outside
	}{
		{"/proj", "/proj", '/', false, "."},
		{"/proj", "/proj/a.txt", '/', false, "a.txt"},
		{"/proj", "/proj/sub/a.txt", '/', false, "sub/a.txt"},
		{"/proj", "/proj-secrets/id_rsa", '/', false, ""},
		{"/proj", "/projx", '/', false, ""},
		{"/proj", "/pro", '/', false, ""},
		{"/proj", "/", '/', false, ""},
		{"/proj", "/PROJ/a.txt", '/', false, ""},
		{"/", "/etc/passwd", '/', false, "etc/passwd"},
		{"/proc", "/proc/self/environ", '/', false, "self/environ"},
		{"/proc", "/processes/a", '/', false, ""},
		{`C:\Users\Me\Proj`, `C:\Users\Me\Proj\a.txt`, '\\', true, "a.txt"},
		{`C:\Users\Me\Proj`, `c:\users\me\proj\Sub\a.txt`, '\\', true, `Sub\a.txt`},
		{`c:\users\me\proj`, `C:\USERS\ME\PROJ`, '\\', true, "."},
		{`C:\Users\Me\Proj`, `C:\Users\Me\Proj-Secrets\a.txt`, '\\', true, ""},
		{`C:\Users\Me\Proj`, `c:\users\me\proj-secrets\a.txt`, '\\', true, ""},
		{`C:\`, `c:\Windows\a.txt`, '\\', true, `Windows\a.txt`},
		{`C:\Users\Me\Proj`, `D:\Users\Me\Proj\a.txt`, '\\', true, ""},
		{`C:\Users\Me\Proj`, `c:\users\me\proj\a.txt`, '\\', false, ""},
	}
	for _, c := range cases {
		rel, ok := withinPath(c.dir, c.path, c.sep, c.fold)
		if ok != (c.rel != "") || rel != c.rel {
			t.Errorf("withinPath(%q, %q, fold=%v) = %q, %v; want %q", c.dir, c.path, c.fold, rel, ok, c.rel)
		}
	}
}

// The same through Read: a file in a sibling folder whose name extends the
// root's is outside.
func TestSiblingWithTheRootsNameAsPrefixIsOutside(t *testing.T) {
	parent := t.TempDir()
	root := filepath.Join(parent, "proj")
	write(t, filepath.Join(root, "ok.txt"), "fine")
	secret := write(t, filepath.Join(parent, "proj-secrets", "id_rsa"), "KEY")
	if _, err := Read(secret, Policy{Roots: []string{root}}); err == nil || !strings.Contains(err.Error(), "outside the folders") {
		t.Fatalf("%s read with root %s: %v", secret, root, err)
	}
	if _, err := Read(filepath.Join(root, "ok.txt"), Policy{Roots: []string{root}}); err != nil {
		t.Fatal(err)
	}
}
