package protocol

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeToken(t *testing.T, home, tok string) {
	t.Helper()
	dir := filepath.Join(home, TokenDirName)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, TokenFileName), []byte(tok+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestReadToken(t *testing.T) {
	home := t.TempDir()
	path, err := TokenPath(home)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(home, ".monkbrowse", "control-token"); path != want {
		t.Fatalf("TokenPath = %s, want %s", path, want)
	}
	if _, err := ReadToken(path); !errors.Is(err, ErrNoToken) {
		t.Fatalf("missing file: err = %v, want ErrNoToken", err)
	}
	writeToken(t, home, "  ")
	if _, err := ReadToken(path); !errors.Is(err, ErrNoToken) {
		t.Fatalf("empty file: err = %v, want ErrNoToken", err)
	}
	writeToken(t, home, "abc123")
	if tok, err := ReadToken(path); err != nil || tok != "abc123" {
		t.Fatalf("ReadToken = %q, %v", tok, err)
	}
}

func TestTokenPathUsesHOME(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	path, err := TokenPath("")
	if err != nil || !strings.HasPrefix(path, home) {
		t.Fatalf("TokenPath(\"\") = %s, %v; want under %s", path, err, home)
	}
}
