package install

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNativeHostInstallUninstall(t *testing.T) {
	home := t.TempDir()
	for _, d := range []string{".config/chromium", ".config/google-chrome-beta"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	dirs := HostDirs(Env{Home: home, GOOS: "linux"})
	if len(dirs) != 2 {
		t.Fatalf("dirs %v: want the two browsers found", dirs)
	}
	cmd := filepath.Join(home, "monkbrowse")
	os.WriteFile(cmd, []byte("#!/bin/sh\n"), 0o755)
	var out bytes.Buffer
	if err := InstallNativeHost(dirs, NewHostManifest(cmd, []string{"abc", ""}), false, &out); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dirs[0], NativeHostName+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var m HostManifest
	if err := json.Unmarshal(raw, &m); err != nil || m.Path != cmd || m.Type != "stdio" || len(m.AllowedOrigins) != 1 || m.AllowedOrigins[0] != "chrome-extension://abc/" {
		t.Fatalf("manifest %s", raw)
	}
	if ok, problems := CheckNativeHost(dirs, cmd); len(ok) != 2 || len(problems) != 0 {
		t.Fatalf("check: ok %v problems %v", ok, problems)
	}
	// Someone else's file of that name stays.
	foreign := filepath.Join(dirs[1], NativeHostName+".json")
	os.WriteFile(foreign, []byte(`{"name":"other"}`), 0o644)
	if err := UninstallNativeHost(dirs, false, &out); err == nil || !strings.Contains(err.Error(), "left alone") {
		t.Fatalf("uninstall: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dirs[0], NativeHostName+".json")); !os.IsNotExist(err) {
		t.Fatalf("our manifest was not removed: %v", err)
	}
	if _, err := os.Stat(foreign); err != nil {
		t.Fatalf("the foreign file was removed: %v", err)
	}
	if _, problems := CheckNativeHost(dirs[:1], cmd); len(problems) != 1 || !strings.Contains(problems[0], "missing") {
		t.Fatalf("check after uninstall: %v", problems)
	}
}

func TestHostDirsMac(t *testing.T) {
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, "Library/Application Support/Google/Chrome Canary"), 0o700)
	dirs := HostDirs(Env{Home: home, GOOS: "darwin"})
	if len(dirs) != 1 || !strings.HasSuffix(dirs[0], "Google/Chrome Canary/NativeMessagingHosts") {
		t.Fatalf("dirs %v", dirs)
	}
}

func nativeFrame(s string) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.NativeEndian, uint32(len(s)))
	b.WriteString(s)
	return b.Bytes()
}

func TestServeNativeHost(t *testing.T) {
	reply := func() NativeHostReply { return NativeHostReply{Secret: "s3cret", Version: "9"} }
	var out bytes.Buffer
	if err := ServeNativeHost(bytes.NewReader(nativeFrame(`{"type":"pairing"}`)), &out, reply); err != nil {
		t.Fatal(err)
	}
	var n uint32
	binary.Read(&out, binary.NativeEndian, &n)
	if got := out.String(); int(n) != len(got) || got != `{"secret":"s3cret","version":"9"}` {
		t.Fatalf("reply %d %q", n, got)
	}
	out.Reset()
	if err := ServeNativeHost(bytes.NewReader(nativeFrame(`{"type":"other"}`)), &out, reply); err != nil || strings.Contains(out.String(), "s3cret") {
		t.Fatalf("an unknown request got %q (%v)", out.String(), err)
	}
	huge := make([]byte, 4)
	binary.NativeEndian.PutUint32(huge, MaxNativeMessage+1)
	if err := ServeNativeHost(bytes.NewReader(huge), &out, reply); err == nil {
		t.Fatal("an oversized request was read")
	}
}
