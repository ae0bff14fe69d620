package install

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// jsonDoc is a parsed configuration file in JSON or JSONC (comments and
// trailing commas, as VS Code allows). The text is kept as it is; edits are
// insertions of text at positions found by scanning, so comments, order and
// formatting survive.
type jsonDoc struct {
	text     string
	clean    string // text with comments and trailing commas blanked out (same offsets)
	trailing map[int]bool
	value    map[string]any
}

// stripJSONC blanks comments and trailing commas with spaces, keeping every
// offset (and newlines) in place. It returns the offsets of the trailing
// commas it blanked.
func stripJSONC(s string) (string, map[int]bool, error) {
	b := []byte(s)
	trailing := map[int]bool{}
	lastComma := -1 // offset of a comma not yet followed by a value
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '"':
			lastComma = -1
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
			if i >= len(b) {
				return "", nil, errors.New("a string is not closed")
			}
		case c == '/' && i+1 < len(b) && b[i+1] == '/':
			for ; i < len(b) && b[i] != '\n'; i++ {
				b[i] = ' '
			}
		case c == '/' && i+1 < len(b) && b[i+1] == '*':
			end := strings.Index(string(b[i+2:]), "*/")
			if end < 0 {
				return "", nil, errors.New("a /* comment is not closed")
			}
			for j := i; j < i+2+end+2; j++ {
				if b[j] != '\n' {
					b[j] = ' '
				}
			}
			i += 2 + end + 1
		case c == ',':
			lastComma = i
		case c == '}' || c == ']':
			if lastComma >= 0 {
				b[lastComma] = ' '
				trailing[lastComma] = true
			}
			lastComma = -1
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		default:
			lastComma = -1
		}
	}
	return string(b), trailing, nil
}

// parseJSON parses a configuration file. jsonc allows comments and trailing
// commas; otherwise the file must be strict JSON (what the client itself
// reads). An empty (or blank) file is an empty object.
func parseJSON(text string, jsonc bool) (*jsonDoc, error) {
	if strings.TrimSpace(text) == "" {
		return &jsonDoc{text: text, clean: text, trailing: map[int]bool{}, value: map[string]any{}}, nil
	}
	clean, trailing := text, map[int]bool{}
	if jsonc {
		var err error
		if clean, trailing, err = stripJSONC(text); err != nil {
			return nil, err
		}
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(clean))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, describeJSONError(clean, err)
	}
	if dec.More() {
		return nil, errors.New("more than one JSON value in the file")
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("the file is not a JSON object")
	}
	return &jsonDoc{text: text, clean: clean, trailing: trailing, value: obj}, nil
}

func describeJSONError(s string, err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("unexpected end of the file in the middle of a value (is it cut short?)")
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line := 1 + strings.Count(s[:min(int(se.Offset), len(s))], "\n")
		return fmt.Errorf("line %d: %v", line, se)
	}
	return err
}

// member is one "key": value of an object, by offsets in the text.
type member struct {
	key                string
	keyStart, valueEnd int
	valueStart         int
	commaAfter         int // offset of the comma after the value, or -1
}

// object is an object's members and the offsets of its braces.
type object struct {
	open, close int
	members     []member
}

// scanner walks valid JSON (comments already blanked) by offsets.
type scanner struct {
	s string
	i int
}

func (sc *scanner) ws() {
	for sc.i < len(sc.s) && strings.IndexByte(" \t\r\n", sc.s[sc.i]) >= 0 {
		sc.i++
	}
}

// skipValue moves past one value.
func (sc *scanner) skipValue() {
	sc.ws()
	switch sc.s[sc.i] {
	case '{', '[':
		depth := 0
		for ; sc.i < len(sc.s); sc.i++ {
			switch sc.s[sc.i] {
			case '"':
				sc.skipString()
				sc.i--
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					sc.i++
					return
				}
			}
		}
	case '"':
		sc.skipString()
	default:
		for sc.i < len(sc.s) && strings.IndexByte(",}] \t\r\n", sc.s[sc.i]) < 0 {
			sc.i++
		}
	}
}

func (sc *scanner) skipString() {
	for sc.i++; sc.i < len(sc.s) && sc.s[sc.i] != '"'; sc.i++ {
		if sc.s[sc.i] == '\\' {
			sc.i++
		}
	}
	sc.i++
}

// objectAt scans the object starting at offset open.
func objectAt(clean string, open int) object {
	sc := &scanner{s: clean, i: open + 1}
	o := object{open: open}
	for {
		sc.ws()
		if clean[sc.i] == '}' {
			o.close = sc.i
			return o
		}
		if clean[sc.i] == ',' { // blanked trailing commas are spaces; a real one separates
			sc.i++
			continue
		}
		m := member{keyStart: sc.i, commaAfter: -1}
		ks := sc.i
		sc.skipString()
		_ = json.Unmarshal([]byte(clean[ks:sc.i]), &m.key)
		sc.ws()
		sc.i++ // ':'
		sc.ws()
		m.valueStart = sc.i
		sc.skipValue()
		m.valueEnd = sc.i
		sc.ws()
		if clean[sc.i] == ',' {
			m.commaAfter = sc.i
		}
		o.members = append(o.members, m)
	}
}

func (o object) find(key string) (member, bool) {
	for _, m := range o.members {
		if m.key == key {
			return m, true
		}
	}
	return member{}, false
}

// lineIndent is the whitespace at the start of the line holding offset i.
func lineIndent(s string, i int) string {
	start := strings.LastIndexByte(s[:i], '\n') + 1
	j := start
	for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
		j++
	}
	return s[start:j]
}

// insertMember returns the text with "key": value added as the last member
// of the object o, the inserted text and where it went. renderValue renders
// the value for a member indented by indent, one level being unit.
// trailing holds the offsets of trailing commas blanked in clean.
func insertMember(text string, trailing map[int]bool, o object, key string, renderValue func(indent, unit string) string) (string, string, int) {
	unit := "  "
	outer := lineIndent(text, o.open)
	if len(o.members) > 0 {
		mi := lineIndent(text, o.members[0].keyStart)
		if strings.HasPrefix(mi, outer) && len(mi) > len(outer) {
			unit = mi[len(outer):]
		}
	}
	indent := outer + unit
	k, _ := json.Marshal(key)
	entry := "\n" + indent + string(k) + ": " + renderValue(indent, unit)
	var ins string
	var at int
	compact := !strings.Contains(strings.TrimSpace(text), "\n")
	if compact {
		// A one-line file ({"a":{…}}) stays on one line.
		entry = string(k) + ":" + renderValue("", "")
	}
	switch {
	case compact && len(o.members) == 0:
		at, ins = o.open+1, entry
	case len(o.members) == 0:
		at = o.open + 1
		ins = entry + "\n" + outer
		if body := text[o.open+1 : o.close]; strings.TrimSpace(body) == "" && strings.HasSuffix(strings.TrimRight(body, " \t"), "\n") {
			ins = entry // {\n} → {\n  "key": …\n}
		}
	default:
		last := o.members[len(o.members)-1]
		at = last.valueEnd
		ins = "," + entry
		// A trailing comma after the last member (JSONC) is the file's
		// style: the new member goes after it and gets one too.
		for i := last.valueEnd; i < o.close; i++ {
			if trailing[i] {
				at, ins = i+1, entry+","
				break
			}
		}
	}
	return text[:at] + ins + text[at:], ins, at
}
