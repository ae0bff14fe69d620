package install

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

const (
	testURL   = "http://127.0.0.1:9220/mcp"
	testToken = "0123456789abcdef"
)

// TestInstallHTTP (issue 45): install --http writes the URL and the
// token's header into the clients that take a URL, in each one's own
// keys, leaves the others alone, makes the files the owner's only (they
// hold the token), never prints the token, and uninstall removes exactly
// those entries.
func TestInstallHTTP(t *testing.T) {
	e := testEnv(t)
	want := map[string]string{"cursor": `{"headers":{"Authorization":"Bearer ` + testToken + `"},"url":"` + testURL + `"}`,
		"vscode":   `{"headers":{"Authorization":"Bearer ` + testToken + `"},"type":"http","url":"` + testURL + `"}`,
		"windsurf": `{"headers":{"Authorization":"Bearer ` + testToken + `"},"serverUrl":"` + testURL + `"}`}
	// Cursor's file exists, readable by others: it is tightened.
	cursor := clientByName(e, "cursor").File
	before := place(t, cursor, "cursor-compact.json")
	if err := os.Chmod(cursor, 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	o := Options{Env: e, Clients: []string{"cursor", "vscode", "windsurf", "codex", "claude-desktop"}, Out: &out, HTTPURL: testURL, HTTPToken: testToken}
	// The dry run shows the entries with the token hidden.
	o.DryRun = true
	if err := Install(o); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), testToken) || !strings.Contains(out.String(), "Bearer <token>") {
		t.Fatalf("dry run output shows the token or no entry:\n%s", out.String())
	}
	out.Reset()
	o.DryRun = false
	if err := Install(o); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if strings.Contains(out.String(), testToken) {
		t.Fatalf("install printed the token:\n%s", out.String())
	}
	for _, name := range []string{"codex", "claude-desktop"} {
		c := clientByName(e, name)
		if _, err := os.Stat(c.File); err == nil {
			t.Errorf("%s takes no URL but its file %s was written", name, c.File)
		}
		if !strings.Contains(out.String(), c.Title+": takes no URL") {
			t.Errorf("the output does not say %s was left alone:\n%s", c.Title, out.String())
		}
	}
	for name, w := range want {
		c := clientByName(e, name)
		b, err := os.ReadFile(c.File)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := parseJSON(string(b), c.Format == "jsonc")
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, b)
		}
		got, _ := json.Marshal(doc.value[c.Key].(map[string]any)[ServerName])
		if string(got) != w {
			t.Errorf("%s entry = %s, want %s", name, got, w)
		}
		if fi, _ := os.Stat(c.File); fi.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s: %s is mode %o, readable by others while it holds the token", name, c.File, fi.Mode().Perm())
		}
	}
	// Again: already there.
	out.Reset()
	if err := Install(o); err != nil {
		t.Fatal(err)
	}
	if strings.Count(out.String(), "already has") != 3 {
		t.Errorf("a second install --http:\n%s", out.String())
	}
	out.Reset()
	if err := Uninstall(Options{Env: e, Out: &out}); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if after, _ := os.ReadFile(cursor); !bytes.Equal(after, before) {
		t.Errorf("cursor's file after uninstall:\n%s\nwant it as it was:\n%s", after, before)
	}
	for _, name := range []string{"vscode", "windsurf"} {
		if _, err := os.Stat(clientByName(e, name).File); !os.IsNotExist(err) {
			t.Errorf("%s: the file install created is still there after uninstall (%v):\n%s", name, err, out.String())
		}
	}
}
