package tools

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The token budget (issue 13). AI apps refuse or truncate tool results above
// a limit (Claude Code: 25k tokens), and a real documentation page is a
// 14k–375k-token snapshot. Every result that carries page content is
// therefore held to a budget here, on the server, over the full snapshot the
// extension sent: the full text stays the base of the action diffs, and the
// parts left out can be served later from memory (cursor) with the very same
// refs.

// Token budgets. A result never exceeds ~12k tokens by default: the
// snapshot part is held to DefaultMaxTokens, and the result line of an
// action, the page header and notes add a few hundred at most.
const (
	// DefaultMaxTokens is the budget of browser_snapshot, browser_find,
	// action results, browser_get_text, console logs and browser_evaluate.
	DefaultMaxTokens = 10_000
	// DefaultNavigateTokens is the smaller budget of the snapshot that
	// follows navigate, back, forward and reload (issue 30): the AI usually
	// wants to look around first, and browser_snapshot or the cursor gives
	// more on request. On a large page the outline alone can pass it; then
	// the deepest headings give way first (see outlineTier).
	DefaultNavigateTokens = 2_000
	// minTokens is the smallest budget a caller may ask for.
	minTokens = 500
	// collapseRun is how many similar siblings in a row make a run worth
	// collapsing, and collapseKeep how many of them stay in view.
	collapseRun  = 8
	collapseKeep = 3
	// footerReserve is what the last line of a cut snapshot may take.
	footerReserve = 90
)

// EstimateTokens estimates the tokens a text costs an AI model: the larger
// of bytes/4 (English and code run at 3.5–4.5 bytes per token) and the number
// of non-ASCII characters (CJK text is about one token per character, at 3
// bytes each, so bytes/4 alone would undercount it).
func EstimateTokens(s string) int {
	nonASCII := 0
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		_, n := utf8.DecodeRuneInString(s[i:])
		i += n
		nonASCII++
	}
	return max((len(s)+3)/4, nonASCII)
}

// lineCost is a line's cost with its indentation and newline. The costs of
// lines add up to at least the estimate of their concatenation, so a page
// built within a sum of line costs stays within the budget.
func lineCost(l snapLine) int {
	return EstimateTokens(strings.Repeat(" ", l.indent)+l.text) + 1
}

// landmarkRoles and interactiveRoles sort lines into the priority classes
// of a page that is over budget.
var (
	outlineRoles = map[string]bool{
		"banner": true, "navigation": true, "main": true, "contentinfo": true, "complementary": true,
		"region": true, "search": true, "form": true, "heading": true, "dialog": true, "alertdialog": true,
		"iframe": true,
	}
	interactiveRoles = map[string]bool{
		"button": true, "link": true, "textbox": true, "searchbox": true, "checkbox": true, "radio": true,
		"combobox": true, "listbox": true, "option": true, "slider": true, "spinbutton": true, "switch": true,
		"tab": true, "menuitem": true, "menuitemcheckbox": true, "menuitemradio": true, "treeitem": true,
		"gridcell": true, "scrollbar": true, "generic": true,
	}
)

// lineRole is the role word of a snapshot line ("button" for `- button "Save" [ref=e3]`,
// "text" for `- text: …`, "/url" for a property line).
func lineRole(text string) string {
	t := strings.TrimPrefix(text, "- ")
	end := strings.IndexAny(t, " :")
	if end < 0 {
		return t
	}
	return t[:end]
}

// maxOutlineTier is the tier of the deepest heading level.
const maxOutlineTier = 6

// outlineTier orders outline lines for a first part that cannot hold the
// whole outline: 0 for landmarks, dialogs and iframes, the level for a
// heading (1–6; a heading without a level counts as 2), -1 for a line
// outside the outline.
func outlineTier(text string) int {
	role := lineRole(text)
	if !outlineRoles[role] {
		return -1
	}
	if role != "heading" {
		return 0
	}
	if i := strings.Index(text, "[level="); i >= 0 && i+8 < len(text) {
		if n := int(text[i+7] - '0'); n >= 1 && n <= maxOutlineTier && text[i+8] == ']' {
			return n
		}
	}
	return 2
}

// pageOpts says how to cut one page of a snapshot.
type pageOpts struct {
	maxTokens int
	// header is what precedes the yaml block (URL, title, heading line);
	// its cost is taken from the budget.
	header string
	// inView holds the refs in or near the viewport.
	inView map[string]bool
}

// firstPage is the first part of a snapshot that does not fit: the outline,
// then what is in view, then what can be acted on, then the rest in page
// order, with long runs of similar siblings collapsed to their first few.
// It returns the yaml body (without the closing footer) and the indexes of
// the lines it left out, in page order.
func firstPage(lines []snapLine, o pageOpts) (body string, rest []int) {
	left := o.maxTokens - EstimateTokens(o.header) - footerReserve
	emit := make([]bool, len(lines))
	cost := make([]int, len(lines))
	for i, l := range lines {
		cost[i] = lineCost(l)
	}
	// take emits line i and its ancestors when they fit.
	take := func(i int) bool {
		need := 0
		for j := i; j >= 0 && !emit[j]; j = lines[j].parent {
			need += cost[j]
		}
		if need > left {
			return false
		}
		left -= need
		for j := i; j >= 0 && !emit[j]; j = lines[j].parent {
			emit[j] = true
		}
		return true
	}

	// Collapse: runs of siblings with the same role keep their first few;
	// the others (and everything inside them) wait for the cursor, except
	// for outline lines, which the whole outline keeps.
	collapsed := make([]bool, len(lines))
	type placeholder struct {
		indent int
		text   string
	}
	placeholders := map[int]placeholder{} // line index after which a "… N more" line goes
	children := make(map[int][]int)
	for i, l := range lines {
		children[l.parent] = append(children[l.parent], i)
	}
	end := subtreeEnds(lines)
	for _, kids := range children {
		for a := 0; a < len(kids); {
			b := a + 1
			role := lineRole(lines[kids[a]].text)
			for b < len(kids) && lines[kids[b]].ref != "" && lineRole(lines[kids[b]].text) == role {
				b++
			}
			if lines[kids[a]].ref != "" && b-a >= collapseRun {
				// Siblings in view stay: what the person sees comes first.
				n := 0
				for k := a + collapseKeep; k < b; k++ {
					if o.inView[lines[kids[k]].ref] {
						continue
					}
					n++
					for j := kids[k]; j < end[kids[k]]; j++ {
						collapsed[j] = true
					}
				}
				last := kids[a+collapseKeep-1]
				first, lastRef := lines[kids[a+collapseKeep]].ref, lines[kids[b-1]].ref
				more := ""
				if n < b-a-collapseKeep {
					more = "; those on screen are shown below"
				}
				placeholders[end[last]-1] = placeholder{lines[last].indent, fmt.Sprintf("- … %d more %s like the above (%s to %s; the cursor below lists them%s)",
					n, plural(role), first, lastRef, more)}
			}
			a = b
		}
	}
	// Placeholder lines are paid for up front.
	for _, p := range placeholders {
		left -= EstimateTokens(strings.Repeat(" ", p.indent)+p.text) + 1
	}
	// 1. the outline of landmarks and headings (with the heading's own
	// text), shallowest first: when it does not all fit, the deepest
	// headings give way first, and within one level the later ones.
	for tier := 0; tier <= maxOutlineTier; tier++ {
		for i, l := range lines {
			if l.ref != "" && outlineTier(l.text) == tier {
				take(i)
			}
		}
	}
	// 2. what is in or near the viewport, with its text
	if len(o.inView) > 0 {
		for i := range lines {
			if !collapsed[i] && o.inView[owner(lines, i)] {
				take(i)
			}
		}
	}
	// 3. what can be acted on
	for i, l := range lines {
		if !collapsed[i] && l.ref != "" && interactiveRoles[lineRole(l.text)] {
			take(i)
		}
	}
	// 4. the rest, in page order, while it fits
	for i := range lines {
		if !collapsed[i] && !emit[i] && left > 0 {
			take(i)
		}
	}

	var b strings.Builder
	for i, l := range lines {
		if emit[i] {
			writeLine(&b, l.indent, l.text)
		} else {
			rest = append(rest, i)
		}
		if p, ok := placeholders[i]; ok {
			writeLine(&b, p.indent, p.text)
		}
	}
	return b.String(), rest
}

// nextPage is a later part of a snapshot: the lines rest[from:] in page
// order while they fit, each under its ancestors' lines for context. It
// returns the body and the index into rest where the next page starts
// (len(rest) when done). It always makes progress: a first line that does
// not fit with its ancestors comes with shortened ancestor lines.
func nextPage(lines []snapLine, rest []int, from int, o pageOpts) (body string, next int) {
	left := o.maxTokens - EstimateTokens(o.header) - footerReserve
	emit := make(map[int]bool)
	var order []int
	next = from
	for next < len(rest) {
		i := rest[next]
		var chain []int
		need := 0
		for j := i; j >= 0 && !emit[j]; j = lines[j].parent {
			chain = append(chain, j)
			need += lineCost(lines[j])
		}
		if need > left && next > from {
			break
		}
		left -= need
		for _, j := range chain {
			emit[j] = true
			order = append(order, j)
		}
		next++
		if left <= 0 {
			break
		}
	}
	sort.Ints(order)
	var b strings.Builder
	for _, i := range order {
		text := lines[i].text
		if left < 0 && i != rest[from] {
			// The one oversized first step: shorten its context.
			text = truncateRunes(text, 60)
		}
		writeLine(&b, lines[i].indent, text)
	}
	return b.String(), next
}

// subtreeEnds returns for each line the index just past its subtree.
func subtreeEnds(lines []snapLine) []int {
	end := make([]int, len(lines))
	for i := len(lines) - 1; i >= 0; i-- {
		e := i + 1
		for e < len(lines) && isDescendant(lines, e, i) {
			e = end[e]
		}
		end[i] = e
	}
	return end
}

func isDescendant(lines []snapLine, j, i int) bool {
	for p := lines[j].parent; p >= 0; p = lines[p].parent {
		if p == i {
			return true
		}
		if p < i {
			return false
		}
	}
	return false
}

// subtreeOf returns the lines of the element ref and everything inside it,
// dedented to the top level; ok is false when no line has that ref.
func subtreeOf(snapshot, ref string) (sub string, ok bool) {
	lines := parseSnapshot(snapshot)
	for i, l := range lines {
		if l.ref != ref {
			continue
		}
		var b strings.Builder
		writeLine(&b, 0, l.text)
		for j := i + 1; j < len(lines) && lines[j].indent > l.indent; j++ {
			writeLine(&b, lines[j].indent-l.indent, lines[j].text)
		}
		return b.String(), true
	}
	return "", false
}

func writeLine(b *strings.Builder, indent int, text string) {
	for range indent {
		b.WriteByte(' ')
	}
	b.WriteString(text)
	b.WriteByte('\n')
}

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// plural names a role's run in a placeholder line: "rows", "links", "items".
func plural(role string) string {
	switch role {
	case "listitem":
		return "items"
	case "text":
		return "text lines"
	case "":
		return "elements"
	}
	if strings.HasSuffix(role, "x") {
		return role + "es"
	}
	return role + "s"
}

// countRefs counts the element lines among idx.
func countRefs(lines []snapLine, idx []int) int {
	n := 0
	for _, i := range idx {
		if lines[i].ref != "" {
			n++
		}
	}
	return n
}

func formatInt(n int) string {
	s := strconv.Itoa(n)
	if n < 10000 {
		return s
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// capText cuts text so that it and the note that follows a cut stay within
// maxTokens. note receives the number of characters kept and the total.
func capText(text string, maxTokens int, note func(kept, total int) string) string {
	if EstimateTokens(text) <= maxTokens {
		return text
	}
	total := utf8.RuneCountInString(text)
	left := maxTokens - footerReserve*2
	// Walk forward while the estimate of the prefix stays within the budget.
	bytes, nonASCII, runes := 0, 0, 0
	for i, r := range text {
		n := utf8.RuneLen(r)
		nb, nn := i+n, nonASCII
		if r >= utf8.RuneSelf {
			nn++
		}
		if max((nb+3)/4, nn) > left {
			break
		}
		bytes, nonASCII = nb, nn
		runes++
	}
	return text[:bytes] + "\n\n" + note(runes, total)
}
