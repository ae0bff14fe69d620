// Package files reads the file of a browser_upload_file call for the AI app
// that made it, under that app's allowed roots: the folders given with
// --upload-root and the roots its MCP client declares. It runs in the
// monkbrowse process the app launched (owner or forwarder), so the roots,
// the flags and even the file system are the app's own.
//
// Only a regular file whose real path (every symlink resolved, the roots'
// own included) lies inside a root is read; hidden components below the
// root, /proc, /sys and /dev are refused, and so is anything over the size
// limit. Every refusal says what happened and what to do.
package files

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// DefaultLimit is the largest file read (25 MiB).
const DefaultLimit = 25 << 20

// Policy is what one AI app allows. The zero value allows nothing.
type Policy struct {
	// Roots are the folders given with --upload-root.
	Roots []string
	// ClientRoots are the MCP client's roots (file:// URIs or paths), as
	// last read from the client.
	ClientRoots []string
	// ClientSupportsRoots says whether the client declares the roots
	// capability at all (it words the message when no root is allowed).
	ClientSupportsRoots bool
	// Limit is the largest file read; 0 means DefaultLimit.
	Limit int64
}

// systemDirs are never read, whatever the roots: the process's environment
// (/proc/self/environ), kernel knobs, devices.
var systemDirs = []string{"/proc", "/sys", "/dev"}

// RootPaths converts MCP roots (file:// URIs; a plain absolute path is
// accepted too) to local paths. Other schemes are ignored: they name nothing
// on this computer.
func RootPaths(uris []string) []string {
	var out []string
	for _, u := range uris {
		if p, ok := rootPath(u); ok {
			out = append(out, p)
		}
	}
	return out
}

func rootPath(u string) (string, bool) {
	if filepath.IsAbs(u) {
		return filepath.Clean(u), true
	}
	pu, err := url.Parse(u)
	if err != nil || !strings.EqualFold(pu.Scheme, "file") {
		return "", false
	}
	if pu.Host != "" && !strings.EqualFold(pu.Host, "localhost") {
		return "", false // a file on another computer
	}
	p := pu.Path
	if runtime.GOOS == "windows" {
		p = strings.TrimPrefix(p, "/")
	}
	p = filepath.FromSlash(p)
	if !filepath.IsAbs(p) {
		return "", false
	}
	return filepath.Clean(p), true
}

// root is one allowed folder: as given, and with its symlinks resolved.
type root struct{ given, real string }

func (p Policy) roots() []root {
	var out []root
	seen := map[string]bool{}
	for _, r := range append(append([]string(nil), p.Roots...), RootPaths(p.ClientRoots)...) {
		if !filepath.IsAbs(r) {
			continue
		}
		given := filepath.Clean(r)
		real, err := filepath.EvalSymlinks(given)
		if err != nil {
			continue // a root that does not exist allows nothing
		}
		if real, err = filepath.Abs(real); err != nil || seen[real] {
			continue
		}
		seen[real] = true
		out = append(out, root{given: given, real: real})
	}
	return out
}

// within returns path relative to dir when path is dir or below it. Both
// are clean absolute paths. Names compare case-insensitively on Windows,
// whose file systems do.
func within(dir, path string) (string, bool) {
	return withinPath(dir, path, filepath.Separator, foldNames)
}

// foldNames says whether this system's paths compare without case.
var foldNames = runtime.GOOS == "windows"

// withinPath is within for a separator and a case rule given, so that both
// rules are tested on any system. A path is inside only at a component
// boundary: /proj-secrets is not inside /proj.
func withinPath(dir, path string, sep byte, fold bool) (string, bool) {
	same := func(a, b string) bool {
		if fold {
			return strings.EqualFold(a, b)
		}
		return a == b
	}
	if same(dir, path) {
		return ".", true
	}
	prefix := dir
	if !strings.HasSuffix(prefix, string(sep)) { // "/" and `C:\` end with one
		prefix += string(sep)
	}
	if len(path) <= len(prefix) || !same(path[:len(prefix)], prefix) {
		return "", false
	}
	return path[len(prefix):], true
}

// hidden returns the first component of rel that starts with a dot.
func hidden(rel string) (string, bool) {
	if rel == "." {
		return "", false
	}
	for _, c := range strings.Split(rel, string(filepath.Separator)) {
		if strings.HasPrefix(c, ".") {
			return c, true
		}
	}
	return "", false
}

// noRootsMessage is the refusal when the app allowed no folder at all.
func (p Policy) noRootsMessage() string {
	client := "Your AI app does not share any folder (MCP roots) with monkbrowse"
	if !p.ClientSupportsRoots {
		client = "Your AI app does not tell MCP servers its workspace folders (the MCP `roots` capability)"
	}
	return "browser_upload_file is off: monkbrowse only uploads files from folders the person allowed, and none is allowed. " +
		client + ". To allow a folder, add `--upload-root /path/to/folder` to monkbrowse's arguments in the AI app's MCP server settings " +
		"(repeatable), or open the folder as a workspace root in an AI app that shares its roots with MCP servers; then try again. " +
		"Ask the person which folder they want to allow."
}

// Read checks path against the policy and reads it.
func Read(path string, p Policy) (*protocol.UploadedFile, error) {
	limit := p.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	if !filepath.IsAbs(path) {
		return nil, fmt.Errorf("browser_upload_file needs an absolute path (starting with / on macOS and Linux, or a drive letter on Windows); %q is relative. Pass the full path of the file.", path)
	}
	roots := p.roots()
	if len(roots) == 0 {
		return nil, errors.New(p.noRootsMessage())
	}
	clean := filepath.Clean(path)
	// A hidden component of the path as given (a dot-named link to a visible
	// file) is refused like a hidden real path.
	for _, r := range roots {
		if rel, ok := within(r.given, clean); ok {
			if c, ok := hidden(rel); ok {
				return nil, hiddenError(path, c)
			}
		}
	}
	real, err := filepath.EvalSymlinks(clean)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("There is no file at %s. Check the path (it must exist on the computer running the AI app).", path)
	case errors.Is(err, fs.ErrPermission):
		return nil, fmt.Errorf("monkbrowse may not read %s (permission denied). Choose a file the user running monkbrowse can read.", path)
	case err != nil:
		return nil, fmt.Errorf("monkbrowse could not read %s: %v.", path, err)
	}
	for _, d := range systemDirs {
		if _, ok := within(d, real); ok {
			return nil, fmt.Errorf("%s is in %s, which monkbrowse never uploads from (system and process files). Choose a file in one of the allowed folders: %s.", path, d, rootList(roots))
		}
	}
	var inside bool
	for _, r := range roots {
		rel, ok := within(r.real, real)
		if !ok {
			continue
		}
		if c, ok := hidden(rel); ok {
			return nil, hiddenError(path, c)
		}
		inside = true
		break
	}
	if !inside {
		msg := fmt.Sprintf("%s is outside the folders monkbrowse may upload from (%s)", path, rootList(roots))
		if real != clean {
			msg = fmt.Sprintf("%s leads (through a symbolic link) to %s, which is outside the folders monkbrowse may upload from (%s)", path, real, rootList(roots))
		}
		return nil, errors.New(msg + ". Ask the person to put the file in one of them, or to allow its folder with --upload-root.")
	}
	f, err := openNoFollow(real)
	if err != nil {
		return nil, fmt.Errorf("monkbrowse could not open %s: %v.", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("monkbrowse could not read %s: %v.", path, err)
	}
	// The file opened must still be the one checked (nothing swapped a
	// component for a link in between).
	if again, err := os.Stat(real); err != nil || !os.SameFile(fi, again) {
		return nil, fmt.Errorf("%s changed while monkbrowse was reading it; try again.", path)
	}
	switch {
	case fi.IsDir():
		return nil, fmt.Errorf("%s is a folder; browser_upload_file takes one regular file. Pass the path of a file inside it.", path)
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("%s is not a regular file (it is a device, pipe or socket); browser_upload_file only reads regular files.", path)
	case fi.Size() > limit:
		return nil, fmt.Errorf("%s is %s, more than the upload limit of %s. Choose a smaller file.", path, sizeText(fi.Size()), sizeText(limit))
	}
	// Read at most limit+1 bytes: the file may have grown since Stat.
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("monkbrowse could not read %s: %v.", path, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s is more than the upload limit of %s. Choose a smaller file.", path, sizeText(limit))
	}
	return &protocol.UploadedFile{Path: path, Name: filepath.Base(clean), Size: int64(len(data)), Data: base64.StdEncoding.EncodeToString(data)}, nil
}

func hiddenError(path, component string) error {
	return fmt.Errorf("%s is or is inside a hidden file or folder (%s); monkbrowse never uploads hidden files (they hold keys, tokens and settings). If the person wants this file uploaded, ask them to copy it to a visible name in an allowed folder.", path, component)
}

func rootList(roots []root) string {
	names := make([]string, len(roots))
	for i, r := range roots {
		names[i] = r.given
	}
	return strings.Join(names, ", ")
}

func sizeText(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
