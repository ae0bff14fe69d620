package harness

import (
	"fmt"
	"regexp"
	"strings"
)

// SnapshotLine is one element line of a browser_snapshot result, e.g.
//
//   - checkbox "Remember me" [checked] [ref=e5]
type SnapshotLine struct {
	Indent int
	Role   string
	Name   string
	// Attrs are the bracketed states other than the ref: "checked",
	// "level=1", "disabled", "cross-origin"…
	Attrs []string
	Ref   string
	// Value is the text after the line's colon, if any.
	Value string
	Raw   string
}

// Has reports whether the line carries the bracketed attribute a (exact,
// or a prefix followed by "=").
func (l SnapshotLine) Has(a string) bool {
	for _, x := range l.Attrs {
		if x == a || strings.HasPrefix(x, a+"=") {
			return true
		}
	}
	return false
}

var (
	lineRe  = regexp.MustCompile(`^(\s*)- ([A-Za-z][\w-]*)(?: "((?:[^"\\]|\\.)*)")?((?: \[[^\]]*\])*)(?::\s*(.*))?$`)
	attrRe  = regexp.MustCompile(`\[([^\]]*)\]`)
	unquote = strings.NewReplacer(`\"`, `"`, `\\`, `\`)
)

// ParseSnapshot returns the element lines of a snapshot (other lines, such
// as the page URL header or text lines, are skipped).
func ParseSnapshot(text string) []SnapshotLine {
	var out []SnapshotLine
	for _, raw := range strings.Split(text, "\n") {
		m := lineRe.FindStringSubmatch(raw)
		if m == nil {
			continue
		}
		l := SnapshotLine{Indent: len(m[1]), Role: m[2], Name: unquote.Replace(m[3]), Value: m[5], Raw: raw}
		for _, a := range attrRe.FindAllStringSubmatch(m[4], -1) {
			if strings.HasPrefix(a[1], "ref=") {
				l.Ref = strings.TrimPrefix(a[1], "ref=")
			} else {
				l.Attrs = append(l.Attrs, a[1])
			}
		}
		out = append(out, l)
	}
	return out
}

// Find returns the first line with this role whose name contains name
// (case-sensitive; an empty name matches any); failing that, the first with
// this role whose inline text (after the colon) contains it, for roles that
// take no name from their content, such as listitem.
func Find(text, role, name string) (SnapshotLine, bool) {
	lines := ParseSnapshot(text)
	for _, l := range lines {
		if l.Role == role && strings.Contains(l.Name, name) {
			return l, true
		}
	}
	for _, l := range lines {
		if l.Role == role && name != "" && strings.Contains(l.Value, name) {
			return l, true
		}
	}
	return SnapshotLine{}, false
}

// FindRef is Find that returns the ref, or an error quoting the snapshot.
func FindRef(text, role, name string) (string, error) {
	l, ok := Find(text, role, name)
	if !ok {
		return "", fmt.Errorf("the snapshot has no %s named %q:\n%s", role, name, Clip(text, 4000))
	}
	if l.Ref == "" {
		return "", fmt.Errorf("the snapshot's %s %q has no ref: %s", role, name, l.Raw)
	}
	return l.Ref, nil
}

// Clip shortens s to at most n bytes for messages.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("\n… (%d more bytes)", len(s)-n)
}

// FindName returns the first line with a ref whose name contains name,
// whatever its role.
func FindName(text, name string) (SnapshotLine, bool) {
	for _, l := range ParseSnapshot(text) {
		if l.Ref != "" && strings.Contains(l.Name, name) {
			return l, true
		}
	}
	return SnapshotLine{}, false
}
