package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/monkbrowse/monkbrowse/protocol"
)

func (d dispatch) snapshot(ctx context.Context, a protocol.SnapshotArgs) (protocol.CallToolResult, error) {
	budget := budgetTokens(a.MaxTokens, DefaultMaxTokens)
	if strings.TrimSpace(a.Cursor) != "" {
		// Served from memory: the page is not asked again, and the diff
		// base stays the full snapshot it was cut from.
		d.readPastLimit(ctx, a.Cursor)
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
	req := tabOnly
	if ref == "" {
		// The whole page: read in proportion to what the budget serves.
		req = limitedRequest(budget)
	}
	var snap protocol.SnapshotResult
	t, err := d.read(ctx, a.Target, protocol.MsgSnapshot, req, &snap)
	if err != nil {
		return protocol.CallToolResult{}, err
	}
	cleanSnapshot(&snap)
	if ref != "" {
		// One element's part: the full snapshot is not remembered as the
		// diff base, since the AI was not shown the rest of the page.
		sub, ok := subtreeOf(snap.Snapshot, ref)
		if !ok {
			return protocol.CallToolResult{}, fmt.Errorf("No element with ref %s is on the page in %s now (it was removed, or the ref is from another page). Call browser_snapshot without ref for fresh refs.", ref, t.String())
		}
		head := fmt.Sprintf("Snapshot of %s in %s:", ref, t.String())
		return TextResult(head + "\n\n" + d.renderSnapshot(snap, sub, snapshotView{heading: "- Snapshot of " + ref + " and what is inside it:",
			maxTokens: budget - EstimateTokens(head) - 1, scope: ref})), nil
	}
	if out, ok := d.unchangedSnapshot(t, snap); ok {
		return TextResult(out), nil
	}
	hint := ""
	if snap.Limited {
		hint = limitedNote
	}
	head := fmt.Sprintf("Snapshot of %s:", t.String()) + siteToolsLine(snap)
	page, whole := d.renderSnapshotWhole(snap, snap.Snapshot, snapshotView{heading: "- Page Snapshot:",
		maxTokens: budget - EstimateTokens(head) - 1, lead: formatDialogs(snap.Dialogs), hint: hint,
		source: protocol.Target{Profile: t.Slug, Tab: t.Slot}})
	if !snap.Limited {
		// A limited read holds only the page's first lines: it is not a
		// diff base (the next action would report the rest as new), so the
		// last complete snapshot stays the base.
		d.snaps.remember(d.snapKey(t), snap, whole)
	}
	return TextResult(head + "\n\n" + page), nil
}

// unchangedSnapshot answers a page-wide browser_snapshot in one line when
// the app already holds this very page: its last answer for the tab (a
// navigation's, an action's or a snapshot's) showed the whole text, uncut,
// and nothing has changed since (same URL and title, same lines and refs).
// An AI often takes a snapshot right after a navigation that answered with
// one; sending the page twice costs its tokens twice. It is said once: a
// second browser_snapshot of the unchanged page answers in full, for an app
// that no longer has the first one (context compaction). Dialogs the page
// opened are news: they are shown in full.
// unchangedLine ends that answer, after the tab's name.
const unchangedLine = "same elements and refs. Call again for the full text."

func (d dispatch) unchangedSnapshot(t Target, snap protocol.SnapshotResult) (string, bool) {
	if snap.Limited || len(snap.Dialogs) > 0 {
		return "", false
	}
	k := d.snapKey(t)
	prev, ok := d.snaps.last(k)
	if !ok || !prev.shown || prev.toldUnchanged || prev.url != snap.URL || prev.title != snap.Title {
		return "", false
	}
	if _, _, same := DiffSnapshot(prev.text, snap.Snapshot); !same {
		return "", false
	}
	prev.toldUnchanged = true
	d.snaps.put(k, prev)
	return fmt.Sprintf("Unchanged since your last full snapshot of %s; %s", t.String(), unchangedLine), true
}

var snapshotRefRe = regexp.MustCompile(`^(?:f[1-9]\d*)?e[1-9]\d*$`)

// normalizeSnapshotRef accepts "e12", and as pasted from a line "[ref=e12]" or "ref=e12".
func normalizeSnapshotRef(in string) (string, error) {
	r := strings.TrimSpace(in)
	r = strings.TrimSuffix(strings.TrimPrefix(r, "["), "]")
	r = strings.TrimPrefix(r, "ref=")
	if !snapshotRefRe.MatchString(r) {
		return "", fmt.Errorf("%q is not a ref (refs look like e12, or f2e12 inside a frame, from a browser_snapshot line). Call browser_snapshot without ref to see the page's refs.", in)
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
	text := pageBlock(res.Text)
	return TextResult(withPage("", capText(text, DefaultMaxTokens-EstimateTokens(PageContentNote)-1, func(kept, total int) string {
		if a.Ref != "" {
			return fmt.Sprintf("[Cut: the first %s of %s characters of the text of %s are shown, to stay within the %s-token budget. Call browser_snapshot with ref=%s to find smaller parts of it, then browser_get_text with their refs.]",
				formatInt(kept), formatInt(total), a.Ref, formatInt(DefaultMaxTokens), a.Ref)
		}
		return fmt.Sprintf("[Cut: the first %s of %s characters of the page's text are shown, to stay within the %s-token budget. Call browser_snapshot to see the page's parts, then browser_get_text with the ref of the part you want to read.]",
			formatInt(kept), formatInt(total), formatInt(DefaultMaxTokens))
	}))), nil
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
	// what the AI's last actions caused. An entry's continuation lines (a
	// stack trace) are indented, so they cannot pass for entries.
	entries := make([]string, len(res.Logs))
	for i, e := range res.Logs {
		ts := ""
		if e.Time > 0 {
			ts = time.UnixMilli(e.Time).UTC().Format("15:04:05.000") + " "
		}
		entries[i] = capText(fmt.Sprintf("%s[%s] %s", ts, pageLine(clip(e.Level, 20)), indentBlock(e.Text, "    ")), DefaultMaxTokens/4, func(kept, total int) string {
			return fmt.Sprintf("    [entry cut at %s of %s characters]", formatInt(kept), formatInt(total))
		})
	}
	head := fmt.Sprintf("Console of %s (%d entries, oldest first):", t.String(), len(res.Logs))
	left := DefaultMaxTokens - EstimateTokens(head) - EstimateTokens(PageContentNote) - 2 - footerReserve
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
	if first > 0 {
		fmt.Fprintf(&b, "[The %d oldest entries are left out to stay within the %s-token budget; the newest %d follow.]\n", first, formatInt(DefaultMaxTokens), len(entries)-first)
	}
	for _, e := range entries[first:] {
		b.WriteString(e)
		b.WriteByte('\n')
	}
	return TextResult(withPage(head, strings.TrimRight(b.String(), "\n"))), nil
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
	return TextResult(withPage("", capText(pageBlock(string(res.Result)), DefaultMaxTokens-EstimateTokens(PageContentNote)-1, func(kept, total int) string {
		return fmt.Sprintf("[Cut: the first %s of %s characters of the value are shown, to stay within the %s-token budget. Evaluate a smaller part (e.g. .slice(0, 100), or a count) to see the rest.]",
			formatInt(kept), formatInt(total), formatInt(DefaultMaxTokens))
	}))), nil
}
