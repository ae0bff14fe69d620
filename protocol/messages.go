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
)

// Handshake messages sent by the extension to the server (DESIGN §5.2).
const (
	MsgHello       = "hello"
	MsgTabsChanged = "tabs_changed"
)

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
}

// TabRequest is the payload of requests that need nothing but a tab: go back,
// forward, reload, console logs, screenshot, snapshot, getUrl, getTitle.
// TabID 0 (omitted) means the profile's active tab.
type TabRequest struct {
	TabID int `json:"tabId,omitempty"`
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

// TabResult is the result of requests that answer with the resolved tab only.
type TabResult struct {
	TabID int `json:"tabId"`
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
type ScreenshotResult struct {
	TabID int    `json:"tabId"`
	Data  string `json:"data"`
}

// SnapshotResult is the page's accessibility snapshot in one round trip.
type SnapshotResult struct {
	TabID    int    `json:"tabId"`
	URL      string `json:"url"`
	Title    string `json:"title"`
	Snapshot string `json:"snapshot"`
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

// TabsChanged is the notify the extension sends when its shared tabs change.
type TabsChanged struct {
	Tabs []TabInfo `json:"tabs"`
}

// Wire describes one server→extension message: its type, the Go types of its
// payload and result, and how long the server waits for it.
type Wire struct {
	Type     string
	Request  any // a zero value of the request payload type
	Response any // a zero value of the result type
	// Timeout is how long the server waits for the answer.
	Timeout time.Duration
	// Retryable marks idempotent reads that are sent once more after a
	// timeout. Nothing that acts on a page is ever retried.
	Retryable bool
}

// Timeouts (DESIGN §5.1).
const (
	DefaultTimeout    = 30 * time.Second
	NavigationTimeout = 60 * time.Second
	ScreenshotTimeout = 15 * time.Second
)

// WireMessages is the catalog of §5.1 in a fixed order.
var WireMessages = []Wire{
	{Type: MsgNavigate, Request: NavigateRequest{}, Response: TabResult{}, Timeout: NavigationTimeout},
	{Type: MsgGoBack, Request: TabRequest{}, Response: TabResult{}, Timeout: NavigationTimeout},
	{Type: MsgGoForward, Request: TabRequest{}, Response: TabResult{}, Timeout: NavigationTimeout},
	{Type: MsgReload, Request: TabRequest{}, Response: TabResult{}, Timeout: NavigationTimeout},
	{Type: MsgClick, Request: ElementRequest{}, Response: TabResult{}, Timeout: DefaultTimeout},
	{Type: MsgHover, Request: ElementRequest{}, Response: TabResult{}, Timeout: DefaultTimeout},
	{Type: MsgType, Request: TypeRequest{}, Response: TabResult{}, Timeout: DefaultTimeout},
	{Type: MsgSelectOption, Request: SelectOptionRequest{}, Response: TabResult{}, Timeout: DefaultTimeout},
	{Type: MsgPressKey, Request: PressKeyRequest{}, Response: TabResult{}, Timeout: DefaultTimeout},
	{Type: MsgScroll, Request: ScrollRequest{}, Response: TabResult{}, Timeout: DefaultTimeout},
	{Type: MsgDrag, Request: DragRequest{}, Response: TabResult{}, Timeout: DefaultTimeout},
	{Type: MsgUploadFile, Request: UploadFileRequest{}, Response: TabResult{}, Timeout: DefaultTimeout},
	{Type: MsgGetConsoleLogs, Request: TabRequest{}, Response: ConsoleLogsResult{}, Timeout: DefaultTimeout},
	{Type: MsgScreenshot, Request: TabRequest{}, Response: ScreenshotResult{}, Timeout: ScreenshotTimeout},
	{Type: MsgSnapshot, Request: TabRequest{}, Response: SnapshotResult{}, Timeout: DefaultTimeout, Retryable: true},
	{Type: MsgGetText, Request: GetTextRequest{}, Response: TextResult{}, Timeout: DefaultTimeout, Retryable: true},
	{Type: MsgEvaluate, Request: EvaluateRequest{}, Response: EvaluateResult{}, Timeout: DefaultTimeout},
	{Type: MsgGetURL, Request: TabRequest{}, Response: URLResult{}, Timeout: DefaultTimeout, Retryable: true},
	{Type: MsgGetTitle, Request: TabRequest{}, Response: TitleResult{}, Timeout: DefaultTimeout, Retryable: true},
	{Type: MsgListTabs, Request: ListTabsRequest{}, Response: ListTabsResult{}, Timeout: DefaultTimeout, Retryable: true},
	{Type: MsgSwitchTab, Request: SwitchTabRequest{}, Response: SwitchTabResult{}, Timeout: DefaultTimeout},
	{Type: MsgNewTab, Request: NewTabRequest{}, Response: NewTabResult{}, Timeout: NavigationTimeout},
	{Type: MsgCloseTab, Request: CloseTabRequest{}, Response: TabResult{}, Timeout: DefaultTimeout},
}

var wireByType = func() map[string]Wire {
	m := make(map[string]Wire, len(WireMessages))
	for _, w := range WireMessages {
		m[w.Type] = w
	}
	return m
}()

// LookupWire returns the catalog entry of a wire type.
func LookupWire(typ string) (Wire, bool) {
	w, ok := wireByType[typ]
	return w, ok
}

// TimeoutFor returns how long the server waits for an answer to typ; unknown
// types get DefaultTimeout.
func TimeoutFor(typ string) time.Duration {
	if w, ok := wireByType[typ]; ok {
		return w.Timeout
	}
	return DefaultTimeout
}

// IsRetryable reports whether typ is an idempotent read that may be sent once
// more after a timeout.
func IsRetryable(typ string) bool {
	return wireByType[typ].Retryable
}
