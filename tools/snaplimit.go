package tools

import (
	"context"
	"strconv"
	"strings"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// The snapshot's traversal limit (issue 30). A browser_snapshot of the
// whole page asks the extension to stop reading the page once it has built
// limitPerToken characters of snapshot per token of the budget: four times
// what one part can show (about 4 characters make a token), so the first
// part still chooses its outline, on-screen and actionable lines from far
// more than it serves, while a 20,000-element page is no longer read to its
// end before the server cuts it. A page whose snapshot is within the limit
// is read in full, exactly as before. browser_find, element parts (ref),
// action diffs and navigation answers read the whole page: they must be
// complete or are the diff base.
const limitPerToken = 16

// snapshotLimit is the traversal limit for a budget of maxTokens.
func snapshotLimit(maxTokens int) int { return limitPerToken * maxTokens }

// readPastLimit keeps paging complete: the first cursor call on a limited
// snapshot reads the whole page in the tab it came from and extends the
// kept snapshot with it. The lines both reads share (the longest common
// prefix: the limited read is the whole read's first lines, same refs,
// when the page did not change) keep their places, so the parts already
// served stay valid; the rest is the lines the first part left out of that
// prefix, then every line after it, in page order. The whole read becomes
// the diff base. Any failure leaves the entry as it was (its parts then
// end with the note).
func (d dispatch) readPastLimit(ctx context.Context, cursor string) {
	m := cursorRe.FindStringSubmatch(strings.TrimSpace(cursor))
	if m == nil {
		return
	}
	id, _ := strconv.ParseUint(m[1], 10, 64)
	e, ok := d.cursors.get(id)
	if !ok || !e.snap.Limited || e.scope != "" {
		return
	}
	var full protocol.SnapshotResult
	t, err := d.read(ctx, e.source, protocol.MsgSnapshot, tabOnly, &full)
	if err != nil || full.Limited {
		return
	}
	cleanSnapshot(&full)
	lines := parseSnapshot(strings.TrimRight(full.Snapshot, "\n"))
	k := 0
	for k < len(lines) && k < len(e.lines) && lines[k] == e.lines[k] {
		k++
	}
	rest := make([]int, 0, len(e.rest)+len(lines)-k)
	for _, i := range e.rest {
		if i < k {
			rest = append(rest, i)
		}
	}
	for i := k; i < len(lines); i++ {
		rest = append(rest, i)
	}
	d.cursors.mu.Lock()
	e.snap, e.lines, e.rest = full, lines, rest
	d.cursors.mu.Unlock()
	d.snaps.remember(d.snapKey(t), full, false)
}

// limitedNote is added to the last line of a limited snapshot's first part
// (and of its later parts if the whole page could not be read).
const limitedNote = " The page goes on past what monkbrowse read for this budget: the cursor reads on through the whole page; browser_find searches all of it."

// limitedRequest is the snapshot request for a page-wide browser_snapshot.
func limitedRequest(maxTokens int) func(t Target) any {
	return func(t Target) any {
		return protocol.SnapshotRequest{TabID: t.TabID, StopAfterChars: snapshotLimit(maxTokens)}
	}
}
