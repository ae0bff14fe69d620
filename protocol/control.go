package protocol

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// The two ports on 127.0.0.1 (DESIGN §2): every profile's extension connects
// to the extension port (flag --port, the extension's options page); the
// monkbrowse processes of several AI apps find each other on the control
// port (flag --control-port).
const (
	DefaultExtensionPort = 9222
	DefaultControlPort   = 9219
)

// HTTP headers that tell a monkbrowse port from another program's.
const (
	// HeaderServer carries the owner's version on the extension port's
	// answer to plain HTTP (`monkbrowse doctor` reads it).
	HeaderServer = "X-Monkbrowse-Server"
	// HeaderLeaving (value "leaving") is set on the control port's 503
	// answer of an owner that is shutting down: the forwarder elects again
	// at once instead of taking the port for a stranger's.
	HeaderLeaving = "X-Monkbrowse"
)

// Control messages between the owner and its forwarders on the control port
// (DESIGN §5.4). Same envelope as the extension socket.
const (
	MsgFwdHello     = "fwd_hello"
	MsgCallTool     = "call_tool"
	MsgOwnerLeaving = "owner_leaving"
	MsgStatus       = "status"
	MsgCallSent     = "call_sent"
	// MsgFwdAuth follows an accepted fwd_hello ack with the forwarder's
	// proof (proof.go).
	MsgFwdAuth = "fwd_auth"
	// MsgHTTPStatus (request, owner → forwarder, payload {}) asks a
	// forwarder for its MCP endpoint over HTTP while the owner answers a
	// status (a serve --http process may be either): the answer is an
	// HTTPStatus, with no URL when the forwarder serves stdio only.
	MsgHTTPStatus = "http_status"
)

// FwdHello is the first request of a forwarder: who it is and its fresh
// nonce (NewNonce). It carries no secret: the owner must prove first that
// it holds the control token (FwdHelloAck.Proof), and only then does the
// forwarder prove it too (FwdAuth). See proof.go and DESIGN §5.4.
type FwdHello struct {
	PID     int    `json:"pid"`
	Version string `json:"version"`
	Nonce   string `json:"nonce"`
}

// LegacyFwdHello is the fwd_hello of a monkbrowse older than issue 23, which
// sent the control token itself. An owner answers it with an "update"
// rejection (UpdateForwarderReason) and never looks at the token.
type LegacyFwdHello struct {
	PID     int    `json:"pid"`
	Version string `json:"version"`
	Token   string `json:"token"`
}

// FwdHelloAck answers FwdHello. Accepted so far (OK): the owner's nonce and
// its proof (ProofLabelOwner) over both nonces; the forwarder checks the
// proof before it sends anything else. Rejected: Reason, and the socket is
// closed. Every ack of an owner that proves itself names the scheme in
// Auth (AuthScheme), accepted or not: an ack without it comes from an owner
// older than issue 23 (it expected a token), and the forwarder says to
// update it.
type FwdHelloAck struct {
	OK      bool   `json:"ok"`
	Version string `json:"version"`
	Auth    string `json:"auth,omitempty"`
	Reason  string `json:"reason,omitempty"`
	Nonce   string `json:"nonce,omitempty"`
	Proof   string `json:"proof,omitempty"`
}

// FwdAuth is the forwarder's second request: its proof (ProofLabelForwarder)
// over both nonces. Sent only after the owner's proof checked out.
type FwdAuth struct {
	Proof string `json:"proof"`
}

// FwdAuthAck answers FwdAuth. A rejected forwarder's socket is closed; an
// accepted one may send call_tool and status from now on.
type FwdAuthAck struct {
	OK     bool   `json:"ok"`
	Reason string `json:"reason,omitempty"`
	// PID and App name the owner (its process and the AI app that started
	// it, from MCP initialize), so a forwarder can say which process
	// stopped answering.
	PID int    `json:"pid,omitempty"`
	App string `json:"app,omitempty"`
	// CallSent: this owner asks call_sent before a call's first request
	// reaches the extension (issue 12), so a call it never asked about
	// certainly did not reach the browser.
	CallSent bool `json:"callSent,omitempty"`
}

// UpdateForwarderReason is the owner's rejection of a LegacyFwdHello: the
// older monkbrowse shows it to its AI app.
func UpdateForwarderReason(forwarderVersion string, forwarderPID int, ownerVersion string) string {
	return fmt.Sprintf("update: an AI app is running an older monkbrowse (version %s, pid %d) that sends the control token in fwd_hello; "+
		"the monkbrowse that owns the browser connection (version %s) no longer accepts that. Update monkbrowse for every AI app and restart them.",
		forwarderVersion, forwarderPID, ownerVersion)
}

// CallTool is one AI-facing tool call: what a [Caller] runs and, on the
// control port, the payload of call_tool, by which a forwarder has the owner
// run its call exactly as a local one. Args is the tool's arguments object
// as the MCP client sent it. Every field is on the wire: what only the
// owner's process knows of a call (which app's snapshot memory it uses,
// the call_sent exchange of a forwarded call) rides in its context
// (tools.WithClient, tools.WithSent).
type CallTool struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
	// Grants are what the calling AI app allows, decided in the process
	// that app launched (its flags and its MCP client's roots): the owner
	// applies these, never its own. Absent: nothing is granted.
	Grants AppGrants `json:"grants,omitzero"`
	// App is the calling AI app as the person knows it (AppDisplayName),
	// decided in the process that app launched: a forwarder sends its own
	// app's name with each call. The owner adds it to every wire request
	// of the call (RequestAppField). Absent (an older forwarder): the
	// owner names the call after the forwarder's process.
	App string `json:"app,omitempty"`
	// Ref is a forwarder's name for this call on the control port, echoed
	// in call_sent (issue 12). Absent: the owner tells nothing.
	Ref string `json:"ref,omitempty"`
}

// Caller runs an AI-facing tool call. Tool failures (bad arguments, unknown
// tab, extension error) are results with IsError set and a message for the
// AI; a Go error is returned only when the call could not be made at all.
// Implementations are safe for concurrent use. The tool dispatcher, the
// owner, the daemon's router and forwarder.Client are Callers.
type Caller interface {
	CallTool(ctx context.Context, call CallTool) (CallToolResult, error)
}

// ErrorResult is a tool failure: one text item with IsError set. The AI
// reads message, so it says what happened and what to do.
func ErrorResult(message string) CallToolResult {
	return CallToolResult{Content: []ContentItem{{Type: "text", Text: message}}, IsError: true}
}

// CallSent (request, owner → forwarder) says that the call_tool named Ref
// is about to send its first request to the extension. The owner waits for
// the answer (at most a couple of seconds) before it sends, so after an
// owner's death a forwarder knows that a call it was never told about did
// not reach the browser. The forwarder answers {} to let it go, or ok:false
// with code CodeCancelled when its own client has already cancelled the
// call (issue 21). An owner sends the call only on {}: a refusal or no
// answer in time means the call is not sent and is answered "not run"
// (DESIGN §5.5).
type CallSent struct {
	Ref string `json:"ref"`
}

// ContentItem is one MCP content item: {"type":"text","text":…} or
// {"type":"image","data":…,"mimeType":…}.
type ContentItem struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	Data     string `json:"data,omitempty"`
	MimeType string `json:"mimeType,omitempty"`
}

// CallToolResult is the owner's answer to CallTool.
type CallToolResult struct {
	Content []ContentItem `json:"content"`
	IsError bool          `json:"isError,omitempty"`
}

// OwnerLeaving is notified by an owner that is releasing its ports.
type OwnerLeaving struct{}

// Status asks the owner for a report of the shared daemon (for `monkbrowse
// doctor`). Like call_tool it is refused before an accepted fwd_hello.
type Status struct{}

// StatusResult answers Status. Times are Unix milliseconds.
type StatusResult struct {
	OwnerPID      int             `json:"ownerPid"`
	Version       string          `json:"version"`
	OwnerSince    int64           `json:"ownerSince"`
	ControlPort   int             `json:"controlPort"`
	ExtensionPort int             `json:"extensionPort"`
	Forwarders    []ForwarderInfo `json:"forwarders"`
	Profiles      []ProfileStatus `json:"profiles"`
	// HTTP lists the MCP endpoints over HTTP (`monkbrowse serve --http`)
	// of the owner and of the forwarders that answered http_status.
	HTTP []HTTPStatus `json:"http,omitempty"`
}

// HTTPStatus describes one `monkbrowse serve --http` endpoint: its URL, the
// process serving it, and the AI apps connected to it (MCP sessions that
// are open), oldest first.
type HTTPStatus struct {
	URL     string           `json:"url,omitempty"`
	PID     int              `json:"pid,omitempty"`
	Clients []HTTPClientInfo `json:"clients,omitempty"`
}

// HTTPClientInfo is one AI app connected over HTTP: the name it gave in
// initialize (as the person knows it, AppDisplayName), since when (Unix
// milliseconds) and how many tool calls it made.
type HTTPClientInfo struct {
	Name  string `json:"name"`
	Since int64  `json:"since"`
	Calls int    `json:"calls"`
}

// ForwarderInfo describes one forwarder connected to the owner. The
// connection that asked for the status is not listed.
type ForwarderInfo struct {
	PID       int    `json:"pid"`
	Version   string `json:"version"`
	Connected int64  `json:"connected"`
}

// ProfileStatus describes one browser profile the owner knows, with its
// shared tabs as last reported.
type ProfileStatus struct {
	ProfileID string    `json:"profileId"`
	Label     string    `json:"label"`
	Slug      string    `json:"slug"`
	Connected bool      `json:"connected"`
	Tabs      []TabInfo `json:"tabs"`
	// Queued counts the calls waiting for their turn behind a running
	// call, on all the profile's tabs.
	Queued int `json:"queued,omitempty"`
	// Policy is the organisation's policy the profile's extension reports
	// (issue 44); absent: none.
	Policy *SitePolicy `json:"policy,omitempty"`
}

// AbortError is the cause a call's context is cancelled with
// (context.WithCancelCause) when monkbrowse stops the call on purpose: one
// mechanism for every reason (DESIGN §5.5). Code is one of CodeCancelled,
// CodeUnshared, CodePaused, CodeOwnerLeaving; Reason is the sentence for
// the AI saying why ("the person stopped sharing tab 2"), without what
// became of the call: the place that honours the abort adds whether the
// call was not sent or was stopped.
type AbortError struct {
	Code   string
	Reason string
}

func (e *AbortError) Error() string { return e.Reason }

// Abort returns an *AbortError.
func Abort(code, reason string) *AbortError { return &AbortError{Code: code, Reason: reason} }

// ClientCancelled is the abort of a call its MCP client cancelled
// (notifications/cancelled, directly or through forwarders).
var ClientCancelled = Abort(CodeCancelled, "the AI app (its MCP client) cancelled the call")

// Aborted reports why ctx's call was stopped: the *AbortError ctx was
// cancelled with, or ClientCancelled for a plain cancellation (mcp-go
// cancels a handler's context without a cause, and so does a peer's wire
// cancel). It returns nil while ctx is live and when ctx ended by a
// deadline (the call's budget or a request timeout have their own words).
func Aborted(ctx context.Context) *AbortError {
	if ctx.Err() == nil {
		return nil
	}
	cause := context.Cause(ctx)
	var ae *AbortError
	if errors.As(cause, &ae) {
		return ae
	}
	if errors.Is(ctx.Err(), context.Canceled) && errors.Is(cause, context.Canceled) {
		return ClientCancelled
	}
	return nil
}
