package protocol

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/invopop/jsonschema"
)

// Target names the tab a tool acts on. Both fields are optional: see
// DESIGN §5.6 for how omitted values resolve. Their descriptions are two
// words on purpose: every tab-scoped tool repeats them in tools/list, and
// the initialize instructions explain profiles, tab numbers and what an
// omitted one means once (issue 30, issue 29's room for new tools).
type Target struct {
	Profile string `json:"profile,omitempty" jsonschema_description:"Profile slug"`
	Tab     int    `json:"tab,omitempty" jsonschema:"minimum=1" jsonschema_description:"Tab number"`
}

// ElementTarget names one element by the ref of the latest snapshot.
type ElementTarget struct {
	Element string `json:"element" jsonschema_description:"What the element is."`
	Ref     string `json:"ref" jsonschema:"minLength=1" jsonschema_description:"Ref from the latest snapshot."`
}

// Tool argument structs, one per AI-facing tool.
type (
	NavigateArgs struct {
		URL string `json:"url" jsonschema:"minLength=1" jsonschema_description:"Address to load; no scheme means https://."`
		Target
	}
	TabArgs struct {
		Target
	}
	SnapshotArgs struct {
		Ref       string `json:"ref,omitempty" jsonschema_description:"Only this element's part of the page."`
		MaxTokens int    `json:"maxTokens,omitempty" jsonschema:"minimum=500,maximum=100000" jsonschema_description:"Token budget (default 10000)."`
		Cursor    string `json:"cursor,omitempty" jsonschema_description:"Next part of a cut snapshot: the cursor its last line named."`
		Target
	}
	FindArgs struct {
		Query     string `json:"query" jsonschema:"minLength=1" jsonschema_description:"Text matched against role, name and value, or role:ROLE with an optional quoted name (role:button \"Save\")."`
		MaxTokens int    `json:"maxTokens,omitempty" jsonschema:"minimum=500,maximum=100000" jsonschema_description:"Token budget (default 10000)."`
		Target
	}
	GetTextArgs struct {
		Element string `json:"element,omitempty" jsonschema_description:"What the element is."`
		Ref     string `json:"ref,omitempty" jsonschema_description:"Element ref; omit for the whole page."`
		Target
	}
	EvaluateArgs struct {
		Expression string `json:"expression" jsonschema:"minLength=1" jsonschema_description:"JavaScript expression; promises are awaited, the value must be JSON."`
		Target
	}
	ElementArgs struct {
		ElementTarget
		Target
	}
	TypeArgs struct {
		ElementTarget
		Text   string `json:"text" jsonschema_description:"Text that replaces the field's content."`
		Submit bool   `json:"submit,omitempty" jsonschema_description:"Press Enter afterwards."`
		Target
	}
	SelectOptionArgs struct {
		ElementTarget
		Values []string `json:"values" jsonschema:"minItems=1" jsonschema_description:"Option values or labels."`
		Target
	}
	PressKeyArgs struct {
		Key string `json:"key" jsonschema:"minLength=1" jsonschema_description:"Key or combination: Enter, Escape, ArrowDown, a, Ctrl+A, Shift+Tab."`
		Target
	}
	ScrollArgs struct {
		Direction string `json:"direction,omitempty" jsonschema:"enum=up,enum=down,enum=left,enum=right" jsonschema_description:"Default down."`
		Amount    int    `json:"amount,omitempty" jsonschema:"minimum=1" jsonschema_description:"Pixels; default most of a screen."`
		Element   string `json:"element,omitempty" jsonschema_description:"What the element is."`
		Ref       string `json:"ref,omitempty" jsonschema_description:"Scroll this element into view instead."`
		Target
	}
	DragArgs struct {
		StartElement string `json:"startElement" jsonschema_description:"What to drag."`
		StartRef     string `json:"startRef" jsonschema:"minLength=1" jsonschema_description:"Its ref."`
		EndElement   string `json:"endElement" jsonschema_description:"Where to drop it."`
		EndRef       string `json:"endRef" jsonschema:"minLength=1" jsonschema_description:"The drop target's ref."`
		Target
	}
	UploadFileArgs struct {
		ElementTarget
		Path string `json:"path" jsonschema:"minLength=1" jsonschema_description:"Absolute path of the file on this computer."`
		Target
	}
	WaitArgs struct {
		Time float64 `json:"time,omitempty" jsonschema:"minimum=0,maximum=50" jsonschema_description:"Seconds to wait; with text, the most to wait (default 10)."`
		Text string  `json:"text,omitempty" jsonschema_description:"Wait until this text is on the page."`
		Target
	}
	ScreenshotArgs struct {
		Element  string `json:"element,omitempty" jsonschema_description:"What the element is."`
		Ref      string `json:"ref,omitempty" jsonschema_description:"Capture only this element."`
		FullPage bool   `json:"fullPage,omitempty" jsonschema_description:"The whole scrollable page."`
		Format   string `json:"format,omitempty" jsonschema:"enum=jpeg,enum=png,enum=webp" jsonschema_description:"Default jpeg; png for exact pixels."`
		Quality  int    `json:"quality,omitempty" jsonschema:"minimum=1,maximum=100" jsonschema_description:"jpeg/webp quality, default 80."`
		FullSize bool   `json:"fullSize,omitempty" jsonschema_description:"Full resolution, not scaled to ~1,000 image tokens."`
		Target
	}
	RunArgs struct {
		Steps     []Step            `json:"steps,omitempty" jsonschema_description:"Steps, in order."`
		Recording string            `json:"recording,omitempty" jsonschema_description:"Or a recording's name."`
		Params    map[string]string `json:"params,omitempty" jsonschema_description:"Param values by name."`
		Target
	}
	RecordingsArgs struct {
		Name   string `json:"name,omitempty" jsonschema_description:"One recording; omit for all."`
		Format string `json:"format,omitempty" jsonschema:"enum=steps,enum=playwright" jsonschema_description:"playwright: as a Playwright test."`
		Target
	}
	FormField struct {
		Element string `json:"element" jsonschema_description:"What the field is."`
		Ref     string `json:"ref" jsonschema:"minLength=1" jsonschema_description:"The field's ref."`
		Value   string `json:"value" jsonschema_description:"Text; an option; true/false for checkboxes and radios."`
	}
	FillFormArgs struct {
		Fields []FormField `json:"fields" jsonschema:"minItems=1" jsonschema_description:"Fields to fill, in order."`
		Target
	}
	ClickXYArgs struct {
		X      float64 `json:"x" jsonschema:"minimum=0" jsonschema_description:"CSS pixels from the viewport's left edge."`
		Y      float64 `json:"y" jsonschema:"minimum=0" jsonschema_description:"CSS pixels from the viewport's top edge."`
		Button string  `json:"button,omitempty" jsonschema:"enum=left,enum=right,enum=middle" jsonschema_description:"Default left."`
		Double bool    `json:"double,omitempty" jsonschema_description:"Double-click."`
		Scale  float64 `json:"scale,omitempty" jsonschema:"exclusiveMinimum=0" jsonschema_description:"x and y are pixels of a scaled screenshot: its caption's scale (they are divided by it)."`
		Target
	}
	DragXYArgs struct {
		StartX float64 `json:"startX" jsonschema:"minimum=0" jsonschema_description:"Start, CSS pixels from the viewport's left."`
		StartY float64 `json:"startY" jsonschema:"minimum=0" jsonschema_description:"Start, from the top."`
		EndX   float64 `json:"endX" jsonschema:"minimum=0" jsonschema_description:"End, from the left."`
		EndY   float64 `json:"endY" jsonschema:"minimum=0" jsonschema_description:"End, from the top."`
		Scale  float64 `json:"scale,omitempty" jsonschema:"exclusiveMinimum=0" jsonschema_description:"Points are pixels of a scaled screenshot: its caption's scale."`
		Target
	}
	NetworkRequestsArgs struct {
		Filter        string `json:"filter,omitempty" jsonschema_description:"Only URLs containing this text."`
		Since         int    `json:"since,omitempty" jsonschema:"minimum=0" jsonschema_description:"Only requests numbered above this #N."`
		IncludeBodies bool   `json:"includeBodies,omitempty" jsonschema_description:"Add response bodies (debugger mode)."`
		Target
	}
	DownloadWait struct {
		URLContains string `json:"urlContains,omitempty" jsonschema_description:"Text in the download's URL or file name; omit for the next download."`
		TimeoutMs   int    `json:"timeoutMs,omitempty" jsonschema:"minimum=1,maximum=45000" jsonschema_description:"Default 30000."`
	}
	DownloadsArgs struct {
		Profile string        `json:"profile,omitempty" jsonschema_description:"Profile slug"`
		Wait    *DownloadWait `json:"wait,omitempty" jsonschema_description:"Answer once a download finished."`
	}
	ListTabsArgs struct {
		Profile string `json:"profile,omitempty" jsonschema_description:"Only this profile; omit for all."`
	}
	SwitchTabArgs struct {
		Tab     int    `json:"tab" jsonschema:"minimum=1" jsonschema_description:"Tab number."`
		Profile string `json:"profile,omitempty" jsonschema_description:"Profile slug"`
	}
	NewTabArgs struct {
		URL     string `json:"url,omitempty" jsonschema_description:"Address to open; omit for an empty tab."`
		Profile string `json:"profile,omitempty" jsonschema_description:"Profile slug"`
	}
	HandleDialogArgs struct {
		Accept     bool    `json:"accept" jsonschema_description:"true: OK (confirm true, prompt answered); false: Cancel."`
		PromptText *string `json:"promptText,omitempty" jsonschema_description:"A prompt's answer; omit for its default."`
		Target
	}
	AskUserArgs struct {
		Message string `json:"message,omitempty" jsonschema_description:"What the person should do (shown in the monkbrowse popup)."`
		WaitID  string `json:"waitId,omitempty" jsonschema_description:"An earlier result's waitId: keep waiting."`
		Target
	}
	SiteToolCallArgs struct {
		Name      string         `json:"name" jsonschema:"minLength=1" jsonschema_description:"The site tool's name from browser_site_tools."`
		Frame     *int           `json:"frame,omitempty" jsonschema:"minimum=0" jsonschema_description:"Its frame number; only when two frames offer the name."`
		Arguments map[string]any `json:"arguments,omitempty" jsonschema_description:"An object matching the tool's input schema."`
		Target
	}
	CloseTabArgs struct {
		Tab     int    `json:"tab" jsonschema:"minimum=1" jsonschema_description:"Tab number."`
		Profile string `json:"profile,omitempty" jsonschema_description:"Profile slug"`
	}
)

// Tool is one AI-facing tool of DESIGN §5.6.
type Tool struct {
	Name        string
	Title       string
	Description string
	// Cap is the capability group the tool belongs to: "" for the core
	// tools every AI app gets, else one of Caps, listed only when the AI
	// app's monkbrowse was started with --caps naming it (issue 30).
	Cap string
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

// Capability groups beyond the core tools (--caps). CapAll names them all.
const (
	CapNetwork     = "network"
	CapCoordinates = "coordinates"
	CapDebugger    = "debugger"
	CapWebMCP      = "webmcp"
	CapAll         = "all"
	// CapCore names the core tools, always on; accepted in --caps so a
	// configuration can say it.
	CapCore = "core"
)

// Caps are the optional groups, in the order help texts list them, each
// with what it adds.
var Caps = []struct{ Name, Adds string }{
	{CapNetwork, "browser_network_requests: the tab's requests, statuses, timings (bodies with the debugger mode)"},
	{CapCoordinates, "browser_click_xy, browser_drag_xy: pointer actions at viewport coordinates, for canvas and unnamed targets"},
	{CapDebugger, "browser_pdf: save the page as PDF (needs the debugger mode in the extension)"},
	{CapWebMCP, "browser_site_tools, browser_site_tool_call: the tools a page offers to agents (WebMCP), run with the person's consent"},
}

// CapSet is the set of optional groups an AI app switched on; the zero
// value is core only.
type CapSet map[string]bool

// ParseCaps reads --caps values (each already split on commas): group
// names, "all", or "core". An unknown name is an error that lists the
// valid ones.
func ParseCaps(names []string) (CapSet, error) {
	set := CapSet{}
	for _, n := range names {
		n = strings.ToLower(strings.TrimSpace(n))
		switch {
		case n == "" || n == CapCore:
		case n == CapAll:
			for _, c := range Caps {
				set[c.Name] = true
			}
		case knownCap(n):
			set[n] = true
		default:
			return nil, fmt.Errorf("unknown capability %q: use %s, %s or %s", n, capNames(), CapAll, CapCore)
		}
	}
	return set, nil
}

func knownCap(n string) bool {
	for _, c := range Caps {
		if c.Name == n {
			return true
		}
	}
	return false
}

func capNames() string {
	names := make([]string, len(Caps))
	for i, c := range Caps {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

// Has reports whether the tool is on: core, or its group is in the set.
func (c CapSet) Has(t *Tool) bool { return t.Cap == "" || c[t.Cap] }

// Tools is the catalog. Descriptions say when to use a tool rather than its
// neighbours, in a sentence or two: how to use it comes in its results and
// errors where it is needed (a cut snapshot's last line names the cursor; a
// refused evaluate names the switch), and the initialize instructions say
// once how tabs are addressed and that actions answer with a fresh
// snapshot. tools/list is paid for by every AI app in every session.
var Tools = []Tool{
	{Name: "browser_navigate", Title: "Navigate", Args: NavigateArgs{}, ChangesPage: true, Idempotent: true,
		Description: "Load a URL in a shared tab. To follow a link on the page, browser_click it instead."},
	{Name: "browser_go_back", Title: "Go back", Args: TabArgs{}, ChangesPage: true,
		Description: "Go back one page in the tab's history."},
	{Name: "browser_go_forward", Title: "Go forward", Args: TabArgs{}, ChangesPage: true,
		Description: "Go forward one page in the tab's history."},
	{Name: "browser_reload", Title: "Reload", Args: TabArgs{}, ChangesPage: true, Idempotent: true,
		Description: "Reload the tab's page."},
	{Name: "browser_snapshot", Title: "Page snapshot", Args: SnapshotArgs{}, ReadOnly: true, Idempotent: true,
		Description: "Read the page as an accessibility snapshot, one line per element with a ref for the acting tools. Use it first on a page; prefer it to a screenshot."},
	{Name: "browser_find", Title: "Find elements", Args: FindArgs{}, ReadOnly: true, Idempotent: true,
		Description: "Find elements by role, name or value, with their refs, on large pages."},
	{Name: "browser_get_text", Title: "Get text", Args: GetTextArgs{}, ReadOnly: true, Idempotent: true,
		Description: "Read the visible text of an element or the whole page, for articles, tables and messages in full."},
	{Name: "browser_screenshot", Title: "Screenshot", Args: ScreenshotArgs{}, ReadOnly: true, Idempotent: true,
		Description: "Take an image (JPEG by default, ~1,000 image tokens) of the visible area, one element or the whole page. Use it for layout, images, charts and canvas the snapshot cannot describe."},
	{Name: "browser_get_console_logs", Title: "Console logs", Args: TabArgs{}, ReadOnly: true, Idempotent: true,
		Description: "Read the page's console messages, uncaught errors and the dialogs monkbrowse answered. Use it when a page misbehaves."},
	{Name: "browser_network_requests", Title: "Network requests", Args: NetworkRequestsArgs{}, ReadOnly: true, Idempotent: true, Cap: CapNetwork,
		Description: "List the tab's network requests since its page loaded (method, URL, status, timing, failures). Use it to check what a page fetched or sent."},
	{Name: "browser_evaluate", Title: "Evaluate JavaScript", Args: EvaluateArgs{}, Destructive: true,
		Description: "Evaluate JavaScript in the page and return the value as JSON, for facts the snapshot does not show. Off until the person allows it."},
	{Name: "browser_click", Title: "Click", Args: ElementArgs{}, ChangesPage: true, Destructive: true,
		Description: "Click an element by its ref."},
	{Name: "browser_hover", Title: "Hover", Args: ElementArgs{}, ChangesPage: true,
		Description: "Move the pointer over an element, e.g. to open a menu or a tooltip."},
	{Name: "browser_type", Title: "Type text", Args: TypeArgs{}, ChangesPage: true, Destructive: true,
		Description: "Type text into an editable element, replacing its content. For several fields use browser_fill_form."},
	{Name: "browser_fill_form", Title: "Fill form", Args: FillFormArgs{}, ChangesPage: true, Destructive: true,
		Description: "Fill several form fields in one call; it does not submit."},
	{Name: "browser_select_option", Title: "Select option", Args: SelectOptionArgs{}, ChangesPage: true, Destructive: true,
		Description: "Choose options in a select or list box."},
	{Name: "browser_press_key", Title: "Press key", Args: PressKeyArgs{}, ChangesPage: true, Destructive: true,
		Description: "Press a key or combination in the focused element."},
	{Name: "browser_scroll", Title: "Scroll", Args: ScrollArgs{}, ChangesPage: true,
		Description: "Scroll the page, or an element into view, e.g. to load more content."},
	{Name: "browser_drag", Title: "Drag and drop", Args: DragArgs{}, ChangesPage: true, Destructive: true,
		Description: "Drag one element onto another."},
	{Name: "browser_click_xy", Title: "Click at coordinates", Args: ClickXYArgs{}, ChangesPage: true, Destructive: true, Cap: CapCoordinates,
		Description: "Click at a viewport point read off a screenshot, for canvas apps, maps and what the snapshot cannot name; with a ref, use browser_click."},
	{Name: "browser_drag_xy", Title: "Drag between coordinates", Args: DragXYArgs{}, ChangesPage: true, Destructive: true, Cap: CapCoordinates,
		Description: "Drag from one viewport point to another, e.g. on a canvas or a slider; with refs, use browser_drag."},
	{Name: "browser_upload_file", Title: "Upload file", Args: UploadFileArgs{}, ChangesPage: true, Destructive: true,
		Description: "Put a file from this computer into a file input."},
	{Name: "browser_downloads", Title: "Downloads", Args: DownloadsArgs{}, ReadOnly: true, Idempotent: true,
		Description: "List the shared tabs' downloads with their paths and states; use it after clicking a download link."},
	{Name: "browser_pdf", Title: "Save as PDF", Args: TabArgs{}, Cap: CapDebugger,
		Description: "Save the page as a PDF in the browser's download folder and return its path."},
	{Name: "browser_wait", Title: "Wait", Args: WaitArgs{}, ReadOnly: true, Idempotent: true,
		Description: "Wait some seconds, or until a text appears, when a page updates on its own."},
	{Name: "browser_list_tabs", Title: "List tabs", Args: ListTabsArgs{}, ReadOnly: true, Idempotent: true, LocalOnly: true,
		Description: "List the connected browser profiles and their shared tabs, numbered. Use it first."},
	{Name: "browser_switch_tab", Title: "Switch tab", Args: SwitchTabArgs{}, Idempotent: true,
		Description: "Bring a shared tab to the front and make it the default tab."},
	{Name: "browser_new_tab", Title: "New tab", Args: NewTabArgs{},
		Description: "Open a new tab, shared automatically."},
	{Name: "browser_close_tab", Title: "Close tab", Args: CloseTabArgs{}, Destructive: true,
		Description: "Close a shared tab."},
	{Name: "browser_ask_user", Title: "Ask the person", Args: AskUserArgs{},
		Description: "Hand the tab to the person with a message and wait for Done or Decline: logins, passwords, CAPTCHAs, payments, confirming irreversible steps (buy, send, delete). Answers what changed; if still waiting, call again with its waitId."},
	{Name: "browser_run", Title: "Run steps", Args: RunArgs{}, ChangesPage: true, Destructive: true,
		Description: "Run several steps in one call: repeat a flow the person recorded (with new params), or batch steps you are sure of. Targets are role and name, as in the snapshot. Stops at the first step that fails, saying why; answers with one diff."},
	{Name: "browser_recordings", Title: "Recordings", Args: RecordingsArgs{}, ReadOnly: true, Idempotent: true,
		Description: "List the flows the person recorded to show you how a task is done, read one's steps, or export it as a Playwright test. Run one with browser_run."},
	{Name: "browser_handle_dialog", Title: "Handle dialog", Args: HandleDialogArgs{},
		Description: "Set the answer to the tab's next alert, confirm or prompt (default: dismiss), then repeat the action that opens it."},
	{Name: "browser_get_selection", Title: "Get selection", Args: TabArgs{}, ReadOnly: true, Idempotent: true,
		Description: "What the person showed you via right-click: its ref, context and selected text."},
	{Name: "browser_site_tools", Title: "List the site's tools", Args: TabArgs{}, ReadOnly: true, Idempotent: true, Cap: CapWebMCP,
		Description: "List the tools the page itself offers to agents (WebMCP), with their input schemas, when a snapshot says it has some. Prefer a site tool to clicking through its forms."},
	{Name: "browser_site_tool_call", Title: "Call a site tool", Args: SiteToolCallArgs{}, Destructive: true, Cap: CapWebMCP,
		Description: "Run one of the page's own tools by name with object arguments. Tools the page does not mark read-only wait for the person's consent in the monkbrowse popup."},
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
