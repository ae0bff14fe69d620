package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/server/internal/cli"
	"github.com/monkbrowse/monkbrowse/server/internal/control"
	"github.com/monkbrowse/monkbrowse/server/internal/fakeext"
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
	if rc := cli.Run([]string{"pair", "--reset"}, strings.NewReader(""), &out, &errb); rc != 0 {
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
	if rc := cli.Run([]string{"pair", "extra"}, strings.NewReader(""), &out, &errb); rc != 2 {
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
	if rc := cli.Run([]string{"chrome-extension://" + "emkgfnickjohaibbledibfemnfkoamdj" + "/"}, bytes.NewReader(in), &out, &errb); rc != 0 {
		t.Fatalf("native host exited %d: %s", rc, errb.String())
	}
	if b := out.Bytes(); len(b) < 4 || int(b[0]) != len(b)-4 || !strings.Contains(string(b[4:]), `"secret":"`+secret+`"`) {
		t.Fatalf("native host answered %q", out.String())
	}

	profile := t.TempDir()
	out.Reset()
	if rc := cli.Run([]string{"install", "--native-host-only", "--browser-data-dir", profile, "--command", "/bin/true"}, strings.NewReader(""), &out, &errb); rc != 0 {
		t.Fatalf("install exited %d: %s %s", rc, out.String(), errb.String())
	}
	manifest := filepath.Join(profile, "NativeMessagingHosts", "com.monkbrowse.pairing.json")
	raw, err := os.ReadFile(manifest)
	if err != nil || !strings.Contains(string(raw), `"path": "/bin/true"`) || !strings.Contains(string(raw), "chrome-extension://emkgfnickjohaibbledibfemnfkoamdj/") {
		t.Fatalf("manifest %s (%v)", raw, err)
	}
	if rc := cli.Run([]string{"uninstall", "--native-host-only", "--browser-data-dir", profile}, strings.NewReader(""), &out, &errb); rc != 0 {
		t.Fatalf("uninstall exited %d: %s", rc, errb.String())
	}
	if _, err := os.Stat(manifest); !os.IsNotExist(err) {
		t.Fatalf("manifest still there: %v", err)
	}
}

// pairCode runs `monkbrowse pair` as its own process with HOME=home, as
// the person does, and returns the code it printed on stdout.
func pairCode(t *testing.T, home string, args ...string) (stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(binPath, append([]string{"pair"}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+home, "USERPROFILE="+home)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("monkbrowse pair %v: %v\n%s", args, err, errb.String())
	}
	return out.String(), errb.String()
}

// TestPairCodeProcess (issue 24): `monkbrowse pair` in its own process
// prints a code alone on stdout; an extension that pastes it receives this
// user's pairing secret from the running monkbrowse and connects with it;
// the same code again is refused as already used.
func TestPairCodeProcess(t *testing.T) {
	p := startProc(t, false)
	code, help := pairCode(t, p.home)
	code = strings.TrimSpace(code)
	if _, err := protocol.NormalizePairCode(code); err != nil || !strings.Contains(help, "one-time pairing code") || !strings.Contains(help, "Options") {
		t.Fatalf("pair printed %q (%v), %q", code, err, help)
	}
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	secret, err := fakeext.PairWithCode(ctx, p.extURL, "", code)
	want, _ := protocol.ReadPairingSecret(filepath.Join(p.home, protocol.TokenDirName, protocol.PairingFileName))
	if err != nil || secret != want {
		t.Fatalf("PairWithCode = %q, %v (the user's secret is %q)", secret, err, want)
	}
	e := p.connect(t, fakeext.Options{Secret: secret, Label: "Remote"})
	if e.Ack().AssignedLabel != "Remote" {
		t.Fatalf("%+v", e.Ack())
	}
	_, err = fakeext.PairWithCode(ctx, p.extURL, "", code)
	var rej *fakeext.RejectedError
	if !errors.As(err, &rej) || !strings.Contains(rej.Ack.Reason, "already used") {
		t.Fatalf("the code a second time: %v", err)
	}
}

// TestPairResetDisconnectsProcess (issue 24): `monkbrowse pair --reset`,
// another process, replaces the secret; the running owner closes the
// extension connected with the old one (at its next ping), and that
// extension's old secret no longer gets in.
func TestPairResetDisconnectsProcess(t *testing.T) {
	p := startProc(t, false)
	e := p.connect(t, fakeext.Options{Label: "Before"})
	out, _ := pairCode(t, p.home, "--reset")
	if !strings.Contains(out, "pair again") {
		t.Fatalf("pair --reset said %q", out)
	}
	select {
	case <-e.Done():
	case <-time.After(watchdog):
		t.Fatal("the extension paired with the old secret stayed connected after pair --reset")
	}
	// The log line reaches us through the stderr pipe, maybe after the close.
	if !p.stderr.waitForText("monkbrowse pair --reset") {
		t.Fatalf("the log does not say why it disconnected:\n%s", p.stderr.String())
	}
}

// TestImpostorGetsNoUpload (issue 24): a fake extension with the pinned
// Origin and a seed-shaped upload page, but without the secret, holds its
// socket open while the AI uploads: the upload fails (no such profile),
// and every frame the impostor received is either the hello's ack or its
// auth's rejection — no request, no file.
func TestImpostorGetsNoUpload(t *testing.T) {
	root := t.TempDir()
	file := writeFile(t, root, "secret-report.txt", "the person's document")
	p := startProc(t, false, "--upload-root", root)
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	ws, err := fakeext.Dial(ctx, p.extURL, "chrome-extension://emkgfnickjohaibbledibfemnfkoamdj")
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	var frames []string
	read := func() string {
		_, data, err := ws.ReadMessage()
		if err != nil {
			return ""
		}
		frames = append(frames, string(data))
		return string(data)
	}
	nonce := protocol.NewNonce()
	hello, _ := json.Marshal(protocol.Hello{Protocol: protocol.ProtocolVersion, ExtVersion: protocol.Version, Nonce: nonce})
	ws.WriteMessage(websocket.TextMessage, []byte(`{"k":"req","id":"1","type":"hello","payload":`+string(hello)+`}`))
	if f := read(); !strings.Contains(f, `"proof"`) {
		t.Fatalf("hello answered %q", f)
	}
	// The AI tries while the impostor waits with its socket open.
	if txt, ok := upload(t, p, file); ok || strings.Contains(txt, "Put secret-report.txt") {
		t.Fatalf("the upload went somewhere: %s", txt)
	}
	auth, _ := json.Marshal(protocol.Auth{Proof: strings.Repeat("ab", 32), ProfileID: "work", Label: "work",
		Tabs: []protocol.TabInfo{{TabID: 101, Slot: 1, URL: "https://evil.example/upload", Title: "Upload your document here", Active: true, WindowID: 1}}})
	ws.WriteMessage(websocket.TextMessage, []byte(`{"k":"req","id":"2","type":"auth","payload":`+string(auth)+`}`))
	for read() != "" {
	}
	if len(frames) != 2 || !strings.Contains(frames[1], "could not prove it is paired") {
		t.Fatalf("the impostor received %d frames: %q", len(frames), frames)
	}
	for _, f := range frames {
		if strings.Contains(f, `"k":"req"`) || strings.Contains(f, "the person's document") || strings.Contains(f, "secret-report") {
			t.Fatalf("the impostor received %q", f)
		}
	}
	r := p.call(t, "browser_list_tabs", nil)
	if strings.Contains(resultText(r), "evil.example") || strings.Contains(resultText(r), "work") {
		t.Fatalf("the impostor is listed: %s", resultText(r))
	}
}

// TestRefusedFolderPairsWithLoggedCode (issue 24): with ~/.monkbrowse a
// symbolic link (refused), monkbrowse keeps its pairing secret in memory
// and prints a one-time code in its log; that code pairs an extension,
// which then connects; `monkbrowse pair` says why it cannot make codes.
func TestRefusedFolderPairsWithLoggedCode(t *testing.T) {
	home := t.TempDir()
	elsewhere := t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(home, protocol.TokenDirName)); err != nil {
		t.Fatal(err)
	}
	p := startProcWith(t, procOptions{home: home})
	var code string
	for _, line := range strings.Split(p.stderr.String(), "\n") {
		var l struct{ Code, Message string }
		if json.Unmarshal([]byte(line), &l) == nil && l.Code != "" {
			code = l.Code
			if !strings.Contains(l.Message, "Pair with a code") || !strings.Contains(line, "symbolic link") {
				t.Errorf("the code's log line: %s", line)
			}
		}
	}
	if code == "" {
		t.Fatalf("no pairing code in the log:\n%s", p.stderr.String())
	}
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	secret, err := fakeext.PairWithCode(ctx, p.extURL, "", code)
	if err != nil || len(secret) != 2*control.TokenBytes {
		t.Fatalf("PairWithCode = %q, %v", secret, err)
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Fatalf("monkbrowse wrote into the refused folder's target: %v", entries)
	}
	e := p.connect(t, fakeext.Options{Secret: secret, Label: "Memory"})
	if e.Ack().AssignedLabel != "Memory" {
		t.Fatalf("%+v", e.Ack())
	}
	cmd := exec.Command(binPath, "pair")
	cmd.Env = append(os.Environ(), "HOME="+home)
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "symbolic link") || !strings.Contains(string(out), "prints in its log") {
		t.Fatalf("monkbrowse pair with a refused folder: %v %s", err, out)
	}
}
