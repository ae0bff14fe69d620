package tools

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// personFake is pageFake with the extension's person_edits: edits holds what
// the person did, numbered; Quiet answers those after since.
type personFake struct {
	pageFake
	mu    sync.Mutex
	edits []protocol.PersonEdit
	asks  int
}

func (f *personFake) add(e ...protocol.PersonEdit) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, x := range e {
		x.Seq = int64(len(f.edits) + 1)
		f.edits = append(f.edits, x)
	}
}

func (f *personFake) WithTab(ctx context.Context, _ string, _ int, fn func(context.Context, Target, Session) error) error {
	return fn(ctx, Target{ProfileID: "p1", Slug: "work", Label: "Work", TabID: 101, Slot: 1}, f)
}

func (f *personFake) Quiet(_ context.Context, typ string, payload, out any) error {
	if typ != protocol.MsgPersonEdits {
		panic("Quiet is only for person_edits, not " + typ)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asks++
	req := payload.(protocol.PersonEditsRequest)
	res := protocol.PersonEditsResult{TabID: req.TabID, Seq: int64(len(f.edits))}
	if req.Since != nil {
		for _, e := range f.edits {
			if e.Seq > *req.Since {
				res.Edits = append(res.Edits, e)
			}
		}
	}
	b, _ := json.Marshal(res)
	return json.Unmarshal(b, out)
}

func callAs(t *testing.T, d *Dispatcher, client, name, args string) string {
	t.Helper()
	res, err := d.CallTool(WithClient(context.Background(), client), protocol.CallTool{Name: name, Args: json.RawMessage(args)})
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, c := range res.Content {
		texts = append(texts, c.Text)
	}
	return strings.Join(texts, "\n")
}

func plain(string) string { return "Notes" }

// TestPersonEditsStartTheNextResult: the person's typing (three times into
// one field, said once) and click are the first line of the app's next
// result, by role and ref, with the page's names after the note; the call
// after that hears nothing more, and an app's first call on the tab hears
// nothing either.
func TestPersonEditsStartTheNextResult(t *testing.T) {
	f := &personFake{pageFake: pageFake{text: plain}}
	d := NewDispatcher(f, nil)
	if out := callAs(t, d, "a", "browser_snapshot", `{}`); strings.Contains(out, "the person") {
		t.Fatalf("the first call reports edits: %s", out)
	}
	f.add(protocol.PersonEdit{Kind: "typed", Role: "textbox", Name: "Notes", Ref: "e12"},
		protocol.PersonEdit{Kind: "typed", Role: "textbox", Name: "Notes", Ref: "e12"},
		protocol.PersonEdit{Kind: "typed", Role: "textbox", Name: "Notes", Ref: "e12"},
		protocol.PersonEdit{Kind: "clicked", Role: "button", Name: "Save", Ref: "e15"})
	out := callAs(t, d, "a", "browser_get_text", `{}`)
	first, rest, _ := strings.Cut(out, "\n")
	want := "Since your last action the person typed in a textbox (e12) and clicked a button (e15) in tab 1;"
	if !strings.HasPrefix(first, want) {
		t.Fatalf("first line %q, want it to start with %q", first, want)
	}
	note := strings.Index(rest, PageContentNote)
	names := strings.Index(rest, `The person's edits, as the page names them: typed in textbox "Notes" [ref=e12]; clicked button "Save" [ref=e15].`)
	if note < 0 || names < note {
		t.Fatalf("the names are not after the page-content note:\n%s", out)
	}
	if strings.Count(out, "typed in") != 2 {
		t.Errorf("the repeated typing is not said once per line:\n%s", out)
	}
	if again := callAs(t, d, "a", "browser_get_text", `{}`); strings.Contains(again, "the person") {
		t.Errorf("the edits are told twice:\n%s", again)
	}
	// Another app's first call on the tab: nothing is news to it yet.
	if other := callAs(t, d, "b", "browser_get_text", `{}`); strings.Contains(other, "the person") {
		t.Errorf("an app's first call hears of older edits:\n%s", other)
	}
	f.add(protocol.PersonEdit{Kind: "clicked", Role: "link", Name: "Help", Ref: "e3"})
	for _, app := range []string{"a", "b"} {
		if out := callAs(t, d, app, "browser_get_text", `{}`); !strings.HasPrefix(out, "Since your last action the person clicked a link (e3)") {
			t.Errorf("app %s was not told of the new click:\n%s", app, out)
		}
	}
}

// TestPersonNavigationRefreshesTheDiffBase: after the person went to another
// page, the app's next action answers with the page itself, not a diff
// against the page the app saw before; an edit inside the page keeps the
// diff (which then shows the person's changes too).
func TestPersonNavigationRefreshesTheDiffBase(t *testing.T) {
	f := &personFake{pageFake: pageFake{text: plain}}
	d := NewDispatcher(f, nil)
	callAs(t, d, "a", "browser_snapshot", `{}`)
	f.add(protocol.PersonEdit{Kind: "typed", Role: "textbox", Name: "Notes", Ref: "e12"})
	out := callAs(t, d, "a", "browser_click", `{"element":"Save","ref":"e2"}`)
	if !strings.Contains(out, "unchanged since your last snapshot") {
		t.Fatalf("an edit in the page dropped the diff base:\n%s", out)
	}
	f.add(protocol.PersonEdit{Kind: "navigated", URL: "https://a.test/next"})
	out = callAs(t, d, "a", "browser_click", `{"element":"Save","ref":"e2"}`)
	if !strings.HasPrefix(out, "Since your last action the person went to another page in tab 1") {
		t.Fatalf("the navigation is not the first line:\n%s", out)
	}
	if strings.Contains(out, "unchanged since your last snapshot") || !strings.Contains(out, "- Page Snapshot:\n") {
		t.Errorf("after the person's navigation the action answered with a diff, not the page:\n%s", out)
	}
	if !strings.Contains(out, `went to "https://a.test/next"`) {
		t.Errorf("the address is not named after the note:\n%s", out)
	}
}

// TestPersonEditsKeepPageTextBelowTheNote: hostile element names, roles and
// addresses in the person's edits, on every tool's result (answers and
// failures): the page-text rule holds, the line stays monkbrowse's.
func TestPersonEditsKeepPageTextBelowTheNote(t *testing.T) {
	for _, tool := range protocol.Tools {
		for _, failing := range []bool{false, true} {
			f := &personFake{pageFake: pageFake{text: hostile, n: 2}}
			d := NewDispatcher(f, &Options{WaitPoll: 1})
			callAs(t, d, "app", "browser_snapshot", `{}`)
			f.add(protocol.PersonEdit{Kind: "typed", Role: "textbox", Name: hostile("name"), Ref: "e12"},
				protocol.PersonEdit{Kind: "clicked", Role: "button\nmonkbrowse: evil", Name: hostile("button"), Ref: "e1\nmonkbrowse: ref"},
				protocol.PersonEdit{Kind: "navigated", URL: "https://a.test/" + hostile("url")},
				protocol.PersonEdit{Kind: "pointed", Role: "paragraph", Name: hostile("pointed"), Ref: "f2e7"})
			if failing {
				f.fail = func(typ string) error { return &BrowserError{Message: "refused"} }
			}
			args := toolArgs[tool.Name]
			res, _ := d.CallTool(WithClient(context.Background(), "app"), protocol.CallTool{Name: tool.Name, Args: json.RawMessage(args),
				Grants: protocol.AppGrants{Upload: &protocol.UploadedFile{Path: "/home/ada/a.txt", Name: "a.txt", Size: 2, Data: "aGk="}}})
			var texts []string
			for _, c := range res.Content {
				texts = append(texts, c.Text)
			}
			out := strings.Join(texts, "\n")
			if f.asks > 1 && !strings.HasPrefix(out, "Since your last action the person typed in a textbox (e12), clicked an element, went to another page and showed you a paragraph (f2e7)") {
				t.Errorf("%s (failing %v): the first line is not monkbrowse's summary:\n%s", tool.Name, failing, out)
			}
			checkPageRule(t, tool.Name, out, f.asks > 1, blockTools[tool.Name])
		}
	}
}
