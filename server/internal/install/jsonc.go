package install

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
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
	if strings.HasPrefix(text, "\uFEFF") {
		return nil, errors.New("line 1: the file starts with a UTF-8 byte order mark (BOM), which JSON does not allow: save it as UTF-8 without a BOM")
	}
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
	// encoding/json keeps the last of two equal keys; a client may read the
	// first, and an edit located by scanning would land in the other one.
	if err := duplicateKey(clean); err != nil {
		return nil, err
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

func lineAt(s string, i int) int { return 1 + strings.Count(s[:i], "\n") }

// duplicateKey finds the first object (at any depth) that names a key
// twice, in valid JSON with comments blanked.
func duplicateKey(clean string) error {
	var walk func(i int) error
	walk = func(i int) error {
		switch clean[i] {
		case '{':
			o := objectAt(clean, i)
			seen := map[string]int{}
			for _, m := range o.members {
				if first, dup := seen[m.key]; dup {
					return fmt.Errorf("line %d: the key %q appears twice in the same object (first on line %d); clients read only one of them: remove or rename one", lineAt(clean, m.keyStart), m.key, lineAt(clean, first))
				}
				seen[m.key] = m.keyStart
				if err := walk(m.valueStart); err != nil {
					return err
				}
			}
		case '[':
			sc := &scanner{s: clean, i: i + 1}
			for {
				sc.ws()
				switch clean[sc.i] {
				case ']':
					return nil
				case ',':
					sc.i++
					continue
				}
				if err := walk(sc.i); err != nil {
					return err
				}
				sc.skipValue()
			}
		}
		return nil
	}
	sc := &scanner{s: clean}
	sc.ws()
	return walk(sc.i)
}

// span is a range of the text to delete.
type span struct{ from, to int }

func blank(s string) bool { return strings.TrimSpace(s) == "" }

// memberCuts returns what to delete to remove the i-th member of o with
// the whole of its value, leaving valid JSON: the member's own lines, and
// one comma (its own when another member follows it, or a trailing one
// after it; else the one before it, which separated it from its
// predecessor). It is the inverse of insertMember for each of its layouts.
func memberCuts(text, clean string, trailing map[int]bool, o object, i int) []span {
	m := o.members[i]
	from := m.keyStart
	if nl := strings.LastIndexByte(text[:from], '\n'); nl > o.open && blank(text[nl+1:from]) {
		from = nl // from the end of the line before: the member's lines go whole
	}
	if m.commaAfter >= 0 {
		return []span{{from, m.commaAfter + 1}}
	}
	for k := m.valueEnd; k < o.close; k++ {
		if trailing[k] {
			return []span{{from, k + 1}}
		}
		if clean[k] != ' ' && clean[k] != '\t' && clean[k] != '\n' && clean[k] != '\r' {
			break
		}
	}
	if i > 0 {
		c := o.members[i-1].commaAfter
		if blank(text[c+1 : from]) {
			return []span{{c, m.valueEnd}}
		}
		// A comment between the comma and the member stays.
		return []span{{c, c + 1}, {from, m.valueEnd}}
	}
	if blank(text[o.open+1:from]) && blank(text[m.valueEnd:o.close]) {
		return []span{{o.open + 1, o.close}}
	}
	return []span{{from, m.valueEnd}}
}

// cut deletes the spans (in any order, not overlapping) from text.
func cut(text string, spans []span) string {
	slices.SortFunc(spans, func(a, b span) int { return b.from - a.from })
	for _, s := range spans {
		text = text[:s.from] + text[s.to:]
	}
	return text
}
