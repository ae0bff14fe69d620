package run

import (
	"fmt"
	"strconv"
)

// Target is an element found by role and accessible name in each server's
// own snapshot.
type Target struct {
	Role, Name string
	// Element is the human description the element tools take.
	Element string
}

// Page is one fixture page and what the task does on it.
type Page struct {
	Key   string // "signin", "large", "app"
	Title string // the page's <title>, checked after navigation
	// Path is the URL path; File the file served there (relative to the
	// repository root).
	Path, File string
	// About describes the page for the report.
	About string
	// Click is the button the click step presses; ClickCheck is a
	// JavaScript expression true once the click took effect (one click
	// since the navigation).
	Click      Target
	ClickCheck string
	// Type is the field the type step fills with TypeText(rep);
	// TypeCheck(text) is an expression true once the text is in.
	Type      Target
	TypeText  func(rep int) string
	TypeCheck func(text string) string
	// FrameTargets must be in the page as the AI knows it after the snapshot
	// step (that step's snapshot, or the navigation's when the snapshot
	// answers that the page is unchanged since): elements inside the page's
	// cross-site iframes, which a snapshot that leaves those frames unread
	// lacks (its step then fails).
	FrameTargets []Target
}

// Pages are the benchmark's pages, in report order.
var Pages = []Page{
	{
		Key: "signin", Title: "Sign in fixture", Path: "/signin.html", File: "e2e/testdata/form.html",
		About:      "the e2e suite's sign-in form (e2e/testdata/form.html): 2 text fields, password, checkbox, radios, two selects, textarea, buttons, a link, live outputs",
		Click:      Target{Role: "button", Name: "Sign in", Element: "Sign in button"},
		ClickCheck: `document.getElementById('submits').textContent === '1'`,
		Type:       Target{Role: "textbox", Name: "Email", Element: "Email field"},
		TypeText:   func(rep int) string { return "ada+" + strconv.Itoa(rep) + "@example.com" },
		TypeCheck: func(text string) string {
			return fmt.Sprintf(`document.getElementById('email').value === %q && document.getElementById('email-mirror').textContent === %q`, text, text)
		},
	},
	{
		Key: "large", Title: "Inventory (2,000 elements)", Path: "/large.html", File: "bench/testdata/large.html",
		About:      "bench/testdata/large.html: a 283-row table with a link and a button per row, about 2,000 DOM elements",
		Click:      Target{Role: "button", Name: "Pick 137", Element: "Pick 137 button"},
		ClickCheck: `document.getElementById('picks').textContent === '1' && document.getElementById('picked').textContent === 'item 137'`,
		Type:       Target{Role: "textbox", Name: "Filter rows", Element: "Filter rows field"},
		TypeText:   func(rep int) string { return "item " + strconv.Itoa(100+rep) },
		TypeCheck: func(text string) string {
			return fmt.Sprintf(`document.getElementById('filter').value === %q && document.body.dataset.filter === %q`, text, text)
		},
	},
	{
		Key: "huge", Title: "Inventory (2,000 elements)", Path: "/huge.html", File: "bench/testdata/large.html",
		About:      "bench/testdata/large.html served as /huge.html: 2,850 rows, about 20,000 DOM elements (the page's title is the large page's)",
		Click:      Target{Role: "button", Name: "Pick 2737", Element: "Pick 2737 button"},
		ClickCheck: `document.getElementById('picks').textContent === '1' && document.getElementById('picked').textContent === 'item 2737'`,
		Type:       Target{Role: "textbox", Name: "Filter rows", Element: "Filter rows field"},
		TypeText:   func(rep int) string { return "item " + strconv.Itoa(100+rep) },
		TypeCheck: func(text string) string {
			return fmt.Sprintf(`document.getElementById('filter').value === %q && document.body.dataset.filter === %q`, text, text)
		},
	},
	{
		Key: "app", Title: "Acme Store (app)", Path: "/app.html", File: "bench/testdata/app.html",
		About:      "bench/testdata/app.html: an app-like page with a nav landmark, a menu button, tabs, an open dialog with a form, and open shadow-root components (a search form and three product cards)",
		Click:      Target{Role: "button", Name: "Add Green teapot to cart", Element: "Add Green teapot to cart button (inside a shadow root)"},
		ClickCheck: `document.getElementById('cart').textContent === '1'`,
		Type:       Target{Role: "searchbox", Name: "Search products", Element: "Search products field (inside a shadow root)"},
		TypeText:   func(rep int) string { return "teapot " + strconv.Itoa(rep) },
		TypeCheck: func(text string) string {
			return fmt.Sprintf(`document.getElementById('query').textContent === %q`, text)
		},
	},
	framesPage("noframes", "Support desk",
		"bench/testdata/frames.html served as /noframes.html: a ticket form (field, button, live outputs) without iframes, the baseline of the frames page"),
	framesPage("frames", "Support desk",
		"bench/testdata/frames.html: the same ticket form with two cross-site iframes (http://localhost:<port>, their own renderer process), a help widget and a status embed, each with links, a field and a button, read in the snapshot",
		Target{Role: "button", Name: "Search"}, Target{Role: "button", Name: "Check status"}),
}

// framesPage is the iframe pair: the same page served with its two
// cross-site iframes (in their own renderer process; read, inFrames the
// elements the snapshot must show from them) and without them, so the
// snapshot and the actions can be compared on both.
func framesPage(key, title, about string, inFrames ...Target) Page {
	return Page{
		Key: key, Title: title, Path: "/" + key + ".html", File: "bench/testdata/frames.html", About: about,
		Click:      Target{Role: "button", Name: "Open ticket", Element: "Open ticket button"},
		ClickCheck: `document.getElementById('opened').textContent === '1'`,
		Type:       Target{Role: "textbox", Name: "Subject", Element: "Subject field"},
		TypeText:   func(rep int) string { return "Printer jam " + strconv.Itoa(rep) },
		TypeCheck: func(text string) string {
			return fmt.Sprintf(`document.getElementById('subject').value === %q && document.getElementById('subject-mirror').textContent === %q`, text, text)
		},
		FrameTargets: inFrames,
	}
}

// effectExpr wraps a check so every server's evaluation tool returns a
// marker string the runner can find in any result format.
func effectExpr(check string) string {
	return `((` + check + `) ? 'EFFECT' + '_OK' : 'EFFECT' + '_NO')`
}

const effectOK = "EFFECT_OK"
