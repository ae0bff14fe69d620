package control

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestHTTPTokenCreatedOnceThenRotated(t *testing.T) {
	home := t.TempDir()
	if _, _, err := ReadHTTPToken(home); !errors.Is(err, ErrNoHTTPToken) {
		t.Fatalf("ReadHTTPToken before any = %v, want ErrNoHTTPToken", err)
	}
	tok, path, err := EnsureHTTPToken(home)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(home, ".monkbrowse", "http-token"); path != want || len(tok) != 2*TokenBytes {
		t.Fatalf("EnsureHTTPToken = %q (%d chars) at %s, want %d chars at %s", tok, len(tok), path, 2*TokenBytes, want)
	}
	for p, want := range map[string]os.FileMode{path: 0o600, filepath.Dir(path): 0o700} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s mode = %o, want %o", p, fi.Mode().Perm(), want)
		}
	}
	again, _, err := EnsureHTTPToken(home)
	if err != nil || again != tok {
		t.Fatalf("second EnsureHTTPToken = %q, %v; want the first %q", again, err, tok)
	}
	rotated, _, err := RotateHTTPToken(home)
	if err != nil {
		t.Fatal(err)
	}
	read, _, err := ReadHTTPToken(home)
	if err != nil || read != rotated || rotated == tok {
		t.Fatalf("after rotation read %q (%v), rotated %q, old %q: want the new one", read, err, rotated, tok)
	}
}

func TestHTTPTokenRefusesSymlinkedFolder(t *testing.T) {
	home := t.TempDir()
	elsewhere := t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(home, ".monkbrowse")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	if _, _, err := EnsureHTTPToken(home); err == nil {
		t.Fatal("EnsureHTTPToken wrote through a symlinked ~/.monkbrowse")
	}
	if _, err := os.Stat(filepath.Join(elsewhere, HTTPTokenFileName)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a token was written at the symlink's target: %v", err)
	}
}
