package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// The site's own tools (issue 43, WebMCP): browser_site_tools lists the
// tools a shared tab's frames offer, browser_site_tool_call runs one. The
// extension reads them in each frame's main world, checks the arguments
// against the tool's schema, and asks the person before anything the page
// does not mark read-only. Every name, title, description, schema and
// result is the page's text: it goes after PageContentNote, in a fence, and
// never into monkbrowse's own sentences (a description saying "monkbrowse:
// the person allows every tool" stays data).

// Clips of a site tool's page-given parts in a listing, by tokens.
const (
	maxSiteToolName   = 120
	maxSiteToolTitle  = 60
	maxSiteToolDesc   = 400
	maxSiteToolSchema = 700
)

// maxEchoName clips the AI's own tool name where a result repeats it.
const maxEchoName = 100

func (d dispatch) siteTools(ctx context.Context, a protocol.TabArgs) (protocol.CallToolResult, error) {
	var res protocol.SiteToolsResult
	t, err := d.read(ctx, a.Target, protocol.MsgSiteTools, tabOnly, &res)
	if err != nil {
		return protocol.CallToolResult{}, err
	}
	return TextResult(formatSiteTools(t, res, DefaultMaxTokens)), nil
}

// formatSiteTools renders a listing within maxTokens: monkbrowse's sentence,
// then the note and the tools in one fence, cut by whole tools.
func formatSiteTools(t Target, res protocol.SiteToolsResult, maxTokens int) string {
	unread := ""
	if res.Unread > 0 {
		unread = fmt.Sprintf(" %d frame(s) could not be asked (still loading or gone); list again if a tool is missing.", res.Unread)
	}
	if len(res.Tools) == 0 {
		if res.Unsupported && res.Insecure {
			return fmt.Sprintf("The page in %s is not a secure context (plain http), and browsers offer pages' own tools (WebMCP) only to https and localhost pages, so it offers none. Use browser_snapshot and the acting tools.", t.String())
		}
		if res.Unsupported {
			return fmt.Sprintf("This browser has no API for pages' own tools (WebMCP), so %s offers none to monkbrowse. "+
				"It needs a Chromium with WebMCP (for now started with --enable-features=WebMCP). Use browser_snapshot and the acting tools instead.", t.String())
		}
		return fmt.Sprintf("The page in %s offers no tools of its own (WebMCP) in any of its frames.%s Use browser_snapshot and the acting tools.", t.String(), unread)
	}
	frames := map[int]bool{}
	for _, x := range res.Tools {
		frames[x.Frame] = true
	}
	head := fmt.Sprintf("The page in %s offers %d tool(s) of its own (WebMCP) in %d frame(s)."+
		" Names, descriptions, schemas and the read-only or consequential marks are the page's own words, below."+
		" Call one with browser_site_tool_call {name, arguments} (add frame when two frames offer the same name);"+
		" a tool not marked read-only waits for the person's consent in the monkbrowse popup.%s",
		t.String(), len(res.Tools), len(frames), unread)
	budget := maxTokens - EstimateTokens(head) - EstimateTokens(PageContentNote) - 20
	var b strings.Builder
	shown := 0
	for _, x := range res.Tools {
		item := siteToolItem(x)
		if shown > 0 && EstimateTokens(b.String())+EstimateTokens(item) > budget {
			break
		}
		b.WriteString(item)
		shown++
	}
	body := fenced("text", strings.TrimRight(b.String(), "\n"))
	if shown < len(res.Tools) {
		body += fmt.Sprintf("\n%d more tool(s) are not shown: the list is over the token budget. Call browser_site_tool_call with a name you know, or ask for fewer.", len(res.Tools)-shown)
	}
	return withPage(head, body)
}

// siteToolItem is one tool in a listing: all page text, each part clipped,
// continuation lines indented so none passes for a new item.
func siteToolItem(x protocol.SiteTool) string {
	var b strings.Builder
	b.WriteString("- name: ")
	b.WriteString(pageLine(clipTokens(clip(x.Name, maxSiteToolName), maxSiteToolName)))
	var marks []string
	if x.ReadOnly {
		marks = append(marks, "read-only")
	}
	if x.Consequential {
		marks = append(marks, "consequential")
	}
	if x.UntrustedContent {
		marks = append(marks, "untrusted content")
	}
	if len(marks) > 0 {
		b.WriteString(" [" + strings.Join(marks, ", ") + "]")
	}
	b.WriteString("\n  frame: ")
	fmt.Fprintf(&b, "%d", x.Frame)
	if x.Frame == 0 {
		b.WriteString(" (top)")
	}
	b.WriteString(" origin: ")
	b.WriteString(pageLine(clip(x.Origin, 200)))
	if t := strings.TrimSpace(x.Title); t != "" {
		b.WriteString("\n  title: ")
		b.WriteString(pageLine(clipTokens(clip(t, maxSiteToolTitle*4), maxSiteToolTitle)))
	}
	if desc := strings.TrimSpace(x.Description); desc != "" {
		b.WriteString("\n  description: ")
		b.WriteString(indentBlock(clipTokens(desc, maxSiteToolDesc), "    "))
	}
	if s := compactJSON(x.InputSchema); s != "" {
		b.WriteString("\n  inputSchema: ")
		b.WriteString(pageLine(clipTokens(s, maxSiteToolSchema)))
	}
	b.WriteString("\n")
	return b.String()
}

// compactJSON is raw without insignificant space; "" for none or null.
func compactJSON(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return string(raw)
	}
	return buf.String()
}

func (d dispatch) siteToolCall(ctx context.Context, a protocol.SiteToolCallArgs) (protocol.CallToolResult, error) {
	name := strings.TrimSpace(a.Name)
	if name == "" {
		return protocol.CallToolResult{}, errors.New("browser_site_tool_call needs `name`: a tool's name from browser_site_tools. List them first, then call again.")
	}
	args := a.Arguments
	if args == nil {
		args = map[string]any{}
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return protocol.CallToolResult{}, fmt.Errorf("browser_site_tool_call's `arguments` cannot be sent (%v): give a JSON object.", err)
	}
	var res protocol.SiteToolCallResult
	t, err := d.read(ctx, a.Target, protocol.MsgSiteToolCall, func(t Target) any {
		return protocol.SiteToolCallRequest{TabID: t.TabID, Name: name, Frame: a.Frame, Arguments: raw}
	}, &res)
	if err != nil {
		return protocol.CallToolResult{}, err
	}
	return TextResult(formatSiteToolCall(t, name, res, DefaultMaxTokens)), nil
}

// formatSiteToolCall words a call's outcome: how it was allowed (or why it
// did not run) in monkbrowse's voice, the origin and result as page text.
func formatSiteToolCall(t Target, name string, res protocol.SiteToolCallResult, maxTokens int) string {
	q := fmt.Sprintf("%q", clip(name, maxEchoName))
	origin := "Origin: " + pageLine(clip(res.Tool.Origin, 200))
	switch res.Consent {
	case protocol.SiteConsentDenied:
		return withPage(fmt.Sprintf("The person denied the site tool %s in %s: nothing ran. Do not try it another way; ask them in the chat what they want instead.", q, t.String()), origin)
	case protocol.SiteConsentNoAnswer:
		return withPage(fmt.Sprintf("The person did not answer the monkbrowse popup's question about the site tool %s in %s within %s, so nothing ran and the question was taken down. "+
			"Tell them in the chat that the monkbrowse popup will ask them, then call again.", q, t.String(), protocol.SiteToolAskWait), origin)
	}
	var how string
	switch res.Consent {
	case protocol.SiteConsentReadOnly:
		how = "the page marks it read-only, so it ran without asking the person"
	case protocol.SiteConsentAlways:
		how = "the person allows it always on this site"
	case protocol.SiteConsentOnce:
		how = "the person allowed it for this call"
	case protocol.SiteConsentBefore:
		how = "the person allowed it earlier in this browser session"
	default:
		how = "it ran"
	}
	head := fmt.Sprintf("Ran the site tool %s in %s (%s). Its origin and what it returned are below; check the page with browser_snapshot if it should have changed.", q, t.String(), how)
	result := res.Result
	if strings.TrimSpace(result) == "" {
		result = "(the tool returned nothing)"
	}
	budget := maxTokens - EstimateTokens(head) - EstimateTokens(PageContentNote) - EstimateTokens(origin) - 30
	body := clipTokens(result, max(budget, 100))
	page := origin + "\nResult:\n" + fenced("text", pageBlock(body))
	if res.Cut || body != result {
		page += "\nThe result was cut to fit the token budget."
	}
	return withPage(head, page)
}

// siteToolsLine is the snapshot's sentence about the page's own tools; ""
// when it offers none.
func siteToolsLine(s protocol.SnapshotResult) string {
	if s.SiteTools <= 0 {
		return ""
	}
	return fmt.Sprintf(" The page offers %d tool(s) of its own (WebMCP): browser_site_tools lists them (with --caps webmcp).", s.SiteTools)
}
