package tools

import (
	"context"
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
	}
}

// act sends one page-changing request during the tab's turn and, in the
// same turn (so nothing else runs in between), takes a fresh snapshot. A
// failed snapshot does not turn a successful action into a failure.
func (d dispatch) act(ctx context.Context, tg protocol.Target, typ string, payload func(t Target) any, line func(t Target) string) (protocol.CallToolResult, error) {
	var out string
	err := d.b.WithTab(ctx, tg.Profile, tg.Tab, func(ctx context.Context, t Target, s Session) error {
		var res protocol.TabResult
		if err := s.Request(ctx, typ, payload(t), &res); err != nil {
			return err
		}
		out = line(t) + formatDialogs(res.Dialogs)
		var snap protocol.SnapshotResult
		if err := s.Request(ctx, protocol.MsgSnapshot, protocol.TabRequest{TabID: t.TabID}, &snap); err != nil {
			out += "\n\nThe action was done, but the fresh snapshot failed: " + err.Error() + " Call browser_snapshot to see the page."
			return nil
		}
		out += formatDialogs(snap.Dialogs)
		if loadsPage(typ) {
			// A page the AI went to is shown afresh, even when it is a
			// document it saw before (back, forward, reload), within the
			// smaller navigation budget.
			d.snaps.remember(d.snapKey(t), snap)
			out += "\n\n" + d.renderSnapshot(snap, snap.Snapshot, snapshotView{
				heading: "- Page Snapshot:", maxTokens: DefaultNavigateTokens,
				hint: " After navigating, only a short first part is shown: call browser_snapshot (default budget 10,000 tokens, or maxTokens) to read more of the page.",
			})
		} else {
			out += "\n\n" + d.formatAfterAction(t, snap)
		}
		return nil
	})
	if err != nil {
		return protocol.CallToolResult{}, err
	}
	return TextResult(out), nil
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
func (d *Dispatcher) read(ctx context.Context, tg protocol.Target, typ string, payload func(t Target) any, out any) (Target, error) {
	var target Target
	err := d.b.WithTab(ctx, tg.Profile, tg.Tab, func(ctx context.Context, t Target, s Session) error {
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
