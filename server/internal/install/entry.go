package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

var errPresent = errors.New("already present")

// addEntry returns the file's new text with the monkbrowse entry, and the
// text added. errPresent: there is one already.
func addEntry(c Client, text, command string) (string, string, error) {
	if c.Format == "toml" {
		return addTOML(c, text, command)
	}
	doc, err := parseJSON(text, c.Format == "jsonc")
	if err != nil {
		return "", "", err
	}
	fields := c.entry(command)
	var after, added string
	switch servers, ok := doc.value[c.Key]; {
	case strings.TrimSpace(text) == "":
		added = "{\n  " + quote(c.Key) + ": {\n    " + quote(ServerName) + ": " + renderFields(fields, "    ", "  ") + "\n  }\n}\n"
		after = added
	case !ok:
		top := objectAt(doc.clean, strings.IndexByte(doc.clean, '{'))
		after, added, _ = insertMember(text, doc.trailing, top, c.Key, func(indent, unit string) string {
			if unit == "" {
				return "{" + quote(ServerName) + ":" + renderFields(fields, "", "") + "}"
			}
			return "{\n" + indent + unit + quote(ServerName) + ": " + renderFields(fields, indent+unit, unit) + "\n" + indent + "}"
		})
	default:
		m, isObj := servers.(map[string]any)
		if !isObj {
			return "", "", fmt.Errorf("%q is not an object", c.Key)
		}
		if _, has := m[ServerName]; has {
			return "", "", errPresent
		}
		for name, v := range m {
			if s, ok := v.(map[string]any); ok && s["command"] == command {
				return "", "", fmt.Errorf("%w (as %q)", errPresent, name)
			}
		}
		top := objectAt(doc.clean, strings.IndexByte(doc.clean, '{'))
		mem, _ := top.find(c.Key)
		after, added, _ = insertMember(text, doc.trailing, objectAt(doc.clean, mem.valueStart), ServerName, func(indent, unit string) string {
			return renderFields(fields, indent, unit)
		})
	}
	// The result must parse and hold exactly the entry.
	check, err := parseJSON(after, c.Format == "jsonc")
	if err != nil {
		return "", "", fmt.Errorf("internal error: the merged file would not parse (%v)", err)
	}
	if got := entryCommand(check.value, c.Key); got != command {
		return "", "", fmt.Errorf("internal error: the merged file does not hold the entry")
	}
	return after, added, nil
}

func entryCommand(v map[string]any, key string) string {
	servers, _ := v[key].(map[string]any)
	entry, _ := servers[ServerName].(map[string]any)
	s, _ := entry["command"].(string)
	return s
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
