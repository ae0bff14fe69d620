package protocol

import (
	"time"
)

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

// Timeouts (DESIGN §5.1). DefaultTimeout is the one default timeout of the
// tree: messaging has none (a request waits as long as its context allows).
const (
	DefaultTimeout    = 25 * time.Second
	NavigationTimeout = 45 * time.Second
	ScreenshotTimeout = 45 * time.Second // a stitched full page takes up to 10 rate-limited captures
	// DownloadsTimeout leaves room for the longest wait (45 s); the owner
	// makes every wire timeout a child of the call's 55 s budget, so the
	// budget ends it first anyway.
	DownloadsTimeout = 55 * time.Second
	// AskTimeout is the longest wait for an ask's answer (one slice of at
	// most 50 s, see tools.AskSlice); the call's budget ends it first.
	AskTimeout = 55 * time.Second
	// PersonEditsTimeout bounds the server's own question at the start of
	// a call's turn (issue 29): the extension answers from its memory, and a
	// late answer must not hold the result back.
	PersonEditsTimeout = 2 * time.Second
	// AskEndTimeout bounds the server's ask_end after a stopped wait: the
	// extension answers from its session storage.
	AskEndTimeout = 5 * time.Second
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
	{Type: MsgScreenshot, Request: ScreenshotRequest{}, Response: ScreenshotResult{}, Timeout: ScreenshotTimeout},
	{Type: MsgSnapshot, Request: SnapshotRequest{}, Response: SnapshotResult{}, Timeout: DefaultTimeout, Retryable: true},
	{Type: MsgGetText, Request: GetTextRequest{}, Response: TextResult{}, Timeout: DefaultTimeout, Retryable: true},
	{Type: MsgEvaluate, Request: EvaluateRequest{}, Response: EvaluateResult{}, Timeout: DefaultTimeout},
	{Type: MsgGetURL, Request: TabRequest{}, Response: URLResult{}, Timeout: DefaultTimeout, Retryable: true},
	{Type: MsgGetTitle, Request: TabRequest{}, Response: TitleResult{}, Timeout: DefaultTimeout, Retryable: true},
	{Type: MsgListTabs, Request: ListTabsRequest{}, Response: ListTabsResult{}, Timeout: DefaultTimeout, Retryable: true},
	{Type: MsgSwitchTab, Request: SwitchTabRequest{}, Response: SwitchTabResult{}, Timeout: DefaultTimeout},
	{Type: MsgNewTab, Request: NewTabRequest{}, Response: NewTabResult{}, Timeout: NavigationTimeout},
	{Type: MsgCloseTab, Request: CloseTabRequest{}, Response: TabResult{}, Timeout: DefaultTimeout},
	{Type: MsgFillForm, Request: FillFormRequest{}, Response: TabResult{}, Timeout: DefaultTimeout},
	{Type: MsgClickXY, Request: ClickXYRequest{}, Response: TabResult{}, Timeout: DefaultTimeout},
	{Type: MsgDragXY, Request: DragXYRequest{}, Response: TabResult{}, Timeout: DefaultTimeout},
	{Type: MsgNetwork, Request: NetworkRequestsRequest{}, Response: NetworkRequestsResult{}, Timeout: DefaultTimeout, Retryable: true},
	{Type: MsgDownloads, Request: DownloadsRequest{}, Response: DownloadsResult{}, Timeout: DownloadsTimeout},
	{Type: MsgPDF, Request: TabRequest{}, Response: PDFResult{}, Timeout: NavigationTimeout},
	{Type: MsgHandleDialog, Request: HandleDialogRequest{}, Response: TabResult{}, Timeout: DefaultTimeout},
	{Type: MsgAskUser, Request: AskUserRequest{}, Response: AskResult{}, Timeout: AskTimeout},
	{Type: MsgAskWait, Request: AskWaitRequest{}, Response: AskResult{}, Timeout: AskTimeout},
	{Type: MsgPersonEdits, Request: PersonEditsRequest{}, Response: PersonEditsResult{}, Timeout: PersonEditsTimeout},
	{Type: MsgGetSelection, Request: TabRequest{}, Response: GetSelectionResult{}, Timeout: DefaultTimeout, Retryable: true},
	{Type: MsgRecordings, Request: RecordingsRequest{}, Response: RecordingsResult{}, Timeout: DefaultTimeout, Retryable: true},
	{Type: MsgSiteTools, Request: TabRequest{}, Response: SiteToolsResult{}, Timeout: DefaultTimeout, Retryable: true},
	{Type: MsgSiteToolCall, Request: SiteToolCallRequest{}, Response: SiteToolCallResult{}, Timeout: SiteToolTimeout},
	{Type: MsgAskEnd, Request: AskEndRequest{}, Response: AskEndResult{}, Timeout: AskEndTimeout},
}

var wireByType = func() map[string]Wire {
	m := make(map[string]Wire, len(WireMessages))
	for _, w := range WireMessages {
		m[w.Type] = w
	}
	return m
}()

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
