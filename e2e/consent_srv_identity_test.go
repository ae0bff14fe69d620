package e2e

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/monkbrowse/monkbrowse/e2e/harness"
)

// foreignExtension copies the built extension with another manifest key,
// so Chromium gives it another id (the first 32 hex digits of the key's
// SHA-256, written with the letters a–p).
func foreignExtension(t *testing.T, p *prerequisites) harness.Extension {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "foreign-ext")
	if err := os.CopyFS(dir, os.DirFS(p.ext.Dir)); err != nil {
		t.Fatal(err)
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	mpath := filepath.Join(dir, "manifest.json")
	raw, err := os.ReadFile(mpath)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	m["key"] = base64.StdEncoding.EncodeToString(der)
	out, _ := json.Marshal(m)
	if err := os.WriteFile(mpath, out, 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(der)
	h := hex.EncodeToString(sum[:16])
	id := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return 'a' + (r - '0')
		}
		return 'a' + 10 + (r - 'a')
	}, h)
	return harness.Extension{Dir: dir, ID: id}
}

// TestForeignExtensionIDRefused: a copy of the extension under another id,
// in its own real Chromium, is told it is not trusted (the popup's status
// says rejected and names --allow-extension-id) and never becomes a
// profile of the server.
func TestForeignExtensionIDRefused(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	ext := foreignExtension(t, s.p)
	if ext.ID == s.p.ext.ID {
		t.Fatal("the copy has the same id")
	}
	b, err := harness.Launch(ctx, harness.BrowserConfig{ExecPath: s.p.chromium, Monkbrowse: s.p.bin, Extension: ext, Output: logSink(), Name: "chromium-foreign"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	if err := b.SetSettings(ctx, s.port, "foreign"); err != nil {
		t.Fatal(err)
	}
	pop, err := b.OpenPopup(ctx)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, err := pop.Status(ctx)
		if err == nil && st.State == "rejected" {
			if !strings.Contains(st.Reason, ext.ID) || !strings.Contains(st.Reason, "--allow-extension-id") {
				t.Errorf("the rejection does not name the id and the flag: %s", st.Reason)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the foreign extension was not rejected: %+v (err %v)\nserver log:\n%s", st, err, harness.Tail(s.server.Log(), 20))
		}
		time.Sleep(100 * time.Millisecond)
	}
	if list := s.ok(ctx, t, "browser_list_tabs", nil); strings.Contains(list, "foreign") {
		t.Fatalf("the foreign extension became a profile:\n%s", list)
	}
}
