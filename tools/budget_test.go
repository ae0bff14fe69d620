package tools

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/monkbrowse/monkbrowse/protocol"
)

func TestEstimateTokens(t *testing.T) {
	for s, want := range map[string]int{
		"":                      0,
		"abcd":                  1,
		"abcde":                 2,
		"日本語のページ":               7, // 21 bytes → 6 by bytes/4; 7 characters
		"ab日本":                  2,
		strings.Repeat("x", 40): 10,
	} {
		if got := EstimateTokens(s); got != want {
			t.Errorf("EstimateTokens(%q) = %d, want %d", s, got, want)
		}
	}
}

// bigSnapshot is a page like the bench's large page: a navigation, headings,
// a long table of rows with links, a form at the end.
func bigSnapshot(rows int) (snap string, refs []string) {
	var b strings.Builder
	n := 0
	ref := func() string { n++; r := fmt.Sprintf("e%d", n); refs = append(refs, r); return r }
	fmt.Fprintf(&b, "- banner [ref=%s]:\n", ref())
	fmt.Fprintf(&b, "  - heading \"Big page\" [level=1] [ref=%s]\n", ref())
	fmt.Fprintf(&b, "  - navigation \"Main\" [ref=%s]:\n", ref())
	for i := range 5 {
		fmt.Fprintf(&b, "    - link \"Section %d\" [ref=%s]:\n      - /url: /s%d\n", i, ref(), i)
	}
	fmt.Fprintf(&b, "- main [ref=%s]:\n", ref())
	fmt.Fprintf(&b, "  - heading \"Orders\" [level=2] [ref=%s]\n", ref())
	fmt.Fprintf(&b, "  - table \"Orders\" [ref=%s]:\n", ref())
	for i := range rows {
		fmt.Fprintf(&b, "    - row [ref=%s]:\n", ref())
		fmt.Fprintf(&b, "      - cell \"Order %d placed by a customer with a fairly long name\" [ref=%s]\n", i, ref())
		fmt.Fprintf(&b, "      - cell [ref=%s]:\n        - link \"Open order %d\" [ref=%s]:\n          - /url: /orders/%d\n", ref(), i, ref(), i)
	}
	fmt.Fprintf(&b, "  - heading \"New order\" [level=2] [ref=%s]\n", ref())
	fmt.Fprintf(&b, "  - textbox \"Customer\" [ref=%s]\n", ref())
	fmt.Fprintf(&b, "  - button \"Create\" [ref=%s]\n", ref())
	fmt.Fprintf(&b, "- contentinfo [ref=%s]:\n  - text: © Example\n", ref())
	return b.String(), refs
}

var cursorInText = regexp.MustCompile(`cursor="(c\d+\.\d+)"`)

func refsIn(s string) map[string]string {
	out := map[string]string{}
	for _, l := range strings.Split(s, "\n") {
		if r := lineRef(strings.TrimSpace(l)); r != "" {
			out[r] = strings.TrimSpace(l)
		}
	}
	return out
}

// TestBudgetPagesReachEveryElement pins the budget's promises on a page far
// over it: no part over the budget, the outline and the form on the first
// part, long runs collapsed with a line saying so, and every element reached
// through the cursor with the same line (hence the same ref).
func TestBudgetPagesReachEveryElement(t *testing.T) {
	full, refs := bigSnapshot(2000)
	snap := protocol.SnapshotResult{TabID: 7, URL: "http://x.test/", Title: "Big", Snapshot: full}
	d := NewDispatcher(fakeBrowser{answer: func(string, any, any) error { return nil }}, nil)
	fullLines := refsIn(full)

	first := d.renderSnapshot(snap, full, snapshotView{heading: "- Page Snapshot:", maxTokens: DefaultMaxTokens})
	if got := EstimateTokens(first); got > DefaultMaxTokens {
		t.Fatalf("first part is %d tokens, over %d", got, DefaultMaxTokens)
	}
	for _, want := range []string{`heading "Big page"`, `heading "Orders"`, `heading "New order"`, `textbox "Customer"`, `button "Create"`, "contentinfo", "more rows like the above", "Left out:"} {
		if !strings.Contains(first, want) {
			t.Errorf("first part lacks %q", want)
		}
	}
	seen := refsIn(first)
	page := first
	for parts := 1; ; parts++ {
		if parts > 200 {
			t.Fatal("paging does not end")
		}
		m := cursorInText.FindStringSubmatch(page)
		if m == nil {
			break
		}
		next, err := d.cursorPage(m[1], 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := EstimateTokens(next); got > DefaultMaxTokens {
			t.Fatalf("part %d is %d tokens", parts+1, got)
		}
		again, _ := d.cursorPage(m[1], 0)
		if again != next {
			t.Fatalf("the same cursor answered differently")
		}
		for r, l := range refsIn(next) {
			seen[r] = l
		}
		page = next
	}
	if !strings.Contains(page, "That was the last part") {
		t.Errorf("the last part does not say so:\n%s", page[max(0, len(page)-300):])
	}
	for _, r := range refs {
		if seen[r] == "" {
			t.Fatalf("ref %s never served", r)
		}
		if seen[r] != fullLines[r] {
			t.Fatalf("ref %s served as %q, the snapshot says %q", r, seen[r], fullLines[r])
		}
	}
}

func TestBudgetPutsTheViewportFirst(t *testing.T) {
	full, _ := bigSnapshot(2000)
	// Rows 1500–1510 are on screen: their cells and links come on part 1.
	lines := parseSnapshot(full)
	var inView []string
	for i, l := range lines {
		if strings.Contains(l.text, "Order 1505 ") {
			row := l.parent
			inView = append(inView, lines[row].ref)
			for j := row + 1; j < len(lines) && lines[j].indent > lines[row].indent; j++ {
				if lines[j].ref != "" {
					inView = append(inView, lines[j].ref)
				}
			}
			_ = i
		}
	}
	snap := protocol.SnapshotResult{URL: "http://x.test/", Snapshot: full, Viewport: inView}
	d := NewDispatcher(fakeBrowser{}, nil)
	first := d.renderSnapshot(snap, full, snapshotView{heading: "- Page Snapshot:", maxTokens: 3000})
	if !strings.Contains(first, `link "Open order 1505"`) || !strings.Contains(first, "/url: /orders/1505") {
		t.Fatalf("the element in view is not on part 1:\n%s", first)
	}
	if EstimateTokens(first) > 3000 {
		t.Fatalf("%d tokens", EstimateTokens(first))
	}
}

func TestSmallSnapshotIsWhole(t *testing.T) {
	d := NewDispatcher(fakeBrowser{}, nil)
	s := protocol.SnapshotResult{URL: "u", Title: "t", Snapshot: "- button \"Go\" [ref=e1]"}
	if got := d.renderSnapshot(s, s.Snapshot, snapshotView{heading: "- Page Snapshot:", maxTokens: 1000}); got != FormatSnapshot(s) {
		t.Fatalf("%q", got)
	}
}

func TestCJKIsBudgetedByCharacters(t *testing.T) {
	var b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&b, "- paragraph [ref=e%d]: 日本語の段落です。これは長い文章の一部で、トークンを数えるための例です。\n", i+1)
	}
	d := NewDispatcher(fakeBrowser{}, nil)
	s := protocol.SnapshotResult{URL: "u", Snapshot: b.String()}
	out := d.renderSnapshot(s, s.Snapshot, snapshotView{heading: "- Page Snapshot:", maxTokens: 2000})
	if EstimateTokens(out) > 2000 || !strings.Contains(out, "Left out:") {
		t.Fatalf("%d tokens", EstimateTokens(out))
	}
}

func TestCursorExpiresAndSaysHowToStartAgain(t *testing.T) {
	now := time.Unix(1000, 0)
	d := NewDispatcher(fakeBrowser{}, nil)
	d.cursors.now = func() time.Time { return now }
	full, _ := bigSnapshot(500)
	out := d.renderSnapshot(protocol.SnapshotResult{Snapshot: full}, full, snapshotView{heading: "-", maxTokens: 1000})
	c := cursorInText.FindStringSubmatch(out)[1]
	if _, err := d.cursorPage(c, 0); err != nil {
		t.Fatal(err)
	}
	now = now.Add(cursorTTL + time.Second)
	_, err := d.cursorPage(c, 0)
	if err == nil || !strings.Contains(err.Error(), "has expired") || !strings.Contains(err.Error(), "without cursor to start again") {
		t.Fatalf("%v", err)
	}
	for _, bad := range []string{"x", "c0.1", "c1.-1"} {
		if _, err := d.cursorPage(bad, 0); err == nil || !strings.Contains(err.Error(), "not a snapshot cursor") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

func TestCursorStoreIsBounded(t *testing.T) {
	var c cursorStore
	for range maxCursors + 10 {
		c.add(&cursorEntry{})
	}
	if len(c.items) != maxCursors {
		t.Fatalf("%d kept", len(c.items))
	}
	if _, ok := c.get(1); ok {
		t.Fatal("the oldest was kept")
	}
}

// snapshotBrowser answers every snapshot request with snap and records the
// requests.
func snapshotBrowser(snap *protocol.SnapshotResult, count *int) fakeBrowser {
	return fakeBrowser{answer: func(typ string, _ any, out any) error {
		if typ == protocol.MsgSnapshot {
			*count++
			b, _ := json.Marshal(snap)
			return json.Unmarshal(b, out)
		}
		return nil
	}}
}

// TestSnapshotToolRefCursorAndDiffBase drives browser_snapshot's ref and
// cursor through the dispatcher, and checks that neither replaces the base
// of the next action's diff.
func TestSnapshotToolRefCursorAndDiffBase(t *testing.T) {
	full, _ := bigSnapshot(2000)
	snap := protocol.SnapshotResult{URL: "http://x.test/", Title: "Big", Snapshot: full}
	calls := 0
	d := NewDispatcher(snapshotBrowser(&snap, &calls), nil)

	first := callRaw(t, d, "browser_snapshot", `{}`).Content[0].Text
	if EstimateTokens(first) > DefaultMaxTokens+100 {
		t.Fatalf("%d tokens", EstimateTokens(first))
	}
	c := cursorInText.FindStringSubmatch(first)[1]
	before := calls
	part := callRaw(t, d, "browser_snapshot", `{"cursor":"`+c+`","maxTokens":2000}`)
	if part.IsError || calls != before || EstimateTokens(part.Content[0].Text) > 2000 {
		t.Fatalf("cursor: error %v, %d page requests, %d tokens", part.IsError, calls-before, EstimateTokens(part.Content[0].Text))
	}

	// ref: the row e20 and its cells, nothing else.
	r := callRaw(t, d, "browser_snapshot", `{"ref":"[ref=e20]"}`)
	text := r.Content[0].Text
	if r.IsError || !strings.Contains(text, "- row [ref=e20]:") || strings.Contains(text, "e25]") || strings.Contains(text, "banner") {
		t.Fatalf("ref: %s", text)
	}
	if r := callRaw(t, d, "browser_snapshot", `{"ref":"e999999"}`); !r.IsError || !strings.Contains(r.Content[0].Text, "No element with ref e999999") {
		t.Fatalf("missing ref: %+v", r)
	}
	if r := callRaw(t, d, "browser_snapshot", `{"ref":"button"}`); !r.IsError || !strings.Contains(r.Content[0].Text, "is not a ref") {
		t.Fatalf("bad ref: %+v", r)
	}

	// The base is still the full snapshot: a click that changes one row
	// answers with a diff of that row alone.
	snap.Snapshot = strings.Replace(full, `"Open order 7"`, `"Opened order 7"`, 1)
	click := callRaw(t, d, "browser_click", `{"element":"x","ref":"e1"}`).Content[0].Text
	if !strings.Contains(click, "Changes since your last snapshot") || !strings.Contains(click, "Opened order 7") {
		t.Fatalf("click: %s", click)
	}
}

func TestNavigationUsesTheSmallerBudgetAndHints(t *testing.T) {
	full, _ := bigSnapshot(2000)
	snap := protocol.SnapshotResult{URL: "http://x.test/", Snapshot: full}
	calls := 0
	d := NewDispatcher(snapshotBrowser(&snap, &calls), nil)
	out := callRaw(t, d, "browser_navigate", `{"url":"http://x.test/"}`).Content[0].Text
	if EstimateTokens(out) > DefaultNavigateTokens+200 || !strings.Contains(out, "call browser_snapshot") {
		t.Fatalf("%d tokens: %s", EstimateTokens(out), out[max(0, len(out)-400):])
	}
	// A big action diff falls back to the budgeted page.
	snap.Snapshot = strings.ReplaceAll(full, "Open order", "Close order")
	out = callRaw(t, d, "browser_click", `{"element":"x","ref":"e1"}`).Content[0].Text
	if EstimateTokens(out) > DefaultMaxTokens+200 || !strings.Contains(out, "Left out:") {
		t.Fatalf("%d tokens", EstimateTokens(out))
	}
}

func TestFind(t *testing.T) {
	full, _ := bigSnapshot(300)
	snap := protocol.SnapshotResult{URL: "http://x.test/", Snapshot: full}
	calls := 0
	d := NewDispatcher(snapshotBrowser(&snap, &calls), nil)
	out := callRaw(t, d, "browser_find", `{"query":"role:button \"create\""}`).Content[0].Text
	if !strings.Contains(out, `button "Create"`) || !strings.Contains(out, "- main [ref=") || strings.Contains(out, "textbox") {
		t.Fatalf("role query: %s", out)
	}
	out = callRaw(t, d, "browser_find", `{"query":"OPEN ORDER 12"}`).Content[0].Text
	for _, want := range []string{`link "Open order 12"`, `link "Open order 125"`, "- row [ref=", "- table \"Orders\""} {
		if !strings.Contains(out, want) {
			t.Errorf("text query lacks %q: %s", want, out)
		}
	}
	if strings.Contains(out, `"Open order 13"`) {
		t.Errorf("non-match shown")
	}
	// Over the budget: says how many were left out.
	out = callRaw(t, d, "browser_find", `{"query":"order","maxTokens":600}`).Content[0].Text
	if EstimateTokens(out) > 600 || !strings.Contains(out, "Narrow the query") {
		t.Fatalf("%d tokens: %s", EstimateTokens(out), out)
	}
	if r := callRaw(t, d, "browser_find", `{"query":"zebra"}`); r.IsError || !strings.Contains(r.Content[0].Text, "Nothing on the page") {
		t.Fatalf("%+v", r)
	}
}

func TestLineParts(t *testing.T) {
	for in, want := range map[string][3]string{
		`- button "Say \"hi\"" [disabled] [ref=e3]`:   {"button", `Say "hi"`, ""},
		`- textbox "Email" [ref=e4]: ada@example.com`: {"textbox", "Email", "ada@example.com"},
		`- text: "1,2"`:   {"text", "", "1,2"},
		`- row [ref=e9]:`: {"row", "", ""},
	} {
		r, n, v := lineParts(in)
		if [3]string{r, n, v} != want {
			t.Errorf("%s → %q %q %q", in, r, n, v)
		}
	}
}

func TestTextResultsAreCapped(t *testing.T) {
	long := strings.Repeat("word ", 100_000)
	d := NewDispatcher(fakeBrowser{answer: func(typ string, _ any, out any) error {
		switch typ {
		case protocol.MsgGetText:
			*(out.(*protocol.TextResult)) = protocol.TextResult{Text: long}
		case protocol.MsgEvaluate:
			b, _ := json.Marshal(map[string]any{"result": long})
			return json.Unmarshal(b, out)
		case protocol.MsgGetConsoleLogs:
			var logs []protocol.ConsoleEntry
			for i := range 5000 {
				logs = append(logs, protocol.ConsoleEntry{Level: "log", Text: fmt.Sprintf("message number %d with some text", i)})
			}
			*(out.(*protocol.ConsoleLogsResult)) = protocol.ConsoleLogsResult{Logs: logs}
		}
		return nil
	}}, nil)
	for tool, want := range map[string]string{
		"browser_get_text":         "characters of the page's text are shown",
		"browser_evaluate":         "characters of the value are shown",
		"browser_get_console_logs": "oldest entries are left out",
	} {
		args := `{}`
		if tool == "browser_evaluate" {
			args = `{"expression":"x"}`
		}
		out := callRaw(t, d, tool, args).Content[0].Text
		if EstimateTokens(out) > DefaultMaxTokens || !strings.Contains(out, want) {
			t.Errorf("%s: %d tokens, %q", tool, EstimateTokens(out), out[max(0, len(out)-200):])
		}
	}
}

// TestOutlineGivesWayDeepestFirst: when a page's outline alone passes the
// navigation budget, the landmarks and shallow headings stay and the deepest
// headings give way, the later ones first (issue 30).
func TestOutlineGivesWayDeepestFirst(t *testing.T) {
	var b strings.Builder
	n := 0
	ref := func() string { n++; return fmt.Sprintf("e%d", n) }
	fmt.Fprintf(&b, "- main [ref=%s]:\n  - heading \"Reference\" [level=1] [ref=%s]\n", ref(), ref())
	for s := range 4 {
		fmt.Fprintf(&b, "  - region \"Part %d\" [ref=%s]:\n    - heading \"Part %d\" [level=2] [ref=%s]\n", s, ref(), s, ref())
		for h := range 150 {
			fmt.Fprintf(&b, "    - heading \"Part %d, function number %d with a long name\" [level=3] [ref=%s]\n", s, h, ref())
		}
	}
	fmt.Fprintf(&b, "- contentinfo [ref=%s]:\n  - link \"Imprint\" [ref=%s]\n", ref(), ref())
	full := b.String()
	d := NewDispatcher(fakeBrowser{}, nil)
	first := d.renderSnapshot(protocol.SnapshotResult{URL: "http://x.test/", Snapshot: full}, full,
		snapshotView{heading: "- Page Snapshot:", maxTokens: DefaultNavigateTokens})
	if EstimateTokens(first) > DefaultNavigateTokens {
		t.Fatalf("%d tokens", EstimateTokens(first))
	}
	for _, want := range []string{`heading "Reference" [level=1]`, `region "Part 3"`, `heading "Part 3" [level=2]`, "- contentinfo [ref="} {
		if !strings.Contains(first, want) {
			t.Errorf("the first part lacks %q:\n%s", want, first)
		}
	}
	if !strings.Contains(first, `"Part 0, function number 0 with`) {
		t.Errorf("no level-3 heading at all: the budget left room for the first ones")
	}
	if strings.Contains(first, `"Part 3, function number 149 with`) {
		t.Errorf("the last level-3 heading did not give way")
	}
}
