package control

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// TestPairingSecretCreatedOnceAndKept: the first call creates a private
// secret; later calls (another process) read the same one.
func TestPairingSecretCreatedOnceAndKept(t *testing.T) {
	home := t.TempDir()
	s1, path, err := EnsurePairingSecret(home)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(home, ".monkbrowse", "pairing-secret"); path != want {
		t.Fatalf("path = %s, want %s", path, want)
	}
	if len(s1) != 2*TokenBytes {
		t.Fatalf("secret has %d characters", len(s1))
	}
	fi, _ := os.Stat(path)
	di, _ := os.Stat(filepath.Dir(path))
	if fi.Mode().Perm() != 0o600 || di.Mode().Perm() != 0o700 {
		t.Fatalf("modes file %o dir %o, want 600 and 700", fi.Mode().Perm(), di.Mode().Perm())
	}
	s2, _, err := EnsurePairingSecret(home)
	if err != nil || s2 != s1 {
		t.Fatalf("second EnsurePairingSecret = %q, %v; want the first secret %q", s2, err, s1)
	}
	if got, err := protocol.ReadPairingSecret(path); err != nil || got != s1 {
		t.Fatalf("protocol.ReadPairingSecret = %q, %v", got, err)
	}
}

// TestPairingSecretRaceAgrees: processes starting at once all end up with
// the one secret on disk.
func TestPairingSecretRaceAgrees(t *testing.T) {
	home := t.TempDir()
	const n = 8
	got := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, _, err := EnsurePairingSecret(home)
			if err != nil {
				t.Error(err)
			}
			got[i] = s
		}()
	}
	wg.Wait()
	path, _ := protocol.PairingPath(home)
	onDisk, err := protocol.ReadPairingSecret(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range got {
		if s != onDisk {
			t.Fatalf("caller %d holds %q, the file holds %q", i, s, onDisk)
		}
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("left temporary files behind: %v", entries)
	}
}

// TestPairingSecretReset replaces the secret by a rename.
func TestPairingSecretReset(t *testing.T) {
	home := t.TempDir()
	old, path, err := EnsurePairingSecret(home)
	if err != nil {
		t.Fatal(err)
	}
	fresh, _, err := ResetPairingSecret(home)
	if err != nil {
		t.Fatal(err)
	}
	if fresh == old {
		t.Fatal("reset kept the secret")
	}
	if s, _, _ := EnsurePairingSecret(home); s != fresh {
		t.Fatalf("after reset EnsurePairingSecret = %q, want %q", s, fresh)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode after reset %o", fi.Mode().Perm())
	}
}

// TestPairingSecretSymlinkRefused: a symlinked ~/.monkbrowse is refused for
// the pairing secret too (with its own wording), and its target untouched.
func TestPairingSecretSymlinkRefused(t *testing.T) {
	home := t.TempDir()
	target := t.TempDir()
	if err := os.Symlink(target, filepath.Join(home, ".monkbrowse")); err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]func(string) (string, string, error){"ensure": EnsurePairingSecret, "reset": ResetPairingSecret} {
		_, _, err := f(home)
		var ue *UnsafeDirError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "pairing secret") || !strings.Contains(err.Error(), "one-time code the running monkbrowse prints in its log") {
			t.Fatalf("%s through a symlink: %v", name, err)
		}
	}
	if entries, _ := os.ReadDir(target); len(entries) != 0 {
		t.Fatalf("files were written into the link's target: %v", entries)
	}
}

// TestPairingSecretOfAnotherUserRefused needs root (to chown).
func TestPairingSecretOfAnotherUserRefused(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to give the folder to another user")
	}
	home := t.TempDir()
	dir := filepath.Join(home, ".monkbrowse")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pairing-secret"), []byte("planted\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	s, _, err := EnsurePairingSecret(home)
	if err == nil || !strings.Contains(err.Error(), "belongs to another user") || s != "" {
		t.Fatalf("EnsurePairingSecret in another user's folder = %q, %v", s, err)
	}
}

// TestPairingSecretRestrictedBeforeWritten: the owner-only restriction
// (an ACL on Windows; a fake here) is applied to the folder and to the
// still empty file.
func TestPairingSecretRestrictedBeforeWritten(t *testing.T) {
	home := t.TempDir()
	var sizes []int64
	restrict = func(p string, dir bool) error {
		if !dir {
			fi, _ := os.Stat(p)
			sizes = append(sizes, fi.Size())
		}
		return nil
	}
	defer func() { restrict = restrictToOwner }()
	if _, _, err := EnsurePairingSecret(home); err != nil {
		t.Fatal(err)
	}
	if len(sizes) != 1 || sizes[0] != 0 {
		t.Fatalf("file restricted with sizes %v; want once, while empty", sizes)
	}
}
