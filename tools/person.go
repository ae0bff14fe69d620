package tools

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// The person's own edits (issue 29, DESIGN §7.1). The person and the AI work
// in the same shared tab; when the person types, clicks or navigates there
// between two of the AI's calls, the AI's next result on that tab starts with
// one line saying so. The extension tells the person's input from
// monkbrowse's own (background/person.ts) and keeps a short numbered list per
// tab; at the start of each call's turn on a tab the dispatcher asks for what
// came after the last number this AI app was told (person_edits), so every
// app hears of an edit once, and an app's first call on a tab hears of none.
//
// The line is monkbrowse's own words and names the elements by role and ref
// only; their names are page text, so they go after the page-content note
// (pagetext.go, rule 1), in a second line of their own.

// QuietSession is a Session that can send a request which changes nothing
// in the page and does not count as the call's sending: no call_sent to a
// forwarder (issue 12), not the "first request" of the call. The owner's
// sessions implement it; without it the person's edits are not asked for.
type QuietSession interface {
	Quiet(ctx context.Context, typ string, payload, out any) error
}

// maxPersonEdits is how many distinct edits a result names; the rest are
// counted ("and 3 more").
const maxPersonEdits = 6

// personMemory is each app's last edit number per tab.
type personMemory struct {
	mu   sync.Mutex
	seen map[snapKey]int64
}

func (m *personMemory) last(k snapKey) (int64, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.seen[k]
	return v, ok
}

func (m *personMemory) set(k snapKey, seq int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.seen == nil {
		m.seen = make(map[snapKey]int64)
	}
	if len(m.seen) >= 4*maxRememberedSnapshots {
		// Bounded like the diff bases: forgetting only means the app's
		// next call on that tab hears of nothing older.
		for key := range m.seen {
			delete(m.seen, key)
			break
		}
	}
	m.seen[k] = seq
}

// personNote collects the edits a call's turns were told of.
type personNote struct {
	mu    sync.Mutex
	asked map[snapKey]bool
	slot  int
	edits []protocol.PersonEdit
}

// withTab is Browser.WithTab for the handlers: the person's edits of the tab
// since this app's last call on it are asked for (once per call and tab)
// beside the turn's first request, and a navigation the person made drops
// the app's diff base there, so the next action answers with the page
// itself.
func (d dispatch) withTab(ctx context.Context, profile string, tab int, fn func(ctx context.Context, t Target, s Session) error) error {
	return d.b.WithTab(ctx, profile, tab, func(ctx context.Context, t Target, s Session) error {
		wait := d.askPerson(ctx, t, s)
		defer wait()
		return fn(ctx, t, personTurn{Session: s, wait: wait})
	})
}

// personTurn is a turn's Session while the person's edits are asked for:
// the question goes to the extension beside the call's own first request,
// not before it (asked first, it cost every call on a tab a round trip to
// the extension, ~5 ms on the bench's pages), and its answer is applied
// when a request of the call returns. A handler reads the diff base only
// after a request of its own, so it sees the person's navigation.
type personTurn struct {
	Session
	wait func()
}

func (p personTurn) Request(ctx context.Context, typ string, payload, out any) error {
	err := p.Session.Request(ctx, typ, payload, out)
	p.wait()
	return err
}

// askPerson sends person_edits for the turn's tab (unless this call asked
// already) and returns the function that waits for its answer and applies
// it, once, whoever calls it first; it returns at once when nothing was
// asked. The question is sent on its own goroutine, which ends with the
// answer or the question's timeout.
func (d dispatch) askPerson(ctx context.Context, t Target, s Session) (wait func()) {
	nothing := func() {}
	q, ok := s.(QuietSession)
	if !ok || d.person == nil || t.TabID == 0 {
		return nothing
	}
	k := d.snapKey(t)
	d.person.mu.Lock()
	if d.person.asked == nil {
		d.person.asked = make(map[snapKey]bool)
	}
	if d.person.asked[k] {
		d.person.mu.Unlock()
		return nothing
	}
	d.person.asked[k] = true
	d.person.mu.Unlock()
	req := protocol.PersonEditsRequest{TabID: t.TabID}
	if since, ok := d.people.last(k); ok {
		req.Since = &since
	}
	var res protocol.PersonEditsResult
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		err = q.Quiet(ctx, protocol.MsgPersonEdits, req, &res)
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			<-done
			// An older extension, a tab that just went away: the call
			// itself meets and reports the same problem; the edits are not
			// news worth failing for.
			if err == nil {
				d.notePerson(k, t, req, res)
			}
		})
	}
}

// notePerson keeps the extension's answer: the app's new edit number for
// the tab, and the edits to tell when there were any since its last call.
func (d dispatch) notePerson(k snapKey, t Target, req protocol.PersonEditsRequest, res protocol.PersonEditsResult) {
	d.people.set(k, res.Seq)
	if req.Since == nil || len(res.Edits) == 0 {
		return
	}
	for _, e := range res.Edits {
		if e.Kind == "navigated" || e.Kind == "back_forward" || e.Kind == "reloaded" {
			d.snaps.forget(k)
			break
		}
	}
	d.person.mu.Lock()
	d.person.slot = t.Slot
	d.person.edits = append(d.person.edits, res.Edits...)
	d.person.mu.Unlock()
}

// withPersonEdits puts the line about the person's edits first in res and
// their page names after its page-content note (adding the note when res
// has none).
func (d dispatch) withPersonEdits(res protocol.CallToolResult) protocol.CallToolResult {
	if d.person == nil {
		return res
	}
	d.person.mu.Lock()
	edits, slot := d.person.edits, d.person.slot
	d.person.mu.Unlock()
	head, names := formatPersonEdits(edits, slot)
	if head == "" {
		return res
	}
	idx := -1
	for i, c := range res.Content {
		if c.Type == "text" {
			idx = i
			break
		}
	}
	if idx < 0 {
		res.Content = append([]protocol.ContentItem{{Type: "text", Text: ""}}, res.Content...)
		idx = 0
	}
	text := res.Content[idx].Text
	if at := strings.Index(text, PageContentNote+"\n"); at >= 0 {
		at += len(PageContentNote) + 1
		text = text[:at] + names + "\n" + text[at:]
	} else if strings.HasSuffix(text, PageContentNote) {
		text += "\n" + names
	} else {
		text = withPage(strings.TrimRight(text, "\n"), names)
	}
	res.Content[idx].Text = head + "\n" + text
	return res
}

// roleRe is what a role may look like in monkbrowse's own line: the page
// can set any role attribute, so anything else is called an element.
var roleRe = regexp.MustCompile(`^[a-z]{1,24}$`)

// personRefRe is a ref as the extension reports it (f2e12 in a frame).
var personRefRe = regexp.MustCompile(`^(?:f[1-9]\d{0,5})?e[1-9]\d{0,8}$`)

// formatPersonEdits words edits (oldest first) as monkbrowse's head line
// (no page text: verbs, roles, refs) and the page part naming them. Repeats
// of the same thing on the same element are said once.
func formatPersonEdits(edits []protocol.PersonEdit, slot int) (head, names string) {
	type item struct{ own, page string }
	var items []item
	seen := map[string]bool{}
	for _, e := range edits {
		role := e.Role
		if !roleRe.MatchString(role) {
			role = "element"
		}
		ref := ""
		if personRefRe.MatchString(e.Ref) {
			ref = e.Ref
		}
		el := "a " + role
		if strings.ContainsAny(role[:1], "aeiou") {
			el = "an " + role
		}
		if ref != "" {
			el += " (" + ref + ")"
		}
		named := role
		if e.Name != "" {
			named += " " + quotedPage(e.Name, 80)
		}
		if ref != "" {
			named += " [ref=" + ref + "]"
		}
		var it item
		switch e.Kind {
		case "typed":
			it = item{"typed in " + el, "typed in " + named}
		case "clicked":
			it = item{"clicked " + el, "clicked " + named}
		case "chose":
			it = item{"chose an option in " + el, "chose an option in " + named}
		case "pointed":
			it = item{"showed you " + el + " (call browser_get_selection)", "pointed at " + named}
		case "navigated":
			it = item{"went to another page", "went to " + quotedPage(e.URL, 300)}
		case "back_forward":
			it = item{"went back or forward", "went back or forward to " + quotedPage(e.URL, 300)}
		case "reloaded":
			it = item{"reloaded the page", "reloaded " + quotedPage(e.URL, 300)}
		default:
			continue // a kind this server does not know: said by a newer extension
		}
		key := it.own + "\x00" + it.page
		if seen[key] {
			continue
		}
		seen[key] = true
		items = append(items, it)
	}
	if len(items) == 0 {
		return "", ""
	}
	more := 0
	if len(items) > maxPersonEdits {
		more = len(items) - maxPersonEdits
		items = items[len(items)-maxPersonEdits:] // the latest are what the page shows now
	}
	own := make([]string, len(items))
	page := make([]string, len(items))
	for i, it := range items {
		own[i], page[i] = it.own, it.page
	}
	tail := ""
	if more > 0 {
		tail = fmt.Sprintf(" (and %d earlier edits)", more)
	}
	where := "this tab"
	if slot > 0 {
		where = fmt.Sprintf("tab %d", slot)
	}
	head = fmt.Sprintf("Since your last action the person %s in %s%s; the page's names for them are below. Take their edits into account (a new snapshot shows the page as it is).",
		joinAnd(own), where, tail)
	names = "The person's edits, as the page names them: " + strings.Join(page, "; ") + "."
	return head, names
}

// joinAnd joins items as "a, b and c".
func joinAnd(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
