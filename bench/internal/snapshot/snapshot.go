// Package snapshot parses the page snapshots of the three servers into
// elements with a role, an accessible name and the ref (or uid) the server
// wants back in its element tools.
//
// Two text formats exist:
//
//   - YAML lines, used by monkbrowse and Playwright MCP:
//     `- button "Sign in" [disabled] [ref=e7]`
//   - chrome-devtools-mcp's accessibility tree lines:
//     `uid=1_25 button "Sign in" disableable disabled`
package snapshot

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Element is one element line of a snapshot.
type Element struct {
	Role string
	Name string
	// Ref is the handle the server's element tools take (a ref or a uid);
	// empty when the line has none.
	Ref string
	// Line is the raw line.
	Line string
}

// Format names a snapshot text format.
type Format int

const (
	// YAML is the `- role "name" [ref=…]` format (monkbrowse, Playwright MCP).
	YAML Format = iota
	// UID is chrome-devtools-mcp's `uid=… role "name"` format.
	UID
)

var (
	yamlLine = regexp.MustCompile(`^\s*- ([A-Za-z][\w-]*)(?: "((?:[^"\\]|\\.)*)")?(.*)$`)
	yamlRef  = regexp.MustCompile(`\[ref=([^\]\s]+)\]`)
	uidLine  = regexp.MustCompile(`^\s*uid=(\S+)(?: ([A-Za-z][\w-]*))?(?: "((?:[^"\\]|\\.)*)")?(.*)$`)
)

// unquote undoes the JSON-style escaping of a quoted name.
func unquote(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(s[i])
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Parse returns the element lines of text in order. Lines that are not
// elements (headers, `- text:` runs, `- /url:` properties) are skipped.
func Parse(text string, f Format) []Element {
	var out []Element
	for _, line := range strings.Split(text, "\n") {
		switch f {
		case YAML:
			m := yamlLine.FindStringSubmatch(line)
			if m == nil || m[1] == "text" {
				continue
			}
			e := Element{Role: m[1], Name: unquote(m[2]), Line: line}
			if r := yamlRef.FindStringSubmatch(m[3]); r != nil {
				e.Ref = r[1]
			}
			out = append(out, e)
		case UID:
			m := uidLine.FindStringSubmatch(line)
			if m == nil || m[2] == "" {
				continue // text nodes carry a uid and a name but no role
			}
			out = append(out, Element{Role: m[2], Name: unquote(m[3]), Ref: m[1], Line: line})
		}
	}
	return out
}

// Find returns the ref of the first element with this role and exactly this
// name, or an error quoting the start of the snapshot.
func Find(text string, f Format, role, name string) (string, error) {
	for _, e := range Parse(text, f) {
		if e.Role == role && e.Name == name {
			if e.Ref == "" {
				return "", fmt.Errorf("the snapshot's %s %q has no ref: %s", role, name, e.Line)
			}
			return e.Ref, nil
		}
	}
	clip := text
	if len(clip) > 3000 {
		clip = clip[:3000] + "\n…"
	}
	return "", fmt.Errorf("the snapshot has no %s named %q:\n%s", role, name, clip)
}

// InteractiveRoles are the roles compared between snapshots.
var InteractiveRoles = map[string]bool{
	"button": true, "link": true, "textbox": true, "checkbox": true, "radio": true,
	"combobox": true, "listbox": true, "option": true, "menuitem": true, "tab": true,
	"switch": true, "slider": true, "spinbutton": true, "searchbox": true,
}

// RoleName is an interactive element's identity for comparisons.
type RoleName struct {
	Role string `json:"role"`
	Name string `json:"name"`
}

func (r RoleName) String() string { return fmt.Sprintf("%s %q", r.Role, r.Name) }

// Interactive returns the set of (role, name) of the interactive elements
// in text, sorted.
func Interactive(text string, f Format) []RoleName {
	seen := map[RoleName]bool{}
	for _, e := range Parse(text, f) {
		if InteractiveRoles[e.Role] {
			seen[RoleName{e.Role, e.Name}] = true
		}
	}
	out := make([]RoleName, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Role != out[j].Role {
			return out[i].Role < out[j].Role
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// Missing returns the elements of want that are not in have.
func Missing(want, have []RoleName) []RoleName {
	in := map[RoleName]bool{}
	for _, h := range have {
		in[h] = true
	}
	var out []RoleName
	for _, w := range want {
		if !in[w] {
			out = append(out, w)
		}
	}
	return out
}

// Unchanged reports a snapshot answer that says the page is the one the
// client was last given whole (monkbrowse's one-line answer after a
// navigation that showed the page), rather than carrying it again.
func Unchanged(text string) bool {
	return !strings.Contains(text, "[ref=") && strings.Contains(text, "Unchanged since your last full snapshot")
}

// Budgeted reports a monkbrowse snapshot answer cut to its token budget: its
// last line names the cursor for the rest.
func Budgeted(text string) bool {
	return strings.Contains(text, "Left out: ") && strings.Contains(text, "browser_snapshot with cursor=")
}
