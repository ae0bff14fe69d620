package tools

import (
	"bytes"
	"encoding/json"
)

// A tools/call's arguments are read once for validation (validateArgs:
// the object's members, each value checked in place) and once into the
// handler's struct (bind). What bind decodes is the JSON as written
// whenever the validated object says the same thing, which is the usual
// case, so nothing is re-encoded between the two.

// emptyArgs is what a call without arguments binds: no fields.
var emptyArgs = json.RawMessage("{}")

// argsToBind validates raw for tool and returns the JSON the handler's
// struct is decoded from: raw itself when the validated object is what
// raw says, or the object re-encoded when validation changed its meaning
// for a struct: a null member dropped (null means omitted; a struct field
// would take it), or a member written twice (the object keeps the last,
// a struct would merge a map or object field).
func argsToBind(tool string, raw json.RawMessage) (json.RawMessage, error) {
	obj, dropped, err := validateObject(tool, raw)
	if err != nil {
		return nil, err
	}
	trimmed := bytes.TrimSpace(raw)
	if len(obj) == 0 && dropped == 0 {
		return emptyArgs, nil // no arguments, null, or {}
	}
	if dropped == 0 && topLevelMembers(trimmed) == len(obj) {
		return trimmed, nil
	}
	clean, _ := json.Marshal(obj) // cannot fail on RawMessage values that parsed
	return clean, nil
}

// topLevelMembers counts the members of obj, a valid JSON object,
// duplicates included.
func topLevelMembers(obj []byte) int {
	depth, n := 0, 0
	inString, escaped, some := false, false, false
	for _, c := range obj {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
			if depth == 1 {
				some = true
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case ',':
			if depth == 1 {
				n++
			}
		}
	}
	if some {
		n++
	}
	return n
}
