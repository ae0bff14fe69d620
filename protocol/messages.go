package protocol

import (
	"time"

	"github.com/monkbrowse/monkbrowse/messaging"
)

// Wire message types sent by the server to the extension (DESIGN §5.1).
const (
	MsgNavigate       = "browser_navigate"
	MsgGoBack         = "browser_go_back"
	MsgGoForward      = "browser_go_forward"
	MsgReload         = "browser_reload"
	MsgClick          = "browser_click"
	MsgHover          = "browser_hover"
	MsgType           = "browser_type"
	MsgSelectOption   = "browser_select_option"
	MsgPressKey       = "browser_press_key"
	MsgScroll         = "browser_scroll"
	MsgDrag           = "browser_drag"
	MsgUploadFile     = "browser_upload_file"
	MsgGetConsoleLogs = "browser_get_console_logs"
	MsgScreenshot     = "browser_screenshot"
	MsgSnapshot       = "browser_snapshot"
	MsgGetText        = "browser_get_text"
	MsgEvaluate       = "browser_evaluate"
	MsgGetURL         = "getUrl"
	MsgGetTitle       = "getTitle"
	MsgListTabs       = "list_tabs"
	MsgSwitchTab      = "browser_switch_tab"
	MsgNewTab         = "browser_new_tab"
	MsgCloseTab       = "browser_close_tab"
	MsgFillForm       = "browser_fill_form"
	MsgClickXY        = "browser_click_xy"
	MsgDragXY         = "browser_drag_xy"
	MsgNetwork        = "browser_network_requests"
	MsgDownloads      = "browser_downloads"
	MsgPDF            = "browser_pdf"
	MsgHandleDialog   = "browser_handle_dialog"
	MsgAskUser        = "browser_ask_user"
	MsgAskWait        = "ask_wait"
	// MsgAskEnd ends an ask whose waiting call was stopped (its app
	// cancelled it) where the extension may not have seen the stop: the
	// server's own request, never an AI tool.
	MsgAskEnd = "ask_end"
	// MsgPersonEdits asks what the person did in a shared tab since a
	// sequence number (issue 29, DESIGN §7.1): the server's own request at
	// the start of each call's turn, never an AI tool.
	MsgPersonEdits = "person_edits"
	// MsgGetSelection asks what the person pointed at with the context
	// menu's "Show this to the AI" (issue 29).
	MsgGetSelection = "browser_get_selection"
)

// Handshake messages sent by the extension to the server (DESIGN §5.2).
const (
	MsgHello       = "hello"
	MsgAuth        = "auth"
	MsgTabsChanged = "tabs_changed"
)

// MsgRefused is the notify the server sends the extension for a call it
// answered with code paused without sending anything (the person paused
// the AI there: a new call, or one queued when they pressed Stop), so that
// the activity log records the attempt (issue 28). Optional and additive:
// an extension that predates it ignores the unknown notify.
const MsgRefused = "refused"

// Refused is the payload of MsgRefused.
type Refused struct {
	// Tool is the AI-facing tool the call named (browser_click, …).
	Tool string `json:"tool"`
	// TabID is the Chrome tab the call was meant for; 0 (omitted): the
	// profile only (browser_new_tab, browser_wait).
	TabID int `json:"tabId,omitempty"`
	// App is the AI app that made the call (CallTool.App).
	App string `json:"app,omitempty"`
}

// MsgCancel is the notify a side sends when it gave up on a request it sent
// (the AI app cancelled the call): {"id": the request's id}. The receiver
// stops what it can (waits, settles, navigation waits) and still answers
// the request. Either direction, both ports (DESIGN §5.4, §6). The
// messaging layer sends and applies it.
const MsgCancel = messaging.CancelType

// Cancel is the payload of MsgCancel.
type Cancel = messaging.CancelPayload

// TabInfo describes one shared tab. Slot is the number the person sees in
// the popup and the AI uses as `tab`.
type TabInfo struct {
	TabID    int    `json:"tabId"`
	Slot     int    `json:"slot"`
	URL      string `json:"url"`
	Title    string `json:"title"`
	Active   bool   `json:"active"`
	WindowID int    `json:"windowId"`
	// OpenedBy is the AI app that opened the tab with browser_new_tab
	// (absent: the person opened it); LastApp the AI app that acted in it
	// last (issue 28). Names as the person knows them (AppDisplayName).
	OpenedBy string `json:"openedBy,omitempty"`
	LastApp  string `json:"lastApp,omitempty"`
	// Paused: the person paused the AI in this tab (the popup's per-tab
	// Stop, issue 28). The server answers calls to it with code paused
	// without sending them; the extension refuses them too. Optional:
	// absent means not paused.
	Paused bool `json:"paused,omitempty"`
	// Rule is the site rule in force on the tab's page (issue 44):
	// RuleReadOnly or RuleAsk; absent means the default, act. The
	// extension enforces it; the server only explains refusals with it.
	Rule string `json:"rule,omitempty"`
}

// Site rules (issue 44) as TabInfo.Rule and SitePolicy name them. A tab
// under RuleNever is never shared, so it is never in a tab list.
const (
	RuleNever    = "never"
	RuleReadOnly = "read_only"
	RuleAsk      = "ask"
	RuleAct      = "act"
)

// SitePolicy is what the organisation's policy (Chrome's managed storage
// for the extension, issue 44) sets, as the extension reports it in the
// auth and in tabs_changed. The extension enforces it; the server uses it
// to explain refusals, to print it (monkbrowse doctor) and to leave out of
// tools/list the tools every connected profile's policy forbids.
type SitePolicy struct {
	BlockedSites  []string `json:"blockedSites,omitempty"`
	ReadOnlySites []string `json:"readOnlySites,omitempty"`
	AskSites      []string `json:"askSites,omitempty"`
	// Forbidden are the capabilities the policy switches off: evaluate,
	// debugger, responseBodies, uploads, downloads, coordinates, siteTools.
	Forbidden []string `json:"forbidden,omitempty"`
	// AllowedApps: only AI apps announcing one of these names may act;
	// empty means any.
	AllowedApps []string `json:"allowedApps,omitempty"`
	// NoLogExport: the person may not export the activity log.
	NoLogExport bool `json:"noLogExport,omitempty"`
	// LogRetentionDays: activity entries older than this are dropped; 0 = the default.
	LogRetentionDays int `json:"logRetentionDays,omitempty"`
}

// LeftTab is a tab that left the AI's reach because it went to a site
// the rules keep from the AI (RuleNever): Reason is the sentence for the
// AI, naming the rule and the site.
type LeftTab struct {
	Slot   int    `json:"slot"`
	Reason string `json:"reason"`
}

// TabRequest is the payload of requests that need nothing but a tab: go back,
// forward, reload, console logs, screenshot, snapshot, getUrl, getTitle.
// TabID 0 (omitted) means the profile's active tab.
type TabRequest struct {
	TabID int `json:"tabId,omitempty"`
}

// SnapshotRequest asks for the tab's snapshot. StopAfterChars, when not 0,
// is a traversal limit: the extension stops reading the page once the
// snapshot's lines come to about this many characters (the server passes a
// multiple of what its token budget serves), answers what it read with
// Limited set, and so spends time in proportion to what is served. 0 reads
// the whole page (browser_find, element parts, action diffs).
type SnapshotRequest struct {
	TabID          int `json:"tabId,omitempty"`
	StopAfterChars int `json:"stopAfterChars,omitempty"`
}

// NavigateRequest loads URL in the tab.
type NavigateRequest struct {
	URL   string `json:"url"`
	TabID int    `json:"tabId,omitempty"`
}

// ElementRequest targets one element by its snapshot ref (click, hover).
// Element is the AI's human description, kept for messages and logs.
type ElementRequest struct {
	Ref     string `json:"ref"`
	Element string `json:"element"`
	TabID   int    `json:"tabId,omitempty"`
}

// TypeRequest types Text into an editable element, pressing Enter after it
// when Submit is set.
type TypeRequest struct {
	Ref     string `json:"ref"`
	Element string `json:"element"`
	Text    string `json:"text"`
	Submit  bool   `json:"submit,omitempty"`
	TabID   int    `json:"tabId,omitempty"`
}

// SelectOptionRequest selects Values (option values or labels) in a select.
type SelectOptionRequest struct {
	Ref     string   `json:"ref"`
	Element string   `json:"element"`
	Values  []string `json:"values"`
	TabID   int      `json:"tabId,omitempty"`
}

// PressKeyRequest presses a key or a combination such as "Ctrl+A".
type PressKeyRequest struct {
	Key   string `json:"key"`
	TabID int    `json:"tabId,omitempty"`
}

// ScrollRequest scrolls the page by Amount pixels in Direction, or brings Ref
// into view.
type ScrollRequest struct {
	Direction string `json:"direction,omitempty"`
	Amount    int    `json:"amount,omitempty"`
	Ref       string `json:"ref,omitempty"`
	TabID     int    `json:"tabId,omitempty"`
}

// DragRequest drags the element StartRef onto EndRef.
type DragRequest struct {
	StartRef string `json:"startRef"`
	EndRef   string `json:"endRef"`
	TabID    int    `json:"tabId,omitempty"`
}

// UploadFileRequest puts one file (Data is base64) into a file input.
type UploadFileRequest struct {
	Ref   string `json:"ref"`
	Name  string `json:"name"`
	Data  string `json:"data"`
	TabID int    `json:"tabId,omitempty"`
}

// GetTextRequest reads the visible text of Ref, or of the whole page.
type GetTextRequest struct {
	Ref   string `json:"ref,omitempty"`
	TabID int    `json:"tabId,omitempty"`
}

// EvaluateRequest evaluates a JavaScript expression in the page's main world.
type EvaluateRequest struct {
	Expression string `json:"expression"`
	TabID      int    `json:"tabId,omitempty"`
}

// ListTabsRequest asks for the profile's shared tabs.
type ListTabsRequest struct{}

// SwitchTabRequest makes a shared tab the active one.
type SwitchTabRequest struct {
	TabID int `json:"tabId"`
}

// NewTabRequest opens a tab (about:blank without URL) and shares it.
type NewTabRequest struct {
	URL string `json:"url,omitempty"`
}

// CloseTabRequest closes a shared tab.
type CloseTabRequest struct {
	TabID int `json:"tabId"`
}

// ScreenshotRequest captures the visible area, one element (Ref, cropped)
// or the whole page (FullPage).
type ScreenshotRequest struct {
	TabID    int    `json:"tabId,omitempty"`
	Ref      string `json:"ref,omitempty"`
	FullPage bool   `json:"fullPage,omitempty"`
	// Format is jpeg (the default when empty), png or webp.
	Format string `json:"format,omitempty"`
	// Quality is 1-100 for jpeg and webp (0: the extension's default, 80).
	Quality int `json:"quality,omitempty"`
	// FullSize keeps the capture's device pixels; otherwise the image is
	// scaled down to at most MaxScreenshotPixels (about 1,000 image tokens).
	FullSize bool `json:"fullSize,omitempty"`
}

// MaxScreenshotPixels is the default size rule for screenshots: width ×
// height at most this many pixels, so an image costs at most ~1,000 image
// tokens by Anthropic's estimate tokens ≈ width × height / 750 (about
// 1155×650 for 16:9). Generated into the extension.
const MaxScreenshotPixels = 750_000

// ImageTokens estimates what an image of w×h pixels costs an AI app
// (Anthropic's published estimate, width × height / 750, rounded up).
func ImageTokens(w, h int) int {
	return (w*h + 749) / 750
}

// FormFieldValue is one field of a fill-form request.
type FormFieldValue struct {
	Ref     string `json:"ref"`
	Element string `json:"element"`
	Value   string `json:"value"`
}

// FillFormRequest fills several fields in order, with one settle at the end.
type FillFormRequest struct {
	Fields []FormFieldValue `json:"fields"`
	TabID  int              `json:"tabId,omitempty"`
}

// ClickXYRequest clicks at viewport coordinates (CSS pixels).
type ClickXYRequest struct {
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	Button string  `json:"button,omitempty"`
	Double bool    `json:"double,omitempty"`
	TabID  int     `json:"tabId,omitempty"`
}

// DragXYRequest presses at one viewport point, moves to another, releases.
type DragXYRequest struct {
	StartX float64 `json:"startX"`
	StartY float64 `json:"startY"`
	EndX   float64 `json:"endX"`
	EndY   float64 `json:"endY"`
	TabID  int     `json:"tabId,omitempty"`
}

// NetworkRequestsRequest asks for the tab's requests since its page loaded:
// those whose URL contains Filter (case-insensitive) and numbered above Since.
type NetworkRequestsRequest struct {
	TabID         int    `json:"tabId,omitempty"`
	Filter        string `json:"filter,omitempty"`
	Since         int    `json:"since,omitempty"`
	IncludeBodies bool   `json:"includeBodies,omitempty"`
}

// NetworkRequest is one request seen by chrome.webRequest. Start is
// milliseconds since the Unix epoch; Duration is milliseconds (absent while
// pending). Size is the response's Content-Length, absent when unknown.
// State is "pending", "done" or "failed" (Error then says why, e.g.
// net::ERR_BLOCKED_BY_CLIENT).
type NetworkRequest struct {
	ID            int     `json:"id"`
	Method        string  `json:"method"`
	URL           string  `json:"url"`
	Type          string  `json:"type"`
	Status        int     `json:"status,omitempty"`
	StatusText    string  `json:"statusText,omitempty"`
	Size          int64   `json:"size,omitempty"`
	MimeType      string  `json:"mimeType,omitempty"`
	Start         int64   `json:"start"`
	Duration      float64 `json:"duration,omitempty"`
	State         string  `json:"state"`
	Error         string  `json:"error,omitempty"`
	FromCache     bool    `json:"fromCache,omitempty"`
	Body          string  `json:"body,omitempty"`
	BodyBase64    bool    `json:"bodyBase64,omitempty"`
	BodyTruncated bool    `json:"bodyTruncated,omitempty"`
}

// NetworkRequestsResult lists the matching requests, oldest first. Total is
// how many the tab recorded since its page loaded (before filtering);
// Dropped how many older ones were forgotten to stay bounded. BodiesNote
// explains why bodies are missing when they were asked for.
type NetworkRequestsResult struct {
	TabID      int              `json:"tabId"`
	URL        string           `json:"url"`
	Requests   []NetworkRequest `json:"requests"`
	Total      int              `json:"total"`
	Dropped    int              `json:"dropped,omitempty"`
	BodiesNote string           `json:"bodiesNote,omitempty"`
}

// DownloadsWait makes browser_downloads answer once a matching download
// (URL or file name contains URLContains) has finished, within TimeoutMs.
type DownloadsWait struct {
	URLContains string `json:"urlContains,omitempty"`
	TimeoutMs   int    `json:"timeoutMs,omitempty"`
}

// DownloadsRequest asks for the downloads of the profile's shared tabs.
type DownloadsRequest struct {
	Wait *DownloadsWait `json:"wait,omitempty"`
}

// DownloadInfo is one download started from a shared tab. Filename is the
// full path on the browser's machine (empty until Chrome picked it). Times
// are milliseconds since the Unix epoch. State is "in_progress",
// "complete" or "interrupted" (Error says why).
type DownloadInfo struct {
	ID            int    `json:"id"`
	URL           string `json:"url"`
	Filename      string `json:"filename"`
	Mime          string `json:"mime,omitempty"`
	BytesReceived int64  `json:"bytesReceived"`
	TotalBytes    int64  `json:"totalBytes,omitempty"`
	State         string `json:"state"`
	Error         string `json:"error,omitempty"`
	Start         int64  `json:"start"`
	End           int64  `json:"end,omitempty"`
	TabID         int    `json:"tabId"`
}

// DownloadsResult lists downloads of shared tabs, newest first. With a
// wait, Waited is set and Matched is the download that satisfied it (0
// when the time ran out).
type DownloadsResult struct {
	Downloads []DownloadInfo `json:"downloads"`
	Waited    bool           `json:"waited,omitempty"`
	Matched   int            `json:"matched,omitempty"`
	// Ambiguous counts downloads left out because a tab that is not shared
	// (or the browser itself) also requested their URL around their start:
	// chrome.downloads names no tab, so they cannot be told apart.
	Ambiguous int `json:"ambiguous,omitempty"`
}

// PDFResult names the PDF file saved on the browser's machine.
type PDFResult struct {
	TabID int    `json:"tabId"`
	Path  string `json:"path"`
	Size  int64  `json:"size"`
}

// TabResult is the result of requests that answer with the resolved tab only.
// HandleDialogRequest sets the answer to the tab's next alert, confirm or
// prompt (for one dialog, at most DialogArmTTL).
type HandleDialogRequest struct {
	Accept     bool    `json:"accept"`
	PromptText *string `json:"promptText,omitempty"`
	TabID      int     `json:"tabId,omitempty"`
}

// DialogArmTTL is how long an answer set by browser_handle_dialog waits for
// its dialog.
const DialogArmTTL = 60 * time.Second

// Dialog is an alert, confirm or prompt the page opened and the extension
// answered without blocking the page: by default (alert acknowledged,
// confirm dismissed, prompt cancelled) or as browser_handle_dialog asked
// (Armed).
type Dialog struct {
	Type     string `json:"type"` // alert, confirm or prompt
	Message  string `json:"message"`
	Accepted bool   `json:"accepted"`
	Armed    bool   `json:"armed"`
	// Answer is what prompt() returned when accepted.
	Answer *string `json:"answer,omitempty"`
}

// AskUserRequest shows Message to the person in the extension's popup
// (the tab shows a neutral notice) with Done and Decline, then waits up to
// WaitMs for their answer (0: answers at once, pending). The asking AI app
// is the request's app field (RequestAppField), shown with the message.
//
// AskID is the server's name for the new ask (12 lowercase hex digits,
// random): the server can end it (ask_end) even when the answer to this
// request is lost to its call's cancel. Without it the extension names the
// ask; AskResult.AskID is the name either way.
type AskUserRequest struct {
	TabID   int    `json:"tabId,omitempty"`
	Message string `json:"message"`
	WaitMs  int    `json:"waitMs,omitempty"`
	AskID   string `json:"askId,omitempty"`
}

// AskWaitRequest waits up to WaitMs more for the answer to the ask AskID.
type AskWaitRequest struct {
	AskID  string `json:"askId"`
	WaitMs int    `json:"waitMs,omitempty"`
}

// AskEndRequest ends the ask AskID if it still waits for the person (its
// notice goes, the popup drops it, the log says Why); an ask that ended
// already is left as it is.
type AskEndRequest struct {
	AskID string `json:"askId"`
	Why   string `json:"why,omitempty"`
}

// AskEndResult says whether AskEndRequest ended a waiting ask.
type AskEndResult struct {
	Ended bool `json:"ended"`
}

// Ask states (AskResult.State).
const (
	AskPending  = "pending"  // no answer yet
	AskDone     = "done"     // the person pressed Done
	AskDeclined = "declined" // the person pressed Decline
	AskExpired  = "expired"  // AskMaxWait passed without an answer
	AskGone     = "gone"     // the ask ended without an answer (Why says how)
)

// AskMaxWait is how long an ask waits for the person in all, over every
// continuation: then it ends (expired) and its banner goes.
const AskMaxWait = 15 * time.Minute

// AskResult is the state of one ask. AnsweredIn says where the person
// answered ("popup"; "page" from older extensions); Why explains
// AskGone ("the tab was closed", "the person stopped sharing the tab").
type AskResult struct {
	TabID      int    `json:"tabId"`
	AskID      string `json:"askId"`
	State      string `json:"state"`
	AnsweredIn string `json:"answeredIn,omitempty"`
	Why        string `json:"why,omitempty"`
	// Created is when the ask began (Unix milliseconds).
	Created int64 `json:"created,omitempty"`
}

// TabResult is the result of requests that answer with the resolved tab
// only. Dialogs lists the dialogs the page opened since the last report
// (actions). Note, when set, is a sentence about the action's outcome for
// the AI (an action whose synthetic input left the page unchanged); the
// server adds it to the action's answer. Optional: older extensions leave
// it out.
type TabResult struct {
	TabID   int      `json:"tabId"`
	Dialogs []Dialog `json:"dialogs,omitempty"`
	Note    string   `json:"note,omitempty"`
}

// ConsoleEntry is one recorded console line, uncaught error or dialog.
// Time is milliseconds since the Unix epoch.
type ConsoleEntry struct {
	Level string `json:"level"`
	Text  string `json:"text"`
	Time  int64  `json:"time"`
}

// ConsoleLogsResult carries the tab's recorded console output.
type ConsoleLogsResult struct {
	TabID int            `json:"tabId"`
	Logs  []ConsoleEntry `json:"logs"`
}

// ScreenshotResult carries a base64 PNG without a data: prefix.
// Note says how it was taken when that matters (stitched, cropped).
type ScreenshotResult struct {
	TabID int    `json:"tabId"`
	Data  string `json:"data"`
	Note  string `json:"note,omitempty"`
	// MimeType is image/jpeg, image/png or image/webp (empty from an
	// older extension: image/png).
	MimeType string `json:"mimeType,omitempty"`
	// Width and Height are the image's pixels.
	Width  int `json:"width,omitempty"`
	Height int `json:"height,omitempty"`
	// Scale is image pixels per CSS pixel of the page: a point (x, y) read
	// off a visible-area image is (x/Scale, y/Scale) in viewport CSS pixels.
	Scale float64 `json:"scale,omitempty"`
}

// SnapshotResult is the page's accessibility snapshot in one round trip.
type SnapshotResult struct {
	TabID    int    `json:"tabId"`
	URL      string `json:"url"`
	Title    string `json:"title"`
	Snapshot string `json:"snapshot"`
	// Viewport lists the refs of the elements in or near the visible area
	// (within half a screen of it). The server shows them first when the
	// snapshot is over the token budget.
	Viewport []string `json:"viewport,omitempty"`
	// Limited says the extension stopped at the request's StopAfterChars:
	// Snapshot holds the page's first lines only (it ends with a line
	// saying so).
	Limited bool `json:"limited,omitempty"`
	// Dialogs the page opened since the last report.
	Dialogs []Dialog `json:"dialogs,omitempty"`
	// SiteTools is how many tools the tab's frames offer to agents
	// (WebMCP, issue 43); 0 when none or the browser has no such API.
	SiteTools int `json:"siteTools,omitempty"`
}

// TextResult carries visible text.
type TextResult struct {
	TabID int    `json:"tabId"`
	Text  string `json:"text"`
}

// EvaluateResult carries the JSON value the expression produced.
type EvaluateResult struct {
	TabID  int `json:"tabId"`
	Result any `json:"result"`
}

// URLResult answers getUrl.
type URLResult struct {
	TabID int    `json:"tabId"`
	URL   string `json:"url"`
}

// TitleResult answers getTitle.
type TitleResult struct {
	TabID int    `json:"tabId"`
	Title string `json:"title"`
}

// ListTabsResult lists shared tabs only.
type ListTabsResult struct {
	Tabs []TabInfo `json:"tabs"`
	// Left are the numbers of tabs that left the AI's reach for a "never"
	// site (issue 44) and are not shared again, with the reason; as in
	// TabsChanged.Left, so a call right after hears it whatever the
	// notify's timing.
	Left []LeftTab `json:"left,omitempty"`
}

// SwitchTabResult names the tab that is now active.
type SwitchTabResult struct {
	ActiveTabID int `json:"activeTabId"`
}

// NewTabResult names the opened (and shared) tab and its slot.
type NewTabResult struct {
	TabID int `json:"tabId"`
	Slot  int `json:"slot"`
}

// TabsChanged is the notify the extension sends when its shared tabs change,
// and at once when the person presses Stop or Resume (issue 28).
type TabsChanged struct {
	Tabs []TabInfo `json:"tabs"`
	// Paused: the person paused the AI in this whole profile (Stop in the
	// popup or its shortcut). While it is set the server answers every
	// call on the profile with code paused without sending it, and ends
	// the calls in flight there (queued ones never sent, running ones
	// cancelled, a time-only browser_wait included). Optional: absent
	// means not paused (Resume), as from an extension that predates it.
	Paused bool `json:"paused,omitempty"`
	// Policy is the organisation's policy in force (issue 44); absent: none.
	Policy *SitePolicy `json:"policy,omitempty"`
	// Left are tabs that stopped being shared because they went to a site
	// the rules keep from the AI; the server answers calls naming them
	// with the reason.
	Left []LeftTab `json:"left,omitempty"`
}

// PersonEditsRequest asks for the person's own edits of a shared tab
// (issue 29). Without Since only the tab's current sequence number is
// answered (the AI app's first call on the tab: nothing is news yet).
type PersonEditsRequest struct {
	TabID int    `json:"tabId,omitempty"`
	Since *int64 `json:"since,omitempty"`
}

// PersonEdit is one thing the person did in a shared tab while monkbrowse
// was not acting in it (DESIGN §7.1): Kind is typed, clicked, chose,
// navigated, back_forward, reloaded or pointed. Role and Name are the
// element's as the page computes them (page text; never a value), Ref its
// snapshot ref when it has one, URL the new address of a navigation.
// Count is how many times in a row it happened (repeats are one entry).
type PersonEdit struct {
	Seq   int64  `json:"seq"`
	Kind  string `json:"kind"`
	Role  string `json:"role,omitempty"`
	Name  string `json:"name,omitempty"`
	Ref   string `json:"ref,omitempty"`
	URL   string `json:"url,omitempty"`
	Count int    `json:"count,omitempty"`
}

// PersonEditsResult is the tab's current sequence number and the edits
// after the request's Since, oldest first (at most a few: the extension
// keeps the last ones, repeats collapsed).
type PersonEditsResult struct {
	TabID int          `json:"tabId"`
	Seq   int64        `json:"seq"`
	Edits []PersonEdit `json:"edits,omitempty"`
}

// GetSelectionResult is what the person last pointed at in the tab with
// "Show this to the AI" (issue 29). Pointed is false when nothing was (or
// the page the person pointed in is gone). Refs are the element's ref and
// its ancestors' (innermost first; the server shows the first one the
// snapshot has); Text is the selected text (none for a secret field), At
// Unix milliseconds.
type GetSelectionResult struct {
	TabID   int      `json:"tabId"`
	Pointed bool     `json:"pointed"`
	Refs    []string `json:"refs,omitempty"`
	Role    string   `json:"role,omitempty"`
	Name    string   `json:"name,omitempty"`
	Text    string   `json:"text,omitempty"`
	URL     string   `json:"url,omitempty"`
	At      int64    `json:"at,omitempty"`
}
