package main

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

// ReleaseGo is the toolchain every release binary is built with. Two runs
// with the same toolchain, sources and VERSION give the same bytes; the go
// command fetches this toolchain from the module proxy when the local one
// differs (GOTOOLCHAIN).
const ReleaseGo = "go1.26.8"

// Platforms are the release targets, GOOS/GOARCH.
var Platforms = []string{
	"darwin/amd64", "darwin/arm64",
	"linux/amd64", "linux/arm64",
	"windows/amd64", "windows/arm64",
}

var versionRE = regexp.MustCompile(`^(\d+)\.(\d+)\.(\d+)(-[0-9A-Za-z.-]+)?$`)

// zipTime is the modification time of every zip entry: the earliest time a
// zip's DOS date can hold, so no build clock leaks into the archive.
var zipTime = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)

// release builds every artifact into the output directory and writes
// SHA256SUMS.
func (t *tool) release(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("release", flag.ContinueOnError)
	fs.SetOutput(t.log)
	out := fs.String("out", "dist", "output `directory` (relative to the repository root)")
	plats := fs.String("platforms", strings.Join(Platforms, ","), "comma-separated GOOS/GOARCH `list`")
	skipExt := fs.Bool("skip-extension", false, "build only the binaries")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("usage: scripts/release [-out DIR] [-platforms LIST] VERSION (for example 0.4.0 or v0.4.0-rc.1)")
	}
	version := strings.TrimPrefix(fs.Arg(0), "v")
	if !versionRE.MatchString(version) {
		return fmt.Errorf("version %q: use MAJOR.MINOR.PATCH with an optional -prerelease, such as 0.4.0 or 0.4.0-rc.1", fs.Arg(0))
	}
	dir := *out
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(t.root, dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := cleanDist(dir); err != nil {
		return err
	}
	var files []string
	for _, p := range strings.Split(*plats, ",") {
		goos, goarch, ok := strings.Cut(strings.TrimSpace(p), "/")
		if !ok || goos == "" || goarch == "" {
			return fmt.Errorf("-platforms: %q is not GOOS/GOARCH", p)
		}
		name := fmt.Sprintf("monkbrowse-%s-%s-%s", version, goos, goarch)
		if goos == "windows" {
			name += ".exe"
		}
		t.logf("release: %s", name)
		err := t.cmd("server", []string{
			"CGO_ENABLED=0", "GOOS=" + goos, "GOARCH=" + goarch, "GOTOOLCHAIN=" + ReleaseGo,
			"GOFLAGS=-mod=readonly", "GOAMD64=v1", "GOARM64=v8.0",
		}, "go", "build", "-trimpath", "-buildvcs=false",
			"-ldflags", "-s -w -buildid= -X github.com/monkbrowse/monkbrowse/protocol.Version="+version,
			"-o", filepath.Join(dir, name), "./cmd/monkbrowse")
		if err != nil {
			return err
		}
		files = append(files, name)
	}
	if !*skipExt {
		if err := t.npmInstall(); err != nil {
			return err
		}
		t.logf("release: the extension (wxt build)")
		if err := t.buildExtension([]string{"SOURCE_DATE_EPOCH=315532800"}); err != nil {
			return err
		}
		built := filepath.Join(t.root, "extension", ".output", "chrome-mv3")
		for _, store := range []bool{false, true} {
			name := fmt.Sprintf("monkbrowse-extension-%s.zip", version)
			if store {
				name = fmt.Sprintf("monkbrowse-extension-%s-store.zip", version)
			}
			t.logf("release: %s", name)
			if err := zipExtension(built, filepath.Join(dir, name), version, store); err != nil {
				return err
			}
			files = append(files, name)
		}
	}
	if err := writeSums(dir, files); err != nil {
		return err
	}
	sort.Strings(files)
	for _, f := range append(files, "SHA256SUMS") {
		st, err := os.Stat(filepath.Join(dir, f))
		if err != nil {
			return err
		}
		shown := filepath.Join(dir, f)
		if r, err := filepath.Rel(t.root, shown); err == nil && !strings.HasPrefix(r, "..") {
			shown = r
		}
		fmt.Fprintf(stdout, "%10d  %s\n", st.Size(), shown)
	}
	return nil
}

// cleanDist removes the artifacts of an earlier run (and nothing else).
func cleanDist(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if !e.IsDir() && (strings.HasPrefix(e.Name(), "monkbrowse-") || e.Name() == "SHA256SUMS") {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// manifestFor rewrites the built manifest for a release: version stamped
// (Chrome's version is MAJOR.MINOR.PATCH; a prerelease goes to version_name)
// and, for the Chrome Web Store, without the key (the store signs the
// extension with its own key; its id is known only once published). The
// output is indented JSON with sorted keys, so it is the same every time.
func manifestFor(raw []byte, version string, store bool) ([]byte, error) {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("manifest.json: %w", err)
	}
	core, pre, _ := strings.Cut(version, "-")
	m["version"] = core
	if pre != "" {
		m["version_name"] = version
	} else {
		delete(m, "version_name")
	}
	if store {
		delete(m, "key")
	} else if _, ok := m["key"]; !ok {
		return nil, errors.New("manifest.json has no key: the unpacked build must carry it so its id is fixed")
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// zipExtension writes the unpacked extension in dir as a deterministic zip:
// entries sorted by path, manifest.json rewritten by manifestFor, every time
// 1980-01-01 00:00 and every mode 0644, no directory entries.
func zipExtension(dir, dst, version string, store bool) error {
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			r, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			paths = append(paths, filepath.ToSlash(r))
		} else if !d.IsDir() {
			return fmt.Errorf("%s: not a regular file", p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return fmt.Errorf("%s is empty: the extension was not built", dir)
	}
	sort.Strings(paths)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, p := range paths {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			return err
		}
		if p == "manifest.json" {
			if data, err = manifestFor(data, version, store); err != nil {
				return err
			}
		}
		h := &zip.FileHeader{Name: p, Method: zip.Deflate, Modified: zipTime}
		h.SetMode(0o644)
		w, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if _, err := w.Write(data); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(dst, buf.Bytes(), 0o644)
}

func fileSum(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// writeSums writes SHA256SUMS in the format of sha256sum (two spaces, sorted
// by name), so `sha256sum -c SHA256SUMS` checks it.
func writeSums(dir string, files []string) error {
	names := append([]string(nil), files...)
	sort.Strings(names)
	var b strings.Builder
	for _, f := range names {
		s, err := fileSum(filepath.Join(dir, f))
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s  %s\n", s, f)
	}
	return os.WriteFile(filepath.Join(dir, "SHA256SUMS"), []byte(b.String()), 0o644)
}

// verifySums checks every line of DIR/SHA256SUMS and returns how many files
// it checked.
func verifySums(dir string) (int, error) {
	b, err := os.ReadFile(filepath.Join(dir, "SHA256SUMS"))
	if err != nil {
		return 0, err
	}
	n := 0
	for i, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok || len(sum) != 64 || name == "" || strings.ContainsAny(name, `/\`) {
			return n, fmt.Errorf("SHA256SUMS line %d is malformed: %q", i+1, line)
		}
		got, err := fileSum(filepath.Join(dir, name))
		if err != nil {
			return n, err
		}
		if got != sum {
			return n, fmt.Errorf("%s: sha256 %s, SHA256SUMS says %s", name, got, sum)
		}
		n++
	}
	if n == 0 {
		return 0, errors.New("SHA256SUMS lists no files")
	}
	return n, nil
}

// reproduce builds VERSION again, for the given platforms and the extension,
// with an empty Go build cache, and checks that every file it writes is
// byte for byte the one in DIR.
func (t *tool) reproduce(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("reproduce", flag.ContinueOnError)
	fs.SetOutput(t.log)
	plats := fs.String("platforms", "linux/amd64", "comma-separated GOOS/GOARCH `list` to rebuild")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return errors.New("usage: devtool reproduce [-platforms LIST] VERSION DIR")
	}
	version, dir := fs.Arg(0), fs.Arg(1)
	tmp, err := os.MkdirTemp("", "monkbrowse-reproduce-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	cache := filepath.Join(tmp, "gocache")
	out := filepath.Join(tmp, "dist")
	old, had := os.LookupEnv("GOCACHE")
	os.Setenv("GOCACHE", cache)
	err = t.release([]string{"-out", out, "-platforms", *plats, version}, io.Discard)
	if had {
		os.Setenv("GOCACHE", old)
	} else {
		os.Unsetenv("GOCACHE")
	}
	if err != nil {
		return err
	}
	ents, err := os.ReadDir(out)
	if err != nil {
		return err
	}
	n := 0
	for _, e := range ents {
		if e.Name() == "SHA256SUMS" {
			continue // lists only the rebuilt subset
		}
		a, err := os.ReadFile(filepath.Join(out, e.Name()))
		if err != nil {
			return err
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return fmt.Errorf("%s: %w", e.Name(), err)
		}
		if !bytes.Equal(a, b) {
			return fmt.Errorf("%s differs from the rebuild with an empty build cache: not reproducible", e.Name())
		}
		fmt.Fprintf(stdout, "reproduce: %s identical (sha256 %s)\n", e.Name(), sha(a))
		n++
	}
	if n == 0 {
		return errors.New("the rebuild wrote nothing")
	}
	return nil
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
