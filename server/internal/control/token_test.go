package control

import (
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/monkbrowse/monkbrowse/protocol"
)

func TestWriteTokenModesAndContent(t *testing.T) {
	home := t.TempDir()
	tok, path, err := WriteToken(home)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(home, ".monkbrowse", "control-token"); path != want {
		t.Fatalf("path = %s, want %s", path, want)
	}
	if len(tok) != 2*TokenBytes {
		t.Fatalf("token has %d characters, want %d", len(tok), 2*TokenBytes)
	}
	if _, err := hex.DecodeString(tok); err != nil {
		t.Fatalf("token is not hex: %v", err)
	}
	di, err := os.Stat(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	if m := di.Mode().Perm(); m != 0o700 {
		t.Errorf("directory mode = %o, want 700", m)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if m := fi.Mode().Perm(); m != 0o600 {
		t.Errorf("file mode = %o, want 600", m)
	}
	got, err := protocol.ReadToken(path)
	if err != nil || got != tok {
		t.Fatalf("protocol.ReadToken = %q, %v; want %q", got, err, tok)
	}
}

func TestWriteTokenReplacesAtomically(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, ".monkbrowse")
	// A directory someone made too open is tightened.
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// The old file is replaced by rename, not rewritten in place: a reader
	// holding the old file keeps reading the old token in full.
	first, path, err := WriteToken(home)
	if err != nil {
		t.Fatal(err)
	}
	old, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	oldInfo, _ := old.Stat()

	second, _, err := WriteToken(home)
	if err != nil {
		t.Fatal(err)
	}
	if first == second {
		t.Fatal("two owners got the same token")
	}
	newInfo, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if os.SameFile(oldInfo, newInfo) {
		t.Error("the token file was rewritten in place; want a new file renamed over it")
	}
	buf := make([]byte, 200)
	n, _ := old.Read(buf)
	if string(buf[:n]) != first+"\n" {
		t.Errorf("the old file changed under its reader: %q", buf[:n])
	}
	di, _ := os.Stat(dir)
	if m := di.Mode().Perm(); m != 0o700 {
		t.Errorf("directory mode = %o, want 700", m)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("left temporary files behind: %v", names)
	}
}

func TestWriteTokenUsesHOME(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	_, path, err := WriteToken("")
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(filepath.Dir(path)) != home {
		t.Fatalf("token at %s, want under HOME %s", path, home)
	}
}

// TestTokenDirSymlinkRefused: ~/.monkbrowse as a symbolic link is refused
// with a clear message, and its target is neither chmodded nor written.
func TestTokenDirSymlinkRefused(t *testing.T) {
	home := t.TempDir()
	target := t.TempDir()
	if err := os.Chmod(target, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(home, ".monkbrowse")); err != nil {
		t.Fatal(err)
	}
	_, _, err := WriteToken(home)
	var ue *UnsafeDirError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "symbolic link") || !strings.Contains(err.Error(), "in memory only") {
		t.Fatalf("WriteToken through a symlink: %v", err)
	}
	fi, _ := os.Stat(target)
	if fi.Mode().Perm() != 0o755 {
		t.Fatalf("the link's target was chmodded to %v", fi.Mode().Perm())
	}
	if entries, _ := os.ReadDir(target); len(entries) != 0 {
		t.Fatalf("files were written into the link's target: %v", entries)
	}
}

// TestTokenDirOfAnotherUserRefused needs root (to chown).
func TestTokenDirOfAnotherUserRefused(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to give the folder to another user")
	}
	home := t.TempDir()
	dir := filepath.Join(home, ".monkbrowse")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	_, _, err := WriteToken(home)
	if err == nil || !strings.Contains(err.Error(), "belongs to another user") {
		t.Fatalf("WriteToken into another user's folder: %v", err)
	}
}

// TestTokenRestrictedBeforeWritten: WriteToken restricts the folder, then
// the token file while it is still empty, before the token is written
// (on Windows an owner-only ACL; a fake here, the real one is compiled
// for Windows and not run).
func TestTokenRestrictedBeforeWritten(t *testing.T) {
	home := t.TempDir()
	type call struct {
		path string
		dir  bool
		size int64
	}
	var calls []call
	restrict = func(p string, dir bool) error {
		fi, err := os.Stat(p)
		if err != nil {
			t.Errorf("restrict(%s): %v", p, err)
			return nil
		}
		calls = append(calls, call{p, dir, fi.Size()})
		return nil
	}
	defer func() { restrict = restrictToOwner }()
	_, path, err := WriteToken(home)
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 2 || calls[0].path != filepath.Dir(path) || !calls[0].dir ||
		filepath.Dir(calls[1].path) != filepath.Dir(path) || calls[1].dir || calls[1].size != 0 {
		t.Fatalf("restrict calls %+v; want the folder, then the still empty token file", calls)
	}
	restrict = func(string, bool) error { return errors.New("no ACL for you") }
	if _, _, err := WriteToken(home); err == nil || !strings.Contains(err.Error(), "no ACL for you") {
		t.Fatalf("a failed restriction: %v", err)
	}
}
