package fakeext

import (
	"fmt"
	"strings"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// Element is one element of a fake page, addressed by Ref as the snapshot
// shows it.
type Element struct {
	Ref      string
	Role     string // heading, textbox, button, checkbox, link, combobox, file, …
	Name     string
	Level    int      // headings
	Value    string   // textbox content
	Checked  bool     // checkbox
	Disabled bool     // refuses clicks and typing
	Href     string   // link: a click navigates there
	Options  []string // combobox choices
	Selected []string // combobox selection
	Text     string   // visible text; Name when empty
	Files    []File   // file input content after an upload
}

// File is an uploaded file as the page received it.
type File struct {
	Name string
	Data []byte
}

// Page is the state of a fake page: its elements and everything the tools
// did to it.
type Page struct {
	Elements []Element
	// Text is extra visible text (besides the elements'), e.g. set by a
	// test to make browser_wait's text appear.
	Text     string
	Console  []protocol.ConsoleEntry
	Keys     []string    // keys pressed, in order ("Enter" after a submit)
	Clicks   []string    // refs clicked, in order
	Hovered  string      // ref last hovered
	Drags    [][2]string // {startRef, endRef} pairs
	ScrollX  int
	ScrollY  int
	ScrollTo string // ref last scrolled into view
	Reloads  int
}

func (p Page) clone() Page {
	q := p
	q.Elements = make([]Element, len(p.Elements))
	for i, e := range p.Elements {
		e.Options = append([]string(nil), e.Options...)
		e.Selected = append([]string(nil), e.Selected...)
		e.Files = append([]File(nil), e.Files...)
		q.Elements[i] = e
	}
	q.Console = append([]protocol.ConsoleEntry(nil), p.Console...)
	q.Keys = append([]string(nil), p.Keys...)
	q.Clicks = append([]string(nil), p.Clicks...)
	q.Drags = append([][2]string(nil), p.Drags...)
	return q
}

// Element returns the element with ref.
func (p *Page) Element(ref string) (*Element, bool) {
	for i := range p.Elements {
		if p.Elements[i].Ref == ref {
			return &p.Elements[i], true
		}
	}
	return nil, false
}

// DefaultPage is the page every URL shows unless Options.PageFor says
// otherwise: a heading, a search box, a button, a checkbox, a link to
// url+"/next", a select and a file input, refs e1…e7.
func DefaultPage(url string) Page {
	return Page{
		Elements: []Element{
			{Ref: "e1", Role: "heading", Name: DefaultTitle(url), Level: 1},
			{Ref: "e2", Role: "textbox", Name: "Search"},
			{Ref: "e3", Role: "button", Name: "Go"},
			{Ref: "e4", Role: "checkbox", Name: "Remember me"},
			{Ref: "e5", Role: "link", Name: "Next page", Href: strings.TrimRight(url, "/") + "/next"},
			{Ref: "e6", Role: "combobox", Name: "Color", Options: []string{"red", "green", "blue"}, Selected: []string{"red"}},
			{Ref: "e7", Role: "file", Name: "Attachment"},
		},
		Text:    "Welcome to " + url,
		Console: []protocol.ConsoleEntry{{Level: "log", Text: "loaded " + url, Time: 1700000000000}},
	}
}

// DefaultTitle is the title of a URL's page unless Options.TitleFor says
// otherwise.
func DefaultTitle(url string) string { return "Page " + url }

// Snapshot renders the page in the snapshot's YAML style (DESIGN §7).
func (p *Page) Snapshot() string {
	var b strings.Builder
	for _, e := range p.Elements {
		fmt.Fprintf(&b, "- %s %q", e.Role, e.Name)
		if e.Level > 0 {
			fmt.Fprintf(&b, " [level=%d]", e.Level)
		}
		if e.Checked {
			b.WriteString(" [checked]")
		}
		if e.Disabled {
			b.WriteString(" [disabled]")
		}
		fmt.Fprintf(&b, " [ref=%s]", e.Ref)
		switch {
		case e.Role == "link" && e.Href != "":
			fmt.Fprintf(&b, ":\n  - /url: %s", e.Href)
		case e.Value != "":
			b.WriteString(": " + e.Value)
		case len(e.Selected) > 0:
			b.WriteString(": " + strings.Join(e.Selected, ", "))
		case len(e.Files) > 0:
			b.WriteString(": " + e.Files[0].Name)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// VisibleText is what browser_get_text returns for the whole page.
func (p *Page) VisibleText() string {
	var parts []string
	for _, e := range p.Elements {
		parts = append(parts, e.visibleText())
	}
	if p.Text != "" {
		parts = append(parts, p.Text)
	}
	return strings.Join(parts, "\n")
}

func (e *Element) visibleText() string {
	if e.Text != "" {
		return e.Text
	}
	if e.Value != "" {
		return e.Name + ": " + e.Value
	}
	return e.Name
}
