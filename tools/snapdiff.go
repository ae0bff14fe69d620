package tools

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// After an action, the AI needs to see what the action did, not the whole
// page again: on a 2,000-element page a full snapshot is ~76 kB (~19k tokens)
// per click. Refs are stable for unchanged elements (DESIGN §7), so the
// server can compare the new snapshot with the last one this AI app was given
// for the tab and send only the changed elements, with their ancestors for
// context. The full snapshot is sent whenever a diff would mislead or not pay:
// no earlier snapshot for this app and tab, another URL, or a diff larger
// than half the page.

// maxRememberedSnapshots bounds the memory the diff base takes: the oldest
// entry is forgotten first (its next action then answers in full).
const maxRememberedSnapshots = 64

type snapKey struct {
	client  string
	profile string
	tabID   int
}

type snapMemory struct {
	mu    sync.Mutex
	seq   uint64
	items map[snapKey]snapEntry
}

type snapEntry struct {
	url   string
	title string
	text  string
	seq   uint64
	// shown: the app was given this whole text in one answer (not cut by
	// the budget, not as a diff), so an unchanged page need not be sent
	// again (see [dispatch.unchangedSnapshot]).
	shown bool
	// toldUnchanged: browser_snapshot already answered "unchanged" for
	// this base once; asking again gets the page in full.
	toldUnchanged bool
}

// remember makes s the app's diff base for the tab; shown says the app was
// given s's whole text in that answer.
func (m *snapMemory) remember(k snapKey, s protocol.SnapshotResult, shown bool) {
	m.put(k, snapEntry{url: s.URL, title: s.Title, text: s.Snapshot, shown: shown})
}

func (m *snapMemory) put(k snapKey, e snapEntry) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.items == nil {
		m.items = make(map[snapKey]snapEntry)
	}
	m.seq++
	e.seq = m.seq
	m.items[k] = e
	if len(m.items) > maxRememberedSnapshots {
		var oldest snapKey
		var oldestSeq uint64
		for key, e := range m.items {
			if oldestSeq == 0 || e.seq < oldestSeq {
				oldest, oldestSeq = key, e.seq
			}
		}
		delete(m.items, oldest)
	}
}

// forget drops k's diff base: the next action answers with the page.
func (m *snapMemory) forget(k snapKey) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.items, k)
}

func (m *snapMemory) last(k snapKey) (snapEntry, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.items[k]
	return e, ok
}

// snapKey keys the snapshot memory by the calling app (ClientOf):
// an app must only be given changes relative to a snapshot it saw itself.
func (d dispatch) snapKey(t Target) snapKey {
	return snapKey{client: d.client, profile: t.ProfileID, tabID: t.TabID}
}

// formatAfterAction renders the snapshot that follows an action: the changes
// since the app's last snapshot of the tab when that is shorter and safe,
// else the full snapshot. Either way it becomes the app's new diff base.
// lead goes after the note, above the page header (the dialogs); the whole
// stays within maxTokens.
// target is the ref the action acted on ("" for none): its gaining focus
// is no news (see [diffSnapshot]).
func (d dispatch) formatAfterAction(t Target, s protocol.SnapshotResult, lead string, maxTokens int, target string) string {
	k := d.snapKey(t)
	prev, ok := d.snaps.last(k)
	full := func() string {
		out, whole := d.renderSnapshotWhole(s, s.Snapshot, snapshotView{heading: "- Page Snapshot:", maxTokens: maxTokens, lead: lead})
		d.snaps.remember(k, s, whole)
		return out
	}
	if !ok || prev.url != s.URL {
		return full()
	}
	changes, removed, same := diffSnapshot(prev.text, s.Snapshot, target)
	if same {
		// What the app holds still describes the page: it stays the base,
		// and whether the app was shown it whole carries over.
		e := prev
		e.text, e.title, e.toldUnchanged = s.Snapshot, s.Title, false
		d.snaps.put(k, e)
		return formatChanges(s, prev, lead, "- Page Snapshot: unchanged since your last snapshot of this tab (every ref you have is still valid).", "")
	}
	body := changes
	if len(removed) > 0 {
		body = strings.TrimRight(body, "\n")
		if body != "" {
			body += "\n"
		}
		body += "# removed: " + strings.Join(limitList(removed, 20), ", ")
	}
	out := formatChanges(s, prev, lead, DiffHeading, body)
	if 4*len(body) > 3*len(s.Snapshot) || EstimateTokens(out) > maxTokens {
		// A diff that does not pay, or one over the budget: the page
		// itself, cut to the budget (the cursor gets the rest).
		return full()
	}
	d.snaps.remember(k, s, false)
	return out
}

// DiffHeading introduces the changes an action answers with.
const DiffHeading = "- Changes since your last snapshot (under their ancestors; other refs still valid):"

// formatChanges renders an action's changes (or "unchanged") relative to
// prev, the snapshot the app holds of the same URL: the URL line is left
// out, since it is the one the app already has, and the title line too
// unless the title changed.
func formatChanges(s protocol.SnapshotResult, prev snapEntry, lead, heading, body string) string {
	var b strings.Builder
	if lead = strings.Trim(lead, "\n"); lead != "" {
		b.WriteString(lead)
		b.WriteString("\n")
	}
	if s.Title != prev.title {
		b.WriteString("- Page Title: ")
		b.WriteString(pageLine(clipTokens(clip(s.Title, maxHeaderTitle), maxHeaderTokens)))
		b.WriteString("\n")
	}
	if b.Len() == 0 && strings.TrimSpace(body) == "" {
		// Nothing of the page's: monkbrowse's own line, without the note.
		return heading
	}
	b.WriteString(heading)
	if body = strings.TrimRight(body, "\n"); body != "" {
		b.WriteString("\n")
		b.WriteString(fenced("yaml", pageBlock(body)))
	}
	return withPage("", b.String())
}

func limitList(items []string, n int) []string {
	if len(items) <= n {
		return items
	}
	return append(items[:n:n], fmt.Sprintf("and %d more", len(items)-n))
}

// A ref is e12 in the top document, f2e12 in frame document 2 (a stitched
// cross-origin frame). A line's own ref ends its head (lineRef).
var refRe = regexp.MustCompile(`\[ref=((?:f[1-9]\d*)?e\d+)\]$`)

// lineHead is a snapshot line up to its first colon outside double quotes:
// `- role "name" [attr]… [ref=eN]` without the value or block after it.
// Quoted strings (a name, a role the page wrote oddly) are skipped whole,
// so a "[ref=…]" or a colon in a name or value never counts (issue 40).
// unquotedBracket is the index of its first " [" outside quotes, -1 if none.
func lineHead(t string) (head string, unquotedBracket int) {
	unquotedBracket = -1
	inQuote, esc := false, false
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case inQuote && esc:
			esc = false
		case inQuote && c == '\\':
			esc = true
		case inQuote && c == '"':
			inQuote = false
		case inQuote:
		case c == '"':
			inQuote = true
		case c == ':':
			return t[:i], unquotedBracket
		case c == '[' && i > 0 && t[i-1] == ' ' && unquotedBracket < 0:
			unquotedBracket = i - 1
		}
	}
	return t, unquotedBracket
}

// lineRef is the ref a snapshot line (without its indentation) names as its
// own: the [ref=…] that ends its head, never one inside a name or value.
func lineRef(t string) string {
	head, _ := lineHead(t)
	if m := refRe.FindStringSubmatch(head); m != nil {
		return m[1]
	}
	return ""
}

// snapLine is one line of a snapshot as a tree node.
type snapLine struct {
	indent int
	text   string // without the indentation
	ref    string // "" for text, /url and other lines without a ref
	parent int    // index of the parent line, -1 at the top
}

func parseSnapshot(s string) []snapLine {
	raw := strings.Split(strings.TrimRight(s, "\n"), "\n")
	lines := make([]snapLine, 0, len(raw))
	var stack []int // indexes of the open ancestors
	for _, r := range raw {
		if strings.TrimSpace(r) == "" {
			continue
		}
		trimmed := strings.TrimLeft(r, " ")
		l := snapLine{indent: len(r) - len(trimmed), text: trimmed, parent: -1}
		l.ref = lineRef(trimmed)
		for len(stack) > 0 && lines[stack[len(stack)-1]].indent >= l.indent {
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 {
			l.parent = stack[len(stack)-1]
		}
		stack = append(stack, len(lines))
		lines = append(lines, l)
	}
	return lines
}

// owner is the ref a line belongs to: its own, or for a line without one
// (text, /url) the nearest ancestor's; "" at the top level.
func owner(lines []snapLine, i int) string {
	for ; i >= 0; i = lines[i].parent {
		if lines[i].ref != "" {
			return lines[i].ref
		}
	}
	return ""
}

// signature is what an element shows: its own line and the lines without a
// ref that belong to it, plus which element it sits under.
// withoutFocus leaves the focus mark out of the lines' text.
func signatures(lines []snapLine, withoutFocus bool) map[string]string {
	sig := make(map[string]string)
	for i, l := range lines {
		o := owner(lines, i)
		text := l.text
		if withoutFocus {
			text = strings.Replace(text, activeMark, "", 1)
		}
		if l.ref != "" {
			parent := ""
			if l.parent >= 0 {
				parent = owner(lines, l.parent)
			}
			sig[o] += "\x00" + parent + "\x01" + text
		} else {
			sig[o] += "\x02" + text
		}
	}
	return sig
}

// DiffSnapshot compares two snapshots of one document. changes holds the
// lines of every element of next that is new or shows something else (its
// line, its text, its parent), each with its ancestors for context, in page
// order and original indentation. removed names the elements of prev that are
// gone. same reports that nothing differs.
func DiffSnapshot(prev, next string) (changes string, removed []string, same bool) {
	return diffSnapshot(prev, next, "")
}

// activeMark is how a snapshot line marks the focused element.
const activeMark = " [active]"

// diffSnapshot is DiffSnapshot after an action on target (a ref, or ""),
// leaving out focus changes that are no news: the action's own target
// gaining focus (a clicked button, a field typed into), and an element
// losing focus when another one has it now (the element that gained it is
// shown, or is the target). An element whose line or text changed besides
// is shown as before, with its focus mark as it is now.
func diffSnapshot(prev, next, target string) (changes string, removed []string, same bool) {
	if prev == next {
		return "", nil, true
	}
	pl, nl := parseSnapshot(prev), parseSnapshot(next)
	ps, ns := signatures(pl, false), signatures(nl, false)
	var psFocus, nsFocus map[string]string
	focusNow := ""
	for _, l := range nl {
		if l.ref != "" && strings.Contains(l.text, activeMark) {
			focusNow = l.ref
			break
		}
	}

	changed := make(map[string]bool) // owners (refs, "" for the top) whose signature differs
	for o, s := range ns {
		if ps[o] == s {
			continue
		}
		if psFocus == nil {
			psFocus, nsFocus = signatures(pl, true), signatures(nl, true)
		}
		if _, existed := ps[o]; existed && psFocus[o] == nsFocus[o] {
			// Only its focus changed.
			if o == focusNow && o == target {
				continue // the action's target took focus
			}
			if o != focusNow && focusNow != "" {
				continue // it lost focus to the element that has it now
			}
		}
		changed[o] = true
	}
	// A reorder (the same elements under the same parents, in another
	// order) shows in no element's own lines: an element whose nearest
	// earlier sibling among the elements both snapshots hold is another
	// one now has moved. Every element under a parent whose children
	// moved is shown, in the new order, so the order can be read (issue 41).
	inBoth := func(r string) bool {
		_, a := ps[r]
		_, b := ns[r]
		return a && b
	}
	pPrev, nPrev := earlierSiblings(pl, inBoth), earlierSiblings(nl, inBoth)
	reordered := make(map[int]bool) // parent line indexes in next (-1 at the top)
	for i, l := range nl {
		if l.ref == "" {
			continue
		}
		if pp, ok := pPrev[l.ref]; ok && pp != nPrev[l.ref] {
			reordered[nl[i].parent] = true
		}
	}
	for _, l := range nl {
		if l.ref != "" && reordered[l.parent] {
			changed[l.ref] = true
		}
	}
	emit := make([]bool, len(nl))
	for i := range nl {
		if !changed[owner(nl, i)] {
			continue
		}
		// The line itself, and its ancestors for context.
		for j := i; j >= 0 && !emit[j]; j = nl[j].parent {
			emit[j] = true
		}
	}
	var b strings.Builder
	for i, l := range nl {
		if emit[i] {
			b.WriteString(strings.Repeat(" ", l.indent))
			b.WriteString(l.text)
			b.WriteByte('\n')
		}
	}
	for _, l := range pl {
		if l.ref != "" {
			if _, still := ns[l.ref]; !still {
				removed = append(removed, describeLine(l))
			}
		}
	}
	if b.Len() == 0 && len(removed) == 0 {
		return "", nil, true
	}
	return b.String(), removed, false
}

// earlierSiblings maps each element line kept by keep to the ref of the
// nearest earlier element line under the same parent that keep also
// keeps ("" for the first).
func earlierSiblings(lines []snapLine, keep func(string) bool) map[string]string {
	last := make(map[int]string) // parent line index (-1 at the top) → last kept ref under it
	out := make(map[string]string)
	for _, l := range lines {
		if l.ref == "" || !keep(l.ref) {
			continue
		}
		out[l.ref] = last[l.parent]
		last[l.parent] = l.ref
	}
	return out
}

// describeLine shortens an element line for the removed list:
// `button "Delete" [ref=e12]` from `- button "Delete" [disabled] [ref=e12]: …`.
func describeLine(l snapLine) string {
	text := strings.TrimPrefix(l.text, "- ")
	head, i := lineHead(text)
	if i >= 0 {
		text = text[:i]
	} else {
		text = head
	}
	if r := []rune(text); len(r) > 60 {
		text = string(r[:57]) + "…"
	}
	return text + " [ref=" + l.ref + "]"
}
