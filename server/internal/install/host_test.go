package install

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeRegistry is HKCU in memory: key → default value.
type fakeRegistry map[string]string

func (r fakeRegistry) Default(key string) (string, bool, error) {
	v, ok := r[key]
	return v, ok, nil
}
func (r fakeRegistry) SetDefault(key, value string) error { r[key] = value; return nil }
func (r fakeRegistry) DeleteKey(key string) error         { delete(r, key); return nil }

func hostRecords(t *testing.T, o Options) []record {
	t.Helper()
	st, _, err := loadState(o.Env, o.statePath())
	if err != nil {
		t.Fatal(err)
	}
	var out []record
	for _, r := range st.Records {
		if r.Client == HostClient {
			out = append(out, r)
		}
	}
	return out
}

func fakeCommand(t *testing.T, home string) string {
	cmd := filepath.Join(home, "monkbrowse")
	if err := os.WriteFile(cmd, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// TestLinuxHostInstallUninstall: a manifest in each browser found, each
// recorded; doctor's check passes; a file of that name that is not ours
// stays; uninstall removes ours and the records.
func TestLinuxHostInstallUninstall(t *testing.T) {
	home := t.TempDir()
	for _, d := range []string{".config/chromium", ".config/google-chrome-beta", "snap/chromium/common/chromium"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	e := Env{Home: home, GOOS: "linux"}
	targets := DefaultHostTargets(e, nil)
	if len(targets.Dirs) != 3 || len(targets.Keys) != 0 {
		t.Fatalf("targets %+v: want the three browsers found", targets)
	}
	cmd := fakeCommand(t, home)
	var out bytes.Buffer
	o := Options{Env: e, Out: &out}
	if err := InstallHost(o, targets, NewHostManifest(cmd, []string{"abc", ""})); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(targets.Dirs[0], NativeHostName+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var m HostManifest
	if err := json.Unmarshal(raw, &m); err != nil || m.Path != cmd || m.Type != "stdio" || len(m.AllowedOrigins) != 1 || m.AllowedOrigins[0] != "chrome-extension://abc/" {
		t.Fatalf("manifest %s", raw)
	}
	if recs := hostRecords(t, o); len(recs) != 3 || recs[0].Via != "native-host" {
		t.Fatalf("records %+v", recs)
	}
	// Installing again adds no second record.
	if err := InstallHost(o, targets, NewHostManifest(cmd, []string{"abc"})); err != nil {
		t.Fatal(err)
	}
	if recs := hostRecords(t, o); len(recs) != 3 {
		t.Fatalf("records after a second install %+v", recs)
	}
	if ok, problems := CheckHost(targets, cmd); len(ok) != 3 || len(problems) != 0 {
		t.Fatalf("check: ok %v problems %v", ok, problems)
	}
	foreign := filepath.Join(targets.Dirs[1], NativeHostName+".json")
	os.WriteFile(foreign, []byte(`{"name":"other"}`), 0o644)
	if err := UninstallHost(o, targets, false); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{targets.Dirs[0], targets.Dirs[2]} {
		if _, err := os.Stat(filepath.Join(d, NativeHostName+".json")); !os.IsNotExist(err) {
			t.Fatalf("our manifest in %s was not removed: %v", d, err)
		}
	}
	if _, err := os.Stat(foreign); err != nil {
		t.Fatalf("the foreign file was removed: %v", err)
	}
	if recs := hostRecords(t, o); len(recs) != 0 {
		t.Fatalf("records after uninstall %+v", recs)
	}
	if _, problems := CheckHost(HostTargets{Dirs: targets.Dirs[:1]}, cmd); len(problems) != 1 || !strings.Contains(problems[0], "missing") {
		t.Fatalf("check after uninstall: %v", problems)
	}
}

// TestBrowserDataDirRecorded: a host registered with --browser-data-dir is
// recorded, so a plain uninstall (not told the folder again) removes it;
// an uninstall scoped to another folder leaves it.
func TestBrowserDataDirRecorded(t *testing.T) {
	home := t.TempDir()
	profile := filepath.Join(t.TempDir(), "NativeMessagingHosts")
	e := Env{Home: home, GOOS: "linux"}
	o := Options{Env: e, Out: &bytes.Buffer{}}
	if err := InstallHost(o, HostTargets{Dirs: []string{profile}}, NewHostManifest(fakeCommand(t, home), []string{"abc"})); err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(profile, NativeHostName+".json")
	if err := UninstallHost(o, HostTargets{Dirs: []string{filepath.Join(t.TempDir(), "NativeMessagingHosts")}}, true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(manifest); err != nil {
		t.Fatalf("an uninstall scoped to another folder removed it: %v", err)
	}
	if err := UninstallHost(o, DefaultHostTargets(e, nil), false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(manifest); !os.IsNotExist(err) {
		t.Fatalf("the recorded --browser-data-dir manifest stayed: %v", err)
	}
}

// TestMacHostWithFakeHome: on macOS the manifest goes into each browser's
// folder under ~/Library/Application Support (Chrome, Chrome Canary,
// Edge, Brave here), and uninstall removes each.
func TestMacHostWithFakeHome(t *testing.T) {
	home := t.TempDir()
	browsers := []string{"Google/Chrome", "Google/Chrome Canary", "Microsoft Edge", "BraveSoftware/Brave-Browser"}
	for _, b := range browsers {
		os.MkdirAll(filepath.Join(home, "Library/Application Support", b), 0o700)
	}
	e := Env{Home: home, GOOS: "darwin"}
	targets := DefaultHostTargets(e, nil)
	if len(targets.Dirs) != len(browsers) {
		t.Fatalf("dirs %v", targets.Dirs)
	}
	o := Options{Env: e, Out: &bytes.Buffer{}}
	if err := InstallHost(o, targets, NewHostManifest(fakeCommand(t, home), []string{"abc"})); err != nil {
		t.Fatal(err)
	}
	for _, b := range browsers {
		p := filepath.Join(home, "Library/Application Support", b, "NativeMessagingHosts", NativeHostName+".json")
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("no manifest for %s: %v", b, err)
		}
	}
	if err := UninstallHost(o, DefaultHostTargets(e, nil), false); err != nil {
		t.Fatal(err)
	}
	for _, d := range targets.Dirs {
		if _, err := os.Stat(filepath.Join(d, NativeHostName+".json")); !os.IsNotExist(err) {
			t.Fatalf("manifest in %s stayed: %v", d, err)
		}
	}
}

// TestWindowsHostRegistry (a fake HKCU, on any OS): install writes one
// manifest in ~/.monkbrowse and sets the key of each browser found
// (Chrome and Edge here, not Chromium or Brave) to it, each recorded; a
// key that names another program's manifest is left alone; doctor's check
// passes; uninstall deletes our keys and the manifest and leaves the
// other key.
func TestWindowsHostRegistry(t *testing.T) {
	home := t.TempDir()
	local := filepath.Join(home, "AppData", "Local")
	for _, d := range []string{"Google/Chrome/User Data", "Microsoft/Edge/User Data", "BraveSoftware/Brave-Browser/User Data"} {
		os.MkdirAll(filepath.Join(local, d), 0o700)
	}
	reg := fakeRegistry{}
	otherManifest := filepath.Join(home, "other.json")
	os.WriteFile(otherManifest, []byte(`{"name":"com.other.host"}`), 0o644)
	braveKey := `Software\BraveSoftware\Brave-Browser\NativeMessagingHosts\` + NativeHostName
	reg[braveKey] = otherManifest
	e := Env{Home: home, GOOS: "windows", LocalAppData: local}
	targets := DefaultHostTargets(e, reg)
	chromeKey := `Software\Google\Chrome\NativeMessagingHosts\` + NativeHostName
	edgeKey := `Software\Microsoft\Edge\NativeMessagingHosts\` + NativeHostName
	if len(targets.Dirs) != 0 || strings.Join(targets.Keys, ";") != chromeKey+";"+edgeKey+";"+braveKey {
		t.Fatalf("targets %+v", targets)
	}
	cmd := fakeCommand(t, home)
	var out bytes.Buffer
	o := Options{Env: e, Out: &out}
	err := InstallHost(o, targets, NewHostManifest(cmd, []string{"abc"}))
	if err == nil || !strings.Contains(err.Error(), "not monkbrowse's host manifest: left alone") {
		t.Fatalf("install: %v", err)
	}
	manifest := WindowsManifestFile(e)
	if reg[chromeKey] != manifest || reg[edgeKey] != manifest || reg[braveKey] != otherManifest {
		t.Fatalf("registry %v", reg)
	}
	raw, err := os.ReadFile(manifest)
	if err != nil || !ours(raw) || !strings.Contains(string(raw), "chrome-extension://abc/") {
		t.Fatalf("manifest %s %v", raw, err)
	}
	var keys []string
	for _, r := range hostRecords(t, o) {
		if r.Via == "registry" {
			keys = append(keys, r.Key)
		}
	}
	if strings.Join(keys, ";") != chromeKey+";"+edgeKey {
		t.Fatalf("recorded keys %v", keys)
	}
	ok, problems := CheckHost(HostTargets{Registry: reg, Keys: []string{chromeKey, edgeKey}}, cmd)
	if len(ok) != 2 || len(problems) != 0 {
		t.Fatalf("check: %v %v", ok, problems)
	}
	if err := UninstallHost(o, DefaultHostTargets(e, reg), false); err != nil {
		t.Fatal(err)
	}
	if _, found := reg[chromeKey]; found {
		t.Fatal("the Chrome key stayed")
	}
	if _, found := reg[edgeKey]; found {
		t.Fatal("the Edge key stayed")
	}
	if reg[braveKey] != otherManifest {
		t.Fatal("another program's key was changed")
	}
	if _, err := os.Stat(manifest); !os.IsNotExist(err) {
		t.Fatalf("the manifest stayed: %v", err)
	}
	if recs := hostRecords(t, o); len(recs) != 0 {
		t.Fatalf("records %+v", recs)
	}
	_, problems = CheckHost(HostTargets{Registry: reg, Keys: []string{chromeKey}}, cmd)
	if len(problems) != 1 || !strings.Contains(problems[0], "missing") {
		t.Fatalf("check after uninstall: %v", problems)
	}
}

// TestClientUninstallKeepsHostRecords: uninstalling the AI apps alone
// (without the host) neither fails on nor drops the host's records.
func TestClientUninstallKeepsHostRecords(t *testing.T) {
	home := t.TempDir()
	e := Env{Home: home, GOOS: "linux"}
	o := Options{Env: e, Out: &bytes.Buffer{}}
	if err := InstallHost(o, HostTargets{Dirs: []string{filepath.Join(home, "p", "NativeMessagingHosts")}}, NewHostManifest(fakeCommand(t, home), []string{"abc"})); err != nil {
		t.Fatal(err)
	}
	if err := Uninstall(o); err != nil {
		t.Fatal(err)
	}
	if recs := hostRecords(t, o); len(recs) != 1 {
		t.Fatalf("records %+v", recs)
	}
}
