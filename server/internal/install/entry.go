package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
)

var errPresent = errors.New("already present")

// edit is what install changes in a file.
type edit struct {
	after        string // the file's new text
	added        string // the text inserted
	offset       int    // where
	createdTable bool   // the servers object (JSON) was created with it
}

// addEntry returns the file's new text with the monkbrowse entry.
// errPresent: there is one already.
func addEntry(c Client, text, command string) (edit, error) {
	if c.Format == "toml" {
		return addTOML(c, text, command)
	}
	doc, err := parseJSON(text, c.Format == "jsonc")
	if err != nil {
		return edit{}, err
	}
	fields := c.entry(command)
	var ed edit
	switch servers, ok := doc.value[c.Key]; {
	case strings.TrimSpace(text) == "":
		ed.added = "{\n  " + quote(c.Key) + ": {\n    " + quote(ServerName) + ": " + renderFields(fields, "    ", "  ") + "\n  }\n}\n"
		ed.after, ed.createdTable = ed.added, true
		if text != "" { // a blank file: its blanks go
			ed.added, ed.offset = "", -1
		}
	case !ok:
		top := objectAt(doc.clean, strings.IndexByte(doc.clean, '{'))
		ed.after, ed.added, ed.offset = insertMember(text, doc.trailing, top, c.Key, func(indent, unit string) string {
			if unit == "" {
				return "{" + quote(ServerName) + ":" + renderFields(fields, "", "") + "}"
			}
			return "{\n" + indent + unit + quote(ServerName) + ": " + renderFields(fields, indent+unit, unit) + "\n" + indent + "}"
		})
		ed.createdTable = true
	default:
		m, isObj := servers.(map[string]any)
		if !isObj {
			return edit{}, fmt.Errorf("%q is not an object", c.Key)
		}
		if _, has := m[ServerName]; has {
			return edit{}, errPresent
		}
		for name, v := range m {
			if s, ok := v.(map[string]any); ok && identity(s) == command {
				return edit{}, fmt.Errorf("%w (as %q)", errPresent, name)
			}
		}
		top := objectAt(doc.clean, strings.IndexByte(doc.clean, '{'))
		mem, _ := top.find(c.Key)
		ed.after, ed.added, ed.offset = insertMember(text, doc.trailing, objectAt(doc.clean, mem.valueStart), ServerName, func(indent, unit string) string {
			return renderFields(fields, indent, unit)
		})
	}
	// The result must parse, hold the entry, and be the file as it was
	// with the entry and nothing else added.
	check, err := parseJSON(ed.after, c.Format == "jsonc")
	if err != nil {
		return edit{}, fmt.Errorf("internal error: the merged file would not parse (%v)", err)
	}
	if got := entryCommand(check.value, c.Key); got != command || !reflect.DeepEqual(withoutEntry(check.value, c.Key, ed.createdTable), doc.value) {
		return edit{}, errors.New("internal error: the merged file does not hold exactly the entry")
	}
	return ed, nil
}

// withoutEntry is the parsed file v without monkbrowse's entry, and
// without the servers table when dropTable and it is then empty. v is not
// changed.
func withoutEntry(v map[string]any, key string, dropTable bool) map[string]any {
	out := maps.Clone(v)
	servers, ok := v[key].(map[string]any)
	if !ok {
		return out
	}
	s := maps.Clone(servers)
	delete(s, ServerName)
	if dropTable && len(s) == 0 {
		delete(out, key)
	} else {
		out[key] = s
	}
	return out
}

// errAbsent: the file has no monkbrowse entry (any more).
var errAbsent = errors.New("no monkbrowse entry")

// changedCommandError: the entry is there but runs something else than
// what install wrote: the person (or another tool) re-pointed it, so it is
// not install's to remove.
type changedCommandError struct{ command string }

func (e *changedCommandError) Error() string {
	return fmt.Sprintf("its %q entry now runs %q, not what install wrote", ServerName, e.command)
}

// removal is what uninstall changes in a file.
type removal struct {
	next  string   // the file's new text
	extra []string // what the person had added under the entry
	exact bool     // the file was untouched: the inverse of the insertion
}

// removeEntry returns the text without monkbrowse's entry: the whole of
// it, including what the person added under it (keys, sub-tables), and
// nothing else. The result is checked by parsing it again: it must be
// the file as it is, less the entry (and less a servers table install
// created that is now empty); else nothing is removed and the error says
// what to do.
func removeEntry(c Client, text string, r record) (removal, error) {
	if c.Format == "toml" {
		return removeTOML(c, text, r)
	}
	jsonc := c.Format == "jsonc"
	doc, err := parseJSON(text, jsonc)
	if err != nil {
		return removal{}, err
	}
	servers, _ := doc.value[c.Key].(map[string]any)
	e, err := ourEntry(servers, r.Command)
	if err != nil {
		return removal{}, err
	}
	dropTable := r.CreatedTable && len(servers) == 1
	want := withoutEntry(doc.value, c.Key, dropTable)
	rm := removal{extra: extraFields(e, c.entry(r.Command))}
	next := ""
	if un, ok := undoInsertion(text, r); ok {
		next, rm.exact = un, true
	} else {
		top := objectAt(doc.clean, strings.IndexByte(doc.clean, '{'))
		o, name := top, c.Key
		if !dropTable {
			mem, _ := top.find(c.Key)
			o, name = objectAt(doc.clean, mem.valueStart), ServerName
		}
		i := slices.IndexFunc(o.members, func(m member) bool { return m.key == name })
		next = cut(text, memberCuts(text, doc.clean, doc.trailing, o, i))
	}
	check, err := parseJSON(next, jsonc)
	if err != nil || !reflect.DeepEqual(check.value, want) {
		return removal{}, fmt.Errorf("removing the entry would change more than the entry (%v); left unchanged: remove %q from %q by hand", err, ServerName, c.Key)
	}
	rm.next = next
	return rm, nil
}

// undoInsertion is the text before install when the file is exactly as
// install left it (its hash) and the inserted text is where it went.
func undoInsertion(text string, r record) (string, bool) {
	if r.SHA256 == "" || hashOf([]byte(text)) != r.SHA256 || r.Offset < 0 || r.Offset+len(r.Added) > len(text) || text[r.Offset:r.Offset+len(r.Added)] != r.Added {
		return "", false
	}
	return text[:r.Offset] + text[r.Offset+len(r.Added):], true
}

// extraFields names the keys of the entry install did not write.
func extraFields(entry map[string]any, wrote []field) []string {
	var out []string
	for k := range entry {
		if !slices.ContainsFunc(wrote, func(f field) bool { return f.key == k }) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

func entryCommand(v map[string]any, key string) string {
	servers, _ := v[key].(map[string]any)
	entry, _ := servers[ServerName].(map[string]any)
	return identity(entry)
}

// identity is what an entry runs or reaches: its command, or for an HTTP
// entry (install --http) its URL.
func identity(entry map[string]any) string {
	for _, k := range []string{"command", "url", "serverUrl"} {
		if s, ok := entry[k].(string); ok {
			return s
		}
	}
	return ""
}

func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// renderFields renders an entry as an object whose members are indented one
// unit deeper than indent.
// An empty unit renders it on one line.
func renderFields(fs []field, indent, unit string) string {
	nl, colon := "\n", ": "
	if unit == "" {
		nl, colon, indent = "", ":", ""
	}
	var b strings.Builder
	b.WriteString("{")
	for i, f := range fs {
		if i > 0 {
			b.WriteString(",")
		}
		v, _ := json.Marshal(f.value)
		if s, ok := f.value.(string); ok {
			v = []byte(quote(s))
		}
		b.WriteString(nl + indent + unit + quote(f.key) + colon + string(v))
	}
	b.WriteString(nl + indent + "}")
	return b.String()
}

// ourEntry is monkbrowse's entry among servers while its command is still
// the one install wrote: errAbsent when there is none, a
// *changedCommandError when the person pointed it elsewhere.
func ourEntry(servers map[string]any, command string) (map[string]any, error) {
	entry, has := servers[ServerName]
	if !has {
		return nil, errAbsent
	}
	e, _ := entry.(map[string]any)
	if cmd := identity(e); cmd != command {
		return nil, &changedCommandError{cmd}
	}
	return e, nil
}
