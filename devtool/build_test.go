package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// hiddenBrowser reports whether a program name is a browser the path lookup
// must not find.
func hiddenBrowser(name string) bool {
	n := strings.ToLower(name)
	return strings.Contains(n, "chromium") || strings.Contains(n, "chrome")
}

// pathWithoutBrowsers builds a directory of symlinks to every program on
// $PATH except browsers, so a lookup of chromium, chromium-browser,
// google-chrome… fails while go, node, npm and the shell tools still work.
func pathWithoutBrowsers(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		ents, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if hiddenBrowser(e.Name()) {
				continue
			}
			link := filepath.Join(dir, e.Name())
			if _, err := os.Lstat(link); err == nil {
				continue // an earlier PATH entry wins, as in a lookup
			}
			_ = os.Symlink(filepath.Join(d, e.Name()), link)
		}
	}
	return dir
}

// freshCopy copies the repository's files as a fresh clone would have them:
// tracked files plus new files not ignored (so the test sees uncommitted
// work), without node_modules, builds or bin/.
func freshCopy(t *testing.T, root string) string {
	t.Helper()
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v: the test copies the checkout as a fresh clone would have it and must run in a git checkout", err)
	}
	dst := t.TempDir()
	for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		src := filepath.Join(root, filepath.FromSlash(f))
		st, err := os.Lstat(src)
		if err != nil || !st.Mode().IsRegular() {
			continue // deleted in the work tree, or a symlink
		}
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dst, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, st.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func goEnvValue(t *testing.T, key string) string {
	t.Helper()
	out, err := exec.Command("go", "env", key).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", key, err)
	}
	return strings.TrimSpace(string(out))
}

// TestBuildWithoutChromium is the README's first install step on a fresh
// clone of a machine that has Go and Node.js but no browser: scripts/build
// installs the npm packages itself and builds both halves, with every
// chromium/chrome hidden from the path lookup and MONKBROWSE_CHROMIUM unset.
func TestBuildWithoutChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skips the full build of a fresh copy")
	}
	if runtime.GOOS == "windows" {
		t.Skip("the sh wrapper; Windows runs scripts/build.cmd")
	}
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	npmCache, err := exec.Command("npm", "config", "get", "cache").Output()
	if err != nil {
		t.Skipf("npm is not installed: %v", err)
	}
	repo := freshCopy(t, root)
	if isDir(filepath.Join(repo, "extension", "node_modules")) || isFile(filepath.Join(repo, "bin", "monkbrowse")) {
		t.Fatal("the copy is not fresh")
	}
	bin := pathWithoutBrowsers(t)
	if p, err := lookPathIn("chromium", bin); err == nil {
		t.Fatalf("chromium is still found at %s", p)
	}
	env := []string{
		"PATH=" + bin,
		"HOME=" + t.TempDir(),
		"GOMODCACHE=" + goEnvValue(t, "GOMODCACHE"),
		"GOCACHE=" + goEnvValue(t, "GOCACHE"),
		"GOPATH=" + goEnvValue(t, "GOPATH"),
		"GOTOOLCHAIN=local",
		"GOFLAGS=",
		// The same npm cache as the person's, so the run needs no network
		// when the packages were fetched once.
		"npm_config_cache=" + strings.TrimSpace(string(npmCache)),
	}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "PATH", "HOME", "GOMODCACHE", "GOCACHE", "GOPATH", "GOTOOLCHAIN", "GOFLAGS", "MONKBROWSE_CHROMIUM", "GOWORK":
			continue
		}
		if strings.HasPrefix(k, "npm_") {
			continue
		}
		env = append(env, kv)
	}
	cmd := exec.Command(filepath.Join(repo, "scripts", "build"))
	cmd.Dir = t.TempDir() // the wrapper finds the repository itself
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("scripts/build failed: %v\n%s", err, out)
	}
	for _, f := range []string{"bin/monkbrowse", "extension/.output/chrome-mv3/manifest.json", "extension/.output/chrome-mv3/background.js"} {
		if !isFile(filepath.Join(repo, filepath.FromSlash(f))) {
			t.Errorf("scripts/build did not write %s\n%s", f, out)
		}
	}
	ver, err := exec.Command(filepath.Join(repo, "bin", "monkbrowse"), "--version").Output()
	if err != nil || !strings.HasPrefix(string(ver), "monkbrowse ") {
		t.Errorf("bin/monkbrowse --version: %q, %v", ver, err)
	}
	if !strings.Contains(string(out), "installing the extension's npm packages") {
		t.Errorf("scripts/build did not install the npm packages itself:\n%s", out)
	}
}

// lookPathIn is exec.LookPath with dir as the whole PATH.
func lookPathIn(name, dir string) (string, error) {
	p := filepath.Join(dir, name)
	if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
		return p, nil
	}
	return "", os.ErrNotExist
}

// TestGoDirectiveNotNewer: devtool must not demand a newer Go than the
// modules it builds.
func TestGoDirectiveNotNewer(t *testing.T) {
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	goLine := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "go "); ok {
				return strings.TrimSpace(v)
			}
		}
		t.Fatalf("%s has no go line", p)
		return ""
	}
	mine := goLine(filepath.Join(root, "devtool", "go.mod"))
	for _, m := range []string{"server", "protocol", "messaging", "tools", "forwarder"} {
		if theirs := goLine(filepath.Join(root, m, "go.mod")); versionLess(theirs, mine) {
			t.Errorf("devtool/go.mod says go %s, newer than %s/go.mod's %s", mine, m, theirs)
		}
	}
}

// versionLess compares dotted Go versions numerically.
func versionLess(a, b string) bool {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) || i < len(bs); i++ {
		var x, y int
		if i < len(as) {
			x = atoi(as[i])
		}
		if i < len(bs) {
			y = atoi(bs[i])
		}
		if x != y {
			return x < y
		}
	}
	return false
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int(c-'0')
	}
	return n
}
