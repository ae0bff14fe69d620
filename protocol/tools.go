package protocol

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sync"

	"github.com/invopop/jsonschema"
)

// Target names the tab a tool acts on. Both fields are optional: see
// DESIGN §5.6 for how omitted values resolve.
type Target struct {
	Profile string `json:"profile,omitempty" jsonschema_description:"Which browser profile: its slug (as shown by browser_list_tabs), a unique prefix of the slug, or its profileId; case-insensitive. Omit when only one profile is connected or to use the one you acted on last."`
	Tab     int    `json:"tab,omitempty" jsonschema:"minimum=1" jsonschema_description:"The tab's number (1, 2, 3…) as shown by browser_list_tabs and in the monkbrowse popup. Omit to use the profile's active shared tab."`
}

// ElementTarget names one element by the ref of the latest snapshot.
type ElementTarget struct {
	Element string `json:"element" jsonschema_description:"A short human description of the element, e.g. 'Sign in button'. Used in messages; the ref decides what is acted on."`
	Ref     string `json:"ref" jsonschema:"minLength=1" jsonschema_description:"The element's ref from the latest browser_snapshot, e.g. e12."`
}

// Tool argument structs, one per AI-facing tool.
type (
	NavigateArgs struct {
		URL string `json:"url" jsonschema:"minLength=1" jsonschema_description:"The address to load, e.g. https://example.com/. A missing scheme means https://."`
		Target
	}
	TabArgs struct {
		Target
	}
	SnapshotArgs struct {
		Ref       string `json:"ref,omitempty" jsonschema_description:"Only this element's part of the page: the element (ref from an earlier snapshot, e.g. e12) and everything inside it. Omit for the whole page."`
		MaxTokens int    `json:"maxTokens,omitempty" jsonschema:"minimum=500,maximum=100000" jsonschema_description:"The most tokens the answer may take (estimated as the larger of bytes/4 and the number of non-ASCII characters). Default 10000. Over it, the answer keeps the outline (landmarks and headings), what is on screen and what can be acted on, and ends with how to get the rest."`
		Cursor    string `json:"cursor,omitempty" jsonschema_description:"Continue a snapshot that was cut: pass the cursor its last line gave (e.g. c3.120). The next part of that same snapshot comes back, with the same refs. Other arguments are ignored with a cursor."`
		Target
	}
	FindArgs struct {
		Query     string `json:"query" jsonschema:"minLength=1" jsonschema_description:"What to look for: text matched case-insensitively against each element's role, name and value (e.g. checkout), or role:ROLE with an optional quoted name (e.g. role:button \"Save\")."`
		MaxTokens int    `json:"maxTokens,omitempty" jsonschema:"minimum=500,maximum=100000" jsonschema_description:"The most tokens the answer may take. Default 10000."`
		Target
	}
	GetTextArgs struct {
		Element string `json:"element,omitempty" jsonschema_description:"A short description of the element whose text you want (optional)."`
		Ref     string `json:"ref,omitempty" jsonschema_description:"The element's ref from the latest browser_snapshot. Omit to read the whole page's visible text."`
		Target
	}
	EvaluateArgs struct {
		Expression string `json:"expression" jsonschema:"minLength=1" jsonschema_description:"A JavaScript expression evaluated in the page, e.g. document.title or [...document.links].length. Promises are awaited; the value must be JSON-serialisable."`
		Target
	}
	ElementArgs struct {
		ElementTarget
		Target
	}
	TypeArgs struct {
		ElementTarget
		Text   string `json:"text" jsonschema_description:"The text to type. It replaces what the field holds."`
		Submit bool   `json:"submit,omitempty" jsonschema_description:"Press Enter after typing, e.g. to submit a search or sign-in form."`
		Target
	}
	SelectOptionArgs struct {
		ElementTarget
		Values []string `json:"values" jsonschema:"minItems=1" jsonschema_description:"The options to select, by value or by visible label. More than one only for a multi-select."`
		Target
	}
	PressKeyArgs struct {
		Key string `json:"key" jsonschema:"minLength=1" jsonschema_description:"A key name such as Enter, Escape, Tab, ArrowDown, a, or a combination joined with +, such as Ctrl+A or Shift+Tab."`
		Target
	}
	ScrollArgs struct {
		Direction string `json:"direction,omitempty" jsonschema:"enum=up,enum=down,enum=left,enum=right" jsonschema_description:"Which way to scroll the page. Default down."`
		Amount    int    `json:"amount,omitempty" jsonschema:"minimum=1" jsonschema_description:"How far to scroll, in pixels. Default: most of one screen."`
		Element   string `json:"element,omitempty" jsonschema_description:"A short description of the element to scroll into view (optional)."`
		Ref       string `json:"ref,omitempty" jsonschema_description:"Scroll this element (ref from the latest browser_snapshot) into view instead of scrolling by an amount."`
		Target
	}
	DragArgs struct {
		StartElement string `json:"startElement" jsonschema_description:"A short description of the element to drag."`
		StartRef     string `json:"startRef" jsonschema:"minLength=1" jsonschema_description:"The ref of the element to drag, from the latest browser_snapshot."`
		EndElement   string `json:"endElement" jsonschema_description:"A short description of where to drop it."`
		EndRef       string `json:"endRef" jsonschema:"minLength=1" jsonschema_description:"The ref of the drop target, from the latest browser_snapshot."`
		Target
	}
	UploadFileArgs struct {
		ElementTarget
		Path string `json:"path" jsonschema:"minLength=1" jsonschema_description:"Absolute path of a regular file on this computer; the monkbrowse server reads it (size limited) and puts it into the file input."`
		Target
	}
	WaitArgs struct {
		Time float64 `json:"time,omitempty" jsonschema:"minimum=0,maximum=50" jsonschema_description:"Seconds to wait. With text: the most to wait for it (default 10)."`
		Text string  `json:"text,omitempty" jsonschema_description:"Wait until this text appears in the page's visible text."`
		Target
	}
	ScreenshotArgs struct {
		Element  string `json:"element,omitempty" jsonschema_description:"A short description of the element to capture (optional)."`
		Ref      string `json:"ref,omitempty" jsonschema_description:"Capture only this element (ref from the latest browser_snapshot), cropped to its box. Omit for the visible area."`
		FullPage bool   `json:"fullPage,omitempty" jsonschema_description:"Capture the whole scrollable page instead of the visible area. With the debugger mode on it is one capture; without it the page is stitched from at most 10 screens and a taller page is refused."`
		Target
	}
	FormField struct {
		Element string `json:"element" jsonschema_description:"A short human description of the field, e.g. 'Email'."`
		Ref     string `json:"ref" jsonschema:"minLength=1" jsonschema_description:"The field's ref from the latest browser_snapshot."`
		Value   string `json:"value" jsonschema_description:"Text fields and text areas: the text (replaces their content). Selects: an option's value or label. Checkboxes and switches: true or false. Radio buttons: true selects it."`
	}
	FillFormArgs struct {
		Fields []FormField `json:"fields" jsonschema:"minItems=1" jsonschema_description:"The fields to fill, in order."`
		Target
	}
	ClickXYArgs struct {
		X      float64 `json:"x" jsonschema:"minimum=0" jsonschema_description:"Horizontal position in CSS pixels from the left edge of the tab's visible area (the viewport, as in a browser_screenshot of the visible area)."`
		Y      float64 `json:"y" jsonschema:"minimum=0" jsonschema_description:"Vertical position in CSS pixels from the top edge of the viewport."`
		Button string  `json:"button,omitempty" jsonschema:"enum=left,enum=right,enum=middle" jsonschema_description:"Which mouse button. Default left."`
		Double bool    `json:"double,omitempty" jsonschema_description:"Double-click instead of a single click."`
		Target
	}
	DragXYArgs struct {
		StartX float64 `json:"startX" jsonschema:"minimum=0" jsonschema_description:"Where the drag starts: CSS pixels from the viewport's left edge."`
		StartY float64 `json:"startY" jsonschema:"minimum=0" jsonschema_description:"Where the drag starts: CSS pixels from the viewport's top edge."`
		EndX   float64 `json:"endX" jsonschema:"minimum=0" jsonschema_description:"Where the drag ends: CSS pixels from the viewport's left edge."`
		EndY   float64 `json:"endY" jsonschema:"minimum=0" jsonschema_description:"Where the drag ends: CSS pixels from the viewport's top edge."`
		Target
	}
	NetworkRequestsArgs struct {
		Filter        string `json:"filter,omitempty" jsonschema_description:"Only requests whose URL contains this text (case-insensitive), e.g. /api/ or .json."`
		Since         int    `json:"since,omitempty" jsonschema:"minimum=0" jsonschema_description:"Only requests numbered above this (each request is listed with its number #N): pass the highest number you saw to get only newer ones."`
		IncludeBodies bool   `json:"includeBodies,omitempty" jsonschema_description:"Also return response bodies (text, truncated). Needs the debugger mode, and only requests made while monkbrowse was attached to the tab have them."`
		Target
	}
	DownloadWait struct {
		URLContains string `json:"urlContains,omitempty" jsonschema_description:"Wait for a download whose URL or file name contains this text. Omit to wait for the next download to finish."`
		TimeoutMs   int    `json:"timeoutMs,omitempty" jsonschema:"minimum=1,maximum=45000" jsonschema_description:"How long to wait in milliseconds (default 30000, at most 45000, below MCP clients' usual call timeout)."`
	}
	DownloadsArgs struct {
		Profile string        `json:"profile,omitempty" jsonschema_description:"Which browser profile (slug, unique slug prefix or profileId). Omit when only one is connected or to use the one you acted on last."`
		Wait    *DownloadWait `json:"wait,omitempty" jsonschema_description:"Wait for a download to finish before answering, e.g. right after clicking a download link."`
	}
	ListTabsArgs struct {
		Profile string `json:"profile,omitempty" jsonschema_description:"Only list this profile (slug, unique slug prefix or profileId). Omit to list every profile."`
	}
	SwitchTabArgs struct {
		Tab     int    `json:"tab" jsonschema:"minimum=1" jsonschema_description:"The number of the shared tab to bring to the front, from browser_list_tabs."`
		Profile string `json:"profile,omitempty" jsonschema_description:"Which browser profile (slug, unique slug prefix or profileId). Omit when only one is connected or to use the one you acted on last."`
	}
	NewTabArgs struct {
		URL     string `json:"url,omitempty" jsonschema_description:"The address to open. Omit for an empty tab."`
		Profile string `json:"profile,omitempty" jsonschema_description:"Which browser profile opens the tab (slug, unique slug prefix or profileId). Omit when only one is connected or to use the one you acted on last."`
	}
	HandleDialogArgs struct {
		Accept     bool    `json:"accept" jsonschema_description:"true to accept the next dialog (OK: confirm() returns true, prompt() returns promptText); false to dismiss it (Cancel)."`
		PromptText *string `json:"promptText,omitempty" jsonschema_description:"For a prompt: the text to answer with when accepting. Omit to accept with the prompt's default value."`
		Target
	}
	CloseTabArgs struct {
		Tab     int    `json:"tab" jsonschema:"minimum=1" jsonschema_description:"The number of the shared tab to close, from browser_list_tabs."`
		Profile string `json:"profile,omitempty" jsonschema_description:"Which browser profile (slug, unique slug prefix or profileId). Omit when only one is connected or to use the one you acted on last."`
	}
)

// Tool is one AI-facing tool of DESIGN §5.6.
type Tool struct {
	Name        string
	Title       string
	Description string
	// Args is a zero value of the tool's argument struct.
	Args any
	// ReadOnly tools never change the page; Destructive ones may lose state
	// (closing a tab). Idempotent tools can be repeated with the same
	// arguments without a further effect (reads; navigating to a URL).
	// LocalOnly tools touch nothing beyond monkbrowse's own state (the tab
	// listing): every other tool reaches into web pages, the open world.
	ReadOnly    bool
	Destructive bool
	Idempotent  bool
	LocalOnly   bool
	// ChangesPage tools answer with a fresh snapshot after their result line.
	ChangesPage bool
}

const afterAction = " Returns a result line followed by a fresh snapshot of the page (URL, title, elements with refs)."

// Tools is the catalog in the order tools/list shows it. Descriptions say
// when to use a tool rather than its neighbours.
var Tools = []Tool{
	{Name: "browser_navigate", Title: "Navigate", Args: NavigateArgs{}, ChangesPage: true, Idempotent: true,
		Description: "Load a URL in a shared tab and wait for the page to finish loading. Use it to open a site or move to a known address; to follow a link on the page, browser_click it instead." + afterAction},
	{Name: "browser_go_back", Title: "Go back", Args: TabArgs{}, ChangesPage: true,
		Description: "Go back one page in the tab's history, like the browser's Back button." + afterAction},
	{Name: "browser_go_forward", Title: "Go forward", Args: TabArgs{}, ChangesPage: true,
		Description: "Go forward one page in the tab's history, like the browser's Forward button." + afterAction},
	{Name: "browser_reload", Title: "Reload", Args: TabArgs{}, ChangesPage: true, Idempotent: true,
		Description: "Reload the tab's page and wait for it to load." + afterAction},
	{Name: "browser_snapshot", Title: "Page snapshot", Args: SnapshotArgs{}, ReadOnly: true, Idempotent: true,
		Description: "Read the page as an accessibility snapshot: one line per element with its role, name, state and a ref (e.g. [ref=e12]) that the acting tools take. Use it first on a page, and again when the page changed on its own; prefer it to browser_screenshot for finding and reading elements. Returns the page URL, title and the snapshot, within a token budget: a large page comes back as its outline, what is on screen and what can be acted on, with a last line saying how to get the rest (cursor for the next part, ref for one element's part)."},
	{Name: "browser_find", Title: "Find elements", Args: FindArgs{}, ReadOnly: true, Idempotent: true,
		Description: "Find the elements of the page whose role, name or value matches a query, without reading the whole snapshot. Use it to locate a control on a large page. Returns each matching line with its ref, under its ancestors' lines for context."},
	{Name: "browser_get_text", Title: "Get text", Args: GetTextArgs{}, ReadOnly: true, Idempotent: true,
		Description: "Read the visible text of one element (by ref) or of the whole page. Use it for reading articles, tables or messages in full, where the snapshot's lines are too terse. Returns plain text."},
	{Name: "browser_screenshot", Title: "Screenshot", Args: ScreenshotArgs{}, ReadOnly: true, Idempotent: true,
		Description: "Take a PNG screenshot of the tab's visible area, of one element (ref, cropped to it) or of the whole page (fullPage). Use it to see layout, images, charts or canvas content the snapshot cannot describe, and to find coordinates for browser_click_xy. A background tab is brought forward for the capture and the person's tab is given back afterwards. Returns an image."},
	{Name: "browser_get_console_logs", Title: "Console logs", Args: TabArgs{}, ReadOnly: true, Idempotent: true,
		Description: "Read the page's console output (log, info, warn, error, debug), uncaught errors, and alert/confirm/prompt dialogs that monkbrowse answered so they did not block the page. Use it when a page misbehaves. Returns one line per entry with its level."},
	{Name: "browser_network_requests", Title: "Network requests", Args: NetworkRequestsArgs{}, ReadOnly: true, Idempotent: true,
		Description: "List the tab's network requests since its page loaded: method, URL, status, type, size when known, timing, and why a request failed or was blocked. Use it to check what a page fetched or sent (APIs, failed loads); filter by URL text and pass since to get only newer ones. With the debugger mode on, includeBodies adds response bodies. The list is bounded (newest kept)."},
	{Name: "browser_evaluate", Title: "Evaluate JavaScript", Args: EvaluateArgs{}, Destructive: true,
		Description: "Evaluate a JavaScript expression in the page and return its value as JSON. Use it for facts the snapshot and text do not show; to act on the page prefer the element tools, which wait for the page to settle. It can change anything the page's own scripts can. Off by default: it is refused until the person switches on \"Let the AI run JavaScript in shared tabs\" for that browser profile (monkbrowse extension options or popup); prefer browser_snapshot and browser_get_text. Pages with a strict Content Security Policy refuse it too."},
	{Name: "browser_click", Title: "Click", Args: ElementArgs{}, ChangesPage: true, Destructive: true,
		Description: "Click an element by its ref from the latest snapshot (buttons, links, checkboxes, radio buttons…). Use it rather than browser_click_xy whenever the element has a ref." + afterAction},
	{Name: "browser_hover", Title: "Hover", Args: ElementArgs{}, ChangesPage: true,
		Description: "Move the pointer over an element by its ref, e.g. to open a menu or show a tooltip." + afterAction},
	{Name: "browser_type", Title: "Type text", Args: TypeArgs{}, ChangesPage: true, Destructive: true,
		Description: "Type text into one editable element (text field, text area, rich-text editor) by its ref, replacing its content; set submit to press Enter afterwards. To fill several fields of a form at once use browser_fill_form." + afterAction},
	{Name: "browser_fill_form", Title: "Fill form", Args: FillFormArgs{}, ChangesPage: true, Destructive: true,
		Description: "Fill several form fields in one call: text fields and text areas (text), selects (option value or label), checkboxes (true/false) and radio buttons (true). Faster than one browser_type or browser_click per field: the page settles once and one change list comes back. Stops at the first field that fails and says which; the fields before it stay filled. It does not submit: click the submit button afterwards." + afterAction},
	{Name: "browser_select_option", Title: "Select option", Args: SelectOptionArgs{}, ChangesPage: true, Destructive: true,
		Description: "Choose one or more options in a select (drop-down or list box) by its ref, by option value or label." + afterAction},
	{Name: "browser_press_key", Title: "Press key", Args: PressKeyArgs{}, ChangesPage: true, Destructive: true,
		Description: "Press a key or key combination in the focused element, e.g. Enter, Escape, ArrowDown, Ctrl+A." + afterAction},
	{Name: "browser_scroll", Title: "Scroll", Args: ScrollArgs{}, ChangesPage: true,
		Description: "Scroll the page up, down, left or right by an amount, or scroll an element into view by its ref. Use it to load lazily loaded content." + afterAction},
	{Name: "browser_drag", Title: "Drag and drop", Args: DragArgs{}, ChangesPage: true, Destructive: true,
		Description: "Drag one element onto another, both by ref from the latest snapshot." + afterAction},
	{Name: "browser_click_xy", Title: "Click at coordinates", Args: ClickXYArgs{}, ChangesPage: true, Destructive: true,
		Description: "Click at a point of the tab's viewport, in CSS pixels, e.g. read off a browser_screenshot of the visible area. A fallback for canvas apps, maps and whatever the snapshot cannot name: when the target has a ref, use browser_click." + afterAction},
	{Name: "browser_drag_xy", Title: "Drag between coordinates", Args: DragXYArgs{}, ChangesPage: true, Destructive: true,
		Description: "Press the mouse at one viewport point, move to another and release (CSS pixels), e.g. to draw on a canvas or move a slider handle. A fallback for what the snapshot cannot name: for elements with refs use browser_drag." + afterAction},
	{Name: "browser_upload_file", Title: "Upload file", Args: UploadFileArgs{}, ChangesPage: true, Destructive: true,
		Description: "Put a file from this computer into a file input (by ref). The server reads the file at the absolute path you give." + afterAction},
	{Name: "browser_downloads", Title: "Downloads", Args: DownloadsArgs{}, ReadOnly: true, Idempotent: true,
		Description: "List the files the profile's shared tabs downloaded: file name, full path on the browser's computer, size and state (in progress, complete, interrupted). Downloads of tabs that are not shared are never listed. Use it after clicking a download link; set wait to answer only once the download finished (bounded)."},
	{Name: "browser_pdf", Title: "Save as PDF", Args: TabArgs{},
		Description: "Save the tab's page as a PDF file in the browser's download folder and return its path. Needs the debugger mode, which the person switches on in the monkbrowse options (Chrome shows a banner while it is used)."},
	{Name: "browser_wait", Title: "Wait", Args: WaitArgs{}, ReadOnly: true, Idempotent: true,
		Description: "Wait a number of seconds, or until a text appears on the page (bounded). Use it when a page updates on its own after an action. Returns how long it waited and whether the text appeared."},
	{Name: "browser_list_tabs", Title: "List tabs", Args: ListTabsArgs{}, ReadOnly: true, Idempotent: true, LocalOnly: true,
		Description: "List every connected browser profile (slug, label, connected or not) with its shared tabs, numbered. Only tabs the person shared are visible. Use the numbers as `tab` and the slugs as `profile` in the other tools."},
	{Name: "browser_switch_tab", Title: "Switch tab", Args: SwitchTabArgs{}, Idempotent: true,
		Description: "Bring a shared tab to the front of its window and make it the default tab for later calls. Returns the tab now active."},
	{Name: "browser_new_tab", Title: "New tab", Args: NewTabArgs{},
		Description: "Open a new tab (optionally at a URL). The new tab is shared automatically. Returns its number."},
	{Name: "browser_close_tab", Title: "Close tab", Args: CloseTabArgs{}, Destructive: true,
		Description: "Close a shared tab by its number. Returns which tab closed."},
	{Name: "browser_handle_dialog", Title: "Handle dialog", Args: HandleDialogArgs{},
		Description: "Decide the answer to the tab's next alert, confirm or prompt. Dialogs never block a shared tab: by default an alert is acknowledged, a confirm dismissed (false) and a prompt cancelled (null), and the result of the action that raised one says so. To accept instead, call this first, then repeat the action that opens the dialog. The answer applies to one dialog within 60 seconds."},
}

var toolsByName = func() map[string]*Tool {
	m := make(map[string]*Tool, len(Tools))
	for i := range Tools {
		m[Tools[i].Name] = &Tools[i]
	}
	return m
}()

// LookupTool returns the tool named name.
func LookupTool(name string) (*Tool, bool) {
	t, ok := toolsByName[name]
	return t, ok
}

var (
	schemaMu    sync.Mutex
	schemaCache = map[string]json.RawMessage{}
)

// InputSchema returns the tool's flat JSON Schema (an object schema with no
// $ref and no $schema), generated from its argument struct.
func (t *Tool) InputSchema() json.RawMessage {
	schemaMu.Lock()
	defer schemaMu.Unlock()
	if s, ok := schemaCache[t.Name]; ok {
		return s
	}
	s := SchemaFor(t.Args)
	schemaCache[t.Name] = s
	return s
}

// SchemaFor reflects a flat JSON Schema from an argument struct value.
func SchemaFor(args any) json.RawMessage {
	r := &jsonschema.Reflector{Anonymous: true, DoNotReference: true}
	s := r.ReflectFromType(reflect.TypeOf(args))
	s.Version = ""
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		panic(fmt.Sprintf("protocol: schema for %T: %v", args, err))
	}
	return b
}
