package protocol

import (
	"encoding/json"
	"time"
)

// The site's own tools (issue 43, WebMCP): a page in a shared tab may offer
// tools to agents (document.modelContext.registerTool). The extension lists
// them in every frame of the tab, each frame in its own main world, and runs
// one by name with the person's consent for anything the page does not mark
// read-only. Names, titles, descriptions, schemas and results are the page's
// words: data for the AI, never monkbrowse's.

// Wire types of the site tools.
const (
	MsgSiteTools    = "browser_site_tools"
	MsgSiteToolCall = "browser_site_tool_call"
)

// Bounds of a site tool call (one wire request, below the call's budget):
// SiteToolAskWait for the person's answer, then SiteToolRunTimeout for the
// page's tool; SiteToolTimeout covers both, the listing before (at most
// 5 s), the worker's 2 s of grace after the run and the way back.
const (
	SiteToolAskWait    = 28 * time.Second
	SiteToolRunTimeout = 15 * time.Second
	SiteToolTimeout    = 52 * time.Second
)

// Consent answers of a site tool call (SiteToolCallResult.Consent): how the
// call was allowed, or why it did not run.
const (
	SiteConsentReadOnly = "read-only"  // the page marks it read-only: no question
	SiteConsentAlways   = "always"     // the person chose "Always on this site" (now or before)
	SiteConsentOnce     = "once"       // the person chose "Allow once"
	SiteConsentBefore   = "allowed"    // allowed once before in this browser session (not consequential)
	SiteConsentDenied   = "denied"     // the person chose Deny: nothing ran
	SiteConsentNoAnswer = "unanswered" // no answer within SiteToolAskWait: nothing ran
)

// SiteTool is one tool a frame of the tab offers, as the extension read it.
// Origin is the frame's origin as the browser knows it (not the page's
// claim); Frame is Chrome's frame id (0: the top frame). The annotations are
// the page's own claims.
type SiteTool struct {
	Name             string          `json:"name"`
	Title            string          `json:"title,omitempty"`
	Description      string          `json:"description,omitempty"`
	InputSchema      json.RawMessage `json:"inputSchema,omitempty"`
	ReadOnly         bool            `json:"readOnly,omitempty"`
	Consequential    bool            `json:"consequential,omitempty"`
	UntrustedContent bool            `json:"untrustedContent,omitempty"`
	Origin           string          `json:"origin"`
	Frame            int             `json:"frame"`
}

// SiteToolsResult lists the tab's site tools. Unsupported says no frame
// answered with a WebMCP API: the browser has none, or (Insecure) no frame
// is a secure context, where browsers offer it only (https, localhost).
// Unread counts frames that could not be asked (a page still loading, a
// frame that went away).
type SiteToolsResult struct {
	TabID       int        `json:"tabId"`
	Tools       []SiteTool `json:"tools"`
	Unsupported bool       `json:"unsupported,omitempty"`
	Insecure    bool       `json:"insecure,omitempty"`
	Unread      int        `json:"unread,omitempty"`
}

// SiteToolCallRequest runs the tool Name (in Frame when set: two frames
// offer the same name) with Arguments, a JSON object.
type SiteToolCallRequest struct {
	TabID     int             `json:"tabId,omitempty"`
	Name      string          `json:"name"`
	Frame     *int            `json:"frame,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// SiteToolCallResult is a call's outcome: Consent says how it was allowed
// or why it did not run (denied, unanswered: Result is empty then); Result
// is what the page's tool returned, as text (secret values of the frame's
// fields masked), cut at the extension's limit (Cut).
type SiteToolCallResult struct {
	TabID   int      `json:"tabId"`
	Tool    SiteTool `json:"tool"`
	Consent string   `json:"consent"`
	Result  string   `json:"result,omitempty"`
	Cut     bool     `json:"cut,omitempty"`
}
