package tools

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// browser_get_selection (issue 29): what the person pointed at with the
// context menu's "Show this to the AI" in a shared tab — the element's ref,
// its ancestors' snapshot lines and the selected text, all page content.

// maxPointedLines bounds the element's own part shown under its ancestors.
const maxPointedLines = 40

// maxSelectedTokens bounds the selected text.
const maxSelectedTokens = 2000

const nothingPointed = "Nothing was pointed at in %s. The person can right-click an element or a text selection in the tab, choose \"Show this to the AI\", and ask you to look; then call browser_get_selection again."

func (d dispatch) getSelection(ctx context.Context, a protocol.TabArgs) (protocol.CallToolResult, error) {
	var out string
	err := d.withTab(ctx, a.Profile, a.Tab, func(ctx context.Context, t Target, s Session) error {
		var sel protocol.GetSelectionResult
		if err := s.Request(ctx, protocol.MsgGetSelection, protocol.TabRequest{TabID: t.TabID}, &sel); err != nil {
			return err
		}
		if !sel.Pointed {
			out = fmt.Sprintf(nothingPointed, t.String())
			return nil
		}
		var snap protocol.SnapshotResult
		if err := s.Request(ctx, protocol.MsgSnapshot, protocol.TabRequest{TabID: t.TabID}, &snap); err != nil {
			return err
		}
		cleanSnapshot(&snap)
		out = formatPointed(t, sel, snap)
		return nil
	})
	if err != nil {
		return protocol.CallToolResult{}, err
	}
	return TextResult(out), nil
}

// formatPointed renders what was pointed at: the first of its refs the
// snapshot has (the element, or the nearest ancestor the snapshot shows),
// that line's ancestors and its own part, and the selected text.
func formatPointed(t Target, sel protocol.GetSelectionResult, snap protocol.SnapshotResult) string {
	when := ""
	if sel.At > 0 {
		when = " at " + time.UnixMilli(sel.At).UTC().Format("15:04:05") + " UTC"
	}
	lines := parseSnapshot(snap.Snapshot)
	found, ref := -1, ""
	for _, r := range sel.Refs {
		if !personRefRe.MatchString(r) {
			continue
		}
		for i, l := range lines {
			if l.ref == r {
				found, ref = i, r
				break
			}
		}
		if found >= 0 {
			break
		}
	}
	var head string
	var page strings.Builder
	page.WriteString("- Page URL: " + pageLine(clipTokens(clip(snap.URL, maxHeaderURL), maxHeaderTokens)) + "\n")
	if found >= 0 {
		head = fmt.Sprintf("The person pointed at ref %s in %s%s (its ancestors and its part of the page are below; use the ref with the other tools).", ref, t.String(), when)
		var chain []int
		for j := lines[found].parent; j >= 0; j = lines[j].parent {
			chain = append(chain, j)
		}
		var b strings.Builder
		for i := len(chain) - 1; i >= 0; i-- {
			writeLine(&b, lines[chain[i]].indent, lines[chain[i]].text)
		}
		writeLine(&b, lines[found].indent, lines[found].text)
		n := 0
		for j := found + 1; j < len(lines) && lines[j].indent > lines[found].indent; j++ {
			if n == maxPointedLines {
				writeLine(&b, lines[j].indent, fmt.Sprintf("- … (more inside: browser_snapshot with ref=%s)", ref))
				break
			}
			writeLine(&b, lines[j].indent, lines[j].text)
			n++
		}
		page.WriteString("- Pointed at (with its ancestors):\n" + fenced("yaml", clipTokens(pageBlock(strings.TrimRight(b.String(), "\n")), DefaultMaxTokens/2)) + "\n")
	} else {
		head = fmt.Sprintf("The person pointed at an element in %s%s that is not in the page now (it was removed or hidden, or the page changed); the selected text, if any, is below. Call browser_snapshot to see the page.", t.String(), when)
	}
	if sel.Text != "" {
		page.WriteString("- Selected text:\n  " + indentBlock(clipTokens(sel.Text, maxSelectedTokens), "  "))
	} else {
		page.WriteString("- Selected text: none (the person pointed at the element without selecting text).")
	}
	return withPage(head, strings.TrimRight(page.String(), "\n"))
}
