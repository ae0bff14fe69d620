package harness

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// DefaultChromium is where Debian's chromium package puts the browser.
const DefaultChromium = "/usr/bin/chromium"

// browserCandidates are where each OS installs Chromium or Google Chrome.
func browserCandidates() []string {
	switch runtime.GOOS {
	case "darwin":
		var c []string
		for _, app := range []string{"Chromium.app/Contents/MacOS/Chromium", "Google Chrome.app/Contents/MacOS/Google Chrome", "Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing"} {
			c = append(c, "/Applications/"+app)
			if home, err := os.UserHomeDir(); err == nil {
				c = append(c, filepath.Join(home, "Applications", app))
			}
		}
		return c
	case "windows":
		var c []string
		for _, env := range []string{"PROGRAMFILES", "PROGRAMFILES(X86)", "LOCALAPPDATA"} {
			if base := os.Getenv(env); base != "" {
				c = append(c, filepath.Join(base, "Google", "Chrome", "Application", "chrome.exe"), filepath.Join(base, "Chromium", "Application", "chrome.exe"))
			}
		}
		return c
	}
	return []string{DefaultChromium, "/usr/bin/chromium-browser", "/snap/bin/chromium", "/usr/bin/google-chrome", "/usr/bin/google-chrome-stable", "/opt/google/chrome/chrome"}
}

// ChromiumPath returns the browser to run: $MONKBROWSE_CHROMIUM, else
// Chromium or Google Chrome where this OS installs them, else chromium,
// chromium-browser or google-chrome on $PATH. Only the demo and the browser
// tests need one; building does not.
func ChromiumPath() (string, error) {
	if p := os.Getenv("MONKBROWSE_CHROMIUM"); p != "" {
		if isExecutable(p) {
			return p, nil
		}
		return "", fmt.Errorf("MONKBROWSE_CHROMIUM=%s is not an executable file", p)
	}
	for _, p := range browserCandidates() {
		if isExecutable(p) {
			return p, nil
		}
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	how := "install Chromium (Debian/Ubuntu: run scripts/setup, or apt-get install -y chromium as root)"
	switch runtime.GOOS {
	case "darwin":
		how = "install Google Chrome (https://www.google.com/chrome) or Chromium (brew install --cask chromium)"
	case "windows":
		how = "install Google Chrome (https://www.google.com/chrome, or winget install Google.Chrome)"
	}
	return "", fmt.Errorf("no Chromium or Google Chrome found: %s, or set MONKBROWSE_CHROMIUM to the browser's executable", how)
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	// Windows has no executable bits: a regular file is enough there.
	return err == nil && st.Mode().IsRegular() && (runtime.GOOS == "windows" || st.Mode()&0o111 != 0)
}

// RepoRoot finds the repository root: the nearest directory holding go.work,
// walking up from the working directory, else from this source file.
func RepoRoot() (string, error) {
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if _, file, _, ok := runtime.Caller(0); ok {
		starts = append(starts, filepath.Dir(file))
	}
	for _, dir := range starts {
		for d := dir; ; {
			if st, err := os.Stat(filepath.Join(d, "go.work")); err == nil && st.Mode().IsRegular() {
				if _, err := os.Stat(filepath.Join(d, "extension")); err == nil {
					return d, nil
				}
			}
			parent := filepath.Dir(d)
			if parent == d {
				break
			}
			d = parent
		}
	}
	return "", errors.New("cannot find the monkbrowse repository (a directory with go.work and extension/) above the working directory")
}

// Extension describes the built, unpacked extension.
type Extension struct {
	// Dir is the unpacked extension (extension/.output/chrome-mv3).
	Dir string
	// ID is the extension id from extension/EXTENSION_ID (fixed by the
	// manifest key).
	ID string
}

// FindExtension checks that the extension has been built and is not older
// than its sources, and returns where it is. The error says which command
// builds it.
func FindExtension(root string) (Extension, error) {
	ext := filepath.Join(root, "extension")
	dir := filepath.Join(ext, ".output", "chrome-mv3")
	manifest := filepath.Join(dir, "manifest.json")
	st, err := os.Stat(manifest)
	if err != nil {
		return Extension{}, fmt.Errorf("the extension is not built (%s is missing): run 'cd extension && npm ci && npm run build'", rel(root, manifest))
	}
	idb, err := os.ReadFile(filepath.Join(ext, "EXTENSION_ID"))
	if err != nil {
		return Extension{}, fmt.Errorf("extension/EXTENSION_ID is missing: %w", err)
	}
	id := strings.TrimSpace(string(idb))
	if len(id) != 32 {
		return Extension{}, fmt.Errorf("extension/EXTENSION_ID holds %q, not a 32-letter extension id", id)
	}
	if newer, ok := newestSource(ext); ok && newer.mod.After(st.ModTime().Add(time.Second)) {
		return Extension{}, fmt.Errorf("the extension build is older than its sources (%s changed after the build): run 'cd extension && npm run build'", rel(root, newer.path))
	}
	return Extension{Dir: dir, ID: id}, nil
}

type srcFile struct {
	path string
	mod  time.Time
}

// newestSource returns the most recently modified source file of the
// extension (entrypoints, lib, public, the manifest config).
func newestSource(ext string) (srcFile, bool) {
	var best srcFile
	found := false
	consider := func(p string, info fs.FileInfo) {
		if strings.Contains(p, ".test.") {
			return
		}
		if !found || info.ModTime().After(best.mod) {
			best = srcFile{p, info.ModTime()}
			found = true
		}
	}
	for _, sub := range []string{"entrypoints", "lib", "public", "assets"} {
		_ = filepath.WalkDir(filepath.Join(ext, sub), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			if info, err := d.Info(); err == nil {
				consider(p, info)
			}
			return nil
		})
	}
	for _, f := range []string{"wxt.config.ts", "package.json"} {
		if info, err := os.Stat(filepath.Join(ext, f)); err == nil {
			consider(filepath.Join(ext, f), info)
		}
	}
	return best, found
}

func rel(root, p string) string {
	if r, err := filepath.Rel(root, p); err == nil {
		return r
	}
	return p
}

// BuildServer compiles server/cmd/monkbrowse into dir and returns the
// binary's path. race builds it with the race detector.
func BuildServer(ctx context.Context, root, dir string, race bool) (string, error) {
	bin := filepath.Join(dir, "monkbrowse")
	args := []string{"build"}
	if race {
		args = append(args, "-race")
	}
	args = append(args, "-o", bin, "./cmd/monkbrowse")
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = filepath.Join(root, "server")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build ./cmd/monkbrowse (in server/) failed: %w\n%s", err, strings.TrimSpace(string(out)))
	}
	return bin, nil
}

// CopyExtension copies the unpacked extension into dir/chrome-mv3 and
// returns the copy. The id stays the same (the manifest's key fixes it), and
// a rebuild of extension/.output during the run cannot pull files from under
// a browser that is starting.
func CopyExtension(ext Extension, dir string) (Extension, error) {
	dst := filepath.Join(dir, "chrome-mv3")
	err := filepath.WalkDir(ext.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(ext.Dir, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		return Extension{}, fmt.Errorf("copying the extension: %w", err)
	}
	return Extension{Dir: dst, ID: ext.ID}, nil
}

// Unzip extracts a zip (a release's extension) into dir, refusing entries
// whose paths leave it.
func Unzip(zipPath, dir string) error {
	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		return err
	}
	defer zr.Close()
	root := filepath.Clean(dir) + string(filepath.Separator)
	for _, f := range zr.File {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if !strings.HasPrefix(p, root) {
			return fmt.Errorf("zip entry %q leaves the folder", f.Name)
		}
		if f.FileInfo().IsDir() {
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		r, err := f.Open()
		if err != nil {
			return err
		}
		b, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			return err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// ReleasedExtension unpacks a release's extension zip (the unpacked-install
// one, whose manifest keeps the key, so the id is extension/EXTENSION_ID's)
// into dir/chrome-mv3: the suite then runs the artifact a person downloads,
// and nothing that rebuilds extension/.output meanwhile can touch it.
func ReleasedExtension(root, zipPath, dir string) (Extension, error) {
	idb, err := os.ReadFile(filepath.Join(root, "extension", "EXTENSION_ID"))
	if err != nil {
		return Extension{}, fmt.Errorf("extension/EXTENSION_ID is missing: %w", err)
	}
	dst := filepath.Join(dir, "chrome-mv3")
	if err := Unzip(zipPath, dst); err != nil {
		return Extension{}, fmt.Errorf("unpacking the released extension %s: %w", zipPath, err)
	}
	if _, err := os.Stat(filepath.Join(dst, "manifest.json")); err != nil {
		return Extension{}, fmt.Errorf("the released extension %s has no manifest.json at its top", zipPath)
	}
	return Extension{Dir: dst, ID: strings.TrimSpace(string(idb))}, nil
}
