package tools

import "github.com/monkbrowse/monkbrowse/protocol"

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

// limitedNote is added to the last line of every part of a limited snapshot.
const limitedNote = " The page goes on past what monkbrowse read for this budget: browser_find searches the whole page, browser_snapshot with ref=<a section's ref> reads that part in full, a larger maxTokens reads further."

// limitedRequest is the snapshot request for a page-wide browser_snapshot.
func limitedRequest(maxTokens int) func(t Target) any {
	return func(t Target) any {
		return protocol.SnapshotRequest{TabID: t.TabID, StopAfterChars: snapshotLimit(maxTokens)}
	}
}
