package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
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
	res, err := d.CallTool(context.Background(), protocol.CallTool{Name: name, Args: json.RawMessage(args)})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestUnknownToolAndPanic(t *testing.T) {
	var logged bytes.Buffer
	d := NewDispatcher(fakeBrowser{answer: func(string, any, any) error { panic("boom") }},
		&Options{Logger: slog.New(slog.NewTextHandler(&logged, nil))})
	if r := callRaw(t, d, "browser_fly", `{}`); !r.IsError || !strings.Contains(r.Content[0].Text, "no tool named \"browser_fly\"") {
		t.Fatalf("unknown tool: %+v", r)
	}
	if r := callRaw(t, d, "browser_snapshot", `{}`); !r.IsError || !strings.Contains(r.Content[0].Text, "boom") || !strings.Contains(r.Content[0].Text, "bug in monkbrowse") {
		t.Fatalf("panic: %+v", r)
	}
	if l := logged.String(); !strings.Contains(l, "level=ERROR") || !strings.Contains(l, "tool=browser_snapshot") || !strings.Contains(l, "panic=boom") || !strings.Contains(l, "runtime/debug.Stack") {
		t.Fatalf("the panic was not logged with its tool and stack: %s", l)
	}
	// Without a logger the panic is still answered (and the record dropped).
	d = NewDispatcher(fakeBrowser{answer: func(string, any, any) error { panic("boom") }}, nil)
	if r := callRaw(t, d, "browser_snapshot", `{}`); !r.IsError || !strings.Contains(r.Content[0].Text, "boom") {
		t.Fatalf("panic without logger: %+v", r)
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

func TestUploadUsesOnlyTheFileTheAppsProcessRead(t *testing.T) {
	var sent protocol.UploadFileRequest
	d := NewDispatcher(fakeBrowser{answer: func(typ string, payload any, _ any) error {
		if typ == protocol.MsgUploadFile {
			sent = payload.(protocol.UploadFileRequest)
		}
		return nil
	}}, nil)
	args := `{"element":"f","ref":"e7","path":"/home/a/small.txt"}`
	// No grants (an older forwarder): refused, and the dispatcher reads
	// nothing itself.
	r, _ := d.CallTool(context.Background(), protocol.CallTool{Name: "browser_upload_file", Args: json.RawMessage(args)})
	if !r.IsError || !strings.Contains(r.Content[0].Text, "did not read the file") || sent.Name != "" {
		t.Fatalf("without grants: %+v sent %+v", r, sent)
	}
	granted := protocol.AppGrants{Upload: &protocol.UploadedFile{Path: "/home/a/small.txt", Name: "small.txt", Size: 2, Data: "aGk="}}
	r, _ = d.CallTool(context.Background(), protocol.CallTool{Name: "browser_upload_file", Args: json.RawMessage(args), Grants: granted})
	if r.IsError || sent.Name != "small.txt" || sent.Data != "aGk=" || sent.TabID != 7 || !strings.Contains(r.Content[0].Text, "small.txt (2 bytes)") {
		t.Fatalf("upload: %+v sent %+v", r, sent)
	}
	// A file read for another path is never sent.
	r, _ = d.CallTool(context.Background(), protocol.CallTool{Name: "browser_upload_file", Args: json.RawMessage(`{"element":"f","ref":"e7","path":"/home/a/other.txt"}`), Grants: granted})
	if !r.IsError {
		t.Fatalf("mismatched path: %+v", r)
	}
}

func TestFileURLsNeedTheAppsFlag(t *testing.T) {
	var navigated []string
	d := NewDispatcher(fakeBrowser{answer: func(typ string, payload any, _ any) error {
		switch p := payload.(type) {
		case protocol.NavigateRequest:
			navigated = append(navigated, p.URL)
		case protocol.NewTabRequest:
			navigated = append(navigated, p.URL)
		}
		return nil
	}}, nil)
	for _, u := range []string{"file:///etc/passwd", "FILE:///etc/passwd", " \tfi\tle:///etc/passwd", "file:/etc/passwd", "\u0000file:///etc/passwd"} {
		for _, tool := range []string{"browser_navigate", "browser_new_tab"} {
			args, _ := json.Marshal(map[string]string{"url": u})
			r, _ := d.CallTool(context.Background(), protocol.CallTool{Name: tool, Args: args})
			if !r.IsError || !strings.Contains(r.Content[0].Text, "--allow-file-urls") {
				t.Errorf("%s %q: %+v", tool, u, r)
			}
		}
	}
	if len(navigated) != 0 {
		t.Fatalf("refused URLs reached the browser: %q", navigated)
	}
	if r, _ := d.CallTool(context.Background(), protocol.CallTool{Name: "browser_navigate", Args: json.RawMessage(`{"url":"file:///etc/hostname"}`), Grants: protocol.AppGrants{AllowFileURLs: true}}); r.IsError {
		t.Fatalf("with the flag: %+v", r)
	}
	if len(navigated) != 1 || navigated[0] != "file:///etc/hostname" {
		t.Fatalf("navigated %q", navigated)
	}
}

func TestWaitNeedsTimeOrText(t *testing.T) {
	d := NewDispatcher(fakeBrowser{answer: func(string, any, any) error { return nil }}, nil)
	if r := callRaw(t, d, "browser_wait", `{}`); !r.IsError || !strings.Contains(r.Content[0].Text, "needs `time`") {
		t.Fatalf("%+v", r)
	}
}

// TestActionNoteFollowsTheResultLine: an action whose synthetic input left
// the page unchanged says so right after its result line (issue 41): the
// extension's note is never dropped, so the answer is not a plain success.
func TestActionNoteFollowsTheResultLine(t *testing.T) {
	const note = "The page showed no change after it: the app may have ignored this synthetic input."
	d := NewDispatcher(fakeBrowser{answer: func(typ string, _ any, out any) error {
		switch o := out.(type) {
		case *protocol.TabResult:
			o.Note = note
		case *protocol.SnapshotResult:
			o.URL, o.Snapshot = "http://x.test/", "- button \"Go\" [ref=e1]"
		}
		return nil
	}}, nil)
	for _, c := range []struct{ tool, args, line string }{
		{"browser_press_key", `{"key":"Ctrl+B"}`, "Pressed Ctrl+B in "},
		{"browser_drag_xy", `{"startX":1,"startY":2,"endX":30,"endY":40}`, "Dragged"},
	} {
		r := callRaw(t, d, c.tool, c.args)
		text := r.Content[0].Text
		if r.IsError || !strings.Contains(text, c.line) || !strings.Contains(text, ".\n"+note+"\n") {
			t.Errorf("%s: the note does not follow the result line:\n%s", c.tool, text)
		}
	}
}
