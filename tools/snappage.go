package tools

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// Cursors. A snapshot cut by the budget is kept in memory so its other parts
// can be served later, from the very snapshot the first part came from (same
// refs, same text), without asking the page again. A cursor names the kept
// snapshot and where the next part starts ("c3.120"), so asking twice for
// the same cursor answers the same part.
const (
	// cursorTTL is how long a cut snapshot stays available.
	cursorTTL = 10 * time.Minute
	// maxCursors bounds the memory cut snapshots take; the oldest goes first.
	maxCursors = 32
)

type cursorEntry struct {
	snap      protocol.SnapshotResult // URL and title for the header
	scope     string                  // "" for the page, else the ref whose part this is
	lines     []snapLine
	rest      []int // lines the first part left out, in page order
	maxTokens int
	taken     time.Time
	// source is the tab a limited snapshot came from: its first cursor
	// call reads the whole page there (readPastLimit).
	source protocol.Target
}

type cursorStore struct {
	mu    sync.Mutex
	seq   uint64
	items map[uint64]*cursorEntry
	now   func() time.Time // for tests; nil means time.Now
}

func (c *cursorStore) clock() time.Time {
	if c.now != nil {
		return c.now()
	}
	return time.Now()
}

func (c *cursorStore) add(e *cursorEntry) uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.items == nil {
		c.items = make(map[uint64]*cursorEntry)
	}
	c.seq++
	e.taken = c.clock()
	c.items[c.seq] = e
	for id, old := range c.items {
		if c.clock().Sub(old.taken) > cursorTTL {
			delete(c.items, id)
		}
	}
	for len(c.items) > maxCursors {
		oldest := c.seq
		for id := range c.items {
			oldest = min(oldest, id)
		}
		delete(c.items, oldest)
	}
	return c.seq
}

func (c *cursorStore) get(id uint64) (*cursorEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[id]
	if ok && c.clock().Sub(e.taken) > cursorTTL {
		delete(c.items, id)
		return nil, false
	}
	return e, ok
}

var cursorRe = regexp.MustCompile(`^c([1-9]\d*)\.(\d+)$`)

// budgetTokens resolves a maxTokens argument: 0 means def.
func budgetTokens(arg, def int) int {
	if arg <= 0 {
		return def
	}
	return max(arg, minTokens)
}

// snapshotView says how to present one snapshot result.
type snapshotView struct {
	heading   string // the line before the yaml block when the snapshot fits
	maxTokens int
	scope     string // ref whose part body is, or ""
	// hint is added to the last line of a cut snapshot (navigation results
	// point at browser_snapshot).
	hint string
	// lead is page-controlled text shown after the note, above the page
	// header (the dialogs an action opened); its cost is in the budget.
	lead string
	// source is the tab the snapshot came from, kept for a limited one.
	source protocol.Target
}

// renderSnapshot formats body (the page's snapshot or one element's part of
// it) within the budget. When it does not fit, the first part is shown and
// the rest is kept for a cursor.
func (d *Dispatcher) renderSnapshot(s protocol.SnapshotResult, body string, v snapshotView) string {
	out, _ := d.renderSnapshotWhole(s, body, v)
	return out
}

// renderSnapshotWhole is renderSnapshot, also saying whether body was shown
// whole (it fit the budget).
func (d *Dispatcher) renderSnapshotWhole(s protocol.SnapshotResult, body string, v snapshotView) (string, bool) {
	body = strings.TrimRight(body, "\n")
	if body == "" {
		body = "# (the page has no visible elements)"
	}
	whole := formatSnapshotWith(s, v.lead, v.heading, body)
	if EstimateTokens(whole) <= v.maxTokens {
		return whole, true
	}
	what := "The page's snapshot"
	if v.scope != "" {
		what = "The snapshot of " + v.scope + " and what is inside it"
	}
	heading := fmt.Sprintf("- Page Snapshot (part 1; %s takes ~%s tokens, over the budget of %s: the outline of landmarks and headings, what is on screen and what can be acted on come first, long runs of similar elements are collapsed; the last line says how to get the rest):",
		strings.ToLower(what[:1])+what[1:], formatInt(EstimateTokens(body)), formatInt(v.maxTokens))
	header := formatSnapshotWith(s, v.lead, heading, "x")
	lines := parseSnapshot(body)
	inView := make(map[string]bool, len(s.Viewport))
	for _, r := range s.Viewport {
		inView[r] = true
	}
	page, rest := firstPage(lines, pageOpts{maxTokens: v.maxTokens, header: header + v.hint, inView: inView})
	if len(rest) == 0 {
		return formatSnapshotWith(s, v.lead, heading, page), false
	}
	id := d.cursors.add(&cursorEntry{snap: s, scope: v.scope, lines: lines, rest: rest, maxTokens: v.maxTokens, source: v.source})
	return formatSnapshotWith(s, v.lead, heading, page) + "\n" + leftOutLine(lines, rest, 0, id, v) + v.hint, false
}

// leftOutLine is the last line of a cut part: what was left out and exactly
// how to get it.
func leftOutLine(lines []snapLine, rest []int, from int, id uint64, v snapshotView) string {
	left := rest[from:]
	refHint := "browser_snapshot with ref=<an element's ref> for that element's part alone"
	if v.scope != "" {
		refHint = "browser_snapshot with the ref of an element inside for a smaller part"
	}
	return fmt.Sprintf("Left out: %s of %s lines (%s elements with refs). Next part: browser_snapshot with cursor=\"c%d.%d\" (same refs; valid for %d minutes); or %s; or browser_find to search.",
		formatInt(len(left)), formatInt(len(lines)), formatInt(countRefs(lines, left)), id, from, int(cursorTTL/time.Minute), refHint)
}

// cursorPage serves the part of a kept snapshot a cursor names.
func (d *Dispatcher) cursorPage(cursor string, maxTokens int) (string, error) {
	m := cursorRe.FindStringSubmatch(strings.TrimSpace(cursor))
	if m == nil {
		return "", fmt.Errorf("%q is not a snapshot cursor (cursors look like c3.120 and come from the last line of a cut snapshot). Call browser_snapshot without cursor to start again.", cursor)
	}
	id, _ := strconv.ParseUint(m[1], 10, 64)
	from, err := strconv.Atoi(m[2])
	if err != nil {
		return "", fmt.Errorf("%q is not a snapshot cursor. Call browser_snapshot without cursor to start again.", cursor)
	}
	e, ok := d.cursors.get(id)
	if !ok {
		return "", fmt.Errorf("The cursor %s has expired: cut snapshots are kept for %d minutes (and only the last %d). Call browser_snapshot without cursor to start again from a fresh snapshot.", cursor, int(cursorTTL/time.Minute), maxCursors)
	}
	if from > len(e.rest) {
		return "", fmt.Errorf("The cursor %s points past the end of its snapshot (%d lines were left out of it). Call browser_snapshot without cursor to start again.", cursor, len(e.rest))
	}
	if from == len(e.rest) {
		return "Nothing is left: the snapshot behind cursor " + cursor + " has been served in full. Call browser_snapshot for a fresh one.", nil
	}
	if maxTokens <= 0 {
		maxTokens = e.maxTokens
	}
	v := snapshotView{maxTokens: maxTokens, scope: e.scope}
	if e.snap.Limited {
		v.hint = limitedNote
	}
	of := "the page"
	if e.scope != "" {
		of = e.scope
	}
	heading := fmt.Sprintf("- Page Snapshot (the continuation of the snapshot of %s taken at %s UTC, from cursor %s: the lines the earlier parts left out, in page order, each under its ancestors' lines; refs are those of that snapshot, so if the page changed since, call browser_snapshot again):",
		of, e.taken.UTC().Format("15:04:05"), cursor)
	header := formatSnapshotWith(e.snap, "", heading, "x")
	body, next := nextPage(e.lines, e.rest, from, pageOpts{maxTokens: maxTokens, header: header + v.hint})
	out := formatSnapshotWith(e.snap, "", heading, body)
	if next < len(e.rest) {
		out += "\n" + leftOutLine(e.lines, e.rest, next, id, v) + v.hint
	} else {
		out += "\nThat was the last part of this snapshot." + v.hint
	}
	return out, nil
}
