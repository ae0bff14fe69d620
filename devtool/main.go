// Command devtool is the logic behind scripts/build, scripts/release and the
// dependency half of scripts/setup. It is one Go program, so the same steps
// run on Linux, macOS and Windows; scripts/NAME (sh), scripts/NAME.cmd and
// scripts/NAME.ps1 are thin wrappers around `go run ./devtool NAME`.
//
// It needs Go and Node.js/npm, never a browser.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

const usage = `devtool — builds monkbrowse (the wrappers in scripts/ call this).

  devtool deps                      Go modules, and npm ci for the extension when its lock changed
  devtool build                     deps, then bin/monkbrowse and extension/.output/chrome-mv3/
  devtool release [-out DIR] [-platforms LIST] VERSION
                                    release artifacts in dist/ (see scripts/release)
  devtool verify DIR                check DIR/SHA256SUMS against the files in DIR
  devtool reproduce [-platforms LIST] VERSION DIR
                                    build VERSION again with an empty Go build cache into a
                                    temporary directory and compare its files with DIR's
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stdout, usage)
		return 0
	}
	root, err := repoRoot()
	if err != nil {
		fmt.Fprintf(stderr, "devtool: %v\n", err)
		return 1
	}
	t := &tool{root: root, log: stderr}
	switch args[0] {
	case "deps":
		err = t.deps()
	case "build":
		err = t.build()
	case "release":
		err = t.release(args[1:], stdout)
	case "verify":
		if len(args) != 2 {
			err = errors.New("usage: devtool verify DIR")
			break
		}
		var n int
		n, err = verifySums(args[1])
		if err == nil {
			fmt.Fprintf(stdout, "verify: %d files match %s\n", n, filepath.Join(args[1], "SHA256SUMS"))
		}
	case "reproduce":
		err = t.reproduce(args[1:], stdout)
	default:
		fmt.Fprintf(stderr, "devtool: unknown command %q\n%s", args[0], usage)
		return 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", args[0], err)
		return 1
	}
	return 0
}

// tool carries the repository root and where progress lines go.
type tool struct {
	root string
	log  io.Writer
}

func (t *tool) logf(format string, a ...any) {
	fmt.Fprintf(t.log, format+"\n", a...)
}

// repoRoot is the nearest directory above the working directory holding
// go.work and extension/.
func repoRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; {
		if isFile(filepath.Join(d, "go.work")) && isDir(filepath.Join(d, "extension")) {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", errors.New("run me inside the monkbrowse repository (no go.work and extension/ above the working directory)")
		}
		d = parent
	}
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
