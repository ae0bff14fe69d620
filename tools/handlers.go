package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

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

func (d dispatch) navigate(ctx context.Context, a protocol.NavigateArgs) (protocol.CallToolResult, error) {
	url := normalizeURL(a.URL)
	if why := d.fileURLRefusal(url); why != "" {
		return protocol.CallToolResult{}, errors.New(why)
	}
	return d.act(ctx, a.Target, protocol.MsgNavigate,
		func(t Target) any { return protocol.NavigateRequest{URL: url, TabID: t.TabID} },
		func(t Target) string { return fmt.Sprintf("Navigated %s to %s.", t.String(), url) })
}

func simpleAction(typ, format string) func(dispatch, context.Context, protocol.TabArgs) (protocol.CallToolResult, error) {
	return func(d dispatch, ctx context.Context, a protocol.TabArgs) (protocol.CallToolResult, error) {
		return d.act(ctx, a.Target, typ, tabOnly, func(t Target) string { return fmt.Sprintf(format, t.String()) })
	}
}

func describe(element, ref string) string {
	if element == "" {
		return "element " + ref
	}
	return fmt.Sprintf("%q (ref %s)", element, ref)
}

func elementAction(typ, verb string) func(dispatch, context.Context, protocol.ElementArgs) (protocol.CallToolResult, error) {
	return func(d dispatch, ctx context.Context, a protocol.ElementArgs) (protocol.CallToolResult, error) {
		return d.act(ctx, a.Target, typ,
			func(t Target) any {
				return protocol.ElementRequest{Ref: a.Ref, Element: a.Element, TabID: t.TabID}
			},
			func(t Target) string {
				return fmt.Sprintf("%s %s in %s.", verb, describe(a.Element, a.Ref), t.String())
			})
	}
}

func (d dispatch) typeText(ctx context.Context, a protocol.TypeArgs) (protocol.CallToolResult, error) {
	return d.act(ctx, a.Target, protocol.MsgType,
		func(t Target) any {
			return protocol.TypeRequest{Ref: a.Ref, Element: a.Element, Text: a.Text, Submit: a.Submit, TabID: t.TabID}
		},
		func(t Target) string {
			s := fmt.Sprintf("Typed %q into %s in %s", a.Text, describe(a.Element, a.Ref), t.String())
			if a.Submit {
				s += " and pressed Enter"
			}
			return s + "."
		})
}

func (d dispatch) selectOption(ctx context.Context, a protocol.SelectOptionArgs) (protocol.CallToolResult, error) {
	return d.act(ctx, a.Target, protocol.MsgSelectOption,
		func(t Target) any {
			return protocol.SelectOptionRequest{Ref: a.Ref, Element: a.Element, Values: a.Values, TabID: t.TabID}
		},
		func(t Target) string {
			return fmt.Sprintf("Selected %s in %s in %s.", quoteList(a.Values), describe(a.Element, a.Ref), t.String())
		})
}

func (d dispatch) pressKey(ctx context.Context, a protocol.PressKeyArgs) (protocol.CallToolResult, error) {
	return d.act(ctx, a.Target, protocol.MsgPressKey,
		func(t Target) any { return protocol.PressKeyRequest{Key: a.Key, TabID: t.TabID} },
		func(t Target) string { return fmt.Sprintf("Pressed %s in %s.", a.Key, t.String()) })
}

func (d dispatch) scroll(ctx context.Context, a protocol.ScrollArgs) (protocol.CallToolResult, error) {
	return d.act(ctx, a.Target, protocol.MsgScroll,
		func(t Target) any {
			return protocol.ScrollRequest{Direction: a.Direction, Amount: a.Amount, Ref: a.Ref, TabID: t.TabID}
		},
		func(t Target) string {
			if a.Ref != "" {
				return fmt.Sprintf("Scrolled %s into view in %s.", describe(a.Element, a.Ref), t.String())
			}
			dir := a.Direction
			if dir == "" {
				dir = "down"
			}
			amount := "most of a screen"
			if a.Amount > 0 {
				amount = fmt.Sprintf("%d pixels", a.Amount)
			}
			return fmt.Sprintf("Scrolled %s by %s in %s.", dir, amount, t.String())
		})
}

func (d dispatch) drag(ctx context.Context, a protocol.DragArgs) (protocol.CallToolResult, error) {
	return d.act(ctx, a.Target, protocol.MsgDrag,
		func(t Target) any {
			return protocol.DragRequest{StartRef: a.StartRef, EndRef: a.EndRef, TabID: t.TabID}
		},
		func(t Target) string {
			return fmt.Sprintf("Dragged %s onto %s in %s.", describe(a.StartElement, a.StartRef), describe(a.EndElement, a.EndRef), t.String())
		})
}

func (d dispatch) uploadFile(ctx context.Context, a protocol.UploadFileArgs) (protocol.CallToolResult, error) {
	f, err := d.uploadOf(a.Path)
	if err != nil {
		return protocol.CallToolResult{}, err
	}
	return d.act(ctx, a.Target, protocol.MsgUploadFile,
		func(t Target) any {
			return protocol.UploadFileRequest{Ref: a.Ref, Name: f.Name, Data: f.Data, TabID: t.TabID}
		},
		func(t Target) string {
			return fmt.Sprintf("Put %s (%d bytes) into %s in %s.", f.Name, f.Size, describe(a.Element, a.Ref), t.String())
		})
}

func (d dispatch) snapshot(ctx context.Context, a protocol.SnapshotArgs) (protocol.CallToolResult, error) {
	budget := budgetTokens(a.MaxTokens, DefaultMaxTokens)
	if strings.TrimSpace(a.Cursor) != "" {
		// Served from memory: the page is not asked again, and the diff
		// base stays the full snapshot it was cut from.
		out, err := d.cursorPage(a.Cursor, a.MaxTokens)
		if err != nil {
			return protocol.CallToolResult{}, err
		}
		return TextResult(out), nil
	}
	ref := ""
	if strings.TrimSpace(a.Ref) != "" {
		var err error
		if ref, err = normalizeSnapshotRef(a.Ref); err != nil {
			return protocol.CallToolResult{}, err
		}
	}
	var snap protocol.SnapshotResult
	t, err := d.read(ctx, a.Target, protocol.MsgSnapshot, tabOnly, &snap)
	if err != nil {
		return protocol.CallToolResult{}, err
	}
	if ref != "" {
		// One element's part: the full snapshot is not remembered as the
		// diff base, since the AI was not shown the rest of the page.
		sub, ok := subtreeOf(snap.Snapshot, ref)
		if !ok {
			return protocol.CallToolResult{}, fmt.Errorf("No element with ref %s is on the page in %s now (it was removed, or the ref is from another page). Call browser_snapshot without ref for fresh refs.", ref, t.String())
		}
		return TextResult(fmt.Sprintf("Snapshot of %s in %s:\n\n%s", ref, t.String(),
			d.renderSnapshot(snap, sub, snapshotView{heading: "- Snapshot of " + ref + " and what is inside it:", maxTokens: budget, scope: ref}))), nil
	}
	d.snaps.remember(d.snapKey(t), snap)
	return TextResult(fmt.Sprintf("Snapshot of %s:%s\n\n%s", t.String(), formatDialogs(snap.Dialogs),
		d.renderSnapshot(snap, snap.Snapshot, snapshotView{heading: "- Page Snapshot:", maxTokens: budget}))), nil
}

var snapshotRefRe = regexp.MustCompile(`^e[1-9]\d*$`)

// normalizeSnapshotRef accepts "e12", and as pasted from a line "[ref=e12]" or "ref=e12".
func normalizeSnapshotRef(in string) (string, error) {
	r := strings.TrimSpace(in)
	r = strings.TrimSuffix(strings.TrimPrefix(r, "["), "]")
	r = strings.TrimPrefix(r, "ref=")
	if !snapshotRefRe.MatchString(r) {
		return "", fmt.Errorf("%q is not a ref (refs look like e12, from a browser_snapshot line). Call browser_snapshot without ref to see the page's refs.", in)
	}
	return r, nil
}

func (d dispatch) getText(ctx context.Context, a protocol.GetTextArgs) (protocol.CallToolResult, error) {
	var res protocol.TextResult
	_, err := d.read(ctx, a.Target, protocol.MsgGetText,
		func(t Target) any { return protocol.GetTextRequest{Ref: a.Ref, TabID: t.TabID} }, &res)
	if err != nil {
		return protocol.CallToolResult{}, err
	}
	if strings.TrimSpace(res.Text) == "" {
		if a.Ref != "" {
			return TextResult(fmt.Sprintf("%s has no visible text.", describe(a.Element, a.Ref))), nil
		}
		return TextResult("The page has no visible text (it may still be loading: try browser_wait, or browser_snapshot to see its elements)."), nil
	}
	return TextResult(PageContentNote + "\n" + capText(res.Text, DefaultMaxTokens, func(kept, total int) string {
		if a.Ref != "" {
			return fmt.Sprintf("[Cut: the first %s of %s characters of the text of %s are shown, to stay within the %s-token budget. Call browser_snapshot with ref=%s to find smaller parts of it, then browser_get_text with their refs.]",
				formatInt(kept), formatInt(total), a.Ref, formatInt(DefaultMaxTokens), a.Ref)
		}
		return fmt.Sprintf("[Cut: the first %s of %s characters of the page's text are shown, to stay within the %s-token budget. Call browser_snapshot to see the page's parts, then browser_get_text with the ref of the part you want to read.]",
			formatInt(kept), formatInt(total), formatInt(DefaultMaxTokens))
	})), nil
}

func (d dispatch) consoleLogs(ctx context.Context, a protocol.TabArgs) (protocol.CallToolResult, error) {
	var res protocol.ConsoleLogsResult
	t, err := d.read(ctx, a.Target, protocol.MsgGetConsoleLogs, tabOnly, &res)
	if err != nil {
		return protocol.CallToolResult{}, err
	}
	if len(res.Logs) == 0 {
		return TextResult(fmt.Sprintf("No console output, errors or dialogs recorded in %s since its page loaded.", t.String())), nil
	}
	// Within the budget, the newest entries are the ones kept: they are
	// what the AI's last actions caused.
	entries := make([]string, len(res.Logs))
	for i, e := range res.Logs {
		ts := ""
		if e.Time > 0 {
			ts = time.UnixMilli(e.Time).UTC().Format("15:04:05.000") + " "
		}
		entries[i] = capText(fmt.Sprintf("%s[%s] %s", ts, e.Level, e.Text), DefaultMaxTokens/4, func(kept, total int) string {
			return fmt.Sprintf("[entry cut at %s of %s characters]", formatInt(kept), formatInt(total))
		})
	}
	left := DefaultMaxTokens - 2*footerReserve
	first := len(entries)
	for first > 0 {
		c := EstimateTokens(entries[first-1]) + 1
		if c > left {
			break
		}
		left -= c
		first--
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Console of %s (%d entries, oldest first):\n%s\n", t.String(), len(res.Logs), PageContentNote)
	if first > 0 {
		fmt.Fprintf(&b, "[The %d oldest entries are left out to stay within the %s-token budget; the newest %d follow.]\n", first, formatInt(DefaultMaxTokens), len(entries)-first)
	}
	for _, e := range entries[first:] {
		b.WriteString(e)
		b.WriteByte('\n')
	}
	return TextResult(strings.TrimRight(b.String(), "\n")), nil
}

func (d dispatch) evaluate(ctx context.Context, a protocol.EvaluateArgs) (protocol.CallToolResult, error) {
	var res struct {
		Result json.RawMessage `json:"result"`
	}
	_, err := d.read(ctx, a.Target, protocol.MsgEvaluate,
		func(t Target) any { return protocol.EvaluateRequest{Expression: a.Expression, TabID: t.TabID} }, &res)
	if err != nil {
		return protocol.CallToolResult{}, err
	}
	if len(res.Result) == 0 {
		return TextResult("undefined"), nil
	}
	return TextResult(PageContentNote + "\n" + capText(string(res.Result), DefaultMaxTokens, func(kept, total int) string {
		return fmt.Sprintf("[Cut: the first %s of %s characters of the value are shown, to stay within the %s-token budget. Evaluate a smaller part (e.g. .slice(0, 100), or a count) to see the rest.]",
			formatInt(kept), formatInt(total), formatInt(DefaultMaxTokens))
	})), nil
}

func (d dispatch) wait(ctx context.Context, a protocol.WaitArgs) (protocol.CallToolResult, error) {
	if a.Text == "" {
		if a.Time <= 0 {
			return protocol.CallToolResult{}, errors.New("browser_wait needs `time` (seconds to wait, at most 50) or `text` (wait until it appears on the page), or both. Call it again with one of them.")
		}
		dur := time.Duration(a.Time * float64(time.Second))
		t := time.NewTimer(dur)
		defer t.Stop()
		select {
		case <-t.C:
			return TextResult(fmt.Sprintf("Waited %s.", dur)), nil
		case <-ctx.Done():
			return protocol.CallToolResult{}, ctx.Err()
		}
	}
	bound := DefaultWaitForText
	if a.Time > 0 {
		bound = time.Duration(a.Time * float64(time.Second))
	}
	if bound > maxWait {
		bound = maxWait
	}
	start := time.Now()
	deadline := start.Add(bound)
	var last error
	var target Target
	for {
		var res protocol.TextResult
		reached := false
		err := d.b.WithTab(ctx, a.Profile, a.Tab, func(ctx context.Context, t Target, s Session) error {
			reached = true
			target = t
			return s.Request(ctx, protocol.MsgGetText, protocol.GetTextRequest{TabID: t.TabID}, &res)
		})
		switch {
		case err != nil && !reached:
			return protocol.CallToolResult{}, err
		case err != nil:
			last = err
		case strings.Contains(res.Text, a.Text):
			return TextResult(fmt.Sprintf("The text %q appeared in %s after %s.", a.Text, target.String(), time.Since(start).Round(10*time.Millisecond))), nil
		}
		if ctx.Err() != nil {
			return protocol.CallToolResult{}, ctx.Err()
		}
		left := time.Until(deadline)
		if left <= 0 {
			break
		}
		pause := min(d.opts.WaitPoll, left)
		t := time.NewTimer(pause)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return protocol.CallToolResult{}, ctx.Err()
		}
	}
	msg := fmt.Sprintf("The text %q did not appear in %s within %s.", a.Text, target.String(), bound)
	if last != nil {
		msg += " The last attempt to read the page failed: " + last.Error()
	}
	return protocol.ErrorResult(msg + " Take a browser_snapshot to see what the page shows, or wait longer with a larger `time`."), nil
}

func (d dispatch) listTabs(ctx context.Context, a protocol.ListTabsArgs) (protocol.CallToolResult, error) {
	if a.Profile != "" {
		var info ProfileInfo
		err := d.b.WithProfile(ctx, a.Profile, func(ctx context.Context, t Target, s Session) error {
			var res protocol.ListTabsResult
			if err := s.Request(ctx, protocol.MsgListTabs, protocol.ListTabsRequest{}, &res); err != nil {
				return err
			}
			info = ProfileInfo{ID: t.ProfileID, Label: t.Label, Slug: t.Slug, Connected: true, Tabs: sortTabs(res.Tabs)}
			return nil
		})
		if err != nil {
			return protocol.CallToolResult{}, err
		}
		return TextResult(formatTabs([]ProfileInfo{info})), nil
	}
	profiles, err := d.b.Profiles(ctx, true)
	if err != nil {
		return protocol.CallToolResult{}, err
	}
	if len(profiles) == 0 {
		// Let the Browser explain how to connect one (it knows the port).
		if err := d.b.WithProfile(ctx, "", func(context.Context, Target, Session) error { return nil }); err != nil {
			return protocol.CallToolResult{}, err
		}
		if profiles, err = d.b.Profiles(ctx, true); err != nil {
			return protocol.CallToolResult{}, err
		}
	}
	return TextResult(formatTabs(profiles)), nil
}

func sortTabs(tabs []protocol.TabInfo) []protocol.TabInfo {
	out := append([]protocol.TabInfo(nil), tabs...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Slot < out[j-1].Slot; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func (d dispatch) switchTab(ctx context.Context, a protocol.SwitchTabArgs) (protocol.CallToolResult, error) {
	var res protocol.SwitchTabResult
	t, err := d.read(ctx, protocol.Target{Profile: a.Profile, Tab: a.Tab}, protocol.MsgSwitchTab,
		func(t Target) any { return protocol.SwitchTabRequest{TabID: t.TabID} }, &res)
	if err != nil {
		return protocol.CallToolResult{}, err
	}
	return TextResult(fmt.Sprintf("%s is now the active tab; calls to profile %q without `tab` use it.", Capitalize(t.String()), t.Slug)), nil
}

func (d dispatch) newTab(ctx context.Context, a protocol.NewTabArgs) (protocol.CallToolResult, error) {
	url := ""
	if strings.TrimSpace(a.URL) != "" {
		url = normalizeURL(a.URL)
		if why := d.fileURLRefusal(url); why != "" {
			return protocol.CallToolResult{}, errors.New(why)
		}
	}
	var res protocol.NewTabResult
	var target Target
	err := d.b.WithProfile(ctx, a.Profile, func(ctx context.Context, t Target, s Session) error {
		target = t
		return s.Request(ctx, protocol.MsgNewTab, protocol.NewTabRequest{URL: url}, &res)
	})
	if err != nil {
		return protocol.CallToolResult{}, err
	}
	at := "an empty page"
	if url != "" {
		at = url
	}
	return TextResult(fmt.Sprintf("Opened tab %d in profile %q at %s. It is shared: pass tab=%d (and profile=%q) to the other tools to use it.",
		res.Slot, target.Slug, at, res.Slot, target.Slug)), nil
}

func (d dispatch) closeTab(ctx context.Context, a protocol.CloseTabArgs) (protocol.CallToolResult, error) {
	t, err := d.read(ctx, protocol.Target{Profile: a.Profile, Tab: a.Tab}, protocol.MsgCloseTab,
		func(t Target) any { return protocol.CloseTabRequest{TabID: t.TabID} }, nil)
	if err != nil {
		return protocol.CallToolResult{}, err
	}
	return TextResult(fmt.Sprintf("Closed %s. Its number is free again; browser_list_tabs shows the tabs left.", t.String())), nil
}

// Capitalize upper-cases s's first letter, to start a sentence with a name
// such as a Target's.
func Capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func (d dispatch) handleDialog(ctx context.Context, a protocol.HandleDialogArgs) (protocol.CallToolResult, error) {
	t, err := d.read(ctx, a.Target, protocol.MsgHandleDialog,
		func(t Target) any {
			return protocol.HandleDialogRequest{Accept: a.Accept, PromptText: a.PromptText, TabID: t.TabID}
		}, nil)
	if err != nil {
		return protocol.CallToolResult{}, err
	}
	answer := "dismissed (Cancel: confirm() returns false, prompt() returns null)"
	if a.Accept {
		answer = "accepted (OK: confirm() returns true, prompt() returns its default value)"
		if a.PromptText != nil {
			answer = fmt.Sprintf("accepted (OK: confirm() returns true, prompt() returns %q)", *a.PromptText)
		}
	}
	secs := int(protocol.DialogArmTTL / time.Second)
	return TextResult(fmt.Sprintf("The next dialog in %s will be %s, if it opens within %d seconds. "+
		"Now repeat the action that opens it (for example click the button again); that action's result will say what the dialog asked and how it was answered. "+
		"The answer is used by one dialog only: arm it again before each one.", t.String(), answer, secs)), nil
}

// formatDialogs describes, for the AI, the dialogs the page opened and how
// they were answered; empty when there were none.
func formatDialogs(ds []protocol.Dialog) string {
	var b strings.Builder
	for _, dg := range ds {
		msg := strconv.Quote(clip(dg.Message, 300))
		b.WriteString("\n")
		switch {
		case dg.Type == "alert":
			fmt.Fprintf(&b, "An alert %s appeared and was acknowledged (OK).", msg)
		case dg.Type == "confirm" && dg.Armed && dg.Accepted:
			fmt.Fprintf(&b, "A confirm dialog %s appeared and was accepted as browser_handle_dialog asked (confirm() returned true).", msg)
		case dg.Type == "confirm" && dg.Armed:
			fmt.Fprintf(&b, "A confirm dialog %s appeared and was dismissed as browser_handle_dialog asked (confirm() returned false).", msg)
		case dg.Type == "confirm":
			fmt.Fprintf(&b, "A confirm dialog %s appeared and was dismissed (confirm() returned false), so the page likely did not go ahead. "+
				"To accept it: call browser_handle_dialog with accept: true, then repeat the action.", msg)
		case dg.Type == "prompt" && dg.Accepted:
			ans := ""
			if dg.Answer != nil {
				ans = *dg.Answer
			}
			fmt.Fprintf(&b, "A prompt %s appeared and was answered with %q as browser_handle_dialog asked.", msg, clip(ans, 300))
		case dg.Type == "prompt" && dg.Armed:
			fmt.Fprintf(&b, "A prompt %s appeared and was cancelled as browser_handle_dialog asked (prompt() returned null).", msg)
		case dg.Type == "prompt":
			fmt.Fprintf(&b, "A prompt %s appeared and was cancelled (prompt() returned null). "+
				"To answer it: call browser_handle_dialog with accept: true and promptText, then repeat the action.", msg)
		default:
			fmt.Fprintf(&b, "A %s dialog %s appeared and was answered without blocking the page.", dg.Type, msg)
		}
	}
	return b.String()
}
