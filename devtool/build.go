package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// modules lists the Go modules of the workspace, from go.work's use lines.
func (t *tool) modules() ([]string, error) {
	b, err := os.ReadFile(filepath.Join(t.root, "go.work"))
	if err != nil {
		return nil, err
	}
	var mods []string
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "./") {
			mods = append(mods, strings.TrimPrefix(line, "./"))
		}
	}
	if len(mods) == 0 {
		return nil, errors.New("go.work lists no modules")
	}
	return mods, nil
}

// cmd runs name with args in dir (relative to the root), its output going to
// the log; env entries are added to the environment.
func (t *tool) cmd(dir string, env []string, name string, args ...string) error {
	c := exec.Command(name, args...)
	c.Dir = filepath.Join(t.root, dir)
	c.Stdout, c.Stderr = t.log, t.log
	c.Env = append(os.Environ(), env...)
	if err := c.Run(); err != nil {
		return fmt.Errorf("%s %s (in %s): %w", name, strings.Join(args, " "), dir, err)
	}
	return nil
}

// goEnv is the environment every go command gets: the local toolchain unless
// the person chose otherwise, so a build never needs a newer Go than the
// module files ask for.
func goEnv() []string {
	if os.Getenv("GOTOOLCHAIN") == "" {
		return []string{"GOTOOLCHAIN=local"}
	}
	return nil
}

// npmPath finds npm, or says how to get it.
func npmPath() (string, error) {
	p, err := exec.LookPath("npm")
	if err != nil {
		return "", errors.New("npm is not on PATH: install Node.js 20 or newer (it includes npm; https://nodejs.org, or your package manager: apt install nodejs npm, brew install node, winget install OpenJS.NodeJS.LTS) and run this again")
	}
	return p, nil
}

// deps downloads the Go modules and installs the extension's npm packages
// exactly as locked, skipping npm ci when the lock has not changed since the
// last install.
func (t *tool) deps() error {
	mods, err := t.modules()
	if err != nil {
		return err
	}
	for _, m := range mods {
		if err := t.cmd(m, goEnv(), "go", "mod", "download"); err != nil {
			return err
		}
	}
	return t.npmInstall()
}

const lockStamp = "node_modules/.monkbrowse-lock"

func (t *tool) npmInstall() error {
	npm, err := npmPath()
	if err != nil {
		return err
	}
	ext := filepath.Join(t.root, "extension")
	lock, err := os.ReadFile(filepath.Join(ext, "package-lock.json"))
	if err != nil {
		return err
	}
	stamp := filepath.Join(ext, filepath.FromSlash(lockStamp))
	if old, err := os.ReadFile(stamp); err == nil && bytes.Equal(old, lock) && isDir(filepath.Join(ext, "node_modules", "wxt")) {
		return nil
	}
	t.logf("deps: installing the extension's npm packages (npm ci)")
	if err := t.cmd("extension", nil, npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"); err != nil {
		return err
	}
	return os.WriteFile(stamp, lock, 0o644)
}

// exe is the file name of a program on this OS.
func exe(name string) string {
	if runtime.GOOS == "windows" {
		return name + ".exe"
	}
	return name
}

// build writes bin/monkbrowse and extension/.output/chrome-mv3/.
func (t *tool) build() error {
	if err := t.deps(); err != nil {
		return err
	}
	bin := filepath.Join(t.root, "bin", exe("monkbrowse"))
	// As the release builds (no cgo, no local paths in the binary): the
	// binary a person builds behaves as the one they would download, and
	// scripts/test's steps share one build cache configuration.
	if err := t.cmd("server", append(goEnv(), "CGO_ENABLED=0"), "go", "build", "-trimpath", "-o", bin, "./cmd/monkbrowse"); err != nil {
		return err
	}
	if err := t.buildExtension(nil); err != nil {
		return err
	}
	id, _ := os.ReadFile(filepath.Join(t.root, "extension", "EXTENSION_ID"))
	t.logf("build: %s and %s (extension id %s)", rel(t.root, bin), filepath.Join("extension", ".output", "chrome-mv3")+string(filepath.Separator), strings.TrimSpace(string(id)))
	return nil
}

// buildExtension runs the extension's production build (wxt).
func (t *tool) buildExtension(env []string) error {
	npm, err := npmPath()
	if err != nil {
		return err
	}
	c := exec.Command(npm, "run", "--silent", "build")
	c.Dir = filepath.Join(t.root, "extension")
	c.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	if err := c.Run(); err != nil {
		return fmt.Errorf("npm run build (in extension): %w\n%s", err, out.String())
	}
	return nil
}

func rel(root, p string) string {
	if r, err := filepath.Rel(root, p); err == nil {
		return r
	}
	return p
}
