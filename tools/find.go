package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// browser_find: the lines of a fresh snapshot whose role, name or value
// matches a query, each under its ancestors' lines, within the budget. The
// snapshot is not remembered as the diff base (the AI was not shown it).

// findQuery is a parsed query: role (exact, lower case) and/or text
// (a case-insensitive substring of the role, name or value; of the name
// alone when a role is given).
type findQuery struct {
	role string
	text string
}

var roleQueryRe = regexp.MustCompile(`^(?i)role:\s*([a-z/]+)\s*(.*)$`)

func parseFindQuery(q string) (findQuery, error) {
	q = strings.TrimSpace(q)
	if q == "" {
		return findQuery{}, errors.New("browser_find needs a query: text to look for (e.g. checkout) or role:ROLE with an optional quoted name (e.g. role:button \"Save\").")
	}
	if m := roleQueryRe.FindStringSubmatch(q); m != nil {
		name := strings.TrimSpace(m[2])
		if len(name) >= 2 && name[0] == '"' && name[len(name)-1] == '"' {
			name = name[1 : len(name)-1]
		}
		return findQuery{role: strings.ToLower(m[1]), text: strings.ToLower(name)}, nil
	}
	if len(q) >= 2 && q[0] == '"' && q[len(q)-1] == '"' {
		q = q[1 : len(q)-1]
	}
	return findQuery{text: strings.ToLower(q)}, nil
}

// lineParts splits a snapshot line into role, name and value:
// `- button "Save" [disabled] [ref=e3]: x` → button, Save, x.
func lineParts(text string) (role, name, value string) {
	t := strings.TrimPrefix(text, "- ")
	role = lineRole(text)
	t = t[len(role):]
	if strings.HasPrefix(t, " \"") {
		// A JSON string: find its closing quote.
		esc := false
		for i := 2; i < len(t); i++ {
			c := t[i]
			if esc {
				esc = false
				continue
			}
			if c == '\\' {
				esc = true
				continue
			}
			if c == '"' {
				if err := json.Unmarshal([]byte(t[1:i+1]), &name); err != nil {
					name = t[2:i]
				}
				t = t[i+1:]
				break
			}
		}
	}
	// The value follows the last "]: " (after the ref) or the role's ": ".
	if i := strings.LastIndex(t, "]: "); i >= 0 {
		value = t[i+3:]
	} else if strings.HasPrefix(t, ": ") {
		value = t[2:]
	}
	if len(value) >= 2 && value[0] == '"' && value[len(value)-1] == '"' {
		var v string
		if json.Unmarshal([]byte(value), &v) == nil {
			value = v
		}
	}
	return role, name, value
}

func (q findQuery) matches(l snapLine) bool {
	role, name, value := lineParts(l.text)
	if role == "/url" {
		return false
	}
	if q.role != "" {
		return role == q.role && (q.text == "" || strings.Contains(strings.ToLower(name), q.text))
	}
	return strings.Contains(role, q.text) ||
		strings.Contains(strings.ToLower(name), q.text) ||
		strings.Contains(strings.ToLower(value), q.text)
}

// findLines renders the matching lines of snapshot under their ancestors
// within maxTokens (less the header's cost). It returns the body, how many
// lines matched and how many of them were shown.
func findLines(snapshot string, q findQuery, maxTokens int, header string) (body string, matched, shown int) {
	lines := parseSnapshot(snapshot)
	left := maxTokens - EstimateTokens(header) - footerReserve
	emit := make([]bool, len(lines))
	for i, l := range lines {
		if !q.matches(l) {
			continue
		}
		matched++
		need := 0
		for j := i; j >= 0 && !emit[j]; j = lines[j].parent {
			need += lineCost(lines[j])
		}
		if need > left {
			continue
		}
		left -= need
		for j := i; j >= 0 && !emit[j]; j = lines[j].parent {
			emit[j] = true
		}
		shown++
	}
	var b strings.Builder
	for i, l := range lines {
		if emit[i] {
			writeLine(&b, l.indent, l.text)
		}
	}
	return b.String(), matched, shown
}

func (d dispatch) find(ctx context.Context, a protocol.FindArgs) (protocol.CallToolResult, error) {
	q, err := parseFindQuery(a.Query)
	if err != nil {
		return protocol.CallToolResult{}, err
	}
	budget := budgetTokens(a.MaxTokens, DefaultMaxTokens)
	var snap protocol.SnapshotResult
	t, err := d.read(ctx, a.Target, protocol.MsgSnapshot, tabOnly, &snap)
	if err != nil {
		return protocol.CallToolResult{}, err
	}
	cleanSnapshot(&snap)
	heading := fmt.Sprintf("- Matches for %s (each under its ancestors' lines; refs as in browser_snapshot):", quoteQuery(a.Query))
	header := fmt.Sprintf("In %s:\n", t.String()) + formatSnapshotWith(snap, formatDialogs(snap.Dialogs), heading, "x")
	body, matched, shown := findLines(snap.Snapshot, q, budget, header)
	if matched == 0 {
		return TextResult(fmt.Sprintf("Nothing on the page in %s matches %s (searched each element's role, name and value). Try a shorter or different word, or call browser_snapshot to read the page.", t.String(), quoteQuery(a.Query))), nil
	}
	out := fmt.Sprintf("In %s:\n", t.String()) + formatSnapshotWith(snap, formatDialogs(snap.Dialogs), heading, body)
	if shown < matched {
		out += fmt.Sprintf("\nShown: %d of %d matching lines (the token budget of %s is full). Narrow the query (e.g. role:button \"Save\"), raise maxTokens, or call browser_snapshot with ref=<an ancestor's ref> to read one part.", shown, matched, formatInt(budget))
	} else {
		out += fmt.Sprintf("\n%d matching line(s).", matched)
	}
	return TextResult(out), nil
}

func quoteQuery(q string) string {
	return "`" + strings.ReplaceAll(clip(strings.TrimSpace(q), maxEcho), "`", "'") + "`"
}
