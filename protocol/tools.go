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
		Time float64 `json:"time,omitempty" jsonschema:"minimum=0,maximum=60" jsonschema_description:"Seconds to wait. With text: the most to wait for it (default 10)."`
		Text string  `json:"text,omitempty" jsonschema_description:"Wait until this text appears in the page's visible text."`
		Target
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
	// (closing a tab).
	ReadOnly    bool
	Destructive bool
	// ChangesPage tools answer with a fresh snapshot after their result line.
	ChangesPage bool
}

const afterAction = " Returns a result line followed by a fresh snapshot of the page (URL, title, elements with refs)."

// Tools is the catalog in the order tools/list shows it.
var Tools = []Tool{
	{Name: "browser_navigate", Title: "Navigate", Args: NavigateArgs{}, ChangesPage: true,
		Description: "Load a URL in a shared tab and wait for the page to finish loading. Use it to open a site or move to a known address." + afterAction},
	{Name: "browser_go_back", Title: "Go back", Args: TabArgs{}, ChangesPage: true,
		Description: "Go back one page in the tab's history, like the browser's Back button." + afterAction},
	{Name: "browser_go_forward", Title: "Go forward", Args: TabArgs{}, ChangesPage: true,
		Description: "Go forward one page in the tab's history, like the browser's Forward button." + afterAction},
	{Name: "browser_reload", Title: "Reload", Args: TabArgs{}, ChangesPage: true,
		Description: "Reload the tab's page and wait for it to load." + afterAction},
	{Name: "browser_snapshot", Title: "Page snapshot", Args: TabArgs{}, ReadOnly: true,
		Description: "Read the page as an accessibility snapshot: one line per element with its role, name, state and a ref (e.g. [ref=e12]) that the acting tools take. Use it before clicking or typing, and after the page changes on its own. Returns the page URL, title and the snapshot."},
	{Name: "browser_get_text", Title: "Get text", Args: GetTextArgs{}, ReadOnly: true,
		Description: "Read the visible text of one element (by ref) or of the whole page. Use it for reading articles, tables or messages in full. Returns plain text."},
	{Name: "browser_screenshot", Title: "Screenshot", Args: TabArgs{}, ReadOnly: true,
		Description: "Take a PNG screenshot of the tab's visible area. A background tab is brought forward for the capture and the person's tab is given back afterwards. Returns an image; prefer browser_snapshot to find elements."},
	{Name: "browser_get_console_logs", Title: "Console logs", Args: TabArgs{}, ReadOnly: true,
		Description: "Read the page's console output (log, info, warn, error, debug), uncaught errors, and alert/confirm/prompt dialogs that monkbrowse answered so they did not block the page. Returns one line per entry with its level."},
	{Name: "browser_evaluate", Title: "Evaluate JavaScript", Args: EvaluateArgs{},
		Description: "Evaluate a JavaScript expression in the page and return its value as JSON. Use it for facts the snapshot does not show. Off by default: it is refused until the person switches on \"Let the AI run JavaScript in shared tabs\" for that browser profile (monkbrowse extension options or popup); prefer browser_snapshot and browser_get_text. Pages with a strict Content Security Policy refuse it too."},
	{Name: "browser_click", Title: "Click", Args: ElementArgs{}, ChangesPage: true,
		Description: "Click an element by its ref from the latest snapshot (buttons, links, checkboxes, radio buttons…)." + afterAction},
	{Name: "browser_hover", Title: "Hover", Args: ElementArgs{}, ChangesPage: true,
		Description: "Move the pointer over an element by its ref, e.g. to open a menu or show a tooltip." + afterAction},
	{Name: "browser_type", Title: "Type text", Args: TypeArgs{}, ChangesPage: true,
		Description: "Type text into an editable element (text field, text area, rich-text editor) by its ref, replacing its content; set submit to press Enter afterwards." + afterAction},
	{Name: "browser_select_option", Title: "Select option", Args: SelectOptionArgs{}, ChangesPage: true,
		Description: "Choose one or more options in a select (drop-down or list box) by its ref, by option value or label." + afterAction},
	{Name: "browser_press_key", Title: "Press key", Args: PressKeyArgs{}, ChangesPage: true,
		Description: "Press a key or key combination in the focused element, e.g. Enter, Escape, ArrowDown, Ctrl+A." + afterAction},
	{Name: "browser_scroll", Title: "Scroll", Args: ScrollArgs{}, ChangesPage: true,
		Description: "Scroll the page up, down, left or right by an amount, or scroll an element into view by its ref. Use it to load lazily loaded content." + afterAction},
	{Name: "browser_drag", Title: "Drag and drop", Args: DragArgs{}, ChangesPage: true,
		Description: "Drag one element onto another, both by ref from the latest snapshot." + afterAction},
	{Name: "browser_upload_file", Title: "Upload file", Args: UploadFileArgs{}, ChangesPage: true,
		Description: "Put a file from this computer into a file input (by ref). The server reads the file at the absolute path you give." + afterAction},
	{Name: "browser_wait", Title: "Wait", Args: WaitArgs{}, ReadOnly: true,
		Description: "Wait a number of seconds, or until a text appears on the page (bounded). Use it when a page updates on its own after an action. Returns how long it waited and whether the text appeared."},
	{Name: "browser_list_tabs", Title: "List tabs", Args: ListTabsArgs{}, ReadOnly: true,
		Description: "List every connected browser profile (slug, label, connected or not) with its shared tabs, numbered. Only tabs the person shared are visible. Use the numbers as `tab` and the slugs as `profile` in the other tools."},
	{Name: "browser_switch_tab", Title: "Switch tab", Args: SwitchTabArgs{},
		Description: "Bring a shared tab to the front of its window and make it the default tab for later calls. Returns the tab now active."},
	{Name: "browser_new_tab", Title: "New tab", Args: NewTabArgs{},
		Description: "Open a new tab (optionally at a URL). The new tab is shared automatically. Returns its number."},
	{Name: "browser_close_tab", Title: "Close tab", Args: CloseTabArgs{}, Destructive: true,
		Description: "Close a shared tab by its number. Returns which tab closed."},
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
