package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/server/internal/control"
)

// TestPairReset: `monkbrowse pair --reset` replaces the user's pairing
// secret file with a fresh private one and says every extension pairs again.
func TestPairReset(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	old, path, err := control.EnsurePairingSecret("")
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if rc := run([]string{"pair", "--reset"}, strings.NewReader(""), &out, &errb); rc != 0 {
		t.Fatalf("pair --reset exited %d: %s", rc, errb.String())
	}
	got, err := protocol.ReadPairingSecret(path)
	if err != nil || got == old || len(got) != 2*control.TokenBytes {
		t.Fatalf("secret after reset = %q, %v (old %q)", got, err, old)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %o", fi.Mode().Perm())
	}
	if !strings.Contains(out.String(), path) || !strings.Contains(out.String(), "pair again") {
		t.Fatalf("output: %q", out.String())
	}
	if filepath.Dir(filepath.Dir(path)) != home {
		t.Fatalf("secret at %s, not under HOME", path)
	}
	out.Reset()
	errb.Reset()
	if rc := run([]string{"pair", "extra"}, strings.NewReader(""), &out, &errb); rc != 2 {
		t.Fatalf("pair with an argument exited %d", rc)
	}
}
