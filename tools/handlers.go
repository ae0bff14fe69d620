package tools

import (
	"context"
	"errors"
	"strings"

	"github.com/monkbrowse/monkbrowse/protocol"
)

func routes() map[string]handler {
	return map[string]handler{
		"browser_navigate":         bind(dispatch.navigate),
		"browser_go_back":          bind(simpleAction(protocol.MsgGoBack, "Went back one page in %s.")),
		"browser_go_forward":       bind(simpleAction(protocol.MsgGoForward, "Went forward one page in %s.")),
		"browser_reload":           bind(simpleAction(protocol.MsgReload, "Reloaded %s.")),
		"browser_snapshot":         bind(dispatch.snapshot),
		"browser_find":             bind(dispatch.find),
		"browser_get_text":         bind(dispatch.getText),
		"browser_screenshot":       bind(dispatch.screenshot),
		"browser_get_console_logs": bind(dispatch.consoleLogs),
		"browser_evaluate":         bind(dispatch.evaluate),
		"browser_click":            bind(elementAction(protocol.MsgClick, "Clicked")),
		"browser_hover":            bind(elementAction(protocol.MsgHover, "Hovered over")),
		"browser_type":             bind(dispatch.typeText),
		"browser_select_option":    bind(dispatch.selectOption),
		"browser_press_key":        bind(dispatch.pressKey),
		"browser_scroll":           bind(dispatch.scroll),
		"browser_drag":             bind(dispatch.drag),
		"browser_upload_file":      bind(dispatch.uploadFile),
		"browser_wait":             bind(dispatch.wait),
		"browser_list_tabs":        bind(dispatch.listTabs),
		"browser_switch_tab":       bind(dispatch.switchTab),
		"browser_new_tab":          bind(dispatch.newTab),
		"browser_close_tab":        bind(dispatch.closeTab),
		"browser_fill_form":        bind(dispatch.fillForm),
		"browser_click_xy":         bind(dispatch.clickXY),
		"browser_drag_xy":          bind(dispatch.dragXY),
		"browser_network_requests": bind(dispatch.networkRequests),
		"browser_downloads":        bind(dispatch.downloads),
		"browser_pdf":              bind(dispatch.pdf),
		"browser_handle_dialog":    bind(dispatch.handleDialog),
		"browser_ask_user":         bind(dispatch.askUser),
		"browser_get_selection":    bind(dispatch.getSelection),
		"browser_run":              bind(dispatch.run),
		"browser_recordings":       bind(dispatch.recordings),
		"browser_site_tools":       bind(dispatch.siteTools),
		"browser_site_tool_call":   bind(dispatch.siteToolCall),
	}
}

// act sends one page-changing request during the tab's turn and, in the
// same turn (so nothing else runs in between), takes a fresh snapshot. A
// failed snapshot does not turn a successful action into a failure. The
// whole result stays within the action's budget: the result line and the
// dialogs the page opened are taken from the snapshot's.
func (d dispatch) act(ctx context.Context, tg protocol.Target, typ string, payload func(t Target) any, line func(t Target) string) (protocol.CallToolResult, error) {
	var out string
	err := d.withTab(ctx, tg.Profile, tg.Tab, func(ctx context.Context, t Target, s Session) error {
		var res protocol.TabResult
		req := payload(t)
		if err := s.Request(ctx, typ, req, &res); err != nil {
			return err
		}
		head := line(t)
		if note := strings.TrimSpace(res.Note); note != "" {
			// The extension's own sentence (an action that left the page
			// unchanged): the answer never reads as a plain success then.
			head += "\n" + clipTokens(note, maxNoteTokens)
		}
		var snap protocol.SnapshotResult
		if err := s.Request(ctx, protocol.MsgSnapshot, protocol.TabRequest{TabID: t.TabID}, &snap); err != nil {
			why, quote := failureParts(err)
			out = withPage(head+"\n\nThe action was done, but the fresh snapshot failed"+why+" Call browser_snapshot to see the page.",
				joinPage(formatDialogs(append(res.Dialogs, snap.Dialogs...)), quote))
			return nil
		}
		cleanSnapshot(&snap)
		lead := formatDialogs(append(res.Dialogs, snap.Dialogs...))
		budget := DefaultMaxTokens
		if loadsPage(typ) {
			budget = DefaultNavigateTokens
		}
		budget -= EstimateTokens(head) + 1 // and "\n\n"
		if loadsPage(typ) {
			// A page the AI went to is shown afresh, even when it is a
			// document it saw before (back, forward, reload), within the
			// smaller navigation budget.
			page, whole := d.renderSnapshotWhole(snap, snap.Snapshot, snapshotView{
				heading: "- Page Snapshot:", maxTokens: budget, lead: lead,
				hint: " After navigating, only a short first part is shown: call browser_snapshot (default budget 10,000 tokens, or maxTokens) to read more of the page.",
			})
			d.snaps.remember(d.snapKey(t), snap, whole)
			out = head + "\n\n" + page
		} else {
			out = head + "\n\n" + d.formatAfterAction(t, snap, lead, budget, targetRef(req))
		}
		return nil
	})
	if err != nil {
		return protocol.CallToolResult{}, err
	}
	return TextResult(out), nil
}

// maxNoteTokens bounds the extension's note on an action's answer.
const maxNoteTokens = 200

// targetRef is the element an action request acts on, "" for none.
func targetRef(req any) string {
	switch r := req.(type) {
	case protocol.ElementRequest:
		return r.Ref
	case protocol.TypeRequest:
		return r.Ref
	case protocol.SelectOptionRequest:
		return r.Ref
	case protocol.ScrollRequest:
		return r.Ref
	case protocol.UploadFileRequest:
		return r.Ref
	}
	return ""
}

// cleanSnapshot applies the page-text rule to a snapshot as it arrives, so
// that the budget counts what is shown and the diff base is what the AI saw.
func cleanSnapshot(s *protocol.SnapshotResult) {
	s.Snapshot = pageBlock(s.Snapshot)
}

// joinPage joins the non-empty page parts of a result with a newline.
func joinPage(parts ...string) string {
	var keep []string
	for _, p := range parts {
		if p = strings.Trim(p, "\n"); p != "" {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, "\n")
}

// failureParts splits the report of err into what goes in the head of a
// result (why, a clause that ends a sentence: ": the page is loading." or
// " (the browser's reason is below).") and what goes after the note
// (quote: a BrowserError's message, which may quote the page; "" for
// errors monkbrowse worded itself).
func failureParts(err error) (why, quote string) {
	var be *BrowserError
	if errors.As(err, &be) {
		return " (the browser's reason is below).", "The browser's reason: " + pageLine(clipTokens(be.Message, maxBrowserErrorTokens))
	}
	msg := strings.TrimSpace(clipTokens(err.Error(), maxBrowserErrorTokens))
	if !strings.HasSuffix(msg, ".") {
		msg += "."
	}
	return ": " + msg, ""
}

// loadsPage reports the wire types that load a document.
func loadsPage(typ string) bool {
	switch typ {
	case protocol.MsgNavigate, protocol.MsgGoBack, protocol.MsgGoForward, protocol.MsgReload:
		return true
	}
	return false
}

// read sends one read request during the tab's turn.
func (d dispatch) read(ctx context.Context, tg protocol.Target, typ string, payload func(t Target) any, out any) (Target, error) {
	var target Target
	err := d.withTab(ctx, tg.Profile, tg.Tab, func(ctx context.Context, t Target, s Session) error {
		target = t
		return s.Request(ctx, typ, payload(t), out)
	})
	return target, err
}

func tabOnly(t Target) any { return protocol.TabRequest{TabID: t.TabID} }

// normalizeURL completes an address without a scheme as the extension does.
func normalizeURL(u string) string { return protocol.NormalizeURL(cleanURL(u)) }

// Capitalize upper-cases s's first letter, to start a sentence with a name
// such as a Target's.
func Capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
