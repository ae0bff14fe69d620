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

// TestNativeHostHandsTheSecret: started as Chrome starts a native host
// (the caller's origin as its argument), monkbrowse answers a pairing
// request with this user's secret; `install --native-host-only
// --browser-data-dir` registers it there and `uninstall` removes it.
func TestNativeHostHandsTheSecret(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	secret, _, err := control.EnsurePairingSecret("")
	if err != nil {
		t.Fatal(err)
	}
	req := `{"type":"pairing"}`
	in := append([]byte{byte(len(req)), 0, 0, 0}, req...)
	var out, errb bytes.Buffer
	if rc := run([]string{"chrome-extension://" + "emkgfnickjohaibbledibfemnfkoamdj" + "/"}, bytes.NewReader(in), &out, &errb); rc != 0 {
		t.Fatalf("native host exited %d: %s", rc, errb.String())
	}
	if b := out.Bytes(); len(b) < 4 || int(b[0]) != len(b)-4 || !strings.Contains(string(b[4:]), `"secret":"`+secret+`"`) {
		t.Fatalf("native host answered %q", out.String())
	}

	profile := t.TempDir()
	out.Reset()
	if rc := run([]string{"install", "--native-host-only", "--browser-data-dir", profile, "--command", "/bin/true"}, strings.NewReader(""), &out, &errb); rc != 0 {
		t.Fatalf("install exited %d: %s %s", rc, out.String(), errb.String())
	}
	manifest := filepath.Join(profile, "NativeMessagingHosts", "com.monkbrowse.pairing.json")
	raw, err := os.ReadFile(manifest)
	if err != nil || !strings.Contains(string(raw), `"path": "/bin/true"`) || !strings.Contains(string(raw), "chrome-extension://emkgfnickjohaibbledibfemnfkoamdj/") {
		t.Fatalf("manifest %s (%v)", raw, err)
	}
	if rc := run([]string{"uninstall", "--native-host-only", "--browser-data-dir", profile}, strings.NewReader(""), &out, &errb); rc != 0 {
		t.Fatalf("uninstall exited %d: %s", rc, errb.String())
	}
	if _, err := os.Stat(manifest); !os.IsNotExist(err) {
		t.Fatalf("manifest still there: %v", err)
	}
}
