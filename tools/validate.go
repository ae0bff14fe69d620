package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// The validator checks raw tool arguments against the tool's generated JSON
// Schema (the very schema tools/list advertises) and words every problem for
// the AI. mcp-go can validate too, but its messages are not something a
// model can act on (`/format: &{Got:gif Want:[png jpeg]}`).

// argSchema is the subset of JSON Schema the argument structs produce: a
// flat object whose properties are scalars or arrays of scalars.
type argSchema struct {
	Properties map[string]*propSchema `json:"properties"`
	Required   []string               `json:"required"`
	// order is the property order of the schema, for messages.
	order []string
}

type propSchema struct {
	Type      string      `json:"type"`
	Enum      []string    `json:"enum"`
	Minimum   *float64    `json:"minimum"`
	Maximum   *float64    `json:"maximum"`
	MinLength *int        `json:"minLength"`
	MinItems  *int        `json:"minItems"`
	Items     *propSchema `json:"items"`
	// Objects (browser_fill_form's fields, browser_downloads' wait).
	Properties map[string]*propSchema `json:"properties"`
	Required   []string               `json:"required"`
	// AdditionalProperties is a map's value schema (browser_run's params);
	// false (a struct's) or absent decodes as nil.
	AdditionalProperties *propSchema `json:"-"`
}

// UnmarshalJSON reads additionalProperties only when it is a schema.
func (p *propSchema) UnmarshalJSON(b []byte) error {
	type plain propSchema
	var raw struct {
		plain
		Additional json.RawMessage `json:"additionalProperties"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*p = propSchema(raw.plain)
	if a := bytes.TrimSpace(raw.Additional); len(a) > 0 && a[0] == '{' {
		p.AdditionalProperties = new(propSchema)
		return json.Unmarshal(a, p.AdditionalProperties)
	}
	return nil
}

var (
	schemaOnce sync.Once
	schemas    map[string]*argSchema
)

func toolSchema(name string) *argSchema {
	schemaOnce.Do(func() {
		schemas = make(map[string]*argSchema, len(protocol.Tools))
		for i := range protocol.Tools {
			t := &protocol.Tools[i]
			raw := t.InputSchema()
			var s argSchema
			if err := json.Unmarshal(raw, &s); err != nil {
				panic(fmt.Sprintf("tools: schema of %s: %v", t.Name, err))
			}
			s.order = propertyOrder(raw)
			schemas[t.Name] = &s
		}
	})
	return schemas[name]
}

// propertyOrder returns the keys of the schema's "properties" object in the
// order they appear, so that messages list fields as the schema does.
func propertyOrder(raw json.RawMessage) []string {
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) != nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(top["properties"]))
	var keys []string
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch v := tok.(type) {
		case json.Delim:
			if v == '{' || v == '[' {
				depth++
			} else {
				depth--
			}
		case string:
			if depth == 1 {
				keys = append(keys, v)
				// Skip the property's value.
				var skip json.RawMessage
				if dec.Decode(&skip) != nil {
					return keys
				}
			}
		}
	}
	return keys
}

// ArgumentError is a tool call whose arguments do not fit the tool's schema.
// Its message names every offending field and what was expected.
type ArgumentError struct {
	Tool     string
	Problems []string
}

func (e *ArgumentError) Error() string {
	return fmt.Sprintf("Invalid arguments for %s: %s. Fix the arguments and call %s again.",
		e.Tool, strings.Join(e.Problems, "; "), e.Tool)
}

// validateArgs checks raw against the tool's schema and returns the
// arguments as an object with null members removed (null means omitted).
func validateArgs(tool string, raw json.RawMessage) (map[string]json.RawMessage, error) {
	args, _, err := validateObject(tool, raw)
	return args, err
}

// validateObject is validateArgs, also counting the null members it
// dropped.
func validateObject(tool string, raw json.RawMessage) (map[string]json.RawMessage, int, error) {
	s := toolSchema(tool)
	fail := func(p ...string) (map[string]json.RawMessage, int, error) {
		return nil, 0, &ArgumentError{Tool: tool, Problems: p}
	}
	trimmed := bytes.TrimSpace(raw)
	args := map[string]json.RawMessage{}
	if len(trimmed) > 0 && !bytes.Equal(trimmed, []byte("null")) {
		if trimmed[0] != '{' {
			return fail("the arguments must be a JSON object of named fields, got " + describeJSON(trimmed))
		}
		if err := json.Unmarshal(trimmed, &args); err != nil {
			return fail("the arguments are not valid JSON (" + err.Error() + ")")
		}
	}
	dropped := 0
	for k, v := range args {
		if bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			delete(args, k)
			dropped++
		}
	}

	var problems []string
	var unknown []string
	for k := range args {
		if _, ok := s.Properties[k]; !ok {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	for _, k := range unknown {
		known := "it takes no arguments"
		if len(s.order) > 0 {
			known = "the fields are " + strings.Join(s.order, ", ")
		}
		problems = append(problems, fmt.Sprintf("unknown field %q (%s)", k, known))
	}
	for _, name := range s.Required {
		if _, ok := args[name]; !ok {
			problems = append(problems, fmt.Sprintf("missing required field %q (%s)", name, expected(s.Properties[name])))
		}
	}
	for _, name := range s.order {
		v, ok := args[name]
		if !ok {
			continue
		}
		if p := checkValue(name, s.Properties[name], v); p != "" {
			problems = append(problems, p)
		}
	}
	if len(problems) > 0 {
		return fail(problems...)
	}
	return args, dropped, nil
}

// checkValue returns a problem description, or "" when v fits p.
func checkValue(name string, p *propSchema, v json.RawMessage) string {
	if p == nil {
		return ""
	}
	v = bytes.TrimSpace(v)
	got := func() string { return describeJSON(v) } // only for a problem
	switch p.Type {
	case "string":
		s, ok := stringValue(v)
		if !ok {
			return fmt.Sprintf("field %q must be %s, got %s", name, expected(p), got())
		}
		if p.MinLength != nil && utf8.RuneCount(s) < *p.MinLength {
			return fmt.Sprintf("field %q must not be empty", name)
		}
		if len(p.Enum) > 0 && !slices.ContainsFunc(p.Enum, func(e string) bool { return e == string(s) }) {
			return fmt.Sprintf("field %q must be one of %s, got %q", name, quoteList(p.Enum), s)
		}
	case "integer", "number":
		f, ok := numberValue(v)
		if !ok {
			return fmt.Sprintf("field %q must be %s, got %s", name, expected(p), got())
		}
		if p.Type == "integer" && (f != math.Trunc(f) || math.Abs(f) > 1<<53) {
			return fmt.Sprintf("field %q must be %s, got %s", name, expected(p), got())
		}
		if p.Minimum != nil && f < *p.Minimum {
			return fmt.Sprintf("field %q must be at least %s, got %s", name, num(*p.Minimum), string(v))
		}
		if p.Maximum != nil && f > *p.Maximum {
			return fmt.Sprintf("field %q must be at most %s, got %s", name, num(*p.Maximum), string(v))
		}
	case "boolean":
		if !bytes.Equal(v, []byte("true")) && !bytes.Equal(v, []byte("false")) {
			return fmt.Sprintf("field %q must be %s, got %s", name, expected(p), got())
		}
	case "object":
		var obj map[string]json.RawMessage
		if v[0] != '{' || json.Unmarshal(v, &obj) != nil {
			return fmt.Sprintf("field %q must be %s, got %s", name, expected(p), got())
		}
		if p.AdditionalProperties != nil && len(p.Properties) == 0 {
			// A map: any key, each value checked.
			for _, k := range slices.Sorted(maps.Keys(obj)) {
				if msg := checkValue(name+"."+k, p.AdditionalProperties, obj[k]); msg != "" {
					return msg
				}
			}
			return ""
		}
		keys := slices.Sorted(maps.Keys(p.Properties))
		var unknown []string
		for k := range obj {
			// An object without declared properties (a site tool's
			// arguments) is free-form: the extension checks it.
			if _, ok := p.Properties[k]; !ok && len(p.Properties) > 0 {
				unknown = append(unknown, k)
			}
		}
		sort.Strings(unknown)
		if len(unknown) > 0 {
			return fmt.Sprintf("field %q has unknown field %q (its fields are %s)", name, unknown[0], strings.Join(keys, ", "))
		}
		for _, k := range p.Required {
			if iv, ok := obj[k]; !ok || bytes.Equal(bytes.TrimSpace(iv), []byte("null")) {
				return fmt.Sprintf("field %q is missing its required field %q (%s)", name, k, expected(p.Properties[k]))
			}
		}
		for _, k := range keys {
			iv, ok := obj[k]
			if !ok || bytes.Equal(bytes.TrimSpace(iv), []byte("null")) {
				continue
			}
			if msg := checkValue(name+"."+k, p.Properties[k], iv); msg != "" {
				return msg
			}
		}
	case "array":
		var items []json.RawMessage
		if v[0] != '[' || json.Unmarshal(v, &items) != nil {
			return fmt.Sprintf("field %q must be %s, got %s", name, expected(p), got())
		}
		if p.MinItems != nil && len(items) < *p.MinItems {
			return fmt.Sprintf("field %q must hold at least %d item(s), got an empty list", name, *p.MinItems)
		}
		for i, it := range items {
			if msg := checkValue(fmt.Sprintf("%s[%d]", name, i), p.Items, it); msg != "" {
				return msg
			}
		}
	}
	return ""
}

// stringValue is the text of v when v is a JSON string: its bytes as
// written when it has no escape and is valid UTF-8 (what decoding would
// give, without a copy), else decoded (escapes resolved, invalid UTF-8
// replaced), as json.Unmarshal gives it.
func stringValue(v []byte) ([]byte, bool) {
	if len(v) < 2 || v[0] != '"' {
		return nil, false
	}
	if in := v[1 : len(v)-1]; bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) {
		return in, true
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return nil, false
	}
	return []byte(s), true
}

// numberValue is v as json.Unmarshal reads it into a float64: a number
// (out of float64's range fails), or null, which leaves 0. v is valid
// JSON, so ParseFloat sees JSON's number syntax only.
func numberValue(v []byte) (float64, bool) {
	if len(v) == 0 || v[0] == '"' {
		return 0, false
	}
	if string(v) == "null" {
		return 0, true
	}
	f, err := strconv.ParseFloat(string(v), 64)
	return f, err == nil
}

// expected describes what a property takes, e.g. "an integer ≥ 1".
func expected(p *propSchema) string {
	if p == nil {
		return "a value"
	}
	var s string
	switch p.Type {
	case "string":
		s = "a string"
		if len(p.Enum) > 0 {
			s = "one of " + quoteList(p.Enum)
		}
	case "integer":
		s = "an integer"
	case "number":
		s = "a number"
	case "boolean":
		s = "true or false"
	case "object":
		s = "an object"
		if len(p.Properties) > 0 {
			s = "an object with " + strings.Join(slices.Sorted(maps.Keys(p.Properties)), ", ")
		}
	case "array":
		s = "a list"
		if p.Items != nil {
			s = "a list of " + strings.TrimPrefix(strings.TrimPrefix(expected(p.Items), "a "), "an ") + "s"
		}
	default:
		s = "a value"
	}
	if p.Minimum != nil && p.Maximum != nil {
		s += fmt.Sprintf(" from %s to %s", num(*p.Minimum), num(*p.Maximum))
	} else if p.Minimum != nil {
		s += " ≥ " + num(*p.Minimum)
	}
	return s
}

// describeJSON names the kind of a JSON value for messages, with the value
// itself when it is short.
func describeJSON(v []byte) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "nothing"
	}
	kind := "a number"
	switch v[0] {
	case '"':
		kind = "a string"
	case '{':
		kind = "an object"
	case '[':
		kind = "a list"
	case 't', 'f':
		kind = "a boolean"
	case 'n':
		return "null"
	}
	if len(v) <= 40 {
		return kind + " " + string(v)
	}
	return kind
}

func quoteList(vals []string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = fmt.Sprintf("%q", v)
	}
	return strings.Join(q, ", ")
}

func num(f float64) string { return fmt.Sprintf("%g", f) }
