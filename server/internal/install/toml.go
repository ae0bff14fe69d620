package install

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/BurntSushi/toml"
)

// tomlString quotes s for TOML: a literal string when it can be (Windows
// paths keep their backslashes readable), else a basic string.
func tomlString(s string) string {
	if !strings.ContainsAny(s, "'\n\r") {
		return "'" + s + "'"
	}
	return quote(s) // JSON escapes are valid TOML basic-string escapes
}

func addTOML(c Client, text, command string) (edit, error) {
	var v map[string]any
	if _, err := toml.Decode(text, &v); err != nil {
		return edit{}, err
	}
	if servers, ok := v[c.Key]; ok {
		m, isTable := servers.(map[string]any)
		if !isTable {
			return edit{}, fmt.Errorf("%q is not a table", c.Key)
		}
		if _, has := m[ServerName]; has {
			return edit{}, errPresent
		}
	}
	// Codex's parser (strict TOML 1.0) refuses a [mcp_servers.x] header
	// after mcp_servers was defined inline or with dotted keys at the root;
	// BurntSushi/toml lets it through, so look for that ourselves.
	if rootDefines(text, c.Key) {
		return edit{}, fmt.Errorf("%s is defined at the top of the file (inline or dotted keys); adding [%s.%s] would not be valid TOML here: add it to that definition by hand", c.Key, c.Key, ServerName)
	}
	added := "[" + c.Key + "." + ServerName + "]\ncommand = " + tomlString(command) + "\n"
	switch {
	case strings.TrimSpace(text) == "":
	case strings.HasSuffix(text, "\n"):
		added = "\n" + added
	default:
		added = "\n\n" + added
	}
	after := text + added
	var check map[string]any
	if _, err := toml.Decode(after, &check); err != nil {
		return edit{}, fmt.Errorf("adding [%s.%s] would not be valid TOML here (%v)", c.Key, ServerName, err)
	}
	if got := entryCommand(check, c.Key); got != command || !reflect.DeepEqual(tomlWithoutEntry(check, c.Key), tomlWithoutEntry(v, c.Key)) {
		return edit{}, errors.New("internal error: the merged file does not hold exactly the entry")
	}
	return edit{after: after, added: added, offset: len(text)}, nil
}

// rootDefines reports whether key is assigned (key = … or key.x = …) in the
// root table, before the first [table] header.
func rootDefines(text, key string) bool {
	for _, line := range strings.Split(text, "\n") {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "[") {
			return false
		}
		for _, k := range []string{key, `"` + key + `"`, "'" + key + "'"} {
			if rest, ok := strings.CutPrefix(l, k); ok {
				if r := strings.TrimSpace(rest); strings.HasPrefix(r, "=") || strings.HasPrefix(r, ".") {
					return true
				}
			}
		}
	}
	return false
}

// tomlWithoutEntry is the decoded file without monkbrowse's entry, and
// without the servers table when that leaves it empty (an empty table and
// none read the same to Codex).
func tomlWithoutEntry(v map[string]any, key string) map[string]any {
	out := withoutEntry(v, key, true)
	if s, ok := out[key].(map[string]any); ok && len(s) == 0 {
		delete(out, key)
	}
	return out
}

// tomlSection is one [table] or [[array]] header's range of lines: from
// the header's line to the next header's line (or the end of the file).
type tomlSection struct {
	path       []string
	start, end int
}

// tomlSections splits text at its table headers; what precedes the first
// header (the root table) is not a section. Lines inside multi-line
// strings are not headers.
func tomlSections(text string) []tomlSection {
	var out []tomlSection
	inString := ""
	for off := 0; off < len(text); {
		end := strings.IndexByte(text[off:], '\n')
		next := len(text)
		if end >= 0 {
			next = off + end + 1
		}
		line := text[off:next]
		if inString == "" {
			if path, ok := tomlHeader(line); ok {
				if n := len(out); n > 0 {
					out[n-1].end = off
				}
				out = append(out, tomlSection{path: path, start: off, end: len(text)})
			}
		}
		for _, q := range []string{`"""`, `'''`} {
			if (inString == "" || inString == q) && strings.Count(line, q)%2 == 1 {
				if inString == "" {
					inString = q
				} else {
					inString = ""
				}
			}
		}
		off = next
	}
	return out
}

// tomlHeader reads a [a.b."c"] or [[a.b]] header line into its keys.
func tomlHeader(line string) ([]string, bool) {
	l := strings.TrimSpace(line)
	if !strings.HasPrefix(l, "[") {
		return nil, false
	}
	closer := "]"
	l = l[1:]
	if strings.HasPrefix(l, "[") {
		closer, l = "]]", l[1:]
	}
	var path []string
	for {
		l = strings.TrimLeft(l, " \t")
		var key string
		switch {
		case strings.HasPrefix(l, `"`):
			i := 1
			for i < len(l) && l[i] != '"' {
				if l[i] == '\\' {
					i++
				}
				i++
			}
			if i >= len(l) || json.Unmarshal([]byte(l[:i+1]), &key) != nil {
				return nil, false
			}
			l = l[i+1:]
		case strings.HasPrefix(l, "'"):
			i := strings.IndexByte(l[1:], '\'')
			if i < 0 {
				return nil, false
			}
			key, l = l[1:1+i], l[2+i:]
		default:
			i := 0
			for i < len(l) && (l[i] >= 'a' && l[i] <= 'z' || l[i] >= 'A' && l[i] <= 'Z' || l[i] >= '0' && l[i] <= '9' || l[i] == '_' || l[i] == '-') {
				i++
			}
			if i == 0 {
				return nil, false
			}
			key, l = l[:i], l[i:]
		}
		path = append(path, key)
		l = strings.TrimLeft(l, " \t")
		if strings.HasPrefix(l, ".") {
			l = l[1:]
			continue
		}
		if !strings.HasPrefix(l, closer) {
			return nil, false
		}
		rest := strings.TrimSpace(l[len(closer):])
		return path, rest == "" || strings.HasPrefix(rest, "#")
	}
}

// removeTOML removes every section of [mcp_servers.monkbrowse] and of its
// sub-tables ([mcp_servers.monkbrowse.env], …), wherever they are. Blank
// and comment lines just above a following header stay with that header;
// the blank lines install put before the entry go with it.
func removeTOML(c Client, text string, r record) (removal, error) {
	var v map[string]any
	if _, err := toml.Decode(text, &v); err != nil {
		return removal{}, err
	}
	servers, _ := v[c.Key].(map[string]any)
	e, err := ourEntry(servers, r.Command)
	if err != nil {
		return removal{}, err
	}
	rm := removal{extra: extraFields(e, c.entry(r.Command))}
	want := tomlWithoutEntry(v, c.Key)
	next, ok := undoInsertion(text, r)
	rm.exact = ok
	if !ok {
		var spans []span
		for _, s := range tomlSections(text) {
			if len(s.path) < 2 || s.path[0] != c.Key || s.path[1] != ServerName {
				continue
			}
			if n := len(spans); n > 0 && spans[n-1].to == s.start {
				spans[n-1].to = s.end // contiguous sub-tables: one range
			} else {
				spans = append(spans, span{s.start, s.end})
			}
		}
		if len(spans) == 0 {
			return removal{}, fmt.Errorf("[%s.%s] is not a table of its own here (it is defined inline or with dotted keys); left unchanged: remove it by hand", c.Key, ServerName)
		}
		for i := range spans {
			sp := &spans[i]
			if sp.to < len(text) { // a header follows: its comments and the blank lines before it stay
				lines := strings.SplitAfter(text[sp.from:sp.to], "\n")
				lines = lines[:len(lines)-1] // SplitAfter's empty tail
				k := len(lines)
				for k > 1 && strings.HasPrefix(strings.TrimSpace(lines[k-1]), "#") {
					k--
				}
				for k > 1 && blank(lines[k-1]) {
					k--
				}
				sp.to = sp.from + len(strings.Join(lines[:k], ""))
			}
			if i == 0 { // the blank lines install put before the entry
				lead := len(r.Added) - len(strings.TrimLeft(r.Added, "\n"))
				for ; lead > 0 && sp.from >= 2 && text[sp.from-1] == '\n' && text[sp.from-2] == '\n'; lead-- {
					sp.from--
				}
				if lead > 0 && sp.to == len(text) && sp.from >= 1 && text[sp.from-1] == '\n' {
					sp.from-- // "a" + "\n\n[table]": the file had no final newline
				}
			} else if sp.to == len(text) { // a sub-table last in the file: the blank lines before it go too
				for sp.from >= 2 && text[sp.from-1] == '\n' && text[sp.from-2] == '\n' {
					sp.from--
				}
			}
		}
		next = cut(text, spans)
	}
	var check map[string]any
	if _, err := toml.Decode(next, &check); err != nil || !reflect.DeepEqual(tomlWithoutEntry(check, c.Key), want) {
		return removal{}, fmt.Errorf("removing [%s.%s] would change more than the entry (%v); left unchanged: remove it by hand", c.Key, ServerName, err)
	}
	rm.next = next
	return rm, nil
}
