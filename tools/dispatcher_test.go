package tools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// fakeBrowser is a Browser with one profile and one tab whose session
// answers from a function.
type fakeBrowser struct {
	answer func(typ string, payload any, out any) error
}

func (f fakeBrowser) Profiles(context.Context, bool) ([]ProfileInfo, error) { return nil, nil }

func (f fakeBrowser) WithTab(ctx context.Context, profile string, tab int, fn func(context.Context, Target, Session) error) error {
	return fn(ctx, Target{Slug: "work", Label: "Work", TabID: 7, Slot: 1}, f)
}

func (f fakeBrowser) WithProfile(ctx context.Context, profile string, fn func(context.Context, Target, Session) error) error {
	if profile == "none" {
		return errors.New("No browser is connected to monkbrowse yet.")
	}
	return fn(ctx, Target{Slug: "work", Label: "Work"}, f)
}

func (f fakeBrowser) Request(_ context.Context, typ string, payload, out any) error {
	return f.answer(typ, payload, out)
}

func callRaw(t *testing.T, d *Dispatcher, name, args string) protocol.CallToolResult {
	t.Helper()
	res, err := d.CallTool(context.Background(), name, json.RawMessage(args))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestUnknownToolAndPanic(t *testing.T) {
	d := NewDispatcher(fakeBrowser{answer: func(string, any, any) error { panic("boom") }}, nil)
	if r := callRaw(t, d, "browser_fly", `{}`); !r.IsError || !strings.Contains(r.Content[0].Text, "no tool named \"browser_fly\"") {
		t.Fatalf("unknown tool: %+v", r)
	}
	if r := callRaw(t, d, "browser_snapshot", `{}`); !r.IsError || !strings.Contains(r.Content[0].Text, "boom") || !strings.Contains(r.Content[0].Text, "bug in monkbrowse") {
		t.Fatalf("panic: %+v", r)
	}
}

func TestActionSnapshotFailureKeepsTheActionsSuccess(t *testing.T) {
	d := NewDispatcher(fakeBrowser{answer: func(typ string, _ any, _ any) error {
		if typ == protocol.MsgSnapshot {
			return errors.New("the page is loading.")
		}
		return nil
	}}, nil)
	r := callRaw(t, d, "browser_click", `{"element":"Go","ref":"e3"}`)
	if r.IsError || !strings.Contains(r.Content[0].Text, "Clicked") || !strings.Contains(r.Content[0].Text, "fresh snapshot failed: the page is loading.") {
		t.Fatalf("%+v", r)
	}
}

func TestUploadRefusals(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.txt")
	big := filepath.Join(dir, "big.bin")
	os.WriteFile(small, []byte("hi"), 0o600)
	os.WriteFile(big, make([]byte, 2048), 0o600)
	var sent protocol.UploadFileRequest
	d := NewDispatcher(fakeBrowser{answer: func(typ string, payload any, _ any) error {
		if typ == protocol.MsgUploadFile {
			sent = payload.(protocol.UploadFileRequest)
		}
		return nil
	}}, &Options{UploadLimit: 1024})
	cases := map[string]string{
		"relative/file.txt":               "needs an absolute path",
		filepath.Join(dir, "missing.txt"): "There is no file at",
		dir:                               "is a folder",
		big:                               "more than the upload limit of 1.0 KiB",
		"/dev/null":                       "not a regular file",
	}
	for path, want := range cases {
		args, _ := json.Marshal(map[string]any{"element": "f", "ref": "e7", "path": path})
		r := callRaw(t, d, "browser_upload_file", string(args))
		if !r.IsError || !strings.Contains(r.Content[0].Text, want) {
			t.Errorf("%s: %+v", path, r)
		}
	}
	args, _ := json.Marshal(map[string]any{"element": "f", "ref": "e7", "path": small})
	if r := callRaw(t, d, "browser_upload_file", string(args)); r.IsError || sent.Name != "small.txt" || sent.Data != "aGk=" || sent.TabID != 7 {
		t.Fatalf("upload: %+v sent %+v", r, sent)
	}
}

func TestWaitNeedsTimeOrText(t *testing.T) {
	d := NewDispatcher(fakeBrowser{answer: func(string, any, any) error { return nil }}, nil)
	if r := callRaw(t, d, "browser_wait", `{}`); !r.IsError || !strings.Contains(r.Content[0].Text, "needs `time`") {
		t.Fatalf("%+v", r)
	}
}

func TestNormalizeURL(t *testing.T) {
	for in, want := range map[string]string{
		"example.com":         "https://example.com",
		"http://x.test/":      "http://x.test/",
		"about:blank":         "about:blank",
		" localhost:3000/a ":  "http://localhost:3000/a",
		"127.0.0.1:8080":      "http://127.0.0.1:8080",
		"localhost.example":   "https://localhost.example",
		"data:text/plain,hi":  "data:text/plain,hi",
		"chrome://extensions": "chrome://extensions",
	} {
		if got := normalizeURL(in); got != want {
			t.Errorf("%q → %q, want %q", in, got, want)
		}
	}
}
