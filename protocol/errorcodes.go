package protocol

// Error codes: the machine-readable "code" of an ok:false response (DESIGN
// §4), beside the "error" sentence written for the AI. Every decision one
// process takes on another's refusal reads the code, never the sentence, so
// the wording can change freely. The extension's copy is generated
// (ERROR_CODES in extension/lib/protocol.gen.ts).
const (
	// CodeTabGone: the request's tab does not exist any more (closed).
	// The owner asks for the tabs once and repeats the call on the tab
	// that now holds the number, when nothing was done yet.
	CodeTabGone = "tab_gone"
	// CodeNotShared: the request's tab exists but is not shared with the
	// AI (never was, or the person switched Share off). Handled like
	// CodeTabGone.
	CodeNotShared = "not_shared"
	// CodeOwnerLeaving: the owner is handing over to another process and
	// did not run the call_tool; the forwarder sends it to the next owner.
	CodeOwnerLeaving = "owner_leaving"
	// CodeUnshared: the person stopped sharing the request's tab while
	// the call was queued or running; the extension stopped its work there
	// ("the person stopped sharing tab N"). Not repeated on another tab.
	CodeUnshared = "unshared"
	// CodeCancelled: the call was cancelled by its MCP client (directly or
	// through a forwarder) before it was sent on: nothing was done. A
	// forwarder answers call_sent with it for a call its client cancelled,
	// and the owner then does not send the call (DESIGN §5.5).
	CodeCancelled = "cancelled"
	// CodePaused: the person pressed Stop in the extension's popup (issue
	// 28): the call was not run, or was stopped, and every call is refused
	// until they press Resume. The error sentence tells the AI to wait or
	// ask; the owner passes it on as monkbrowse's own words.
	CodePaused = "paused"
	// CodeSiteRule: the person's site rules or the organisation's policy
	// (issue 44) refused the request in the extension before it touched
	// the page: a read-only site, an action the person denied or did not
	// answer, a forbidden capability or AI app. The sentence names the
	// rule; the call is not repeated.
	CodeSiteRule = "site_rule"
)

// ErrorCode describes one code for the generated TypeScript.
type ErrorCode struct {
	Code    string
	Meaning string
}

// ErrorCodes is every code, in a stable order.
var ErrorCodes = []ErrorCode{
	{CodeTabGone, "the request's tab does not exist any more (closed)"},
	{CodeNotShared, "the request's tab is not shared with the AI"},
	{CodeOwnerLeaving, "the owner is handing over and did not run the call"},
	{CodeUnshared, "the person stopped sharing the request's tab while the call was queued or running"},
	{CodeCancelled, "the call was cancelled by its client before it was sent on: nothing was done"},
	{CodePaused, "the person paused the AI (Stop in the popup): the call was not run or was stopped"},
	{CodeSiteRule, "the person's site rules or the organisation's policy refused the request before it touched the page"},
}
